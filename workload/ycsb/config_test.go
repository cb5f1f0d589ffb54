package ycsb

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stampede-bench/stampede/workload"
)

// newConfig builds a generator from flags and returns its resolved config.
func newConfig(t testing.TB, args ...string) (*ycsb, *config) {
	t.Helper()
	g, err := workload.FromFlags(ycsbMeta, args...)
	if err != nil {
		t.Fatalf("FromFlags(%q): %v", args, err)
	}
	y := g.(*ycsb)
	return y, y.cfg
}

// resolveErr returns the error of resolving args ("" when none).
func resolveErr(args ...string) string {
	_, err := workload.FromFlags(ycsbMeta, args...)
	if err == nil {
		return ""
	}
	return err.Error()
}

func writeFile(t testing.TB, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestParseProperties(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     map[string]string
		err      string
	}{
		{name: "equals", in: "a=1\nb = 2\n", want: map[string]string{"a": "1", "b": "2"}},
		{name: "colon", in: "a:1\nb : 2", want: map[string]string{"a": "1", "b": "2"}},
		{name: "space", in: "a 1\nb\t  2", want: map[string]string{"a": "1", "b": "2"}},
		{name: "comments", in: "# x=1\n! y=2\n\n   \n  # indented\nz=3", want: map[string]string{"z": "3"}},
		{name: "trailing white space kept, as Java keeps it", in: "  a =  1  \r\nb=2\r\n", want: map[string]string{"a": "1  ", "b": "2"}},
		{name: "comment not continued", in: "# a comment \\\nb=2\\\n  # not a comment\n", want: map[string]string{"b": "2# not a comment"}},
		{name: "continued into a blank line", in: "a=1\\\n\nb=2", want: map[string]string{"a": "1", "b": "2"}},
		{name: "second separator is the value's", in: "a = = 1\nb==2\nc :=3", want: map[string]string{"a": "= 1", "b": "=2", "c": "=3"}},
		{name: "old Mac line endings", in: "a=1\rb=2\r", want: map[string]string{"a": "1", "b": "2"}},
		{name: "empty value", in: "a=\nb:", want: map[string]string{"a": "", "b": ""}},
		{name: "value with separators", in: "url=postgresql://h:5432/db?x=y", want: map[string]string{"url": "postgresql://h:5432/db?x=y"}},
		{name: "continuation", in: "a=1,\\\n   2,\\\n 3\nb=4", want: map[string]string{"a": "1,2,3", "b": "4"}},
		{name: "escaped backslash is no continuation", in: "a=x\\\\\nb=4", want: map[string]string{"a": `x\`, "b": "4"}},
		{name: "escapes", in: `k\=ey=v\u0041\:`, want: map[string]string{"k=ey": "vA:"}},
		{name: "key alone has the empty value", in: "a=1\n\nfieldcount\n", want: map[string]string{"a": "1", "fieldcount": ""}},
		{name: "empty key", in: "=5", want: map[string]string{"": "5"}},
		{name: "bad unicode", in: `a=\u00zz`, err: `f.properties:1: malformed line "a=\\u00zz": malformed \u escape "\\u00zz"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			entries, err := parseProperties("f.properties", []byte(tc.in))
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("error %v, want %s", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]string{}
			for _, e := range entries {
				got[e.key] = e.value
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
			for k, v := range tc.want {
				if got[k] != v {
					t.Errorf("%s = %q, want %q", k, got[k], v)
				}
			}
		})
	}
}

func TestPropertyFileFormats(t *testing.T) {
	_, c := newConfig(t, "-P", "testdata/formats.properties")
	if c.recordCount != 2000 || c.fieldCount != 5 || c.fieldLength != 7 || c.zeroPadding != 3 {
		t.Errorf("recordcount %d fieldcount %d fieldlength %d zeropadding %d, want 2000 5 7 3",
			c.recordCount, c.fieldCount, c.fieldLength, c.zeroPadding)
	}
	if c.requestDist != distHotspot {
		t.Errorf("requestdistribution %q, want hotspot (continued line)", c.requestDist)
	}
	if c.tableName != "usertable" {
		t.Errorf("table %q, want usertable (\\u escape)", c.tableName)
	}
}

func TestDefaults(t *testing.T) {
	g, c := newConfig(t)
	if c.recordCount != 10000 || c.insertStart != 0 || c.insertCount != 10000 {
		t.Errorf("recordcount %d insertstart %d insertcount %d", c.recordCount, c.insertStart, c.insertCount)
	}
	if c.fieldCount != 10 || c.fieldLength != 100 || c.fieldLengthDist != distConstant {
		t.Errorf("fields %d x %d %s", c.fieldCount, c.fieldLength, c.fieldLengthDist)
	}
	if !c.readAllFields || c.writeAllFields || c.insertOrdered || c.zeroPadding != 1 {
		t.Errorf("readall %v writeall %v ordered %v zeropadding %d", c.readAllFields, c.writeAllFields, c.insertOrdered, c.zeroPadding)
	}
	if c.proportions != [numOps]float64{0.5, 0.5, 0, 0, 0} || c.requestDist != distZipfian {
		t.Errorf("default workload is not a: %v %s", c.proportions, c.requestDist)
	}
	if c.minScanLength != 1 || c.maxScanLength != 1000 || c.scanLengthDist != distUniform {
		t.Errorf("scan %d..%d %s", c.minScanLength, c.maxScanLength, c.scanLengthDist)
	}
	if c.zipfianConstant != 0.99 || c.hotspotData != 0.2 || c.hotspotOpn != 0.8 || c.tableName != "usertable" {
		t.Errorf("zipfian %v hotspot %v/%v table %s", c.zipfianConstant, c.hotspotData, c.hotspotOpn, c.tableName)
	}
	if MeasurementInterval(g) != "op" || OperationCount(g) != 0 || Warnings(g) != nil {
		t.Errorf("MeasurementInterval %q OperationCount %d Warnings %q", MeasurementInterval(g), OperationCount(g), Warnings(g))
	}
}

func TestCoreWorkloads(t *testing.T) {
	for _, tc := range []struct {
		letter string
		props  [numOps]float64
		dist   string
	}{
		{"a", [numOps]float64{0.5, 0.5, 0, 0, 0}, distZipfian},
		{"B", [numOps]float64{0.95, 0.05, 0, 0, 0}, distZipfian},
		{"c", [numOps]float64{1, 0, 0, 0, 0}, distZipfian},
		{"d", [numOps]float64{0.95, 0, 0.05, 0, 0}, distLatest},
		{"workloade", [numOps]float64{0, 0, 0.05, 0.95, 0}, distZipfian},
		{"F", [numOps]float64{0.5, 0, 0, 0, 0.5}, distZipfian},
	} {
		t.Run(tc.letter, func(t *testing.T) {
			_, c := newConfig(t, "--workload", tc.letter)
			if c.proportions != tc.props || c.requestDist != tc.dist {
				t.Errorf("got %v %s, want %v %s", c.proportions, c.requestDist, tc.props, tc.dist)
			}
			wantScan := int64(1000)
			if strings.HasSuffix(strings.ToLower(tc.letter), "e") {
				wantScan = 100
			}
			if c.maxScanLength != wantScan {
				t.Errorf("maxscanlength %d, want %d", c.maxScanLength, wantScan)
			}
		})
	}
}

func TestPrecedence(t *testing.T) {
	dir := t.TempDir()
	f1 := writeFile(t, dir, "one", "recordcount=500\nfieldcount=4\nfieldlength=9\nzeropadding=2\nreadproportion=0.9\nupdateproportion=0.1\n")
	f2 := writeFile(t, dir, "two", "fieldcount=5\nfieldlength=8\nzeropadding=3\n")

	// A -P file that leaves requestdistribution unset gets CoreWorkload's
	// uniform: the default --workload a does not apply under -P.
	_, c := newConfig(t, "-P", f1)
	if c.requestDist != distUniform || c.recordCount != 500 || c.proportions[opRead] != 0.9 {
		t.Errorf("-P alone: %s %d %v", c.requestDist, c.recordCount, c.proportions)
	}
	// An explicit letter applies, below the file.
	_, c = newConfig(t, "--workload", "d", "-P", f2)
	if c.requestDist != distLatest || c.proportions != [numOps]float64{0.95, 0, 0.05, 0, 0} || c.fieldCount != 5 {
		t.Errorf("letter under file: %s %v %d", c.requestDist, c.proportions, c.fieldCount)
	}
	// Later files win; -p beats files; flags beat -p.
	_, c = newConfig(t, "--workload", "a", "-P", f1, "-P", f2,
		"-p", "fieldlength=7", "-p", "zeropadding=4", "--zero-padding", "6")
	if c.requestDist != distZipfian {
		t.Errorf("letter a under files: requestdistribution %s", c.requestDist)
	}
	if c.recordCount != 500 || c.fieldCount != 5 || c.fieldLength != 7 || c.zeroPadding != 6 {
		t.Errorf("recordcount %d fieldcount %d fieldlength %d zeropadding %d, want 500 5 7 6",
			c.recordCount, c.fieldCount, c.fieldLength, c.zeroPadding)
	}
	// The flag order on the command line does not matter.
	_, c = newConfig(t, "--field-count=3", "-p", "fieldcount=2", "-P", f2)
	if c.fieldCount != 3 {
		t.Errorf("fieldcount %d, want 3 from the flag", c.fieldCount)
	}
	// Flags, their cockroach aliases, and the letter's defaults.
	_, c = newConfig(t, "--workload=b", "--request-distribution=uniform", "--insert-hash=false",
		"--read-proportion=0.6", "--update-freq=0.4", "--record-count=300", "--insert-start=100", "--insert-count=150")
	if c.requestDist != distUniform || !c.insertOrdered || c.proportions[opRead] != 0.6 || c.proportions[opUpdate] != 0.4 {
		t.Errorf("flags: %s ordered=%v %v", c.requestDist, c.insertOrdered, c.proportions)
	}
	if c.recordCount != 300 || c.insertStart != 100 || c.insertCount != 150 {
		t.Errorf("counts %d %d %d", c.recordCount, c.insertStart, c.insertCount)
	}
	// insertcount defaults to recordcount - insertstart.
	_, c = newConfig(t, "-p", "recordcount=300", "-p", "insertstart=100")
	if c.insertCount != 200 {
		t.Errorf("insertcount %d, want 200", c.insertCount)
	}
}

func TestYCSBWorkloadFile(t *testing.T) {
	g, c := newConfig(t, "-P", "testdata/workloada")
	if c.recordCount != 1000 || c.requestDist != distZipfian || c.proportions != [numOps]float64{0.5, 0.5, 0, 0, 0} {
		t.Errorf("got %d %s %v", c.recordCount, c.requestDist, c.proportions)
	}
	if OperationCount(g) != 1000 {
		t.Errorf("OperationCount %d, want 1000", OperationCount(g))
	}
	if w := Warnings(g); len(w) != 0 {
		t.Errorf("warnings for a plain YCSB file: %q", w)
	}
}

func TestWarnings(t *testing.T) {
	dir := t.TempDir()
	f := writeFile(t, dir, "w", "threadcount=8\nmystery=1\ndb.url=jdbc:postgresql://x\n")
	g, _ := newConfig(t, "-P", f, "-p", "workload=site.ycsb.workloads.TimeSeriesWorkload",
		"-p", "measurement.interval=both", "-p", "operationcount=77", "-p", "measurementtype=hdrhistogram", "-p", "measurementtype=timeseries",
		"-p", "db.passwrd=Sekr3t", "-p", "my.secret=Sekr3t")
	// threadcount and db.url are the command line's (cmdline/ycsb).
	want := []string{
		"ignoring property mystery=1 (from " + f + ":2): not a property stampede's ycsb reads",
		"ignoring property workload=site.ycsb.workloads.TimeSeriesWorkload (from -p): only CoreWorkload is supported",
		"ignoring property measurementtype=timeseries (from -p): stampede measures with HDR histograms, YCSB's measurementtype=hdrhistogram, and reports as it does",
		// A misspelt password property: its value is masked.
		"ignoring property db.passwrd=xxxxx (from -p): connection settings come from the URL",
		"ignoring property my.secret=xxxxx (from -p): not a property stampede's ycsb reads",
	}
	got := Warnings(g)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("warnings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if MeasurementInterval(g) != "both" || OperationCount(g) != 77 {
		t.Errorf("MeasurementInterval %q OperationCount %d", MeasurementInterval(g), OperationCount(g))
	}
}

func TestValidationErrors(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "nope")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--workload", "g"}, `unknown --workload "g": use a, b, c, d, e or f`},
		{[]string{"-P", missing}, "cannot read property file " + missing + ": no such file or directory"},
		{[]string{"-P", "testdata/malformed.properties"}, `invalid fieldcount "" (from testdata/malformed.properties:3): not an integer`},
		{[]string{"-p", "recordcount"}, `malformed -p "recordcount": expected key=value`},
		{[]string{"-p", "readproportion=0", "-p", "updateproportion=0"},
			"operation proportions are all 0: give at least one of readproportion, updateproportion, insertproportion, scanproportion, readmodifywriteproportion, deleteproportion a positive value"},
		{[]string{"-p", "readproportion=-0.5", "-p", "updateproportion=1.5"},
			"readproportion must not be negative, not -0.5 (from -p)"},
		{[]string{"-p", "requestdistribution=pareto"},
			`unknown requestdistribution "pareto" (from -p): use uniform, zipfian, latest, hotspot, exponential or sequential`},
		{[]string{"--scan-length-distribution", "latest"},
			`unknown scanlengthdistribution "latest" (from --scan-length-distribution): use uniform or zipfian`},
		{[]string{"-p", "fieldlengthdistribution=lognormal"},
			`unknown fieldlengthdistribution "lognormal" (from -p): use constant, uniform, zipfian or histogram`},
		{[]string{"-p", "fieldlengthdistribution=histogram", "-p", "fieldlengthhistogram=testdata/nosuch.txt"},
			"fieldlengthhistogram (from -p): cannot read testdata/nosuch.txt: no such file or directory: give the path of a histogram file (a BlockSize<TAB>N line, then BUCKET<TAB>COUNT lines, as YCSB's)"},
		{[]string{"-p", "fieldlengthdistribution=histogram", "-p", "fieldlengthhistogram=testdata"},
			"fieldlengthhistogram (from -p): testdata is a directory: give the path of a histogram file (a BlockSize<TAB>N line, then BUCKET<TAB>COUNT lines, as YCSB's)"},
		{[]string{"-p", "fieldlengthdistribution=histogram", "-p", "fieldlengthhistogram=testdata/workloada"},
			`fieldlengthhistogram (from -p): testdata/workloada:1: the first line must be BlockSize<TAB>N with N a positive integer, not "# A YCSB-style core workload file for tests: an update-heavy mix"`},
		{[]string{"-p", "measurement.interval=sometimes"}, `unknown measurement.interval "sometimes" (from -p): use op, intended or both`},
		{[]string{"-p", "hdrhistogram.percentiles=50,ninety"},
			`invalid hdrhistogram.percentiles "50,ninety" (from -p): use percentiles in (0, 100] separated by commas, such as 50,95,99`},
		{[]string{"-p", "hdrhistogram.percentiles=0"},
			`invalid hdrhistogram.percentiles "0" (from -p): use percentiles in (0, 100] separated by commas, such as 50,95,99`},
		// A -p value is checked even when a flag overrides it.
		{[]string{"-p", "recordcount=abc", "--record-count", "100"}, `invalid recordcount "abc" (from -p): not an integer`},
		{[]string{"-p", "requestdistribution=pareto", "--request-distribution", "uniform"},
			`unknown requestdistribution "pareto" (from -p): use uniform, zipfian, latest, hotspot, exponential or sequential`},
		{[]string{"-p", "recordcount=10k"}, `invalid recordcount "10k" (from -p): not an integer`},
		{[]string{"-p", "zipfianconstant=high"}, `invalid zipfianconstant "high" (from -p): not a number`},
		{[]string{"--zipfian-constant", "1.2"}, "zipfianconstant must be at least 0 and less than 1, not 1.2 (from --zipfian-constant)"},
		{[]string{"-p", "readallfields=yes"}, `invalid readallfields "yes" (from -p): not true or false`},
		{[]string{"-p", "measurement.interval=always"}, `unknown measurement.interval "always" (from -p): use op, intended or both`},
		{[]string{"--field-count", "0"}, "fieldcount must be at least 1, not 0 (from --field-count)"},
		{[]string{"-p", "recordcount=0"}, "recordcount must be at least 1, not 0 (from -p)"},
		{[]string{"--record-count", "100", "--insert-start", "50", "--insert-count", "60"},
			"insertstart (50) + insertcount (60) exceeds recordcount (100)"},
		{[]string{"--record-count", "100", "--insert-start", "100"},
			"insertstart (100, from --insert-start) is not below recordcount (100), and no insertcount says how many keys this client loads: " +
				"give recordcount as the whole table's count and insertcount as this client's share"},
		{[]string{"--record-count", "100", "--insert-start", "10", "--insert-count", "0"},
			"insertcount must be at least 1, not 0 (from --insert-count)"},
		{[]string{"--min-scan-length", "10", "--max-scan-length", "5"}, "maxscanlength (5) is less than minscanlength (10)"},
		{[]string{"-p", "hotspotdatafraction=2"}, "hotspotdatafraction must be between 0 and 1, not 2 (from -p)"},
		{[]string{"-p", "table=user table"}, `invalid table "user table" (from -p): use letters, digits and underscores`},
		{[]string{"--zero-padding", "300"}, "zeropadding must be at most 251, not 300 (from --zero-padding): keys are VARCHAR(255)"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			if got := resolveErr(tc.args...); got != tc.want {
				t.Errorf("error\n  %s\nwant\n  %s", got, tc.want)
			}
		})
	}
}

func TestFlagsRuntimeOnly(t *testing.T) {
	g := ycsbMeta.New().(*ycsb)
	f := g.Flags()
	for _, name := range []string{"workload", "request-distribution", "read-proportion", "max-scan-length"} {
		if !f.Meta[name].RuntimeOnly {
			t.Errorf("--%s is not runtime-only", name)
		}
	}
	for _, name := range []string{"record-count", "field-count", "field-length", "insert-order", "property", "property-file"} {
		if f.Lookup(name) == nil {
			t.Errorf("no flag --%s", name)
		}
		if f.Meta[name].RuntimeOnly {
			t.Errorf("--%s shapes the data but is runtime-only", name)
		}
	}
	if f.ShorthandLookup("P") == nil || f.ShorthandLookup("p") == nil {
		t.Error("-P and -p shorthands missing")
	}
}

// TestDistributedWorkloadFiles: a -P file named as one of YCSB's core
// workload files by a relative path (workloads/workloada .. f) that does
// not exist, pasted from YCSB's documentation where there is no YCSB
// checkout, is read as YCSB distributes it, with a warning that says so:
// the mix of --workload X with the file's recordcount and operationcount
// of 1000. The file is read when there is one; another missing file, or
// one named by an absolute path, is an error, as is reading it for YCSB's
// command line.
func TestDistributedWorkloadFiles(t *testing.T) {
	t.Chdir(t.TempDir())
	for _, letter := range []string{"a", "b", "c", "d", "e", "f"} {
		t.Run(letter, func(t *testing.T) {
			file := filepath.Join("workloads", "workload"+letter)
			g, c := newConfig(t, "-P", file)
			_, want := newConfig(t, "--workload", letter, "-p", "recordcount=1000", "-p", "operationcount=1000")
			if c.proportions != want.proportions || c.requestDist != want.requestDist || c.recordCount != 1000 ||
				OperationCount(g) != 1000 || !c.readAllFields || c.maxScanLength != want.maxScanLength || c.scanLengthDist != want.scanLengthDist {
				t.Errorf("-P %s: %+v, want --workload %s's %+v", file, c, letter, want)
			}
			w := Warnings(g)
			if len(w) != 1 || !strings.HasPrefix(w[0], "-P "+file+": no such file: using YCSB's workload"+letter+" as YCSB distributes it (recordcount=1000 operationcount=1000 workload=site.ycsb.workloads.CoreWorkload readallfields=true readproportion=") {
				t.Errorf("warnings %q", w)
			}
			if _, err := ReadPropertyFile(file); err != nil {
				t.Errorf("ReadPropertyFile: %v", err)
			}
		})
	}
	if _, c := newConfig(t, "-P", "ycsb-0.17.0/workloads/workloadb"); c.recordCount != 1000 || c.proportions[opUpdate] != 0.05 {
		t.Errorf("ycsb-0.17.0/workloads/workloadb: recordcount %d, proportions %v", c.recordCount, c.proportions)
	}
	// The real file, when there is one, is read instead.
	if err := os.Mkdir("workloads", 0o755); err != nil {
		t.Fatal(err)
	}
	if _, c := newConfig(t, "-P", writeFile(t, "workloads", "workloadc", "recordcount=77\n")); c.recordCount != 77 {
		t.Errorf("an existing workloads/workloadc's recordcount: %d", c.recordCount)
	}
	abs, err := filepath.Abs(filepath.Join("nosuch", "workloads", "workloada"))
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range []string{"workloads/workloadg", "workloads/workloada.properties", "workloads/myworkload", "workloada", "conf/workloada", abs} {
		want := "cannot read property file " + file + ": no such file or directory"
		if got := resolveErr("-P", file); got != want {
			t.Errorf("-P %s: %q, want %q", file, got, want)
		}
		if _, err := ReadPropertyFile(file); err == nil || err.Error() != want {
			t.Errorf("ReadPropertyFile(%s): %v", file, err)
		}
	}
}
