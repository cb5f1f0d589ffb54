package bank

import (
	"context"
	"math"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/stampede-bench/stampede/dialect"
	"github.com/stampede-bench/stampede/randgen"
	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// newGen returns a bank generator configured by args, failing the test on
// an error.
func newGen(t testing.TB, args ...string) *bank {
	t.Helper()
	g, err := workload.FromFlags(bankMeta, args...)
	if err != nil {
		t.Fatalf("FromFlags(%q): %v", args, err)
	}
	return g.(*bank)
}

func TestRegistered(t *testing.T) {
	m, ok := workload.Get("bank")
	if !ok {
		t.Fatal("bank is not registered")
	}
	if m.Version == "" || !strings.Contains(m.Details, "stampede check bank") {
		t.Errorf("Meta: version %q, details without examples", m.Version)
	}
	g := m.New().(*bank)
	if g.rows != 1000 || g.payloadBytes != 100 || g.initialBalance != 1000 || g.maxTransfer != 999 {
		t.Errorf("defaults: rows %d payload %d initial %d max-transfer %d", g.rows, g.payloadBytes, g.initialBalance, g.maxTransfer)
	}
	if !g.Flags().Meta["max-transfer"].RuntimeOnly || g.Flags().Meta["rows"].RuntimeOnly {
		t.Error("only --max-transfer is runtime-only")
	}
}

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		args []string
		err  string // "" for none
	}{
		{nil, ""},
		{[]string{"--rows", "2", "--payload-bytes", "0", "--max-transfer", "1", "--initial-balance", "0"}, ""},
		{[]string{"--rows", "1"}, "--rows must be at least 2 (a transfer needs two accounts), not 1"},
		{[]string{"--rows", "-5"}, "--rows must be at least 2"},
		{[]string{"--payload-bytes", "-1"}, "--payload-bytes must not be negative, not -1"},
		{[]string{"--max-transfer", "0"}, "--max-transfer must be at least 1, not 0"},
		{[]string{"--initial-balance", "-1"}, "--initial-balance must not be negative, not -1"},
		{[]string{"--rows", "3", "--initial-balance", "4611686018427387904"}, "--initial-balance must be at most 1537228672809129301 with --rows 3, not 4611686018427387904: the total balance, rows x initial-balance, must be at most 4611686018427387904 (2^62)"},
		{[]string{"--rows", "2", "--initial-balance", "2305843009213693952", "--max-transfer", "1099511627776"}, ""},
		{[]string{"--rows", "2", "--initial-balance", "2305843009213693953"}, "--initial-balance must be at most 2305843009213693952 with --rows 2"},
		{[]string{"--max-transfer", "1099511627777"}, "--max-transfer must be at most 1099511627776 (2^40), not 1099511627777"},
		{[]string{"--max-transfer", "9223372036854775807"}, "--max-transfer must be at most 1099511627776 (2^40), not 9223372036854775807: larger amounts could take balances out of BIGINT's range"},
		{[]string{"--rows", "x"}, "invalid argument"},
		{[]string{"--no-such-flag"}, "unknown flag"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			_, err := workload.FromFlags(bankMeta, tc.args...)
			switch {
			case tc.err == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
				t.Fatalf("error %v, want one containing %q", err, tc.err)
			case err != nil && strings.Contains(err.Error(), "\n"):
				t.Errorf("error is not one line: %q", err)
			}
		})
	}
}

// allRows returns every initial row of g's table, batch by batch.
func allRows(g *bank) [][]any {
	tab := g.Tables()[0]
	var rows [][]any
	for b := 0; b < tab.InitialRows.NumBatches; b++ {
		rows = tab.InitialRows.FillBatch(b, rows)
	}
	return rows
}

func TestInitialData(t *testing.T) {
	for _, tc := range []struct {
		rows, payload int
		initial       int64
	}{
		{2, 0, 1000},
		{999, 10, 1000},
		{1000, 100, 7},
		{2500, 3, 0},
	} {
		g := newGen(t, "--rows", strconv.Itoa(tc.rows), "--payload-bytes", strconv.Itoa(tc.payload),
			"--initial-balance", strconv.FormatInt(tc.initial, 10))
		g.SetSeed(42)
		tab := g.Tables()[0]
		if tab.Name != "bank" || !reflect.DeepEqual(tab.Columns, []string{"id", "balance", "payload"}) ||
			tab.InitialRows.NumRows != int64(tc.rows) || tab.InitialRows.NumBatches != (tc.rows+999)/1000 {
			t.Fatalf("rows %d: table %+v", tc.rows, tab)
		}
		rows := allRows(g)
		if len(rows) != tc.rows {
			t.Fatalf("rows %d: generated %d rows", tc.rows, len(rows))
		}
		var total int64
		for i, row := range rows {
			id, bal, payload := row[0].(int64), row[1].(int64), row[2].(string)
			if id != int64(i) || bal != tc.initial || len(payload) != tc.payload {
				t.Fatalf("row %d = %d, %d, %q", i, id, bal, payload)
			}
			for _, c := range []byte(payload) {
				if c < ' ' || c > '~' {
					t.Fatalf("row %d: payload %q is not printable ASCII", i, payload)
				}
			}
			total += bal
		}
		if total != g.totalBalance() || total != int64(tc.rows)*tc.initial {
			t.Errorf("rows %d: total balance %d, totalBalance() %d, want %d", tc.rows, total, g.totalBalance(), int64(tc.rows)*tc.initial)
		}
	}
}

func TestBatchDeterminism(t *testing.T) {
	g := newGen(t, "--rows", "2500", "--payload-bytes", "20")
	g.SetSeed(7)
	tab := g.Tables()[0]
	// Any order, any number of times: a batch depends only on its index.
	b2 := tab.InitialRows.FillBatch(2, nil)
	b0 := tab.InitialRows.FillBatch(0, nil)
	if again := tab.InitialRows.FillBatch(2, nil); !reflect.DeepEqual(b2, again) {
		t.Error("batch 2 differs between two calls")
	}
	if len(b2) != 500 || len(b0) != 1000 {
		t.Fatalf("batch sizes %d, %d", len(b0), len(b2))
	}
	other := newGen(t, "--rows", "2500", "--payload-bytes", "20")
	other.SetSeed(7)
	if !reflect.DeepEqual(allRows(g), allRows(other)) {
		t.Error("the same seed and flags gave different data")
	}
	other.SetSeed(8)
	if reflect.DeepEqual(allRows(g), allRows(other)) {
		t.Error("different seeds gave the same data")
	}
	if reflect.DeepEqual(b0[0][2], b0[1][2]) {
		t.Error("two accounts have the same payload")
	}
	// FillBatch appends.
	if got := tab.InitialRows.FillBatch(1, b2); len(got) != 1500 || !reflect.DeepEqual(got[:500], b2) {
		t.Errorf("FillBatch does not append: %d rows", len(got))
	}
}

func TestStatements(t *testing.T) {
	s := newStatements(dialect.Postgres{})
	if want := "SELECT id, balance FROM bank WHERE id IN ($1, $2)"; s.read != want {
		t.Errorf("read = %q, want %q", s.read, want)
	}
	if want := "UPDATE bank SET balance = CASE id WHEN $1 THEN CAST($3 AS BIGINT) WHEN $2 THEN CAST($4 AS BIGINT) END WHERE id IN ($1, $2)"; s.update != want {
		t.Errorf("update = %q, want %q", s.update, want)
	}
}

func nullDB(t testing.TB) *sqlx.DB {
	t.Helper()
	db, err := sqlx.Open(context.Background(), sqlx.Options{Driver: sqlx.DriverNull})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(db.Close)
	return db
}

func TestWorkerDraws(t *testing.T) {
	ctx := context.Background()
	g := newGen(t, "--rows", "3", "--max-transfer", "5")
	ql, err := g.Ops(ctx, nullDB(t), workload.OpsConfig{Concurrency: 2, Seed: 9})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(ql.Ops, []string{"transfer"}) || !reflect.DeepEqual(ql.Classes, []workload.OpClass{workload.ClassTransaction}) ||
		len(ql.Workers) != 2 || ql.Attach == nil || ql.Close == nil {
		t.Fatalf("QueryLoad %+v", ql)
	}
	defer ql.Close(ctx)
	// Every pair of distinct accounts and every amount in [1, 5] comes
	// up; never from == to.
	seen := map[[2]int64]bool{}
	amounts := map[int64]bool{}
	nw := newWorker(g, dialect.Postgres{}, nil, randgen.New(9, workerStream(0)))
	for i := 0; i < 1000; i++ {
		nw.next()
		if nw.from == nw.to || nw.from < 0 || nw.from >= 3 || nw.to < 0 || nw.to >= 3 {
			t.Fatalf("transfer %d -> %d", nw.from, nw.to)
		}
		if nw.amount < 1 || nw.amount > 5 {
			t.Fatalf("amount %d", nw.amount)
		}
		seen[[2]int64{nw.from, nw.to}] = true
		amounts[nw.amount] = true
	}
	if len(seen) != 6 || len(amounts) != 5 {
		t.Errorf("drew %d pairs (want 6) and %d amounts (want 5)", len(seen), len(amounts))
	}
	for i, wk := range ql.Workers {
		ql.Attach(i, nopRecorder{})
		if res := wk(ctx); res.Err != nil || res.Op != opTransfer {
			t.Errorf("worker %d on the null driver: %+v", i, res)
		}
	}
}

func BenchmarkWorkerNull(b *testing.B) {
	ctx := context.Background()
	g := newGen(b)
	ql, err := g.Ops(ctx, nullDB(b), workload.OpsConfig{Concurrency: 1, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	defer ql.Close(ctx)
	w := ql.Workers[0]
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if res := w(ctx); res.Err != nil {
			b.Fatal(res.Err)
		}
	}
}

func TestBatchSizeFlag(t *testing.T) {
	gen, err := workload.FromFlags(bankMeta, "--rows", "2500", "--batch-size", "1000")
	if err != nil {
		t.Fatal(err)
	}
	tab := gen.Tables()[0]
	if tab.InitialRows.NumBatches != 3 {
		t.Errorf("2500 rows in batches of 1000: %d batches, want 3", tab.InitialRows.NumBatches)
	}
	if rows := tab.InitialRows.FillBatch(2, nil); len(rows) != 500 || rows[0][0] != int64(2000) {
		t.Errorf("last batch: %d rows from %v, want 500 from 2000", len(rows), rows[0][0])
	}
	gen, err = workload.FromFlags(bankMeta, "--rows", "2500", "--batch-size", "100")
	if err != nil {
		t.Fatal(err)
	}
	if n := gen.Tables()[0].InitialRows.NumBatches; n != 25 {
		t.Errorf("batches of 100: %d, want 25", n)
	}
	if _, err := workload.FromFlags(bankMeta, "--batch-size", "0"); err == nil {
		t.Error("--batch-size 0 accepted")
	}
}

// TestApply checks the new balances of a transfer, and that one that would
// take a balance out of BIGINT's range is refused with the balances left
// as they were.
func TestApply(t *testing.T) {
	const amount = 1 << 40
	for _, tc := range []struct {
		name           string
		from, to       int64
		newFrom, newTo int64
		refused        bool
	}{
		{"ordinary", 1000, 1000, 1000 - amount, 1000 + amount, false},
		{"to at the top", 0, math.MaxInt64 - amount, -amount, math.MaxInt64, false},
		{"from at the bottom", math.MinInt64 + amount, 0, math.MinInt64, amount, false},
		{"to past the top", 0, math.MaxInt64 - amount + 1, 0, 0, true},
		{"from past the bottom", math.MinInt64 + amount - 1, 0, 0, 0, true},
		{"the issue's wrap", math.MinInt64 + 5, math.MaxInt64 - 5, 0, 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := &worker{from: 1, to: 2, amount: amount, newFrom: 7, newTo: 8}
			err := w.apply(tc.from, tc.to)
			if tc.refused {
				if err == nil || !strings.Contains(err.Error(), "would take a balance out of BIGINT's range: refused") || w.newFrom != 7 || w.newTo != 8 {
					t.Errorf("apply(%d, %d): %v, new balances %d %d; want a refusal that leaves them", tc.from, tc.to, err, w.newFrom, w.newTo)
				}
				return
			}
			if err != nil || w.newFrom != tc.newFrom || w.newTo != tc.newTo {
				t.Errorf("apply(%d, %d): %v, new balances %d %d, want %d %d", tc.from, tc.to, err, w.newFrom, w.newTo, tc.newFrom, tc.newTo)
			}
			if w.newFrom+w.newTo != tc.from+tc.to {
				t.Errorf("apply(%d, %d) changed the total", tc.from, tc.to)
			}
		})
	}
}

// TestLoadShareTooFew: a split load of more clients than the accounts'
// batches is refused naming both remedies, --rows (the number it needs)
// and --clients; the --rows named loads.
func TestLoadShareTooFew(t *testing.T) {
	g := newGen(t)
	err := g.LoadShare(0, 2)
	if err == nil || !strings.Contains(err.Error(), "give --rows 2000 or more (the same to every client), or --clients 1 or fewer") {
		t.Fatalf("default --rows, 2 clients: %v", err)
	}
	if err := newGen(t, "--rows", "2000").LoadShare(1, 2); err != nil {
		t.Errorf("--rows 2000, 2 clients: %v", err)
	}
}
