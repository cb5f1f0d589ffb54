package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/stampede-bench/stampede/stats"
)

// SysbenchInterval is one intermediate report line of sysbench's format.
type SysbenchInterval struct {
	// Elapsed is seconds since the start.
	Elapsed float64
	// Threads is the number of running workers.
	Threads int
	// TPS, QPS and the Read/Write/Other query rates are per second over
	// the interval.
	TPS, QPS, Read, Write, Other float64
	// Percentile is the latency percentile shown (sysbench's --percentile)
	// and Latency its value in milliseconds.
	Percentile float64
	Latency    float64
	// ErrPS and ReconnPS are ignored errors and reconnects per second.
	ErrPS, ReconnPS float64
	// Queue, when set (under a rate), adds sysbench's second line: the
	// events waiting in the queue and those being executed.
	Queue *SysbenchQueue
}

// SysbenchQueue is the state of sysbench's event queue under --rate.
type SysbenchQueue struct {
	Length, Concurrency int
}

// SysbenchHeader is what sysbench prints before a run starts.
type SysbenchHeader struct {
	// Engine names what ran the test, in the version line "sysbench
	// 1.0.20 (using ENGINE)".
	Engine string
	// Threads is the number of workers.
	Threads int
	// Rate is --rate, the target transaction rate (0: none).
	Rate float64
	// ReportEvery is --report-interval in seconds (0: none).
	ReportEvery int
	// Seed is the seed of the random numbers.
	Seed uint64
	// ForcedShutdown is when --forced-shutdown ends the run, in seconds
	// from its start (0: off).
	ForcedShutdown int
}

// SysbenchVersion is the sysbench release whose output layout Sysbench
// writes.
const SysbenchVersion = "1.0.20"

// SysbenchFinal is the final report of sysbench's format.
type SysbenchFinal struct {
	// Query and transaction counts.
	Read, Write, Other, Transactions, IgnoredErrors, Reconnects int64
	// Seconds is the total time.
	Seconds float64
	// Latency of events in milliseconds; Percentile 0 disables the
	// percentile, as sysbench's --percentile=0.
	Percentile                             float64
	LatMin, LatAvg, LatMax, LatPct, LatSum float64
	// Threads fairness: events per worker and seconds spent per worker.
	EventsAvg, EventsStddev, ExecAvg, ExecStddev float64
	// Histogram, when not nil, is printed first (sysbench's --histogram).
	Histogram []stats.Bucket
	// Unfinished, when above 0, is the number of events in flight when
	// --forced-shutdown ended the run: the report opens with sysbench's
	// FATAL line, leaves the histogram out and counts them, as sysbench's
	// forced shutdown does.
	Unfinished int
}

// Sysbench writes sysbench 1.0's output format, so that scripts that parse
// sysbench output keep working.
type Sysbench struct {
	W io.Writer
}

// Header writes the lines sysbench prints before the run starts, opening
// with its version line.
func (s *Sysbench) Header(h SysbenchHeader) error {
	var b strings.Builder
	fmt.Fprintf(&b, "sysbench %s (using %s)\n\n", SysbenchVersion, h.Engine)
	b.WriteString("Running the test with following options:\n")
	fmt.Fprintf(&b, "Number of threads: %d\n", h.Threads)
	if h.Rate > 0 {
		fmt.Fprintf(&b, "Target transaction rate: %s/sec\n", strconv.FormatFloat(h.Rate, 'f', -1, 64))
	}
	if h.ReportEvery > 0 {
		fmt.Fprintf(&b, "Report intermediate results every %d second(s)\n", h.ReportEvery)
	}
	fmt.Fprintf(&b, "Initializing random number generator from seed (%d).\n\n", h.Seed)
	if h.ForcedShutdown > 0 {
		fmt.Fprintf(&b, "Forcing shutdown in %d seconds\n", h.ForcedShutdown)
	}
	b.WriteString("\nInitializing worker threads...\n\nThreads started!\n\n")
	_, err := io.WriteString(s.W, b.String())
	return err
}

// Interval writes one intermediate report line, and the queue's line
// under a rate.
func (s *Sysbench) Interval(i SysbenchInterval) error {
	_, err := fmt.Fprintf(s.W, "[ %.0fs ] thds: %d tps: %4.2f qps: %4.2f (r/w/o: %4.2f/%4.2f/%4.2f) lat (ms,%s%%): %4.2f err/s: %4.2f reconn/s: %4.2f\n",
		i.Elapsed, i.Threads, i.TPS, i.QPS, i.Read, i.Write, i.Other, pct(i.Percentile), i.Latency, i.ErrPS, i.ReconnPS)
	if err == nil && i.Queue != nil {
		_, err = fmt.Fprintf(s.W, "[ %.0fs ] queue length: %d, concurrency: %d\n", i.Elapsed, i.Queue.Length, i.Queue.Concurrency)
	}
	return err
}

// Final writes the final report.
func (s *Sysbench) Final(f SysbenchFinal) error {
	var b strings.Builder
	switch {
	case f.Unfinished > 0:
		b.WriteString("FATAL: The --max-time limit has expired, forcing shutdown...\n")
	case f.Histogram != nil:
		writeHistogram(&b, f.Histogram)
	}
	secs := f.Seconds
	if secs <= 0 {
		secs = 1e-9
	}
	queries := f.Read + f.Write + f.Other
	b.WriteString("SQL statistics:\n    queries performed:\n")
	fmt.Fprintf(&b, "        read:                            %d\n", f.Read)
	fmt.Fprintf(&b, "        write:                           %d\n", f.Write)
	fmt.Fprintf(&b, "        other:                           %d\n", f.Other)
	fmt.Fprintf(&b, "        total:                           %d\n", queries)
	fmt.Fprintf(&b, "    transactions:                        %-6d (%.2f per sec.)\n", f.Transactions, float64(f.Transactions)/secs)
	fmt.Fprintf(&b, "    queries:                             %-6d (%.2f per sec.)\n", queries, float64(queries)/secs)
	fmt.Fprintf(&b, "    ignored errors:                      %-6d (%.2f per sec.)\n", f.IgnoredErrors, float64(f.IgnoredErrors)/secs)
	fmt.Fprintf(&b, "    reconnects:                          %-6d (%.2f per sec.)\n\n", f.Reconnects, float64(f.Reconnects)/secs)
	if f.Unfinished > 0 {
		fmt.Fprintf(&b, "Number of unfinished transactions on forced shutdown: %d\n\n", f.Unfinished)
	}
	b.WriteString("General statistics:\n")
	fmt.Fprintf(&b, "    total time:                          %.4fs\n", f.Seconds)
	fmt.Fprintf(&b, "    total number of events:              %d\n\n", f.Transactions)
	b.WriteString("Latency (ms):\n")
	fmt.Fprintf(&b, "         min: %39.2f\n", f.LatMin)
	fmt.Fprintf(&b, "         avg: %39.2f\n", f.LatAvg)
	fmt.Fprintf(&b, "         max: %39.2f\n", f.LatMax)
	if f.Percentile > 0 {
		fmt.Fprintf(&b, "        %3sth percentile: %27.2f\n", pct(f.Percentile), f.LatPct)
	} else {
		b.WriteString("         percentile stats:               disabled\n")
	}
	fmt.Fprintf(&b, "         sum: %39.2f\n\n", f.LatSum)
	b.WriteString("Threads fairness:\n")
	fmt.Fprintf(&b, "    events (avg/stddev):           %.4f/%3.2f\n", f.EventsAvg, f.EventsStddev)
	fmt.Fprintf(&b, "    execution time (avg/stddev):   %.4f/%3.2f\n\n", f.ExecAvg, f.ExecStddev)
	_, err := io.WriteString(s.W, b.String())
	return err
}

// pct renders a percentile as sysbench does: "95", or "99.9".
func pct(p float64) string {
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.3f", p), "0"), ".")
}

// Histogram writes a latency histogram as sysbench's --histogram does.
func Histogram(w io.Writer, buckets []stats.Bucket) error {
	var b strings.Builder
	writeHistogram(&b, buckets)
	_, err := io.WriteString(w, b.String())
	return err
}

// writeHistogram writes sysbench's latency histogram: one line per
// non-empty bucket with a bar of up to 40 stars scaled to the fullest.
func writeHistogram(b *strings.Builder, buckets []stats.Bucket) {
	b.WriteString("Latency histogram (values are in milliseconds)\n")
	b.WriteString("       value  ------------- distribution ------------- count\n")
	var most int64
	for _, x := range buckets {
		most = max(most, x.Count)
	}
	for _, x := range buckets {
		stars := int((x.Count*40 + most - 1) / most)
		fmt.Fprintf(b, "%12.3f |%-40s %d\n", x.Value, strings.Repeat("*", stars), x.Count)
	}
	b.WriteString(" \n")
}
