package tpcc

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

func TestWaitFactorFlag(t *testing.T) {
	for _, tc := range []struct {
		args   []string
		factor float64
		wait   bool
		err    string
	}{
		{nil, 1, true, ""},
		{[]string{"--wait"}, 1, true, ""},
		{[]string{"--wait=false"}, 0, false, ""},
		{[]string{"--wait=off"}, 0, false, ""},
		{[]string{"--wait=0.5"}, 0.5, true, ""},
		{[]string{"--wait=2"}, 2, true, ""},
		{[]string{"--wait=-1"}, 0, false, "factor"},
		{[]string{"--wait=soon"}, 0, false, "factor"},
	} {
		g := newTPCC().(*tpcc)
		err := g.flags.Parse(tc.args)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%v: error %v, want one about %q", tc.args, err, tc.err)
			}
			continue
		}
		if err != nil || g.waitFactor != tc.factor || g.wait != tc.wait {
			t.Errorf("%v: factor %g wait %v err %v, want %g %v", tc.args, g.waitFactor, g.wait, err, tc.factor, tc.wait)
		}
	}
	if got := scaleWait(18*time.Second, 0.5); got != 9*time.Second {
		t.Errorf("scaleWait(18s, 0.5) = %s", got)
	}
}

func TestActiveWarehousesDefaults(t *testing.T) {
	g := newTPCC().(*tpcc)
	if err := g.flags.Parse([]string{"--warehouses=4", "--active-warehouses=2"}); err != nil {
		t.Fatal(err)
	}
	if err := g.validate(); err != nil {
		t.Fatal(err)
	}
	if rd := g.RunDefaults(); rd.Concurrency != 20 || rd.Conns != 4 {
		t.Errorf("RunDefaults %+v: want 10 terminals and 2 connections per active warehouse", rd)
	}
	if !g.efficientWith(20) || g.efficientWith(40) {
		t.Error("efficiency is over the active warehouses' 10 terminals each")
	}
	bad := newTPCC().(*tpcc)
	_ = bad.flags.Parse([]string{"--warehouses=2", "--active-warehouses=3"})
	if err := bad.validate(); err == nil || !strings.Contains(err.Error(), "--active-warehouses") {
		t.Errorf("--active-warehouses above --warehouses: %v", err)
	}
}

func TestTurnsLimitConcurrentTransactions(t *testing.T) {
	if newTurns(0, 10) != nil || newTurns(10, 10) != nil {
		t.Error("no limit should need no semaphore")
	}
	tr := newTurns(2, 10)
	ctx := t.Context()
	if !tr.take(ctx) || !tr.take(ctx) {
		t.Fatal("two turns")
	}
	select {
	case tr <- struct{}{}:
		t.Fatal("a third worker got a turn")
	default:
	}
	tr.give()
	if !tr.take(ctx) {
		t.Fatal("a turn given back is taken again")
	}
}

func TestCockroachAuditsJudge(t *testing.T) {
	var tot auditTotals
	tot.done[opNewOrder] = 20000
	tot.rollbacks = 200
	for n := 5; n <= 15; n++ {
		tot.lineCounts[n] = 20000 / 11
	}
	tot.done[opPayment] = 20000
	tot.paymentsByName = 12000
	tot.remotePayments = 3000
	tot.done[opOrderStatus] = 500
	tot.done[opDelivery] = 12000
	tot.skippedDistricts = 500
	var lines int64
	for n, c := range tot.lineCounts {
		lines += int64(n) * c
	}
	tot.remoteLines = lines / 100
	got := map[string]workload.Audit{}
	for _, a := range crdbJudge(tot, 4) {
		got[a.Name] = a
	}
	for name, want := range map[string]string{
		"9.2.1.7": "FAIL", "9.2.2.5.1": "PASS", "9.2.2.5.2": "PASS", "9.2.2.5.3": "PASS",
		"9.2.2.5.4": "PASS", "9.2.2.5.5": "PASS", "9.2.2.5.6": "SKIP",
	} {
		if got[name].Result != want {
			t.Errorf("%s: %+v, want %s", name, got[name], want)
		}
	}
	if d := got["9.2.2.5.6"].Detail; d != "not enough order status transactions to be statistically significant" {
		t.Errorf("9.2.2.5.6 detail %q", d)
	}
	if d := got["9.2.1.7"].Detail; d != "expected no more than 120 skipped deliveries, got 500" {
		t.Errorf("9.2.1.7 detail %q", d)
	}
	if len(crdbJudge(auditTotals{}, 1)) != 7 {
		t.Error("seven audit lines, as cockroach prints")
	}
}

// TestColumnFamilies checks the schemas with cockroach's column families:
// every column of WAREHOUSE, DISTRICT and CUSTOMER in exactly one family,
// and no family in the other tables or without SetColumnFamilies.
func TestColumnFamilies(t *testing.T) {
	g := newGen(t)
	for _, tab := range g.Tables() {
		if strings.Contains(tab.Schema, "FAMILY") {
			t.Errorf("%s has families by default: %s", tab.Name, tab.Schema)
		}
	}
	g.SetColumnFamilies(true)
	familied := map[string]bool{}
	for _, tab := range g.Tables() {
		if !strings.Contains(tab.Schema, "FAMILY") {
			continue
		}
		familied[tab.Name] = true
		if !strings.HasSuffix(tab.Schema, "\n)") {
			t.Errorf("%s: schema does not end with its parenthesis: %q", tab.Name, tab.Schema)
		}
		body := tab.Schema[strings.Index(tab.Schema, "FAMILY"):]
		inFamily := map[string]int{}
		for _, m := range regexp.MustCompile(`FAMILY \w+ \(([^)]*)\)`).FindAllStringSubmatch(body, -1) {
			for _, c := range strings.Split(m[1], ",") {
				inFamily[strings.TrimSpace(c)]++
			}
		}
		for _, c := range tab.Columns {
			if inFamily[c] != 1 {
				t.Errorf("%s: column %s is in %d families", tab.Name, c, inFamily[c])
			}
		}
		if len(inFamily) != len(tab.Columns) {
			t.Errorf("%s: families name %d columns, the table has %d", tab.Name, len(inFamily), len(tab.Columns))
		}
	}
	if len(familied) != 3 || !familied["warehouse"] || !familied["district"] || !familied["customer"] {
		t.Errorf("tables with families: %v, want warehouse, district and customer", familied)
	}
}

// TestActiveGivenNoWarehouses: given no --warehouses, --active-warehouses
// is judged against the warehouses the run takes from the load
// (AdoptWarehouses), not against the default of 1 while the flags are
// parsed (issue 31); under the null driver, which reads no load, against
// the default, named as such; given --warehouses, against it.
func TestActiveGivenNoWarehouses(t *testing.T) {
	null, err := sqlx.Open(context.Background(), sqlx.Options{Driver: sqlx.DriverNull})
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	for _, tc := range []struct {
		name  string
		args  []string
		adopt int // the load's count (0: none adopted, the null driver's run)
		// home is the last home warehouse when the run is taken.
		home int64
		err  string
	}{
		{"within a load of 4", []string{"--active-warehouses", "3"}, 4, 3, ""},
		{"every warehouse of a load of 4", []string{"--active-warehouses", "4"}, 4, 4, ""},
		{"past a load of 4", []string{"--active-warehouses", "5"}, 4, 0,
			"--active-warehouses 5 is more than the 4 warehouses that init loaded (tpcc_meta): give --active-warehouses 4 or fewer, or load more with `stampede init tpcc --drop --warehouses 5`"},
		{"past a load of 2", []string{"--active-warehouses", "3"}, 2, 0,
			"--active-warehouses 3 is more than the 2 warehouses that init loaded (tpcc_meta): give --active-warehouses 2 or fewer, or load more with `stampede init tpcc --drop --warehouses 3`"},
		{"the null driver's default", []string{"--active-warehouses", "1"}, 0, 1, ""},
		{"past the null driver's default", []string{"--active-warehouses", "2"}, 0, 0,
			"--active-warehouses 2 is more than run's default --warehouses 1 (the null driver reads no load): give --warehouses, or --active-warehouses 1 or fewer"},
		{"past --warehouses given", []string{"--warehouses", "2", "--active-warehouses", "3"}, 0, 0,
			"--active-warehouses 3 must be at most --warehouses 2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			gen, err := workload.FromFlags(tpccMeta, tc.args...)
			if strings.Contains(strings.Join(tc.args, " "), "--warehouses") {
				// Given --warehouses, parsing judges it at once.
				if err == nil || err.Error() != tc.err {
					t.Fatalf("parsing: %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("parsing: %v (it defers the count to the load)", err)
			}
			g := gen.(*tpcc)
			if tc.adopt > 0 {
				if err := g.AdoptWarehouses(tc.adopt); err != nil {
					t.Fatal(err)
				}
				err = g.validate() // as PreRun does first
			} else {
				err = g.preRun(context.Background(), null)
			}
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("%v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if first, last := g.home(); first != 1 || last != tc.home {
				t.Errorf("home warehouses %d-%d, want 1-%d", first, last, tc.home)
			}
		})
	}
}
