package results

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/stampede-bench/stampede/runlog"
	"github.com/stampede-bench/stampede/stats"
)

// totalsVersion is the version of totals.json's layout; a file of another
// version is ignored (the run is streamed).
const totalsVersion = 1

// totalsDoc is the content of totals.json: what Recompute takes from a
// completed run over the default Window (after the ramp-up, to the end),
// each series' histogram merged. HlogBytes and IntervalsBytes are the
// sizes of the files it was computed from: a copy whose files differ is
// not the one the totals describe.
type totalsDoc struct {
	Version        int                `json:"version"`
	HlogBytes      int64              `json:"hlog_bytes"`
	IntervalsBytes int64              `json:"intervals_bytes"`
	From           time.Time          `json:"from"` // the window's start
	Met            []string           `json:"met"`
	Intervals      int                `json:"intervals"`
	First          time.Time          `json:"first"`
	Last           time.Time          `json:"last"`
	Spans          [][2]time.Time     `json:"spans"`
	LastExtra      map[string]float64 `json:"last_extra,omitempty"`
	BaseExtra      map[string]float64 `json:"base_extra,omitempty"`
	Codes          map[string]int64   `json:"codes,omitempty"`
	Series         []totalsSeries     `json:"series"`
}

// totalsSeries is one series' merged figures; Hist is the histogram in
// intervals.hlog's encoding (compressed V2, base64).
type totalsSeries struct {
	Name   string `json:"name"`
	Count  int64  `json:"count"`
	Errors int64  `json:"errors"`
	Hist   string `json:"hist"`
}

// defaultWindow reports whether w is the zero Window's selection.
func defaultWindow(w Window) bool {
	return !w.From.IsSet() && !w.To.IsSet() && !w.IncludeRamp
}

// fileSizes returns the sizes of run's intervals.hlog and intervals.ndjson.
func fileSizes(dir string) (hlog, ivl int64, err error) {
	a, err := os.Stat(filepath.Join(dir, runlog.HlogFile))
	if err != nil {
		return 0, 0, err
	}
	b, err := os.Stat(filepath.Join(dir, runlog.IntervalsFile))
	if err != nil {
		return 0, 0, err
	}
	return a.Size(), b.Size(), nil
}

// errNoTotals means a run has no totals.json.
var errNoTotals = errors.New("no " + runlog.TotalsFile)

// loadTotals returns what scanRun would take from run over the default
// Window, from its totals.json, with each series' histogram merged into
// accs. It fails (and leaves accs untouched) if the run is not completed,
// has no file, or the file is damaged, of another version or disagrees
// with the run (its files' sizes, the window's start, a histogram of
// another count): the caller streams the run instead.
func loadTotals(run *runlog.Run, accs accSet) (runPart, error) {
	if run.Info.Status != runlog.StatusCompleted {
		return runPart{}, errNoTotals
	}
	data, err := os.ReadFile(filepath.Join(run.Dir, runlog.TotalsFile))
	if err != nil {
		return runPart{}, errNoTotals
	}
	var doc totalsDoc
	if err := json.Unmarshal(data, &doc); err != nil {
		return runPart{}, fmt.Errorf("%s: %w", runlog.TotalsFile, err)
	}
	if doc.Version != totalsVersion {
		return runPart{}, fmt.Errorf("%s: version %d, not %d", runlog.TotalsFile, doc.Version, totalsVersion)
	}
	hlogBytes, ivlBytes, err := fileSizes(run.Dir)
	if err != nil {
		return runPart{}, err
	}
	if hlogBytes != doc.HlogBytes || ivlBytes != doc.IntervalsBytes {
		return runPart{}, fmt.Errorf("%s: made from other files (%d/%d bytes, not %d/%d)", runlog.TotalsFile, doc.HlogBytes, doc.IntervalsBytes, hlogBytes, ivlBytes)
	}
	from, _, err := bounds(run, Window{}, nil)
	if err != nil || !from.Equal(doc.From) {
		return runPart{}, fmt.Errorf("%s: window from %v, the run's is %v", runlog.TotalsFile, doc.From, from)
	}
	if doc.Intervals <= 0 || len(doc.Spans) == 0 || doc.First.IsZero() || doc.Last.Before(doc.First) {
		return runPart{}, fmt.Errorf("%s: no interval", runlog.TotalsFile)
	}
	// The histograms are decoded sparse (PackedHistogram: only filled
	// buckets), each distinct encoding once: a run's many series that saw
	// no operation share one. Decoded dense, all at once, the 64 series of
	// a YCSB run held 10 MB at the run's end (its index in the results
	// store reads it back), most of the live heap's rise over the run's
	// steady state (scripts/bench runend).
	hists := make([]*hdrhistogram.PackedHistogram, len(doc.Series))
	seen := map[string]bool{}
	decoded := map[string]*hdrhistogram.PackedHistogram{}
	for i, s := range doc.Series {
		if seen[s.Name] || s.Count < 0 || s.Errors < 0 {
			return runPart{}, fmt.Errorf("%s: series %q repeated or negative", runlog.TotalsFile, s.Name)
		}
		seen[s.Name] = true
		h := decoded[s.Hist]
		if h == nil {
			if h, err = decodeTotal(s.Hist); err != nil {
				return runPart{}, fmt.Errorf("%s: series %s: %w", runlog.TotalsFile, s.Name, err)
			}
			decoded[s.Hist] = h
		}
		if lo, hi, sf := h.LowestTrackableValue(), h.HighestTrackableValue(), h.SignificantFigures(); lo != stats.Lowest || hi != stats.Highest || sf != stats.SigFigs {
			return runPart{}, fmt.Errorf("%s: series %s: histogram of another geometry", runlog.TotalsFile, s.Name)
		}
		hists[i] = h
	}
	for _, name := range doc.Met {
		if !seen[name] {
			return runPart{}, fmt.Errorf("%s: series %s met but not saved", runlog.TotalsFile, name)
		}
	}
	p := runPart{
		locs: Localities(run), met: doc.Met, intervals: doc.Intervals,
		first: doc.First, last: doc.Last, lastExtra: doc.LastExtra, baseExtra: doc.BaseExtra, codes: doc.Codes,
	}
	for _, s := range doc.Spans {
		if !s[1].After(s[0]) {
			return runPart{}, fmt.Errorf("%s: empty span", runlog.TotalsFile)
		}
		p.spans = append(p.spans, span{s[0], s[1]})
	}
	for i, s := range doc.Series {
		a := accs.get(s.Name)
		if hists[i].TotalCount() > 0 {
			a.own().MergePacked(hists[i]) // as Histogram.Merge of the dense decoding, exactly
		}
		a.errors += s.Errors
		a.count += s.Count
	}
	return p, nil
}

// decodeTotal decodes a histogram of totals.json sparse, with the error
// hdrhistogram.Decode (the dense decoding) gives for one it refuses.
func decodeTotal(enc string) (h *hdrhistogram.PackedHistogram, err error) {
	defer func() {
		if r := recover(); r != nil { // a damaged header (see runlog's decodePacked)
			h, err = nil, fmt.Errorf("%v", r)
		}
	}()
	h, err = hdrhistogram.DecodePacked([]byte(enc))
	if err != nil {
		if _, derr := hdrhistogram.Decode([]byte(enc)); derr != nil {
			return nil, derr
		}
		return nil, err
	}
	return h, nil
}
