package tpcc

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stampede-bench/stampede/workload"
)

// TestHammerDBFlags: the flags of each profile are refused with the
// other, in one line naming the flag.
func TestHammerDBFlags(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--profile", "hammer"}, `--profile must be stampede or hammerdb, not "hammer"`},
		{[]string{"--stored-procs"}, "--stored-procs goes with --profile hammerdb"},
		{[]string{"--use-installed-routines"}, "--use-installed-routines goes with --profile hammerdb"},
		{[]string{"--profile", "stampede", "--all-warehouses"}, "--all-warehouses goes with --profile hammerdb"},
		{[]string{"--profile", "hammerdb", "--wait=false"}, "--wait does not apply to --profile hammerdb"},
		{[]string{"--profile", "hammerdb", "--mix", "newOrder=1"}, "--mix does not apply to --profile hammerdb"},
		{[]string{"--profile", "hammerdb", "--fks"}, "--fks does not apply to --profile hammerdb"},
		{[]string{"--profile", "hammerdb", "--stored-procs", "--partition", "--all-warehouses", "--key-and-think", "--raise-error"}, ""},
		{[]string{"--routines-only"}, "--routines-only makes the routines of --profile hammerdb or --server-side: add one of them"},
		{[]string{"--server-side", "--routines-only"}, ""},
		{[]string{"--profile", "hammerdb", "--routines-only", "--use-installed-routines"}, ""},
	}
	for _, c := range cases {
		g, err := workload.FromFlags(tpccMeta, c.args...)
		if err == nil {
			err = g.(*tpcc).validate()
		}
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%q: %v", c.args, err)
		case c.want != "" && (err == nil || !strings.HasPrefix(err.Error(), c.want) || strings.Contains(err.Error(), "\n")):
			t.Errorf("%q: %v, want one line starting %q", c.args, err, c.want)
		}
	}
}

// TestHammerDBPartitions: HammerDB's pg_partition makes no partitions
// below 200 warehouses, then warehouses/100 (integer division), and the
// ORDER_LINE table is then PARTITION BY HASH (ol_w_id).
func TestHammerDBPartitions(t *testing.T) {
	for _, c := range []struct {
		w    int
		part bool
		want int
	}{{100, true, 0}, {199, true, 0}, {200, true, 2}, {250, true, 2}, {1000, true, 10}, {1000, false, 0}} {
		if got := hammerPartitions(c.w, c.part); got != c.want {
			t.Errorf("%d warehouses, partition %v: %d partitions, want %d", c.w, c.part, got, c.want)
		}
	}
	// init says, in one line, that --partition below 200 warehouses
	// makes no partitions (load prints RunDefaults' warnings).
	for _, c := range []struct {
		args []string
		warn bool
	}{
		{[]string{"--profile", "hammerdb", "--partition", "--warehouses", "1"}, true},
		{[]string{"--profile", "hammerdb", "--partition", "--warehouses", "100"}, true},
		{[]string{"--profile", "hammerdb", "--partition", "--warehouses", "199"}, true},
		{[]string{"--profile", "hammerdb", "--partition", "--warehouses", "200"}, false},
		{[]string{"--profile", "hammerdb", "--warehouses", "100"}, false},
	} {
		w := newGen(t, c.args...).RunDefaults().Warnings
		switch {
		case !c.warn && len(w) > 0:
			t.Errorf("%q: warns %q", c.args, w)
		case c.warn && (len(w) != 1 || !strings.HasPrefix(w[0], "--partition makes no partitions below 200 warehouses") ||
			!strings.Contains(w[0], "of "+warehousesText(atoi(t, c.args[4]))+" is one table") || strings.Contains(w[0], "\n")):
			t.Errorf("%q: warnings %q, want one line saying --partition makes no partitions", c.args, w)
		}
	}
	g := newGen(t, "--profile", "hammerdb", "--partition", "--warehouses", "300")
	i := slices.IndexFunc(g.Tables(), func(tb workload.Table) bool { return tb.Name == orderLineTable })
	if s := g.Tables()[i].Schema; !strings.HasSuffix(s, ") PARTITION BY HASH (ol_w_id)") {
		t.Errorf("order_line of 300 warehouses with --partition: %s", s)
	}
}

// TestAllWarehouses: HammerDB's pg_allwarehouse gives virtual user i of n
// the warehouses i+1, i+1+n, ... of w, ceil(w/n) of them (wrapping).
func TestAllWarehouses(t *testing.T) {
	for _, c := range []struct {
		i, n int
		w    int64
		want []int64
	}{
		{0, 3, 10, []int64{1, 4, 7, 10}},
		{2, 3, 10, []int64{3, 6, 9, 2}},
		{0, 1, 3, []int64{1, 2, 3}},
		{4, 5, 2, []int64{1}},
	} {
		if got := allWarehouses(c.i, c.n, c.w); !slices.Equal(got, c.want) {
			t.Errorf("user %d of %d over %d warehouses: %v, want %v", c.i, c.n, c.w, got, c.want)
		}
	}
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestWarehousesText: "1 warehouse", not "1 warehouses" (init's
// --partition note said the latter).
func TestWarehousesText(t *testing.T) {
	if got := warehousesText(1); got != "1 warehouse" {
		t.Errorf("warehousesText(1) = %q", got)
	}
	if got := warehousesText(100); got != "100 warehouses" {
		t.Errorf("warehousesText(100) = %q", got)
	}
}
