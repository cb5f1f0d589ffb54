package output

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// Formats of HistogramExporter (cockroach's --histogram-export-format).
const (
	HistogramJSON        = "json"
	HistogramOpenMetrics = "openmetrics"
)

// Cockroach's histograms: 100µs to --histograms-max-latency (100s by
// default), one significant figure.
const (
	crdbMinLatency = 100 * time.Microsecond
	crdbSigFigs    = 1
)

// HistogramExporter writes `cockroach workload run --histograms FILE`:
// every tick's histogram of every operation, as cockroach's exporters
// write it. In JSON, one object per line, {"Name", "Hist" (an HDR
// histogram snapshot: LowestTrackableValue, HighestTrackableValue,
// SignificantFigures, Counts), "Elapsed" (ns), "Now"}; in OpenMetrics a
// summary (quantiles 0.5, 0.95, 0.99, 1.0, sum, count) and the gauges
// NAME_elapsed (ms), NAME_max and NAME_mean per tick, and
// NAME_highest_trackable_value per operation at the end, then # EOF. The
// histograms are re-binned into cockroach's own (100µs to MaxLatency, one
// significant figure), so that the file has cockroach's size and reads
// back with the same bucket boundaries. It is not safe for concurrent
// use.
type HistogramExporter struct {
	// Format is HistogramJSON ("" too) or HistogramOpenMetrics.
	Format string
	// MaxLatency is the histograms' highest trackable value; 0 means
	// 100s.
	MaxLatency time.Duration
	// Labels are the OpenMetrics labels (--openmetrics-labels), with
	// workload=NAME.
	Labels map[string]string

	w       *bufio.Writer
	highest map[string]time.Time
	names   []string
}

// NewHistogramExporter returns an exporter writing to w.
func NewHistogramExporter(w io.Writer, format string, maxLatency time.Duration, labels map[string]string) *HistogramExporter {
	return &HistogramExporter{Format: format, MaxLatency: maxLatency, Labels: labels, w: bufio.NewWriter(w), highest: map[string]time.Time{}}
}

// CheckHistogramsPath refuses a file name the format's cockroach exporter
// refuses: JSON needs a .json file, OpenMetrics one that is not.
func CheckHistogramsPath(path, format string) error {
	switch format {
	case "", HistogramJSON:
		if !strings.HasSuffix(path, ".json") {
			return fmt.Errorf("--histograms %s: the json export's file name must end with .json (as cockroach's)", path)
		}
	case HistogramOpenMetrics:
		if strings.HasSuffix(path, ".json") {
			return fmt.Errorf("--histograms %s: the openmetrics export's file name must not end with .json (as cockroach's)", path)
		}
	default:
		return fmt.Errorf("unknown --histogram-export-format %q: use json or openmetrics", format)
	}
	return nil
}

// rebin returns h's values in a histogram of cockroach's shape, clamped
// to its range as cockroach clamps what it records.
func (e *HistogramExporter) rebin(h *hdrhistogram.Histogram) *hdrhistogram.Histogram {
	hi := e.MaxLatency
	if hi <= 0 {
		hi = 100 * time.Second
	}
	out := hdrhistogram.New(crdbMinLatency.Nanoseconds(), hi.Nanoseconds(), crdbSigFigs)
	if h == nil {
		return out
	}
	for _, b := range h.Distribution() {
		if b.Count == 0 {
			continue
		}
		v := min(max(b.To, crdbMinLatency.Nanoseconds()), hi.Nanoseconds())
		_ = out.RecordValues(v, b.Count)
	}
	return out
}

// crdbSnapshot is cockroach's SnapshotTick.
type crdbSnapshot struct {
	Name    string
	Hist    *crdbHist
	Elapsed time.Duration
	Now     time.Time
}

// crdbHist is the snapshot of cockroach's histograms (codahale's
// hdrhistogram.Snapshot): hdrhistogram-go's has one more field,
// IntegerToDoubleConversionRatio, that cockroach's files do not.
type crdbHist struct {
	LowestTrackableValue  int64
	HighestTrackableValue int64
	SignificantFigures    int64
	Counts                []int64
}

// snapshot returns h's snapshot in cockroach's shape.
func snapshot(h *hdrhistogram.Histogram) *crdbHist {
	s := h.Export()
	return &crdbHist{LowestTrackableValue: s.LowestTrackableValue, HighestTrackableValue: s.HighestTrackableValue,
		SignificantFigures: s.SignificantFigures, Counts: s.Counts}
}

// histogram returns the histogram of a snapshot.
func (s *crdbHist) histogram() *hdrhistogram.Histogram {
	return hdrhistogram.Import(&hdrhistogram.Snapshot{LowestTrackableValue: s.LowestTrackableValue,
		HighestTrackableValue: s.HighestTrackableValue, SignificantFigures: s.SignificantFigures, Counts: s.Counts})
}

// Write writes one tick of one operation: h, the values of the elapsed
// time ending at now.
func (e *HistogramExporter) Write(name string, h *hdrhistogram.Histogram, elapsed time.Duration, now time.Time) error {
	c := e.rebin(h)
	if e.Format == HistogramOpenMetrics {
		return e.writeOpenMetrics(name, c, elapsed, now)
	}
	b, err := json.Marshal(crdbSnapshot{Name: name, Hist: snapshot(c), Elapsed: elapsed, Now: now})
	if err != nil {
		return err
	}
	if _, err := e.w.Write(append(b, '\n')); err != nil {
		return err
	}
	return e.w.Flush()
}

// Close ends the export (OpenMetrics' last gauges and # EOF) and flushes
// it; the caller closes the file.
func (e *HistogramExporter) Close() error {
	if e.Format == HistogramOpenMetrics {
		hi := e.MaxLatency
		if hi <= 0 {
			hi = 100 * time.Second
		}
		h := hdrhistogram.New(crdbMinLatency.Nanoseconds(), hi.Nanoseconds(), crdbSigFigs)
		for _, name := range e.names {
			e.gauge(name+"_highest_trackable_value", float64(h.HighestTrackableValue()), e.highest[name])
		}
		fmt.Fprint(e.w, "# EOF\n")
	}
	return e.w.Flush()
}

func (e *HistogramExporter) writeOpenMetrics(name string, h *hdrhistogram.Histogram, elapsed time.Duration, now time.Time) error {
	if _, ok := e.highest[name]; !ok {
		e.highest[name] = now
		e.names = append(e.names, name)
	}
	ts := omTimestamp(now)
	labels := e.labelText()
	fmt.Fprintf(e.w, "# TYPE %s summary\n", name)
	for _, q := range []struct {
		text string
		q    float64
	}{{"0.5", 50}, {"0.95", 95}, {"0.99", 99}, {"1.0", 100}} {
		fmt.Fprintf(e.w, "%s{%squantile=%q} %s %s\n", name, labels, q.text, omFloat(float64(h.ValueAtQuantile(q.q))), ts)
	}
	fmt.Fprintf(e.w, "%s_sum%s 0.0 %s\n", name, e.braced(), ts)
	fmt.Fprintf(e.w, "%s_count%s %d %s\n", name, e.braced(), h.TotalCount(), ts)
	e.gauge(name+"_elapsed", float64(elapsed.Milliseconds()), now)
	e.gauge(name+"_max", float64(h.Max()), now)
	e.gauge(name+"_mean", h.Mean(), now)
	return e.w.Flush()
}

func (e *HistogramExporter) gauge(name string, v float64, now time.Time) {
	fmt.Fprintf(e.w, "# TYPE %s gauge\n%s%s %s %s\n", name, name, e.braced(), omFloat(v), omTimestamp(now))
}

// labelText is the labels as `k="v",` each, sorted by name.
func (e *HistogramExporter) labelText() string {
	keys := make([]string, 0, len(e.Labels))
	for k := range e.Labels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "%s=%q,", k, e.Labels[k])
	}
	return b.String()
}

// braced is the labels in braces, or nothing without labels.
func (e *HistogramExporter) braced() string {
	if l := e.labelText(); l != "" {
		return "{" + strings.TrimSuffix(l, ",") + "}"
	}
	return ""
}

// omFloat renders a value as the OpenMetrics text format does: the
// shortest representation, with ".0" after an integer.
func omFloat(v float64) string {
	s := strconv.FormatFloat(v, 'g', -1, 64)
	if !strings.ContainsAny(s, ".eEIN") {
		s += ".0"
	}
	return s
}

// omTimestamp is a time in seconds with milliseconds.
func omTimestamp(t time.Time) string {
	return strconv.FormatFloat(float64(t.UnixMilli())/1000, 'g', -1, 64)
}

// ParseOpenMetricsLabels parses --openmetrics-labels, "k=v,k2=v2"; names
// are sanitized as cockroach's (characters outside [a-zA-Z0-9_] become
// _), and workload=NAME is added.
func ParseOpenMetricsLabels(s, workloadName string) (map[string]string, error) {
	labels := map[string]string{}
	if strings.TrimSpace(s) != "" {
		for _, part := range strings.Split(s, ",") {
			k, v, ok := strings.Cut(part, "=")
			if !ok {
				return nil, fmt.Errorf("invalid histogram label %q in --openmetrics-labels: use key=value,...", part)
			}
			labels[sanitizeLabel(strings.TrimSpace(k))] = strings.TrimSpace(v)
		}
	}
	labels["workload"] = workloadName
	return labels, nil
}

func sanitizeLabel(s string) string {
	b := []byte(s)
	for i, c := range b {
		ok := c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9' && i > 0)
		if !ok {
			b[i] = '_'
		}
	}
	return string(b)
}
