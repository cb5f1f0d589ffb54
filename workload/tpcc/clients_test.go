package tpcc

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// TestPartitionClients: the clients' ranges are contiguous, cover every
// active warehouse once, differ in size by at most one, and are
// cockroach's partitions (its partitioner's bounds for 20 warehouses in 3
// parts are 0, 6, 13, 20: warehouses 1-6, 7-13, 14-20); each client's
// workers have home warehouses in its range only, round robin, while
// their remote warehouses range over every warehouse.
func TestPartitionClients(t *testing.T) {
	for _, tc := range []struct {
		args  []string
		count int
		want  [][2]int64 // nil: only the properties
	}{
		{[]string{"--warehouses", "20"}, 3, [][2]int64{{1, 6}, {7, 13}, {14, 20}}},
		{[]string{"--warehouses", "4"}, 2, [][2]int64{{1, 2}, {3, 4}}},
		{[]string{"--warehouses", "4"}, 4, [][2]int64{{1, 1}, {2, 2}, {3, 3}, {4, 4}}},
		{[]string{"--warehouses", "10", "--active-warehouses", "7"}, 3, [][2]int64{{1, 2}, {3, 4}, {5, 7}}},
		{[]string{"--warehouses", "1000"}, 7, nil},
		{[]string{"--warehouses", "13"}, 13, nil},
	} {
		next := int64(1)
		sizes := map[int64]bool{}
		for i := range tc.count {
			g := newGen(t, tc.args...)
			if err := g.PartitionClients(i, tc.count); err != nil {
				t.Fatalf("%v client %d of %d: %v", tc.args, i, tc.count, err)
			}
			first, last := g.home()
			if tc.want != nil && [2]int64{first, last} != tc.want[i] {
				t.Errorf("%v client %d of %d: warehouses %d-%d, want %v", tc.args, i, tc.count, first, last, tc.want[i])
			}
			if first != next || last < first {
				t.Errorf("%v client %d of %d: warehouses %d-%d, want from %d", tc.args, i, tc.count, first, last, next)
			}
			next = last + 1
			sizes[last-first+1] = true
			if rd := g.RunDefaults(); rd.Concurrency != 10*int(last-first+1) {
				t.Errorf("%v client %d: %d terminals by default, want 10 per home warehouse", tc.args, i, rd.Concurrency)
			}
		}
		if active := int64(newGen(t, tc.args...).active()); next != active+1 || len(sizes) > 2 {
			t.Errorf("%v in %d clients: cover 1-%d in sizes %v, want 1-%d", tc.args, tc.count, next-1, sizes, active)
		}
	}

	ctx := context.Background()
	g := newGen(t, "--warehouses", "4", "--wait=false")
	if err := g.PartitionClients(1, 2); err != nil {
		t.Fatal(err)
	}
	ql, err := g.Ops(ctx, nullDB(t), workload.OpsConfig{Concurrency: 5, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer ql.Close(ctx)
	homes := map[int64]int{}
	remote := map[int64]bool{}
	for _, w := range g.workers {
		homes[w.wID]++
		if w.warehouses != 4 || w.firstWID != 1 {
			t.Errorf("worker's remote warehouses %d from %d, want all 4 from 1", w.warehouses, w.firstWID)
		}
		for range 200 {
			remote[w.otherWarehouse()] = true
		}
	}
	if homes[3] != 3 || homes[4] != 2 || len(homes) != 2 {
		t.Errorf("client 1 of 2 at 4 warehouses: home warehouses %v, want 3 and 4 round robin", homes)
	}
	if !remote[1] || !remote[2] {
		t.Errorf("remote warehouses %v: want the other clients' too", remote)
	}
	if !strings.Contains(strings.Join(ql.Header, "\n"), "client 1 of 2: the terminals of warehouses 3-4 of 4") {
		t.Errorf("header %q", ql.Header)
	}
	if g.CheckAfterRun() {
		t.Error("client 1 runs the checks: client 0 does, once")
	}
}

// TestWarehouseRange: --warehouse-range's home warehouses, and its
// refusals.
func TestWarehouseRange(t *testing.T) {
	for _, tc := range []struct {
		args        []string
		clients     int
		first, last int64
		err         string
	}{
		{[]string{"--warehouses", "4", "--warehouse-range", "2:3"}, 0, 2, 3, ""},
		{[]string{"--warehouses", "4", "--warehouse-range", "4:4"}, 0, 4, 4, ""},
		{[]string{"--warehouses", "4", "--warehouse-range", "4:5"}, 0, 0, 0, "--warehouse-range 4:5 goes past warehouse 4, the last of --warehouses 4"},
		{[]string{"--warehouses", "4", "--warehouse-range", "0:2"}, 0, 0, 0, "holds no warehouse"},
		{[]string{"--warehouses", "4", "--warehouse-range", "3:2"}, 0, 0, 0, "holds no warehouse"},
		{[]string{"--warehouses", "4", "--warehouse-range", "3"}, 0, 0, 0, "is not A:B"},
		{[]string{"--warehouses", "4", "--warehouse-range", "a:b"}, 0, 0, 0, "is not A:B"},
		{[]string{"--warehouses", "4", "--warehouse-range", "1:2", "--active-warehouses", "2"}, 0, 0, 0, "with --active-warehouses"},
		{[]string{"--warehouses", "4", "--warehouse-range", "1:2"}, 2, 0, 0, "with --clients"},
		{[]string{"--warehouses", "4"}, 5, 0, 0, "--clients 5 with 4 warehouses: each client runs the terminals of warehouses of its own; use --clients 4 or fewer"},
	} {
		gen, err := workload.FromFlags(tpccMeta, tc.args...)
		g, _ := gen.(*tpcc)
		if err == nil && tc.clients > 0 {
			err = g.PartitionClients(0, tc.clients)
		}
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%v: %v, want %q", tc.args, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%v: %v", tc.args, err)
			continue
		}
		if first, last := g.home(); first != tc.first || last != tc.last || !g.CheckAfterRun() {
			t.Errorf("%v: warehouses %d-%d, want %d-%d", tc.args, first, last, tc.first, tc.last)
		}
	}
}

// TestMergeClients: the merge's rule for NOPM (the latest start read and
// the earliest end read), its efficiency over every client's warehouses,
// its audits summed, and its refusal of overlapping warehouses.
func TestMergeClients(t *testing.T) {
	t0 := time.Date(2026, 11, 29, 4, 0, 0, 0, time.UTC)
	rec := func(name string, at time.Duration, v float64) workload.Record {
		return workload.Record{Name: name, At: t0.Add(at), Value: v}
	}
	audits := func(newOrders, rollbacks float64) []workload.Record {
		return []workload.Record{rec(auditRecPrefix+"done.newOrder", 0, newOrders), rec(auditRecPrefix+"rollbacks", 0, rollbacks)}
	}
	runs := []workload.ClientRun{
		{ID: "a", Flags: map[string]string{"clients": "2", "client-index": "0", "concurrency": "20"},
			Records: append([]workload.Record{rec(recNextStart, 0, 1000), rec(recNextEnd, 62*time.Second, 1400)}, audits(200, 2)...)},
		{ID: "b", Flags: map[string]string{"clients": "2", "client-index": "1", "concurrency": "20"},
			Records: append([]workload.Record{rec(recNextStart, 2*time.Second, 1010), rec(recNextEnd, 61*time.Second, 1390)}, audits(190, 1)...)},
	}
	g := newGen(t, "--warehouses", "4")
	if err := g.MergeClients(runs); err != nil {
		t.Fatal(err)
	}
	m := g.merged
	if m.newOrders != 380 || m.to.Sub(m.at) != 59*time.Second || !m.nopmOK {
		t.Errorf("NOPM from %d New-Orders in %s; want 1390-1010 in the 59s between the latest start and earliest end reads", m.newOrders, m.to.Sub(m.at))
	}
	if m.audits.done[opNewOrder] != 390 || m.audits.rollbacks != 3 || !m.auditsPartial {
		// auditsPartial: these records hold two counters of many.
		t.Errorf("audits: %d New-Orders, %d rollbacks, partial %v; want 390, 3, partial", m.audits.done[opNewOrder], m.audits.rollbacks, m.auditsPartial)
	}
	if g.homeCount() != 4 || !g.efficientWith(40) {
		t.Errorf("merged: %d warehouses, efficient with 40 terminals %v; want 4, true", g.homeCount(), g.efficientWith(40))
	}
	figs := g.Figures(map[string]int64{"newOrder": 390}, time.Minute)
	byName := map[string]workload.Figure{}
	for _, f := range figs {
		byName[f.Name] = f
	}
	if f := byName["NOPM"]; f.Value != 380/(59.0/60) {
		t.Errorf("NOPM %+v", f)
	}
	if f := byName["efficiency"]; f.Value != efficiencyOf(390, 1, 4) {
		t.Errorf("efficiency %+v, want over 4 warehouses", f)
	}
	if f := byName["TPM"]; !strings.HasSuffix(f.Text, "counted by the clients)") {
		t.Errorf("TPM of merged clients: %q, want counted by the clients", f.Text)
	}

	// By hand: ranges 1:2 and 2:4 overlap; 1:2 and 3:3 merge over 3.
	g = newGen(t, "--warehouses", "4")
	err := g.MergeClients([]workload.ClientRun{{ID: "a", Flags: map[string]string{"warehouse-range": "1:2"}}, {ID: "b", Flags: map[string]string{"warehouse-range": "2:4"}}})
	if err == nil || !strings.Contains(err.Error(), "runs a (warehouses 1-2) and b (warehouses 2-4) ran the terminals of the same warehouses") {
		t.Errorf("overlap: %v", err)
	}
	g = newGen(t, "--warehouses", "4")
	if err := g.MergeClients([]workload.ClientRun{{ID: "a", Flags: map[string]string{"warehouse-range": "1:2"}}, {ID: "b", Flags: map[string]string{"warehouse-range": "3:3"}}}); err != nil || g.homeCount() != 3 {
		t.Errorf("1:2 and 3:3: %v, %d warehouses", err, g.homeCount())
	}
}

// TestRangeGivenNoWarehouses: given no --warehouses, --warehouse-range is
// judged against the warehouses the run takes from the load
// (AdoptWarehouses), not against the default of 1 while the flags are
// parsed (chk31 1c); under the null driver, which reads no load, against
// the default, named as such.
func TestRangeGivenNoWarehouses(t *testing.T) {
	null, err := sqlx.Open(context.Background(), sqlx.Options{Driver: sqlx.DriverNull})
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	for _, tc := range []struct {
		name  string
		rng   string
		adopt int // the load's count (0: none adopted, the null driver's run)
		// first and last are the home warehouses when the run is taken.
		first, last int64
		err         string
	}{
		{"within a load of 4", "3:4", 4, 3, 4, ""},
		{"the whole of a load of 4", "1:4", 4, 1, 4, ""},
		{"past a load of 4", "3:5", 4, 0, 0, "--warehouse-range 3:5 goes past warehouse 4, the last of the 4 warehouses that init loaded (tpcc_meta): give a range within 1:4"},
		{"past a load of 2", "3:4", 2, 0, 0, "--warehouse-range 3:4 goes past warehouse 2, the last of the 2 warehouses that init loaded (tpcc_meta): give a range within 1:2"},
		{"the null driver's default", "1:1", 0, 1, 1, ""},
		{"past the null driver's default", "3:4", 0, 0, 0, "--warehouse-range 3:4 goes past warehouse 1, the last of run's default --warehouses 1 (the null driver reads no load): give --warehouses, or a range within 1:1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Parsing defers the range's end to the load.
			gen, err := workload.FromFlags(tpccMeta, "--warehouse-range", tc.rng)
			if err != nil {
				t.Fatalf("parsing: %v", err)
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
			if first, last := g.home(); first != tc.first || last != tc.last {
				t.Errorf("home warehouses %d-%d, want %d-%d", first, last, tc.first, tc.last)
			}
		})
	}
}

// TestHammerMergeByDatabase: --profile hammerdb clients on different
// servers add their figures up; clients sharing a database count its
// growth once, between their latest start read and earliest end read;
// sharing one without those reads (an older stampede's runs) gives no
// figures, and a line why.
func TestHammerMergeByDatabase(t *testing.T) {
	t0 := time.Date(2026, 11, 29, 4, 0, 0, 0, time.UTC)
	rec := func(name string, at time.Duration, v float64) workload.Record {
		return workload.Record{Name: name, At: t0.Add(at), Value: v}
	}
	client := func(server string, nopm, tpm float64, reads bool, startAt time.Duration, next0, next1, x0, x1 float64) workload.ClientRun {
		r := workload.ClientRun{ID: server, Flags: map[string]string{"concurrency": "2"}, Server: server, Database: "tpcc",
			Records: []workload.Record{rec(figHammerNOPM, time.Minute, nopm), rec(figHammerTPM, time.Minute, tpm)}}
		if reads {
			r.Records = append(r.Records, rec(recHammerNextStart, startAt, next0), rec(recHammerNextEnd, startAt+time.Minute, next1),
				rec(recHammerXactStart, startAt, x0), rec(recHammerXactEnd, startAt+time.Minute, x1))
		}
		return r
	}
	g := newGen(t, "--profile", "hammerdb")
	if err := g.MergeClients([]workload.ClientRun{client("node1:5432", 100, 300, true, 0, 0, 100, 0, 300), client("node2:5432", 120, 310, true, 0, 0, 120, 0, 310)}); err != nil {
		t.Fatal(err)
	}
	if h := g.merged.hammer; !h.ok || h.nopm != 220 || h.tpm != 610 {
		t.Errorf("two servers: %+v, want NOPM 220 and TPM 610, added up", h)
	}
	// One database: the growth between the reads at 30s and 60s, once.
	g = newGen(t, "--profile", "hammerdb")
	if err := g.MergeClients([]workload.ClientRun{client("node1:5432", 100, 300, true, 0, 1000, 1100, 5000, 5300), client("node1:5432", 100, 300, true, 30*time.Second, 1050, 1160, 5150, 5460)}); err != nil {
		t.Fatal(err)
	}
	if h := g.merged.hammer; !h.ok || h.nopm != 100 || h.tpm != 300 || h.shared != 1 {
		t.Errorf("one database: %+v, want NOPM (1100-1050)/0.5 = 100 and TPM (5300-5150)/0.5 = 300, once", h)
	}
	g = newGen(t, "--profile", "hammerdb")
	if err := g.MergeClients([]workload.ClientRun{client("node1:5432", 100, 300, false, 0, 0, 0, 0, 0), client("node1:5432", 100, 300, false, 0, 0, 0, 0, 0)}); err != nil {
		t.Fatal(err)
	}
	if h := g.merged.hammer; h.ok || !strings.Contains(g.merged.noNOPM, "no HammerDB NOPM or TPM: 2 clients ran on server and database node1:5432 tpcc, and their runs recorded only their own figures") {
		t.Errorf("one database, old runs: %+v, %q", h, g.merged.noNOPM)
	}
}

// TestClientHeaderFewTerminals: fewer workers than the range's
// warehouses leave some without a terminal, and the header says which.
func TestClientHeaderFewTerminals(t *testing.T) {
	g := newGen(t, "--warehouses", "4", "--warehouse-range", "2:3")
	if h := g.clientHeader(1); !strings.HasSuffix(h, "; with --concurrency 1, only warehouse 2 has a terminal: give --concurrency 2 or more for every warehouse of the range") {
		t.Errorf("1 worker: %q", h)
	}
	if h := g.clientHeader(2); strings.Contains(h, "only") {
		t.Errorf("2 workers: %q", h)
	}
}

// TestHammerClientsHeader: with --profile hammerdb, --clients splits no
// warehouses, and a client's header says so in one line; without the
// profile no client's header says it.
func TestHammerClientsHeader(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want bool
	}{
		{[]string{"--warehouses", "2", "--profile", "hammerdb"}, true},
		{[]string{"--warehouses", "2"}, false},
	} {
		g := newGen(t, tc.args...)
		if err := g.PartitionClients(1, 2); err != nil {
			t.Fatal(err)
		}
		line := "tpcc: --profile hammerdb: every client's virtual users draw home warehouses over all 2, as HammerDB's do"
		got := strings.Join(g.header(sqlx.ReadCommitted, 4), "\n")
		if g.hammerdb() {
			got = strings.Join(g.hammerHeader(4), "\n")
		}
		if strings.Contains(got, line) != tc.want {
			t.Errorf("%v: header has the line %v, want %v:\n%s", tc.args, !tc.want, tc.want, got)
		}
	}
}
