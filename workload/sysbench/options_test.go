package sysbench

import (
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/stampede-bench/stampede/workload"
)

// newGen builds a workload from flags through the registry, as the CLI
// does.
func newGen(t testing.TB, name string, args ...string) *generator {
	t.Helper()
	m, ok := workload.Get(name)
	if !ok {
		t.Fatalf("workload %s is not registered", name)
	}
	g, err := workload.FromFlags(m, args...)
	if err != nil {
		t.Fatalf("FromFlags(%s, %q): %v", name, args, err)
	}
	if b, ok := g.(bulkGenerator); ok {
		return b.g
	}
	return g.(*generator)
}

// fromFlagsErr returns the error of building name with args ("" when none).
func fromFlagsErr(name string, args ...string) string {
	m, _ := workload.Get(name)
	if _, err := workload.FromFlags(m, args...); err != nil {
		return err.Error()
	}
	return ""
}

func TestRegistered(t *testing.T) {
	want := []string{
		"bulk_insert", "oltp_delete", "oltp_insert", "oltp_point_select", "oltp_read_only", "oltp_read_write",
		"oltp_update_index", "oltp_update_non_index", "oltp_write_only", "select_random_points", "select_random_ranges",
	}
	var got []string
	for _, m := range workload.Registered() {
		if _, ok := metas[m.Name]; ok {
			got = append(got, m.Name)
			if m.Description == "" || strings.Contains(m.Description, "\n") {
				t.Errorf("%s: description %q is not one line", m.Name, m.Description)
			}
			if !strings.Contains(m.Details, "stampede run "+m.Name) {
				t.Errorf("%s: details have no run example:\n%s", m.Name, m.Details)
			}
			if m.Version == "" {
				t.Errorf("%s: no version", m.Name)
			}
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("registered %q, want %q", got, want)
	}
}

// sysbenchDefaults are sysbench 1.0.20's option defaults, as `sysbench
// oltp_read_write help`, `sysbench select_random_points help` and
// `sysbench --help` print them (booleans as pflag prints them).
var sysbenchDefaults = map[string]string{
	"tables":            "1",
	"table_size":        "10000",
	"range_size":        "100",
	"point_selects":     "10",
	"simple_ranges":     "1",
	"sum_ranges":        "1",
	"order_ranges":      "1",
	"distinct_ranges":   "1",
	"index_updates":     "1",
	"non_index_updates": "1",
	"delete_inserts":    "1",
	"range_selects":     "true",
	"auto_inc":          "true",
	"skip_trx":          "false",
	"secondary":         "false",
	"create_secondary":  "true",
	"rand-type":         "special",
	"rand-spec-iter":    "12",
	"rand-spec-pct":     "1",
	"rand-spec-res":     "75",
	"rand-pareto-h":     "0.2",
	"rand-zipfian-exp":  "0.8",
	"random_points":     "10",
	"number_of_ranges":  "10",
	"delta":             "5",
}

var (
	oltpFlags = []string{
		"auto_inc", "create_secondary", "delete_inserts", "distinct_ranges", "index_updates", "non_index_updates",
		"order_ranges", "point_selects", "range_selects", "range_size", "secondary", "simple_ranges", "skip_trx",
		"sum_ranges", "table_size", "tables",
	}
	randFlags = []string{"rand-pareto-h", "rand-spec-iter", "rand-spec-pct", "rand-spec-res", "rand-type", "rand-zipfian-exp"}
)

func TestFlags(t *testing.T) {
	oltp := append(append([]string(nil), oltpFlags...), randFlags...)
	for _, tc := range []struct {
		name  string
		flags []string
	}{
		{"oltp_point_select", oltp},
		{"oltp_read_only", oltp},
		{"oltp_read_write", oltp},
		{"oltp_write_only", oltp},
		{"oltp_insert", oltp},
		{"oltp_delete", oltp},
		{"oltp_update_index", oltp},
		{"oltp_update_non_index", oltp},
		{"bulk_insert", nil},
		{"select_random_points", append([]string{"random_points"}, oltp...)},
		{"select_random_ranges", append([]string{"delta", "number_of_ranges"}, oltp...)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := newGen(t, tc.name)
			var got []string
			g.Flags().VisitAll(func(f *pflag.Flag) {
				got = append(got, f.Name)
				if want, ok := sysbenchDefaults[f.Name]; !ok || f.DefValue != want {
					t.Errorf("--%s defaults to %q, sysbench's is %q", f.Name, f.DefValue, want)
				}
				data := map[string]bool{"tables": true, "table_size": true, "auto_inc": true, "secondary": true, "create_secondary": true}
				wantRuntime := !data[f.Name] && !strings.HasPrefix(f.Name, "rand-")
				if got := g.Flags().Meta[f.Name].RuntimeOnly; got != wantRuntime {
					t.Errorf("--%s: RuntimeOnly %v, want %v", f.Name, got, wantRuntime)
				}
			})
			want := append([]string(nil), tc.flags...)
			sort.Strings(want)
			if !slices.Equal(got, want) {
				t.Errorf("flags %q\nwant  %q", got, want)
			}
			for _, banned := range []string{"threads", "time", "events", "rate", "report-interval", "percentile", "histogram", "rand-seed"} {
				if g.Flags().Lookup(banned) != nil {
					t.Errorf("--%s is the CLI's", banned)
				}
			}
		})
	}
}

func TestConfigDefaults(t *testing.T) {
	g := newGen(t, "oltp_read_write")
	c := g.cfg
	if c.tables != 1 || c.tableSize != 10000 || c.pointSelects != 10 || c.rangeSize != 100 ||
		!c.rangeSelects || !c.autoInc || c.skipTrx || c.secondary || !c.createSecondary ||
		c.randType != "special" || c.rand.SpecIter != 12 || c.rand.SpecPct != 1 || c.rand.SpecRes != 75 ||
		c.rand.ParetoH != 0.2 || c.rand.ZipfianExp != 0.8 {
		t.Errorf("defaults %+v", c)
	}
}

func TestBooleanSpellings(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want bool
	}{
		{[]string{"--skip_trx"}, true},
		{[]string{"--skip_trx=on"}, true},
		{[]string{"--skip_trx=ON"}, true},
		{[]string{"--skip_trx=true"}, true},
		{[]string{"--skip_trx=yes"}, true},
		{[]string{"--skip_trx=1"}, true},
		{[]string{"--skip_trx=off"}, false},
		{[]string{"--skip_trx=false"}, false},
		{[]string{"--skip_trx=0"}, false},
		{nil, false},
	} {
		if got := newGen(t, "oltp_read_write", tc.args...).cfg.skipTrx; got != tc.want {
			t.Errorf("%q: skip_trx %v, want %v", tc.args, got, tc.want)
		}
	}
	if got := newGen(t, "oltp_read_write", "--auto_inc=off", "--range_selects=off").cfg; got.autoInc || got.rangeSelects {
		t.Errorf("--auto_inc=off --range_selects=off gave %+v", got)
	}
	if err := fromFlagsErr("oltp_read_write", "--skip_trx=maybe"); !strings.Contains(err, `"maybe" is not a boolean: use on or off`) {
		t.Errorf("--skip_trx=maybe: %s", err)
	}
}

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		err  string
	}{
		{"oltp_read_write", []string{"--tables=0"}, "--tables=0: need at least 1 table"},
		{"oltp_read_write", []string{"--tables=-3"}, "--tables=-3: need at least 1 table"},
		{"oltp_read_write", []string{"--table_size=0"}, "--table_size=0: need at least 1 row per table"},
		{"oltp_read_write", []string{"--table_size=3000000000"}, "--table_size=3000000000: ids are INTEGERs, at most 2147483647"},
		{"oltp_read_write", []string{"--table_size=2147483647", "--range_size=2"}, "--range_size=2: ranges from id 2147483647 would pass the INTEGER limit 2147483647"},
		{"oltp_read_write", []string{"--point_selects=-1"}, "--point_selects=-1: must not be negative"},
		{"oltp_read_write", []string{"--range_size=-1"}, "--range_size=-1: must not be negative"},
		{"oltp_read_write", []string{"--delete_inserts=-2"}, "--delete_inserts=-2: must not be negative"},
		{"oltp_write_only", []string{"--non_index_updates=-1"}, "--non_index_updates=-1: must not be negative"},
		{"oltp_read_only", []string{"--rand-type=bogus"}, "--rand-type=bogus: unknown distribution (valid: uniform, gaussian, special, pareto, zipfian)"},
		{"oltp_read_only", []string{"--rand-spec-iter=0"}, "--rand-spec-iter=0: need at least 1 iteration"},
		{"oltp_read_only", []string{"--rand-spec-pct=101"}, "--rand-spec-pct=101: must be a percentage, 0 to 100"},
		{"oltp_read_only", []string{"--rand-spec-res=-1"}, "--rand-spec-res=-1: must be a percentage, 0 to 100"},
		{"oltp_read_only", []string{"--rand-pareto-h=1"}, "--rand-pareto-h=1: must be between 0 and 1, exclusive"},
		{"oltp_read_only", []string{"--rand-zipfian-exp=-0.5"}, "--rand-zipfian-exp=-0.5: must be a non-negative number"},
		{"select_random_points", []string{"--random_points=0"}, "--random_points=0: need at least 1 point"},
		{"select_random_points", []string{"--tables=2"}, ""}, // as sysbench 1.0.20's: sbtest1 is read
		{"select_random_ranges", []string{"--number_of_ranges=0"}, "--number_of_ranges=0: need at least 1 range"},
		{"select_random_ranges", []string{"--delta=-1"}, "--delta=-1: must not be negative"},
		{"bulk_insert", []string{"--tables=2"}, "unknown flag: --tables"},
		{"oltp_read_write", []string{"--tables=24", "--table_size=100000", "--rand-type=pareto", "--skip_trx=on"}, ""},
		{"oltp_read_write", []string{"--rand-type=zipfian", "--rand-zipfian-exp=1.2"}, ""},
		{"oltp_read_write", []string{"--point_selects=0", "--range_size=0"}, "--range_size=0: a range SELECT must span at least 1 id; to run none, give --range_selects=off"},
		{"oltp_read_write", []string{"--range_selects=off", "--range_size=0"}, ""},
		{"oltp_read_write", []string{"--simple_ranges=0", "--sum_ranges=0", "--order_ranges=0", "--distinct_ranges=0", "--range_size=0"}, ""},
	} {
		t.Run(strings.Join(append([]string{tc.name}, tc.args...), " "), func(t *testing.T) {
			if got := fromFlagsErr(tc.name, tc.args...); got != tc.err {
				t.Errorf("error %q\nwant  %q", got, tc.err)
			}
		})
	}
}

func TestPrepareHint(t *testing.T) {
	g := newGen(t, "oltp_read_write", "--tables=3", "--table_size=500", "--point_selects=2", "--auto_inc=off")
	want := "`stampede prepare oltp_read_write --auto_inc=false --table_size=500 --tables=3` (or `stampede init oltp_read_write --auto_inc=false --table_size=500 --tables=3`)"
	if got := g.prepareHint(); got != want {
		t.Errorf("hint %s\nwant %s", got, want)
	}
}
