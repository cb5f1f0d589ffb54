package ycsb

import (
	"context"
	"strings"
	"testing"

	"github.com/stampede-bench/stampede/dialect"
	"github.com/stampede-bench/stampede/workload"
)

// settings returns g's data settings by name.
func settings(g *ycsb) map[string]workload.DataSetting {
	m := map[string]workload.DataSetting{}
	for _, s := range g.DataSettings() {
		m[s.Name] = s
	}
	return m
}

// TestDataSettings: a setting is Given when -P, -p or a flag gave it (not
// a default, not --workload); keys is "all" for the whole table and
// "insertstart+insertcount" for a share; Set adopts a value above every
// source.
func TestDataSettings(t *testing.T) {
	f := writeFile(t, t.TempDir(), "w", "fieldcount=5\r\n")
	g, _ := newConfig(t, "-P", f, "-p", "recordcount=2000", "--zero-padding", "4", "--workload", "b")
	s := settings(g)
	for name, given := range map[string]bool{"recordcount": true, "fieldcount": true, "zeropadding": true, "fieldlength": false,
		"insertorder": false, "keys": false} {
		if s[name].Given != given {
			t.Errorf("%s: Given %v, want %v", name, s[name].Given, given)
		}
	}
	if s["recordcount"].Value != "2000" || s["fieldcount"].Value != "5" || s["keys"].Value != "all" {
		t.Errorf("values: recordcount %s fieldcount %s keys %s", s["recordcount"].Value, s["fieldcount"].Value, s["keys"].Value)
	}
	if got := s["recordcount"].Form("10"); got != "-p recordcount=10" {
		t.Errorf("Form %q", got)
	}
	if err := s["fieldlength"].Set("42"); err != nil {
		t.Fatal(err)
	}
	if g.cfg.fieldLength != 42 || g.cfg.given["fieldlength"] {
		t.Errorf("after Set: fieldlength %d, given %v", g.cfg.fieldLength, g.cfg.given["fieldlength"])
	}
	// An adopted value is what the data holds: a mark's data flags name
	// it (a sweep's --reload adopts recordcount and marks its load).
	if a := settings(g)["fieldlength"]; !a.Adopted || a.Given {
		t.Errorf("after Set: fieldlength Adopted %v, Given %v", a.Adopted, a.Given)
	}
	if flags := strings.Join(workload.DataFlags(g), " "); !strings.Contains(flags, "-p fieldlength=42") {
		t.Errorf("data flags %q do not name the adopted -p fieldlength=42", flags)
	}
	// A subset of the keys fits (without a split), more keys do not.
	if !s["recordcount"].Fits("3000") || s["recordcount"].Fits("1000") {
		t.Errorf("recordcount 2000 should fit a load of 3000, not of 1000")
	}

	g, _ = newConfig(t, "-p", "recordcount=2000", "-p", "insertstart=500", "--insert-count", "500")
	s = settings(g)
	if k := s["keys"]; k.Value != "500+500" || !k.Given || !k.Fits("all") || !k.Fits("0+1000,1000+1000") || k.Fits("0+700") {
		t.Errorf("keys %+v", k)
	}
	if s["recordcount"].Fits("3000") {
		t.Errorf("a client's share with another recordcount fits: its inserts would collide")
	}
	if got := s["keys"].Form("0+500,1000+200"); got != "-p insertstart=0 -p insertcount=500 or -p insertstart=1000 -p insertcount=200" {
		t.Errorf("keys Form %q", got)
	}
	g, _ = newConfig(t, "-p", "recordcount=2000")
	if err := settings(g)["keys"].Set("0+1000"); err != nil || g.cfg.insertStart != 0 || g.cfg.insertCount != 1000 {
		t.Errorf("adopting keys 0+1000: %v, insertstart %d insertcount %d", err, g.cfg.insertStart, g.cfg.insertCount)
	}
	if err := settings(g)["keys"].Set("0+500,1000+200"); err == nil || !strings.Contains(err.Error(), "init loaded the keys in parts") {
		t.Errorf("adopting keys in two parts: %v", err)
	}
}

// TestMergeLoad: parts join when their other settings agree and their
// keys do not overlap; the record says "all" once they cover recordcount.
func TestMergeLoad(t *testing.T) {
	part := func(start, count string, extra ...string) *ycsb {
		g, _ := newConfig(t, append([]string{"-p", "recordcount=3000", "-p", "insertstart=" + start, "-p", "insertcount=" + count}, extra...)...)
		return g
	}
	first := part("0", "1000")
	if !first.LoadsPart() {
		t.Fatal("a share of the table is not a part load")
	}
	if g, _ := newConfig(t, "-p", "recordcount=3000"); g.LoadsPart() {
		t.Error("the whole table is a part load")
	}
	loaded := map[string]string{}
	for _, s := range first.DataSettings() {
		loaded[s.Name] = s.Value
	}
	merged, err := part("2000", "1000").MergeLoad(loaded)
	if err != nil || merged["keys"] != "0+1000,2000+1000" {
		t.Fatalf("merged %v, %v", merged, err)
	}
	if merged, err = part("1000", "1000").MergeLoad(merged); err != nil || merged["keys"] != "all" {
		t.Errorf("all three parts: %v, %v", merged, err)
	}
	for _, tc := range []struct {
		g    *ycsb
		want string
	}{
		{part("500", "1000"), "keys -p insertstart=500 -p insertcount=1000 overlap the part loaded with -p insertstart=0 -p insertcount=1000"},
		{part("1000", "1000", "-p", "fieldlength=10"), "-p fieldlength=10 differs from the other parts' -p fieldlength=100"},
		{part("1000", "1000", "-p", "insertorder=ordered"), "-p insertorder=ordered differs from the other parts' -p insertorder=hashed"},
	} {
		if _, err := tc.g.MergeLoad(loaded); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("MergeLoad: %v, want %q", err, tc.want)
		}
	}
	if _, err := part("1000", "1000").MergeLoad(map[string]string{"keys": "0+x"}); err == nil {
		t.Error("a malformed record merges")
	}
}

func TestKeyRanges(t *testing.T) {
	r := mergeKeyRanges([]keyRange{{500, 100}, {0, 200}, {200, 100}, {590, 50}})
	if got := formatKeyRanges(r, 1000); got != "0+300,500+140" {
		t.Errorf("merged %s", got)
	}
	if got := formatKeyRanges(mergeKeyRanges([]keyRange{{0, 10}, {10, 90}}), 100); got != "all" {
		t.Errorf("whole table %s", got)
	}
	if !covers(r, keyRange{510, 130}) || covers(r, keyRange{250, 300}) {
		t.Error("covers")
	}
}

// TestBatching: jdbc.batchupdateapi with db.batchsize batches inserts;
// the batch API without a size, or a size beyond PostgreSQL's parameters,
// is refused; a size without the API is a warning, as in YCSB.
func TestBatching(t *testing.T) {
	_, c := newConfig(t, "-p", "jdbc.batchupdateapi=true", "-p", "db.batchsize=3", "--field-count", "2")
	if c.batchSize != 3 {
		t.Errorf("batchSize %d", c.batchSize)
	}
	if got, want := c.batchInsertSQL(dialect.Postgres{}, 2), "INSERT INTO usertable (ycsb_key, field0, field1) VALUES ($1, $2, $3), ($4, $5, $6)"; got != want {
		t.Errorf("SQL %q, want %q", got, want)
	}
	if tbl := c.table(); tbl.InitialRows.InsertRows != 3 {
		t.Errorf("init loads with InsertRows %d, want db.batchsize 3", tbl.InitialRows.InsertRows)
	}
	g, c := newConfig(t, "-p", "db.batchsize=10")
	if c.batchSize != 0 || len(Warnings(g)) != 1 || !strings.Contains(Warnings(g)[0], "db.batchsize=10 (from -p) batches inserts only with -p jdbc.batchupdateapi=true") {
		t.Errorf("batchSize %d, warnings %q", c.batchSize, Warnings(g))
	}
	// YCSB's exporters by their names before 0.14 too.
	for name, want := range map[string]string{
		"com.yahoo.ycsb.measurements.exporter.JSONArrayMeasurementsExporter": ExporterJSONArray,
		"site.ycsb.measurements.exporter.JSONMeasurementsExporter":           ExporterJSON,
	} {
		if _, c := newConfig(t, "-p", "exporter="+name); c.exporter != want {
			t.Errorf("exporter %s: %s", name, c.exporter)
		}
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-p", "jdbc.batchupdateapi=true"}, "jdbc.batchupdateapi=true needs db.batchsize of at least 1 (from default)"},
		{[]string{"-p", "jdbc.batchupdateapi=yes"}, `invalid jdbc.batchupdateapi "yes" (from -p): not true or false`},
		{[]string{"-p", "jdbc.batchupdateapi=true", "-p", "db.batchsize=6000"}, "db.batchsize 6000 (from -p) makes INSERTs of 66000 parameters, more than PostgreSQL's 65535: use at most 5957"},
		{[]string{"-p", "exporter=Nope"}, `unknown exporter "Nope" (from -p)`},
		{[]string{"-p", "exportfile="}, "empty exportfile (from -p)"},
		{[]string{"--json", "-p", "jdbc.batchupdateapi=true", "-p", "db.batchsize=10"}, "--json with jdbc.batchupdateapi: batched inserts write the plain layout's field columns"},
	} {
		if got := resolveErr(tc.args...); !strings.Contains(got, tc.want) {
			t.Errorf("%v: %q, want %q", tc.args, got, tc.want)
		}
	}
}

// TestBatchedInserts runs inserts through the null driver: all but every
// db.batchsize-th only join the batch (series insert-batched, YCSB's
// BATCHED_OK), and Close sends what is left.
func TestBatchedInserts(t *testing.T) {
	g, _ := newConfig(t, "-p", "jdbc.batchupdateapi=true", "-p", "db.batchsize=4", "-p", "insertproportion=1",
		"-p", "readproportion=0", "-p", "updateproportion=0")
	ql, err := g.Ops(context.Background(), nullDB(t), workload.OpsConfig{Concurrency: 1, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if ql.Ops[len(ql.Ops)-1] != batchedSeries || len(ql.Classes) != len(ql.Ops) {
		t.Fatalf("series %v", ql.Ops)
	}
	counts := map[string]int64{}
	for range 10 {
		res := ql.Workers[0](context.Background())
		if res.Err != nil {
			t.Fatal(res.Err)
		}
		counts[ql.Ops[res.Op]]++
	}
	if counts["insert"] != 2 || counts[batchedSeries] != 8 {
		t.Errorf("counts %v, want 2 inserts sent and 8 batched", counts)
	}
	if m := g.YCSBMeasure(batchedSeries); m != (workload.YCSBMeasure{Latency: "INSERT", Counted: "INSERT", Status: "BATCHED_OK"}) {
		t.Errorf("YCSBMeasure %+v", m)
	}
	if figs := g.Figures(counts, 0); figs[len(figs)-1].Text != "8 ([INSERT], Return=BATCHED_OK)" {
		t.Errorf("figures %+v", figs)
	}
	if err := ql.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// TestTrailingWhiteSpace: java.util.Properties keeps a value's trailing
// white space; stampede drops it from the properties it reads, saying so.
func TestTrailingWhiteSpace(t *testing.T) {
	f := writeFile(t, t.TempDir(), "w", "# license header   \r\nrecordcount = 500  \r\nmystery=x \r\n")
	g, c := newConfig(t, "-P", f)
	if c.recordCount != 500 {
		t.Errorf("recordcount %d", c.recordCount)
	}
	w := strings.Join(Warnings(g), "\n")
	if !strings.Contains(w, f+`:2: the value of recordcount ends in white space, which YCSB would keep: using "500"`) ||
		!strings.Contains(w, "ignoring property mystery=x  (from "+f+":3)") {
		t.Errorf("warnings:\n%s", w)
	}
}
