package output

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stampede-bench/stampede/run"
	"github.com/stampede-bench/stampede/stats"
	"github.com/stampede-bench/stampede/sweep"
)

// TestSweepLimitValues: a sweep of a limit flag prints each step's value
// as the user writes it, not in bytes (5242880) nor none as 0: in the
// text table, its status lines and the medians over repetitions, in
// JSON (the number kept, value_text beside it) and in CSV (the number's
// column, then a _text one). The medians' rows and JSON's points come in
// the values' order, none (no limit, the most resources) after every
// number, the steps' rows in the order run.
func TestSweepLimitValues(t *testing.T) {
	for _, tc := range []struct {
		param  sweep.Param
		values []float64
		texts  []string
		sorted []string // the medians' rows and JSON's points
	}{
		{"memory", []float64{0, 5 << 20, 1 << 30}, []string{"none", "5M", "1G"}, []string{"5M", "1G", "none"}},
		{"io-write-bps", []float64{1536 << 10, 0}, []string{"1.5M", "none"}, []string{"1.5M", "none"}},
		{"cpus", []float64{0.5, 1, 0}, []string{"0.5", "1", "none"}, []string{"0.5", "1", "none"}},
		{"io-write-iops", []float64{0, 500, 200}, []string{"none", "500", "200"}, []string{"200", "500", "none"}},
	} {
		t.Run(string(tc.param), func(t *testing.T) {
			var steps []sweep.Step
			for rep := 1; rep <= 2; rep++ {
				for i, v := range tc.values {
					n := len(steps) + 1
					steps = append(steps, sweep.Step{N: n, Rep: rep, Value: v, RunID: "r" + string(rune('a'+n)), Status: "completed", Workers: 4,
						Total: stats.Summary{Count: 1000, Rate: float64(100*(i+1) + rep), P50: 1, P99: float64(2 + rep)}})
				}
			}
			res := &sweep.Result{ID: "s", Param: tc.param, Steps: steps}
			res.Judge()
			text, status := printSweep(t, res, false, false)
			lines := strings.Split(text, "\n")
			if f := strings.Fields(lines[1]); f[0] != "step" || f[1] != string(tc.param) {
				t.Fatalf("the table's header: %q", lines[1])
			}
			for i, st := range steps {
				f := strings.Fields(lines[2+i])
				if f[1] != tc.texts[(st.N-1)%len(tc.values)] {
					t.Errorf("step %d: --%s shown as %q, want %q: %s", st.N, tc.param, f[1], tc.texts[(st.N-1)%len(tc.values)], lines[2+i])
				}
				if want := "step " + itoa(st.N) + ": --" + string(tc.param) + " " + tc.texts[(st.N-1)%len(tc.values)] + ","; !strings.Contains(status, want+" ") {
					t.Errorf("the status lines lack %q:\n%s", want, status)
				}
			}
			// The medians: one row per value, lowest first, none last.
			_, med, ok := strings.Cut(text, "medians over each value's runs")
			if !ok {
				t.Fatalf("no medians table:\n%s", text)
			}
			rows := strings.Split(strings.TrimSpace(med), "\n")[2:]
			if len(rows) < len(tc.sorted) {
				t.Fatalf("medians: %d rows, want %d:\n%s", len(rows), len(tc.sorted), med)
			}
			for i, want := range tc.sorted {
				if f := strings.Fields(rows[i]); f[0] != want {
					t.Errorf("medians row %d: %q, want %s", i, rows[i], want)
				}
			}

			js, _ := printSweep(t, res, true, false)
			sc := bufio.NewScanner(strings.NewReader(js))
			k := 0
			for sc.Scan() {
				var o struct {
					Type   string  `json:"type"`
					Value  float64 `json:"value"`
					Text   string  `json:"value_text"`
					Points []struct {
						Value float64 `json:"value"`
						Text  string  `json:"value_text"`
					} `json:"points"`
				}
				if err := json.Unmarshal(sc.Bytes(), &o); err != nil {
					t.Fatal(err)
				}
				switch o.Type {
				case "step":
					if o.Value != steps[k].Value || o.Text != tc.texts[k%len(tc.values)] {
						t.Errorf("JSON step %d: value %v %q, want %v %q", k+1, o.Value, o.Text, steps[k].Value, tc.texts[k%len(tc.values)])
					}
					k++
				case "sweep_result":
					if len(o.Points) != len(tc.values) {
						t.Fatalf("JSON points: %+v", o.Points)
					}
					for i, p := range o.Points {
						if p.Text != tc.param.Text(p.Value) || p.Text != tc.sorted[i] {
							t.Errorf("JSON point %d: %v %q, want %s", i, p.Value, p.Text, tc.sorted[i])
						}
					}
				}
			}
			if k != len(steps) {
				t.Errorf("JSON: %d steps, want %d", k, len(steps))
			}

			c, _ := printSweep(t, res, false, true)
			recs, err := csv.NewReader(strings.NewReader(c)).ReadAll()
			if err != nil {
				t.Fatal(err)
			}
			if recs[0][2] != string(tc.param) || recs[0][3] != string(tc.param)+"_text" {
				t.Fatalf("CSV header %v: want %s, %s_text after step and rep", recs[0], tc.param, tc.param)
			}
			for i, r := range recs[1:] {
				if r[2] != sweep.Format(steps[i].Value) || r[3] != tc.texts[i%len(tc.values)] {
					t.Errorf("CSV row %d: %s %q, want %s %q", i+1, r[2], r[3], sweep.Format(steps[i].Value), tc.texts[i%len(tc.values)])
				}
			}
		})
	}
}

// printSweep prints res as `stampede sweep` does, as text, NDJSON or CSV:
// the table and the status lines.
func printSweep(t *testing.T, res *sweep.Result, asJSON, asCSV bool) (string, string) {
	t.Helper()
	var out, status bytes.Buffer
	o := &Sweep{W: &out, Status: &status, JSON: asJSON, CSV: asCSV, Plan: "plan", Param: res.Param}
	o.Header(res.ID, "ycsb", res.Param.Flag(), "values", res.SLO)
	for _, st := range res.Steps {
		o.Begin(st, &run.Spec{Concurrency: st.Workers})
		o.End(st)
	}
	o.Done(res)
	return out.String(), status.String()
}

// itoa is n in decimal.
func itoa(n int) string { return sweep.Format(float64(n)) }
