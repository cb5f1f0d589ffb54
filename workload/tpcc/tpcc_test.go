package tpcc

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/randgen"
	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// newGen returns a tpcc generator configured by args.
func newGen(t testing.TB, args ...string) *tpcc {
	t.Helper()
	g, err := workload.FromFlags(tpccMeta, args...)
	if err != nil {
		t.Fatalf("FromFlags(%q): %v", args, err)
	}
	return g.(*tpcc)
}

func TestRegistered(t *testing.T) {
	m, ok := workload.Get("tpcc")
	if !ok {
		t.Fatal("tpcc is not registered")
	}
	if m.DatabaseName() != "tpcc" || m.Version != schemaVersion {
		t.Errorf("Meta: database %q version %q", m.DatabaseName(), m.Version)
	}
	g := newGen(t)
	if g.warehouses != 1 || g.fks || !g.wait || g.isolation != "read-committed" {
		t.Errorf("defaults: %+v", g)
	}
	if want := []int{10, 10, 1, 1, 1}; !reflect.DeepEqual(g.weights, want) {
		t.Errorf("default mix %v, want %v", g.weights, want)
	}
	for _, f := range []string{"wait", "mix", "isolation"} {
		if !g.Flags().Meta[f].RuntimeOnly {
			t.Errorf("--%s is not runtime-only", f)
		}
	}
}

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		args []string
		err  string
	}{
		{nil, ""},
		{[]string{"--warehouses", "3", "--fks", "--wait=false", "--mix", "payment=1"}, ""},
		{[]string{"--warehouses", "0"}, "--warehouses must be at least 1, not 0"},
		{[]string{"--mix", "newOrder=1,bogus=2"}, `unknown transaction "bogus"`},
		{[]string{"--mix", "newOrder"}, "is not name=weight"},
		{[]string{"--mix", "newOrder=-1"}, "weight of newOrder"},
		{[]string{"--mix", "newOrder=0"}, "add up to 0"},
		{[]string{"--isolation", "read-uncommitted"}, "--isolation must be"},
		{[]string{"--isolation", "read-committed"}, ""},
		{[]string{"--isolation", "repeatable-read"}, ""},
		{[]string{"--isolation", "serializable"}, ""},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			_, err := workload.FromFlags(tpccMeta, tc.args...)
			if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
				t.Fatalf("error %v, want %q", err, tc.err)
			}
		})
	}
}

func TestNURandAndCDelta(t *testing.T) {
	r := randgen.New(1, 2)
	for _, tc := range []struct{ a, x, y int64 }{{nurandCLast, 0, 999}, {nurandCID, 1, 3000}, {nurandOLIID, 1, numItems}} {
		for c := int64(0); c <= tc.a; c += tc.a / 7 {
			for range 2000 {
				if v := randgen.NURand(r, tc.a, c, tc.x, tc.y); v < tc.x || v > tc.y {
					t.Fatalf("NURand(%d, %d, %d) with C %d = %d", tc.a, tc.x, tc.y, c, v)
				}
			}
		}
	}
	for _, tc := range []struct {
		d  int64
		ok bool
	}{{64, false}, {65, true}, {-65, true}, {95, true}, {96, false}, {-96, false}, {112, false}, {119, true}, {120, false}, {0, false}} {
		if validCDelta(tc.d) != tc.ok {
			t.Errorf("validCDelta(%d) = %v", tc.d, !tc.ok)
		}
	}
	// Every load-time C admits run-time Cs, all at a valid distance.
	for cLoad := int64(0); cLoad <= nurandCLast; cLoad++ {
		for s := range uint64(20) {
			c := runConstants(randgen.New(s, 0), cLoad)
			if !validCDelta(c.cLast-cLoad) || c.cLast < 0 || c.cLast > nurandCLast || c.cID > nurandCID || c.olIID > nurandOLIID {
				t.Fatalf("load C %d: run constants %+v", cLoad, c)
			}
		}
	}
	if c := loadCLast(7); c < 0 || c > nurandCLast || c != loadCLast(7) {
		t.Errorf("loadCLast(7) = %d", c)
	}
}

func TestLastName(t *testing.T) {
	for n, want := range map[int64]string{0: "BARBARBAR", 371: "PRICALLYOUGHT", 999: "EINGEINGEING", 40: "BARPRESBAR"} {
		if got := lastName(n); got != want {
			t.Errorf("lastName(%d) = %s, want %s", n, got, want)
		}
	}
}

// tableRows returns every row of table name.
func tableRows(t *testing.T, g *tpcc, name string) [][]any {
	t.Helper()
	var bt workload.BatchedTuples
	if name == orderTable {
		name = orderName
	}
	for _, tab := range g.Tables() {
		if tab.Name == name {
			bt = tab.InitialRows
		}
	}
	var rows [][]any
	for b := range bt.NumBatches {
		rows = bt.FillBatch(b, rows)
	}
	return rows
}

func TestCardinalities(t *testing.T) {
	if testing.Short() {
		t.Skip("generates 2 warehouses")
	}
	g := newGen(t, "--warehouses", "2")
	g.SetSeed(5)
	want := map[string]int{
		metaTable: 0, warehouseTable: 2, districtTable: 20, customerTable: 60000, historyTable: 60000,
		orderName: 60000, newOrderTable: 18000, stockTable: 200000, itemTable: 100000,
	}
	counts := map[string]int{}
	for _, tab := range g.Tables() {
		rows := tableRows(t, g, tab.Name)
		counts[tab.Name] = len(rows)
		for _, row := range rows {
			if len(row) != len(tab.Columns) {
				t.Fatalf("%s: row of %d values, %d columns", tab.Name, len(row), len(tab.Columns))
			}
		}
		if tab.Name == orderLineTable {
			// Checked against the orders below.
			continue
		}
		if n := want[tab.Name]; len(rows) != n {
			t.Errorf("%s: %d rows, want %d", tab.Name, len(rows), n)
		}
		if tab.InitialRows.NumBatches > 0 && tab.InitialRows.NumRows != int64(len(rows)) {
			t.Errorf("%s: NumRows %d, generated %d", tab.Name, tab.InitialRows.NumRows, len(rows))
		}
	}
	var olSum int64
	for _, o := range tableRows(t, g, orderTable) {
		olSum += o[6].(int64)
		if n := o[6].(int64); n < minOLCnt || n > maxOLCnt {
			t.Fatalf("O_OL_CNT %d", n)
		}
		if (o[5] == nil) != (o[0].(int64) >= firstNewOrder) {
			t.Fatalf("order %v: carrier %v", o[0], o[5])
		}
	}
	if int64(counts[orderLineTable]) != olSum {
		t.Errorf("%d order lines, sum(O_OL_CNT) = %d", counts[orderLineTable], olSum)
	}

	// Customer rules of clauses 4.3.2.3 and 4.3.3.1.
	cLoad := loadCLast(5)
	bc, original := 0, 0
	for i, c := range tableRows(t, g, customerTable) {
		id := c[0].(int64)
		last := c[5].(string)
		if id <= 1000 && last != lastName(id-1) {
			t.Fatalf("customer %d (row %d): C_LAST %s, want %s", id, i, last, lastName(id-1))
		}
		if c[13] == "BC" {
			bc++
		}
		if n := len(c[20].(string)); n < 300 || n > 500 {
			t.Fatalf("C_DATA of %d characters", n)
		}
		if z := c[10].(string); len(z) != 9 || !strings.HasSuffix(z, "11111") {
			t.Fatalf("zip %q", z)
		}
	}
	if bc < 5400 || bc > 6600 {
		t.Errorf("%d of 60000 customers with BC credit, want about 10%%", bc)
	}
	for _, it := range tableRows(t, g, itemTable) {
		if strings.Contains(it[4].(string), "ORIGINAL") {
			original++
		}
	}
	if original < 9000 || original > 11000 {
		t.Errorf("%d of 100000 items ORIGINAL, want about 10%%", original)
	}
	_ = cLoad
}

func TestBatchDeterminism(t *testing.T) {
	g1, g2 := newGen(t, "--warehouses", "2"), newGen(t, "--warehouses", "2")
	g1.SetSeed(9)
	g2.SetSeed(9)
	t1, t2 := g1.Tables(), g2.Tables()
	for i, tab := range t1 {
		n := tab.InitialRows.NumBatches
		if n == 0 {
			continue
		}
		// The last batch alone, then after others, is the same.
		a := tab.InitialRows.FillBatch(n-1, nil)
		_ = t2[i].InitialRows.FillBatch(0, nil)
		b := t2[i].InitialRows.FillBatch(n-1, nil)
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%s: batch %d differs between generators", tab.Name, n-1)
		}
	}
	a, b := g1.fillOrder(13, nil), g2.fillOrder(13, nil)
	if !reflect.DeepEqual(a, b) {
		t.Error("order batch 13 differs")
	}
	g2.SetSeed(10)
	if reflect.DeepEqual(g1.fillCustomer(3, nil), g2.fillCustomer(3, nil)) {
		t.Error("customer batch 3 is the same under another seed")
	}
}

func TestDeckMix(t *testing.T) {
	w := &worker{r: randgen.New(1, 1), deck: newDeck([]int{10, 10, 1, 1, 1})}
	counts := make([]int, len(txs))
	for range 23 * 100 {
		counts[w.draw()]++
	}
	if want := []int{1000, 1000, 100, 100, 100}; !reflect.DeepEqual(counts, want) {
		t.Errorf("100 decks drew %v, want %v", counts, want)
	}
	for range 1000 {
		d := w.thinkTime(12 * time.Second)
		if d < 0 || d > 120*time.Second {
			t.Fatalf("think time %v", d)
		}
	}
}

// nullDB opens the null driver.
func nullDB(t testing.TB) *sqlx.DB {
	db, err := sqlx.Open(context.Background(), sqlx.Options{Driver: sqlx.DriverNull})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(db.Close)
	return db
}

func TestWorkerNull(t *testing.T) {
	ctx := context.Background()
	g := newGen(t, "--warehouses", "3")
	ql, err := g.Ops(ctx, nullDB(t), workload.OpsConfig{Concurrency: 4, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer ql.Close(ctx)
	if !reflect.DeepEqual(ql.Ops, []string{"newOrder", "payment", "orderStatus", "delivery", "stockLevel"}) {
		t.Errorf("Ops %v", ql.Ops)
	}
	seen := make([]int, len(txs))
	for i := range 230 {
		res := ql.Workers[i%4](ctx)
		if res.Err != nil {
			t.Fatal(res.Err)
		}
		if res.Wait < time.Second {
			t.Fatalf("--wait: Wait %v", res.Wait)
		}
		seen[res.Op]++
	}
	for op, n := range seen {
		if n == 0 {
			t.Errorf("%s never ran", txs[op].name)
		}
	}
	g = newGen(t, "--wait=false")
	ql, err = g.Ops(ctx, nullDB(t), workload.OpsConfig{Concurrency: 1, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if res := ql.Workers[0](ctx); res.Err != nil || res.Wait != 0 {
		t.Errorf("--wait=false: %+v", res)
	}
}

func BenchmarkWorkerNull(b *testing.B) {
	ctx := context.Background()
	g := newGen(b, "--wait=false")
	ql, err := g.Ops(ctx, nullDB(b), workload.OpsConfig{Concurrency: 1, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	defer ql.Close(ctx)
	b.ReportAllocs()
	for b.Loop() {
		if res := ql.Workers[0](ctx); res.Err != nil {
			b.Fatal(res.Err)
		}
	}
}

func BenchmarkFillOrderLine(b *testing.B) {
	g := newGen(b)
	var rows [][]any
	for b.Loop() {
		rows = g.fillOrderLine(3, rows[:0])
	}
}

// TestFigures checks the figures and when each is given: efficiency only
// with the specification's keying and think times (not a --wait factor of
// them) and 10 terminals per warehouse, all running, NOPM only
// from a measured interval, each labelled with where it comes from.
func TestFigures(t *testing.T) {
	ctx := context.Background()
	counts := map[string]int64{"newOrder": 1286, "payment": 1200, "orderStatus": 100}
	near := func(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }
	for _, tc := range []struct {
		name    string
		args    []string
		workers int
		want    []string // figure names
	}{
		{"10 terminals per warehouse", []string{"--warehouses", "10"}, 100, []string{"tpmC", "efficiency", "TPM"}},
		{"other terminals", []string{"--warehouses", "10"}, 40, []string{"tpmC", "TPM"}},
		{"no waits", []string{"--warehouses", "10", "--wait=false"}, 100, []string{"tpmC", "TPM"}},
		{"waits halved", []string{"--warehouses", "10", "--wait=0.5"}, 100, []string{"tpmC", "TPM"}},
		{"fewer terminals at once", []string{"--warehouses", "10", "--active-workers=50"}, 100, []string{"tpmC", "TPM"}},
		{"all terminals at once", []string{"--warehouses", "10", "--active-workers=100"}, 100, []string{"tpmC", "efficiency", "TPM"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := newGen(t, tc.args...)
			ql, err := g.Ops(ctx, nullDB(t), workload.OpsConfig{Concurrency: tc.workers, Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			defer ql.Close(ctx)
			var names []string
			byName := map[string]workload.Figure{}
			for _, f := range g.Figures(counts, 10*time.Minute) {
				names = append(names, f.Name)
				byName[f.Name] = f
			}
			if !reflect.DeepEqual(names, tc.want) {
				t.Fatalf("figures %v, want %v", names, tc.want)
			}
			if f := byName["tpmC"]; !near(f.Value, 128.6) || !strings.Contains(f.Text, "rolled-back ones included; counted by the client") {
				t.Errorf("tpmC %+v", f)
			}
			// The interval's numbers are TestEfficiencyText's.
			if f, ok := byName["efficiency"]; ok && (!near(f.Value, 100) || !strings.HasPrefix(f.Text, "100.0% (95% interval ") ||
				!strings.Contains(f.Text, " from the count; tpmC / (12.86 x 10 warehouses), from 1,286 New-Orders); above the mix's maximum of 98.0% by sampling noise only")) {
				t.Errorf("efficiency %+v", f)
			}
			if f := byName["TPM"]; !near(f.Value, 258.6) {
				t.Errorf("TPM %+v", f)
			}
		})
	}

	// A measured interval gives NOPM: the growth of sum(d_next_o_id)
	// between the two reads, per minute between them.
	g := newGen(t)
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	g.run.meas = measurement{started: true, nextStart: 30010, nextEnd: 30910, startAt: t0, endAt: t0.Add(2 * time.Minute), ok: true}
	figs := g.Figures(counts, 2*time.Minute)
	// Observed, and after the figures counted by the client.
	if f := figs[len(figs)-1]; f.Name != "NOPM" || !f.Observed || !near(f.Value, 450) ||
		f.Text != "450 (from the server, as HammerDB: sum(d_next_o_id) grew by 900, the committed New-Orders, in 2m0s)" {
		t.Errorf("NOPM %+v", f)
	}
	// With --profile hammerdb, HammerDB's NOPM (per minute of --duration)
	// is on the same screen: stampede's says which it is.
	gh := newGen(t, "--profile", "hammerdb")
	gh.run.meas = g.run.meas
	figs = gh.Figures(counts, 2*time.Minute)
	if f := figs[len(figs)-1]; f.Name != "NOPM" || f.Text != "450 (from the server, as HammerDB: sum(d_next_o_id) grew by 900, the committed New-Orders, in 2m0s"+
		"; stampede's, per minute of the time measured: HammerDB's, per minute of --duration, is hammerdb_nopm's TEST RESULT)" {
		t.Errorf("--profile hammerdb's NOPM %+v", f)
	}
}

// TestRunWarnings checks the one-line warnings of Ops: a mix under the
// minimums, terminals other than 10 per warehouse with waits, a ramp
// longer than the measurement.
func TestRunWarnings(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		oc   workload.OpsConfig
		want []string
	}{
		{"conformant", nil, workload.OpsConfig{Concurrency: 10, Ramp: time.Minute, Duration: 2 * time.Minute}, nil},
		{"no waits", []string{"--wait=false"}, workload.OpsConfig{Concurrency: 3}, nil},
		{"mix", []string{"--wait=false", "--mix", "newOrder=46,payment=43,orderStatus=3,delivery=4,stockLevel=4"},
			workload.OpsConfig{Concurrency: 3},
			[]string{"--mix gives orderStatus 3.0% (minimum 4%) of the transactions, under the minimums of clause 5.2.3: the run is not TPC-C conformant"}},
		{"mix of one", []string{"--wait=false", "--mix", "newOrder=1"}, workload.OpsConfig{Concurrency: 3},
			[]string{"--mix gives payment 0.0% (minimum 43%), orderStatus 0.0% (minimum 4%), delivery 0.0% (minimum 4%), stockLevel 0.0% (minimum 4%) of the transactions, under the minimums of clause 5.2.3: the run is not TPC-C conformant"}},
		{"terminals", []string{"--warehouses", "2"}, workload.OpsConfig{Concurrency: 8},
			[]string{"--concurrency 8 with --wait: TPC-C has 10 terminals per warehouse (20 for 2 warehouses), and efficiency is TPC-C's only with them: it is not printed"}},
		{"ramp", nil, workload.OpsConfig{Concurrency: 10, Ramp: 2 * time.Minute, Duration: time.Minute},
			[]string{"--ramp 2m0s is longer than --duration 1m0s: the figures cover only the 1m0s after the ramp"}},
		{"no ramp", nil, workload.OpsConfig{Concurrency: 10, Duration: time.Minute},
			[]string{"TPC-C's waits are on by default and there is no ramp: the terminals start idle and reach their steady rate after a minute or so, which the figures count: give --ramp 1m or more"}},
		{"--wait without ramp", []string{"--wait"}, workload.OpsConfig{Concurrency: 10, Duration: time.Minute},
			[]string{"--wait without --ramp: the terminals start idle and reach their steady rate after a minute or so, which the figures count: give --ramp 1m or more"}},
		{"no ramp without waits", []string{"--wait=false"}, workload.OpsConfig{Concurrency: 10, Duration: time.Minute}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := newGen(t, tc.args...)
			var got []string
			tc.oc.Warn = func(format string, args ...any) { got = append(got, fmt.Sprintf(format, args...)) }
			ql, err := g.Ops(context.Background(), nullDB(t), tc.oc)
			if err != nil {
				t.Fatal(err)
			}
			ql.Close(context.Background())
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("warnings %q, want %q", got, tc.want)
			}
		})
	}
}

// TestFirstWaitSteady simulates the schedule of 10 terminals of one
// warehouse (firstWait, then the keying and think times of run, with no
// response time) over many seeds, started as the engine's ramp starts
// them: the efficiency measured after the ramp is that of the steady
// state (98% for the default deck), not a burst of first New-Orders, and
// a run without a ramp starts below it, never above.
func TestFirstWaitSteady(t *testing.T) {
	weights, err := parseMix(defaultMix)
	if err != nil {
		t.Fatal(err)
	}
	cycle := meanCycle(weights)
	if cycle < 20690*time.Millisecond || cycle > 20700*time.Millisecond {
		t.Errorf("mean cycle %v, want 476/23 s", cycle)
	}
	const terminals, seeds = 10, 3000
	for _, tc := range []struct {
		ramp, dur time.Duration
		lo, hi    float64 // mean efficiency, %
	}{
		{60 * time.Second, 20 * time.Second, 96, 102},
		{60 * time.Second, 60 * time.Second, 96, 102},
		{2 * time.Minute, 5 * time.Minute, 97, 100.5},
		{0, 20 * time.Second, 0, 30},
		{0, time.Minute, 0, 90},
	} {
		var sum float64
		for seed := range uint64(seeds) {
			var n int
			for i := range terminals {
				w := &worker{r: randgen.New(seed, workerStream(i)), deck: newDeck(weights)}
				w.r.Shuffle(len(w.deck), func(a, b int) { w.deck[a], w.deck[b] = w.deck[b], w.deck[a] })
				at := tc.ramp*time.Duration(i)/terminals + w.firstWait(cycle)
				for op := w.next; at < tc.ramp+tc.dur; {
					if op == opNewOrder && at >= tc.ramp {
						n++
					}
					at += w.thinkTime(txs[op].think)
					op = w.draw()
					at += txs[op].keying
				}
			}
			sum += 100 * float64(n) / (maxTpmCPerWarehouse * tc.dur.Minutes())
		}
		if eff := sum / seeds; eff < tc.lo || eff > tc.hi {
			t.Errorf("ramp %v, %v measured: mean efficiency %.1f%%, want %.0f-%.0f%%", tc.ramp, tc.dur, eff, tc.lo, tc.hi)
		} else {
			t.Logf("ramp %v, %v measured: mean efficiency %.1f%%", tc.ramp, tc.dur, eff)
		}
	}
}

// TestFirstKeyingStops checks that a terminal's first keying time (in
// Attach) ends when the measurement interval's planned length has passed,
// when the run's context ends, and at Close; and that without --wait
// Attach does not wait.
func TestFirstKeyingStops(t *testing.T) {
	attach := func(g *tpcc, ctx context.Context, oc workload.OpsConfig, after func(ql workload.QueryLoad)) time.Duration {
		t.Helper()
		oc.Concurrency = 10
		ql, err := g.Ops(ctx, nullDB(t), oc)
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		done := make(chan struct{})
		go func() {
			for i := range ql.Workers {
				ql.Attach(i, nopRecorder{})
			}
			close(done)
		}()
		after(ql)
		<-done
		ql.Close(context.Background())
		return time.Since(start)
	}
	ctx := context.Background()
	g := newGen(t)
	if d := attach(g, ctx, workload.OpsConfig{Duration: 100 * time.Millisecond}, func(workload.QueryLoad) {
		if _, err := g.StartMeasurement(ctx, time.Now()); err != nil {
			t.Error(err)
		}
	}); d > 2*time.Second {
		t.Errorf("the measurement's end stopped the first keying after %v", d)
	}
	cctx, cancel := context.WithCancel(ctx)
	if d := attach(newGen(t), cctx, workload.OpsConfig{}, func(workload.QueryLoad) { cancel() }); d > 2*time.Second {
		t.Errorf("the run's context stopped the first keying after %v", d)
	}
	if d := attach(newGen(t), ctx, workload.OpsConfig{}, func(ql workload.QueryLoad) { ql.Close(ctx) }); d > 2*time.Second {
		t.Errorf("Close stopped the first keying after %v", d)
	}
	if d := attach(newGen(t, "--wait=false"), ctx, workload.OpsConfig{}, func(workload.QueryLoad) {}); d > time.Second {
		t.Errorf("--wait=false: Attach took %v", d)
	}
}
