package run

import (
	"fmt"
	"math"
	"runtime"
	"strconv"
	"time"

	"github.com/stampede-bench/stampede/engine"
	"github.com/stampede-bench/stampede/report"
	"github.com/stampede-bench/stampede/stats"
)

// pacerProcs gives a run under the precise pacer the processors it needs
// (see engine.Config.RunPacer), and returns the function that puts
// GOMAXPROCS back: two under MaxRate (the engine's metronome holds one
// while it sleeps), which thread I/O's processor per worker already
// gives; under a QueueRate one more than the workers, for the generator.
func pacerProcs(cfg engine.Config, workers int) func() {
	need := 2
	if cfg.QueueRate > 0 {
		need = workers + 1
		if workers > threadIOWorkersPerCPU*runtime.NumCPU() {
			return func() {} // too many threads: the coarse pacer (see pacerFallbackNote)
		}
	}
	if !cfg.Rated() || cfg.Pacer != engine.PacerPrecise || runtime.GOMAXPROCS(0) >= need {
		return func() {}
	}
	old := runtime.GOMAXPROCS(need)
	return func() { runtime.GOMAXPROCS(old) }
}

// latencyBanner is the header line that says which latency the run's
// figures are, and under a rate which pacer keeps the schedule; latency
// is --latency, "" for the default.
func latencyBanner(cfg engine.Config, pacer engine.Pacer, latency string) string {
	if cfg.QueueRate > 0 {
		head := fmt.Sprintf("sysbench's rate: events arrive at %s/s on average (exponential gaps, %s pacer) in one queue the workers share; ",
			strconv.FormatFloat(cfg.QueueRate, 'f', -1, 64), pacer)
		switch latency {
		case "service":
			return head + "latency is each event's service time (--latency service); the latency from its arrival is in the run log"
		case "both":
			return head + "OP lines count latency from each event's arrival in the queue, OP.service lines are the service time (--latency both)"
		}
		return head + "latency counts from each event's arrival in the queue, the wait there included, as sysbench's"
	}
	if cfg.MaxRate == 0 {
		return "closed loop: latency is each operation's service time"
	}
	head := fmt.Sprintf("open loop at %s ops/s, %s pacer: ", strconv.FormatFloat(math.Round(cfg.MaxRate*1000)/1000, 'f', -1, 64), pacer) // 16.333, not 16.333333333333332
	switch latency {
	case "service":
		return head + "latency is each operation's service time (--latency service); the latency from each operation's scheduled start is in the run log"
	case "both":
		return head + "OP lines count latency from each operation's scheduled start (intended), OP.service lines are the service time (--latency both)"
	}
	return head + "latency counts from each operation's scheduled start (intended)"
}

// pacerFallbackNote explains why a run that asked for the precise pacer
// got the coarse one, or returns "".
func pacerFallbackNote(cfg engine.Config, workers int) string {
	if !cfg.Rated() || cfg.Pacer != engine.PacerPrecise || cfg.RunPacer(workers) == engine.PacerPrecise {
		return ""
	}
	return fmt.Sprintf("note: the precise pacer needs more processors than GOMAXPROCS=%d with %d workers: "+
		"the coarse pacer starts operations up to about 1 ms late (see the pacer lag line at the end)", runtime.GOMAXPROCS(0), workers)
}

// seriesExtra is the final block's line for a series that is not an
// operation (OP.service, OP.lag, pacer.lag).
func SeriesExtra(s NamedSummary) report.Extra {
	e := report.Extra{Name: s.Name + "_p99_ms", Value: s.P99,
		Text: fmt.Sprintf("%s: p50 %.2fms p99 %.2fms max %.2fms", s.Name, s.P50, s.P99, s.Max)}
	if s.Name == engine.PacerSeries {
		// Its figures are microseconds when the pacer keeps time.
		e.Text = fmt.Sprintf("pacer lag: p50 %sms p99 %sms max %sms", report.FormatMs(s.P50), report.FormatMs(s.P99), report.FormatMs(s.Max))
	}
	return e
}

// latePacerP99 is the pacer lag p99 above which a run says that the
// client, not the server, made its operations late.
const latePacerP99 = time.Millisecond

// latePacerNote returns a warning when the pacer's lateness is a large
// part of a rated run's latency, or "": series are the run's series, the
// first nOps of them its operations (latency from the intended start).
func latePacerNote(series []NamedSummary, nOps int) string {
	var intended float64 // the highest p99 of an operation
	for _, s := range series[:min(nOps, len(series))] {
		intended = max(intended, s.P99)
	}
	for _, s := range series {
		if s.Name != engine.PacerSeries || s.Count == 0 {
			continue
		}
		if s.P99 >= float64(latePacerP99)/1e6 && s.P99 >= intended/2 {
			return fmt.Sprintf("warning: stampede itself started operations late (pacer lag p99 %sms, intended latency p99 %sms): "+
				"the client, not the server, limits these figures; give it more CPU, fewer workers or a lower --max-rate",
				report.FormatMs(s.P99), report.FormatMs(intended))
		}
	}
	return ""
}

// shortRate is the share of its --max-rate under which a rated run says
// it fell short: a schedule kept within noise does 99-100% of it.
const shortRate = 0.95

// shortRateNote returns a note when a rated run did less than shortRate
// of its rate over its measured period (total; skipped operations count
// as done, their turn taken), or "": the figures stay honest (latency
// counts from each scheduled start), but nothing else said that the
// target was missed. A run of under a second or 100 operations says
// nothing: its rate is mostly its edges.
func shortRateNote(maxRate float64, total stats.Summary, skipped int64) string {
	if maxRate <= 0 || total.Seconds < 1 || total.Count+skipped < 100 {
		return ""
	}
	did := float64(total.Count+skipped) / total.Seconds
	if did >= shortRate*maxRate {
		return ""
	}
	return fmt.Sprintf("note: the run did %.1f operations a second, %.0f%% of --max-rate %s: its schedule fell behind (the server or the client could not keep up), and each operation's latency counts from its scheduled start (OP.lag says how late they started)",
		did, 100*did/maxRate, strconv.FormatFloat(maxRate, 'f', -1, 64))
}
