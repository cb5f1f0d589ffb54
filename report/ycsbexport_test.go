package report_test

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/internal/golden"
	"github.com/stampede-bench/stampede/report"
)

// TestYCSBExportLayouts writes one report in each exporter's layout and
// checks them against goldens written from YCSB's exporters' sources
// (JSONMeasurementsExporter, JSONArrayMeasurementsExporter: Jackson's
// DefaultPrettyPrinter), and that the JSON array parses to the text
// report's figures, numbers as numbers.
func TestYCSBExportLayouts(t *testing.T) {
	ms := []report.YCSBMeasurement{
		{Name: "READ", Count: 4985, Mean: 394.25, Min: 123, Max: 9876,
			Percentiles: []report.YCSBPercentile{{50, 300}, {99, 1200}, {99.9, 5000}},
			Returns:     []report.YCSBReturn{{"OK", 4985}}},
		{Name: "INSERT", Count: 15, Mean: 20.5, Min: 0, Max: 350,
			Percentiles: []report.YCSBPercentile{{50, 0}, {99, 350}, {99.9, 350}},
			Returns:     []report.YCSBReturn{{"BATCHED_OK", 13}, {"OK", 2}}},
	}
	for _, tc := range []struct {
		layout report.YCSBLayout
		golden string
	}{
		{report.YCSBText, "ycsb_text_export.golden"},
		{report.YCSBJSON, "ycsb_json.golden"},
		{report.YCSBJSONArray, "ycsb_json_array.golden"},
	} {
		var b bytes.Buffer
		if err := (&report.YCSB{W: &b, Layout: tc.layout}).Final(10023*time.Millisecond, 5000, ms); err != nil {
			t.Fatal(err)
		}
		golden.Check(t, filepath.Join("testdata", tc.golden), b.Bytes())
		if tc.layout != report.YCSBJSONArray {
			continue
		}
		var entries []struct {
			Metric, Measurement string
			Value               json.Number
		}
		if err := json.Unmarshal(b.Bytes(), &entries); err != nil {
			t.Fatalf("JSON array does not parse: %v", err)
		}
		if len(entries) != 2+2*(7+1)+1 || entries[1].Measurement != "Throughput(ops/sec)" || entries[1].Value != "498.85263893045993" ||
			entries[len(entries)-1].Measurement != "Return=OK" || entries[len(entries)-1].Value != "2" {
			t.Errorf("JSON array entries: %+v", entries)
		}
	}
	// A report of no time: Jackson quotes a double that is not a number.
	var b bytes.Buffer
	if err := (&report.YCSB{W: &b, Layout: report.YCSBJSONArray}).Final(0, 0, nil); err != nil {
		t.Fatal(err)
	}
	if want := "[ {\n  \"metric\" : \"OVERALL\",\n  \"measurement\" : \"RunTime(ms)\",\n  \"value\" : 0\n}, {\n  \"metric\" : \"OVERALL\",\n  \"measurement\" : \"Throughput(ops/sec)\",\n  \"value\" : \"NaN\"\n} ]"; b.String() != want {
		t.Errorf("empty report:\n%s\nwant\n%s", b.String(), want)
	}
}

// TestYCSBStatusLabel: YCSB's -l label leads the status line, with no
// space before the date (StatusThread's label + date).
func TestYCSBStatusLabel(t *testing.T) {
	var b bytes.Buffer
	y := &report.YCSB{W: &b, Label: "run7"}
	if err := y.Status(time.Date(2026, 11, 25, 10, 0, 10, 123e6, time.UTC), 10*time.Second, 0, 0, 0, nil); err != nil {
		t.Fatal(err)
	}
	if want := "run72026-11-25 10:00:10:123 10 sec: 0 operations; \n"; b.String() != want {
		t.Errorf("status line %q, want %q", b.String(), want)
	}
}

// TestYCSBJSONEscapes: a measurement's name is escaped as Jackson escapes
// strings.
func TestYCSBJSONEscapes(t *testing.T) {
	var b bytes.Buffer
	ms := []report.YCSBMeasurement{{Name: "A\"B\\C\tD\x01"}}
	if err := (&report.YCSB{W: &b, Layout: report.YCSBJSON}).Final(time.Second, 0, ms); err != nil {
		t.Fatal(err)
	}
	if want := `"metric" : "A\"B\\C\tD\u0001"`; !bytes.Contains(b.Bytes(), []byte(want)) {
		t.Errorf("%s\nlacks %s", b.String(), want)
	}
}

// TestYCSBLoadReport: a load's report (init in YCSB's form) has YCSB's
// [OVERALL] lines and [INSERT]'s counts, without latency lines for the
// rows that were not timed one by one, in each exporter's layout.
func TestYCSBLoadReport(t *testing.T) {
	ms := []report.YCSBMeasurement{{Name: "INSERT", Count: 100000, Unmeasured: true, Returns: []report.YCSBReturn{{"OK", 100000}}}}
	var text, array bytes.Buffer
	if err := (&report.YCSB{W: &text}).Final(2500*time.Millisecond, 100000, ms); err != nil {
		t.Fatal(err)
	}
	if err := (&report.YCSB{W: &array, Layout: report.YCSBJSONArray}).Final(2500*time.Millisecond, 100000, ms); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "ycsb_load.golden"), append(append(text.Bytes(), '\n'), array.Bytes()...))
}
