package sysbench

import (
	"context"
	"reflect"
	"regexp"
	"slices"
	"testing"

	"github.com/stampede-bench/stampede/dialect"
	"github.com/stampede-bench/stampede/randgen"
	"github.com/stampede-bench/stampede/sqlx"
)

var (
	// cPattern and padPattern are get_c_value's and get_pad_value's
	// templates: 10 and 5 groups of 11 digits joined by dashes.
	cPattern   = regexp.MustCompile(`^[0-9]{11}(-[0-9]{11}){9}$`)
	padPattern = regexp.MustCompile(`^[0-9]{11}(-[0-9]{11}){4}$`)
)

func TestValueFormats(t *testing.T) {
	if cLen != 119 || padLen != 59 {
		t.Fatalf("lengths %d and %d, sysbench's are 119 and 59", cLen, padLen)
	}
	ds := newDigitSource(randgen.New(1, 1))
	c := make([]byte, cLen)
	pad := make([]byte, padLen)
	var counts [10]int
	const n = 20000
	for range n {
		ds.fillC(c)
		ds.fillPad(pad)
		if !cPattern.Match(c) {
			t.Fatalf("c %q does not match %s", c, cPattern)
		}
		if !padPattern.Match(pad) {
			t.Fatalf("pad %q does not match %s", pad, padPattern)
		}
		for _, b := range c {
			if b != '-' {
				counts[b-'0']++
			}
		}
	}
	// Each digit is uniform: 110 digits per value.
	want := float64(n*110) / 10
	for d, got := range counts {
		if diff := float64(got) - want; diff > 0.01*want || diff < -0.01*want {
			t.Errorf("digit %d appears %d times, expected about %.0f", d, got, want)
		}
	}
}

func TestDigitPositionsUniform(t *testing.T) {
	// Every position of a group, the last included, is uniform.
	ds := newDigitSource(randgen.New(2, 2))
	buf := make([]byte, groupDigits)
	var counts [groupDigits][10]int
	const n = 100000
	for range n {
		ds.fillGroups(buf, 1)
		for i, b := range buf {
			counts[i][b-'0']++
		}
	}
	for pos := range counts {
		for d, got := range counts[pos] {
			if diff := float64(got) - n/10; diff > 0.03*n/10 || diff < -0.03*n/10 {
				t.Errorf("position %d: digit %d appears %d times in %d", pos, d, got, n)
			}
		}
	}
}

func TestSchema(t *testing.T) {
	pg := dialect.Postgres{}
	for _, tc := range []struct {
		args    []string
		schema  string
		indexes []string
	}{
		{nil,
			"(id SERIAL, k INTEGER DEFAULT '0' NOT NULL, c CHAR(120) DEFAULT '' NOT NULL, pad CHAR(60) DEFAULT '' NOT NULL)",
			[]string{"ALTER TABLE sbtest2 ADD PRIMARY KEY (id)", "CREATE INDEX k_2 ON sbtest2(k)"}},
		{[]string{"--auto_inc=off"},
			"(id INTEGER NOT NULL, k INTEGER DEFAULT '0' NOT NULL, c CHAR(120) DEFAULT '' NOT NULL, pad CHAR(60) DEFAULT '' NOT NULL)",
			[]string{"ALTER TABLE sbtest2 ADD PRIMARY KEY (id)", "CREATE INDEX k_2 ON sbtest2(k)"}},
		{[]string{"--secondary", "--create_secondary=off"},
			"(id SERIAL, k INTEGER DEFAULT '0' NOT NULL, c CHAR(120) DEFAULT '' NOT NULL, pad CHAR(60) DEFAULT '' NOT NULL)",
			[]string{"CREATE INDEX xid_2 ON sbtest2(id)"}},
	} {
		g := newGen(t, "oltp_read_write", append([]string{"--tables=2"}, tc.args...)...)
		tabs := g.Tables()
		if len(tabs) != 2 || tabs[0].Name != "sbtest1" || tabs[1].Name != "sbtest2" {
			t.Fatalf("%q: tables %+v", tc.args, tabs)
		}
		if got := tabs[1].Schema; got != tc.schema {
			t.Errorf("%q: schema\n%s\nwant\n%s", tc.args, got, tc.schema)
		}
		if got := pg.CreateTable(tabs[1].Name, tabs[1].Schema); got != `CREATE TABLE "sbtest2" `+tc.schema {
			t.Errorf("CREATE TABLE text %s", got)
		}
		if !slices.Equal(tabs[1].Indexes, tc.indexes) {
			t.Errorf("%q: indexes %q, want %q", tc.args, tabs[1].Indexes, tc.indexes)
		}
		if !slices.Equal(tabs[1].Columns, []string{"id", "k", "c", "pad"}) {
			t.Errorf("columns %q", tabs[1].Columns)
		}
	}
	my := mysqlDialect{}
	for _, tc := range []struct {
		args   []string
		schema string
	}{
		{nil, "(id INTEGER NOT NULL AUTO_INCREMENT, k INTEGER DEFAULT '0' NOT NULL, c CHAR(120) DEFAULT '' NOT NULL, pad CHAR(60) DEFAULT '' NOT NULL, PRIMARY KEY (id))"},
		{[]string{"--auto_inc=off", "--secondary"}, "(id INTEGER NOT NULL, k INTEGER DEFAULT '0' NOT NULL, c CHAR(120) DEFAULT '' NOT NULL, pad CHAR(60) DEFAULT '' NOT NULL, KEY xid (id))"},
	} {
		g := newGen(t, "oltp_read_write", tc.args...)
		if got := oltpSchema(my, &g.cfg); got != tc.schema {
			t.Errorf("MySQL %q: schema\n%s\nwant\n%s", tc.args, got, tc.schema)
		}
		if got := secondaryIndexes(my, &g.cfg, 1); !slices.Equal(got, []string{"CREATE INDEX k_1 ON sbtest1(k)"}) {
			t.Errorf("MySQL %q: indexes %q", tc.args, got)
		}
	}
	if serialSync(my, 1) != "" {
		t.Error("MySQL needs no sequence sync")
	}
	if got, want := serialSync(pg, 3), "SELECT setval(pg_get_serial_sequence('sbtest3', 'id'), coalesce(max(id), 0) + 1, false) FROM sbtest3"; got != want {
		t.Errorf("serial sync %s", got)
	}
	if tabs := newGen(t, "bulk_insert").Tables(); tabs != nil {
		t.Errorf("bulk_insert tables %+v", tabs)
	}
	if rows := newGen(t, "oltp_insert", "--auto_inc=off").Tables()[0].InitialRows; rows.NumRows != 0 || rows.NumBatches != 0 {
		t.Errorf("oltp_insert --auto_inc=off loads %d rows", rows.NumRows)
	}
}

// mysqlDialect stands in for a MySQL dialect, which stampede does not
// have yet: only its name matters to the DDL.
type mysqlDialect struct{ dialect.Postgres }

func (mysqlDialect) Name() string { return "mysql" }

func TestInitialRows(t *testing.T) {
	for _, args := range [][]string{
		{"--table_size=2500"},
		{"--table_size=999", "--rand-type=uniform"},
		{"--table_size=1", "--rand-type=pareto"},
		{"--table_size=1000", "--rand-type=zipfian"},
	} {
		g := newGen(t, "oltp_read_only", append([]string{"--tables=2"}, args...)...)
		size := g.cfg.tableSize
		for _, tab := range g.Tables() {
			rows := tab.InitialRows
			if rows.NumRows != int64(size) || rows.NumBatches != (size+loadBatchSize-1)/loadBatchSize {
				t.Fatalf("%q: %d rows in %d batches", args, rows.NumRows, rows.NumBatches)
			}
			next := int32(1)
			for b := 0; b < rows.NumBatches; b++ {
				batch := rows.FillBatch(b, nil)
				if again := rows.FillBatch(b, make([][]any, 0, 3)); !reflect.DeepEqual(batch, again) {
					t.Fatalf("batch %d differs between two calls", b)
				}
				for _, row := range batch {
					if len(row) != 4 {
						t.Fatalf("row %v", row)
					}
					if row[0].(int32) != next {
						t.Fatalf("id %v, want %d", row[0], next)
					}
					next++
					if k := row[1].(int32); k < 1 || int(k) > size {
						t.Fatalf("k %d out of [1, %d]", k, size)
					}
					if !cPattern.MatchString(row[2].(string)) || !padPattern.MatchString(row[3].(string)) {
						t.Fatalf("c %q, pad %q", row[2], row[3])
					}
				}
			}
			if int(next-1) != size {
				t.Errorf("%q: ids up to %d, want %d", args, next-1, size)
			}
		}
	}
}

func TestInitialRowsSeed(t *testing.T) {
	g1 := newGen(t, "oltp_read_write", "--tables=2")
	g2 := newGen(t, "oltp_read_write", "--tables=2")
	g2.SetSeed(99)
	a := g1.Tables()[0].InitialRows.FillBatch(3, nil)
	b := g2.Tables()[0].InitialRows.FillBatch(3, nil)
	other := g1.Tables()[1].InitialRows.FillBatch(3, nil)
	if a[0][0] != b[0][0] {
		t.Error("the seed changed the ids")
	}
	if a[0][2] == b[0][2] || a[0][2] == other[0][2] {
		t.Error("seeds or tables share values")
	}
}

func TestUniqueIDs(t *testing.T) {
	u := newUniqueIDs(randgen.New(5, 5))
	seen := map[uint32]bool{}
	for range 200000 {
		v := u.next()
		if seen[v] {
			t.Fatalf("%d drawn twice", v)
		}
		seen[v] = true
	}
	// The permutation is a bijection: check it on the top of the range,
	// where it maps the five values past the prime to themselves.
	img := map[uint32]bool{}
	for x := uint32(1<<32 - 200000); ; x++ {
		img[permuteQR(x)] = true
		if x == 1<<32-1 {
			break
		}
	}
	if len(img) != 200000 {
		t.Errorf("permutation of the top 200000 values has %d images", len(img))
	}
}

func BenchmarkFillBatch(b *testing.B) {
	g := newGen(b, "oltp_read_write", "--table_size=1000000")
	rows := g.Tables()[0].InitialRows
	var out [][]any
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		out = rows.FillBatch(i%rows.NumBatches, out[:0])
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*loadBatchSize), "ns/row")
}

// BenchmarkEncodeBatch writes batches through EncodeBatch into the null
// driver's RowWriter: the client's whole cost of a row on the loader's
// fast path, short of the socket.
func BenchmarkEncodeBatch(b *testing.B) {
	g := newGen(b, "oltp_read_write", "--table_size=1000000")
	t := g.Tables()[0]
	db, err := sqlx.Open(context.Background(), sqlx.Options{Driver: "null"})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	b.ReportAllocs()
	batch := 0
	_, err = db.CopyEncoded(context.Background(), 0, t.Name, t.Columns, func(w *sqlx.RowWriter) bool {
		if !b.Loop() {
			return false
		}
		t.InitialRows.EncodeBatch(batch%t.InitialRows.NumBatches, w)
		batch++
		return true
	})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(batch*loadBatchSize), "ns/row")
}
