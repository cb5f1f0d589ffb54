package output

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/stampede-bench/stampede/run"
	"github.com/stampede-bench/stampede/stats"
	"github.com/stampede-bench/stampede/sweep"
)

// Sweep prints a sweep (sweep.Observer): a header, a row as each step
// ends, and what the sweep found; as text columns or as newline-delimited
// JSON (a "sweep" object, a "step" object per step, a "sweep_result"
// object). Status, when set, gets a line as each step begins.
type Sweep struct {
	W      io.Writer
	Status io.Writer
	JSON   bool
	// Plan says what the sweep will do ("5 steps", "a search from 1000
	// to 64000"), for the header.
	Plan string
	// Duration is each step's, for the status lines (0: unknown).
	Duration string
	// Hint completes the commands Done suggests (the results directory
	// given, say); nil leaves them as they are.
	Hint func(string) string
}

// sweepColumns are the text table's columns and their widths; a cell
// wider than its column pushes the rest of its row right.
var sweepColumns = []struct {
	name  string
	width int
}{{"step", 4}, {"max-rate", 9}, {"workers", 7}, {"ops/s", 10}, {"p50(ms)", 8}, {"p95(ms)", 8}, {"p99(ms)", 8}, {"p99.9(ms)", 9}, {"pMax(ms)", 8}, {"errors", 7}, {"run", 0}, {"SLO", 0}}

// Header prints the sweep's first line; call it once before the steps.
func (o *Sweep) Header(id, workload, flag, values string, slo sweep.SLO) {
	if o.JSON {
		o.encode(struct {
			Type     string `json:"type"`
			ID       string `json:"id"`
			Workload string `json:"workload"`
			Param    string `json:"param"`
			Values   string `json:"values"`
			Plan     string `json:"plan"`
			SLO      string `json:"slo,omitempty"`
		}{"sweep", id, workload, strings.TrimPrefix(flag, "--"), values, o.Plan, slo.String()})
		return
	}
	fmt.Fprintf(o.W, "sweep %s: %s, %s %s (%s)", id, workload, flag, values, o.Plan)
	if len(slo.Terms) > 0 {
		fmt.Fprintf(o.W, ", SLO %s", slo)
	}
	fmt.Fprintln(o.W)
	var b strings.Builder
	for i, c := range sweepColumns {
		o.cell(&b, i, c.name)
	}
	fmt.Fprintln(o.W, strings.TrimRight(b.String(), " "))
}

// cell writes column i's value, padded to the column (right-aligned but
// for the last two).
func (o *Sweep) cell(b *strings.Builder, i int, v string) {
	c := sweepColumns[i]
	if i > 0 {
		b.WriteString("  ")
	}
	pad := strings.Repeat(" ", max(0, c.width-len(v)))
	if c.width > 0 {
		b.WriteString(pad)
	}
	b.WriteString(v)
}

// Begin implements sweep.Observer.
func (o *Sweep) Begin(st sweep.Step, s *run.Spec) {
	if o.Status == nil {
		return
	}
	what := fmt.Sprintf("--max-rate %s", sweep.Format(s.MaxRate))
	if s.MaxRate == 0 {
		what = "closed loop"
	}
	fmt.Fprintf(o.Status, "step %d: %s, --concurrency %d", st.N, what, s.Concurrency)
	if o.Duration != "" {
		fmt.Fprintf(o.Status, ", %s", o.Duration)
	}
	fmt.Fprintln(o.Status)
}

// End implements sweep.Observer.
func (o *Sweep) End(st sweep.Step) {
	if o.JSON {
		o.encode(stepJSON(st))
		return
	}
	t := st.Total
	rate := "-"
	if st.Target > 0 {
		rate = sweep.Format(st.Target)
	}
	verdict := "-"
	switch {
	case st.Judged && st.Met:
		verdict = "met"
	case st.Judged:
		verdict = "missed: " + st.Why
	case st.Status != "completed":
		verdict = st.Status
	}
	cells := []string{fmt.Sprint(st.N), rate, fmt.Sprint(st.Workers), fmt.Sprintf("%.1f", t.Rate), sweep.Sig3(t.P50), sweep.Sig3(t.P95),
		sweep.Sig3(t.P99), sweep.Sig3(t.P999), sweep.Sig3(t.Max), fmt.Sprint(t.Errors), st.RunID, verdict}
	var b strings.Builder
	for i, v := range cells {
		o.cell(&b, i, v)
	}
	fmt.Fprintln(o.W, strings.TrimRight(b.String(), " "))
}

// stepJSON is a step's NDJSON object.
type stepObject struct {
	Type    string             `json:"type"`
	N       int                `json:"step"`
	Value   float64            `json:"value"`
	MaxRate float64            `json:"max_rate"`
	Workers int                `json:"workers"`
	Run     string             `json:"run"`
	Dir     string             `json:"dir"`
	Status  string             `json:"status"`
	Total   stats.Summary      `json:"total"`
	Figures map[string]float64 `json:"figures,omitempty"`
	Met     *bool              `json:"slo_met,omitempty"`
	Why     string             `json:"slo_missed,omitempty"`
}

func stepJSON(st sweep.Step) stepObject {
	o := stepObject{Type: "step", N: st.N, Value: st.Value, MaxRate: st.Target, Workers: st.Workers, Run: st.RunID, Dir: st.Dir, Status: st.Status, Total: st.Total, Figures: st.Figures}
	if st.Judged {
		met := st.Met
		o.Met, o.Why = &met, st.Why
	}
	return o
}

// Done prints what the sweep found and where its runs are.
func (o *Sweep) Done(res *sweep.Result) {
	if o.JSON {
		out := struct {
			Type       string      `json:"type"`
			ID         string      `json:"id"`
			Steps      int         `json:"steps"`
			Best       *stepObject `json:"best,omitempty"`
			Miss       *stepObject `json:"miss,omitempty"`
			Peak       *stepObject `json:"peak,omitempty"`
			Stopped    string      `json:"stopped,omitempty"`
			Conclusion string      `json:"conclusion,omitempty"`
		}{Type: "sweep_result", ID: res.ID, Steps: len(res.Steps), Stopped: res.Stopped, Conclusion: res.Conclusion()}
		if res.Best != nil {
			b := stepJSON(*res.Best)
			out.Best = &b
		}
		if res.Miss != nil {
			m := stepJSON(*res.Miss)
			out.Miss = &m
		}
		if res.Peak != nil {
			p := stepJSON(*res.Peak)
			out.Peak = &p
		}
		o.encode(out)
		return
	}
	if c := res.Conclusion(); c != "" {
		fmt.Fprintln(o.W)
		fmt.Fprintln(o.W, c)
	}
	if len(res.Steps) > 0 {
		hint := func(s string) string { return s }
		if o.Hint != nil {
			hint = o.Hint
		}
		fmt.Fprintf(o.W, "\nthe steps' runs: %s; one step in full: %s\n", hint("stampede runs --tag sweep="+res.ID), hint("stampede report "+res.Steps[len(res.Steps)-1].RunID))
	}
}

func (o *Sweep) encode(v any) {
	enc := json.NewEncoder(o.W)
	enc.SetEscapeHTML(false) // the SLO's <= as typed
	_ = enc.Encode(v)
}
