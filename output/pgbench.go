package output

import (
	"errors"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/stampede-bench/stampede/pgscript"
	"github.com/stampede-bench/stampede/run"
	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/stats"
	"github.com/stampede-bench/stampede/workload"
)

// PgbenchVersion is the pgbench whose report Pgbench prints.
const PgbenchVersion = "15.18"

// PgbenchSource is what the pgbench report needs from the workload: its
// scripts as they ran (the sql workload implements it).
type PgbenchSource interface {
	// Program is the run's program, nil before the run made it.
	Program() *pgscript.Program
	// ConnectTime is the clients' mean time to connect.
	ConnectTime() (time.Duration, bool)
	// MaxTries is pgbench's --max-tries (0: stampede's own retries; -1:
	// unlimited, pgbench's --max-tries 0).
	MaxTries() int
	// ConnectEach says every script opened its own connection (-C).
	ConnectEach() bool
	// Retries is how many transactions of script s were retried, and
	// how many retries there were.
	Retries(s int) (retried, retries int64)
	// Skipped is how many transactions of script s were skipped, too
	// late under a rate (pgbench chooses the script, then skips).
	Skipped(s int) int64
	// Moments is script s's exact latency and schedule lag moments in
	// µs, those of its transaction log (empty when not kept: the report
	// then takes the histograms').
	Moments(s int) (lat, lag stats.Moments)
	// Partitions is how pgbench_accounts is partitioned, as pgbench
	// reads it before a built-in script: "range" or "hash" and the
	// partitions' count ("" when it is not, or no built-in script ran).
	Partitions() (method string, n int)
}

// PgbenchOptions are pgbench's options that only its report and progress
// lines show: the pgbench form passes them to `run sql` in hidden flags
// (--pgbench-jobs...) that fill this struct.
type PgbenchOptions struct {
	// Jobs is -j; PerClient -t (0 under -T); Progress -P in seconds (0:
	// none); LatencyLimit -L in ms (0: none).
	Jobs         int
	PerClient    int64
	Progress     int
	LatencyLimit float64
	// FailuresDetailed is --failures-detailed (failures split into
	// serialization failures and deadlocks); Timestamps is
	// --progress-timestamp (progress lines at Unix times).
	FailuresDetailed bool
	Timestamps       bool
}

// Pgbench prints a run as pgbench 15 does: its version line, progress
// lines on Status every Progress seconds, and its report. It is a
// run.Observer.
type Pgbench struct {
	// W receives the report (stdout), Status the progress lines and
	// "starting vacuum...end." (stderr).
	W, Status io.Writer
	// Version is stampede's version.
	Version string
	// Source gives the scripts.
	Source PgbenchSource
	// PgbenchOptions are the options only the report shows.
	PgbenchOptions
	// Protocol is pgbench's query mode; Duration its -T in seconds;
	// PerCommand its -r; Vacuum says it vacuumed first (no -n); Rated
	// says -R was given, and Skipping says late transactions are
	// skipped (-L with -R).
	Protocol   string
	Duration   int
	PerCommand bool
	Vacuum     bool
	// VacuumAccounts is -v: pgbench_accounts vacuumed too.
	VacuumAccounts bool
	Rated          bool
	Skipping       bool

	info run.Info
	// begin is when the engine's first interval began, from which
	// pgbench's progress lines count (run.Info.Start is earlier: it
	// precedes the run's set-up).
	begin time.Time
	// lastRetried, lastRetries, lastSkipped and lastAborted are the
	// counts at the last progress line.
	lastRetried, lastRetries, lastSkipped, lastAborted int64
}

var _ run.Observer = (*Pgbench)(nil)

// Start implements run.Observer.
func (o *Pgbench) Start(info run.Info) {
	o.info = info
	fmt.Fprintf(o.W, "pgbench (%s (stampede %s))\n", PgbenchVersion, o.Version)
	if o.Vacuum {
		fmt.Fprintf(o.Status, "starting vacuum...end.\n")
		if o.VacuumAccounts {
			fmt.Fprintf(o.Status, "starting vacuum pgbench_accounts...end.\n")
		}
	}
}

// transactions merges the scripts' series of tick t.
func (o *Pgbench) transactions(t stats.Tick, cumulative bool) (h *hdrhistogram.Histogram, failed int64) {
	h = stats.NewHistogram()
	for i, s := range o.scripts() {
		_ = s
		series := t.Series[i]
		if cumulative {
			stats.Merge(h, series.Cumulative)
			failed += series.CumErrors
		} else {
			stats.Merge(h, series.Interval)
			failed += series.Errors
		}
	}
	return h, failed
}

// scripts is the run's scripts; their ops come first.
func (o *Pgbench) scripts() []pgscript.ScriptLayout {
	if p := o.Source.Program(); p != nil {
		return p.Layout().Scripts
	}
	return nil
}

// Interval implements run.Observer: pgbench's progress line.
func (o *Pgbench) Interval(iv run.Interval) {
	if o.Progress <= 0 || iv.Final {
		return
	}
	t := iv.Tick
	if o.begin.IsZero() {
		o.begin = t.Start
	}
	secs := t.End.Sub(t.Start).Seconds()
	if secs <= 0 {
		return
	}
	h, failed := o.transactions(t, false)
	// An aborted client's transaction is not a failed one to pgbench.
	failed = max(0, failed-(iv.Aborted-o.lastAborted))
	o.lastAborted = iv.Aborted
	at := fmt.Sprintf("%.1f", t.End.Sub(o.begin).Seconds())
	if o.Timestamps {
		at = fmt.Sprintf("%d.%03d", t.End.Unix(), t.End.Nanosecond()/1e6)
	}
	fmt.Fprintf(o.Status, "progress: %s s, %.1f tps, lat %.3f ms stddev %.3f, %d failed",
		at, float64(h.TotalCount())/secs, nsToMs(h.Mean()), stddevMs(h), failed)
	if o.Rated {
		avg, _ := o.lagOf(t, false)
		fmt.Fprintf(o.Status, ", lag %.3f ms", avg)
		if o.Skipping {
			fmt.Fprintf(o.Status, ", %d skipped", iv.Skipped-o.lastSkipped)
			o.lastSkipped = iv.Skipped
		}
	}
	if o.maxTries() != 1 {
		retried, retries := o.retries()
		fmt.Fprintf(o.Status, ", %d retried, %d retries", retried-o.lastRetried, retries-o.lastRetries)
		o.lastRetried, o.lastRetries = retried, retries
	}
	fmt.Fprintln(o.Status)
}

// maxTries is pgbench's --max-tries (0 when unlimited, as pgbench's):
// stampede's own retries, when it was not given, are up to
// workload.MaxConflictRetries.
func (o *Pgbench) maxTries() int {
	switch n := o.Source.MaxTries(); {
	case n > 0:
		return n
	case n < 0:
		return 0
	}
	return workload.MaxConflictRetries + 1
}

// retries sums the scripts' retries.
func (o *Pgbench) retries() (retried, retries int64) {
	for i := range o.scripts() {
		a, b := o.Source.Retries(i)
		retried, retries = retried+a, retries+b
	}
	return retried, retries
}

func nsToMs(ns float64) float64 { return ns / 1e6 }

// stddevMs is pgbench's latency stddev: the population's, in ms.
func stddevMs(h histogram) float64 {
	if h.TotalCount() == 0 {
		return 0
	}
	return h.StdDev() / 1e6
}

// Final implements run.Observer: pgbench's report, after the lines of
// the clients that errors aborted (engine.Config.AbortWorker) and before
// its "Run was aborted" line.
func (o *Pgbench) Final(res *run.Result) {
	aborted := map[string]int64{} // by script (its operation's name)
	for _, a := range res.Engine.Aborted {
		aborted[a.Op]++
		script := 0
		for i, s := range o.scripts() {
			if s.Op < len(o.info.Ops) && o.info.Ops[s.Op] == a.Op {
				script = i
			}
		}
		o.sayAbort(a.Worker, script, a.Err)
	}
	o.report(res, aborted)
	if len(res.Engine.Aborted) > 0 {
		fmt.Fprintln(o.Status, "pgbench: error: Run was aborted; the above results are incomplete.")
	}
}

// sayAbort says why client's run of script aborted, in pgbench's lines:
// a server's error as libpq words it for the statement sent (its line
// and a caret under the error's position), a meta-command's failure in
// pgbench's two lines; stampede's words for another.
func (o *Pgbench) sayAbort(client, script int, err error) {
	se := (*pgscript.ScriptError)(nil)
	errors.As(err, &se)
	var query string
	command := 0
	if se != nil {
		query, command = se.Query, se.Command
	}
	me := (*pgscript.MetaError)(nil)
	pe := (*sqlx.PrepareError)(nil)
	if text, ok := sqlx.LibpqQueryText(err, query); ok && se != nil && se.PrepName != "" && errors.As(err, &pe) {
		// pgbench says the PREPARE's error, then executes the statement
		// it could not prepare, and aborts on that.
		fmt.Fprintf(o.Status, "pgbench: error: %s\npgbench: error: client %d script %d aborted in command %d query 0: ERROR:  prepared statement \"%s\" does not exist\n",
			text, client, script, command, se.PrepName)
	} else if ok {
		fmt.Fprintf(o.Status, "pgbench: error: client %d script %d aborted in command %d query 0: %s\n", client, script, command, text)
	} else if errors.As(err, &me) {
		l := me.PgbenchLines(client, script, command)
		fmt.Fprintf(o.Status, "pgbench: error: %s\npgbench: error: %s\n", l[0], l[1])
	} else {
		fmt.Fprintf(o.Status, "pgbench: error: client %d script %d aborted: %v\n", client, script, err)
	}
}

// report is pgbench's report. The transactions of aborted clients
// (aborted, by script) are not failed ones in pgbench's counts: it
// counts only those that ended in a serialization failure or deadlock.
func (o *Pgbench) report(res *run.Result, aborted map[string]int64) {
	t := res.Final
	w := o.W
	scripts := o.scripts()
	secs := t.End.Sub(t.CumStart).Seconds()
	h, failed := o.transactions(t, true)
	failed -= int64(len(res.Engine.Aborted))
	done := h.TotalCount()
	clients := o.info.Workers
	if len(scripts) == 1 {
		fmt.Fprintf(w, "transaction type: %s\n", scripts[0].Desc)
	} else {
		fmt.Fprintf(w, "transaction type: multiple scripts\n")
	}
	scale := int64(1)
	if p := o.Source.Program(); p != nil {
		scale = p.Scale()
	}
	fmt.Fprintf(w, "scaling factor: %d\n", scale)
	if method, n := o.Source.Partitions(); method != "" {
		fmt.Fprintf(w, "partition method: %s\npartitions: %d\n", method, n)
	}
	fmt.Fprintf(w, "query mode: %s\n", o.Protocol)
	fmt.Fprintf(w, "number of clients: %d\n", clients)
	fmt.Fprintf(w, "number of threads: %d\n", o.Jobs)
	if o.maxTries() != 0 { // pgbench prints no maximum when there is none
		fmt.Fprintf(w, "maximum number of tries: %d\n", o.maxTries())
	}
	if o.PerClient > 0 {
		fmt.Fprintf(w, "number of transactions per client: %d\n", o.PerClient)
		fmt.Fprintf(w, "number of transactions actually processed: %d/%d\n", done, o.PerClient*int64(clients))
	} else {
		duration := o.Duration
		if res.Engine.Interrupted {
			// Stopped early (Ctrl-C), where pgbench would die without a
			// report: the seconds it ran, not those asked for.
			duration = int(math.Round(secs))
		}
		fmt.Fprintf(w, "duration: %d s\n", duration)
		fmt.Fprintf(w, "number of transactions actually processed: %d\n", done)
	}
	skipped := res.Summary.Skipped
	fmt.Fprintf(w, "number of failed transactions: %d (%.3f%%)\n", failed, pct(failed, done+failed+skipped))
	if o.FailuresDetailed {
		serial, dead := res.Summary.Errors["40001"], res.Summary.Errors["40P01"]
		fmt.Fprintf(w, "number of serialization failures: %d (%.3f%%)\n", serial, pct(serial, done+failed+skipped))
		fmt.Fprintf(w, "number of deadlock failures: %d (%.3f%%)\n", dead, pct(dead, done+failed+skipped))
	}
	if o.maxTries() != 1 {
		retried, retries := o.retries()
		fmt.Fprintf(w, "number of transactions retried: %d (%.3f%%)\n", retried, pct(retried, done+failed+skipped))
		fmt.Fprintf(w, "total number of retries: %d\n", retries)
	}
	if o.Skipping {
		fmt.Fprintf(w, "number of transactions skipped: %d (%.3f%%)\n", skipped, pct(skipped, done+failed+skipped))
	}
	if o.LatencyLimit > 0 && done > 0 {
		late := above(h, time.Duration(o.LatencyLimit*float64(time.Millisecond)))
		fmt.Fprintf(w, "number of transactions above the %.1f ms latency limit: %d/%d (%.3f%%)\n", o.LatencyLimit, late, done, pct(late, done))
	}
	if done == 0 {
		return
	}
	if o.Rated || o.Progress > 0 || o.LatencyLimit > 0 {
		var lat stats.Moments
		for i := range scripts {
			l, _ := o.Source.Moments(i)
			lat.Merge(l)
		}
		avg, sd := latencyMs(h, lat)
		fmt.Fprintf(w, "latency average = %.3f ms\n", avg)
		fmt.Fprintf(w, "latency stddev = %.3f ms\n", sd)
	} else {
		// pgbench's average without per-transaction measurement: the
		// clients' time over the transactions, failed ones included.
		including := ""
		if failed > 0 {
			including = " (including failures)"
		}
		fmt.Fprintf(w, "latency average = %.3f ms%s\n", 1000*secs*float64(clients)/float64(done+failed), including)
	}
	if o.Rated {
		o.lag(w, t)
	}
	ct, ok := o.Source.ConnectTime()
	if o.Source.ConnectEach() {
		if ok {
			fmt.Fprintf(w, "average connection time = %.3f ms\n", float64(ct)/1e6)
		}
		fmt.Fprintf(w, "tps = %f (including reconnection times)\n", float64(done)/secs)
	} else {
		if ok {
			fmt.Fprintf(w, "initial connection time = %.3f ms\n", float64(ct)/1e6)
		}
		fmt.Fprintf(w, "tps = %f (without initial connection time)\n", float64(done)/secs)
	}
	if len(scripts) == 1 {
		if o.PerCommand {
			fmt.Fprintf(w, "statement latencies in milliseconds%s:\n", o.commandColumns())
			o.commands(w, "", scripts[0], t)
		}
		return
	}
	var total int
	for _, s := range scripts {
		total += s.Weight
	}
	for i, s := range scripts {
		sh := t.Series[s.Op].Cumulative
		sf := t.Series[s.Op].CumErrors
		if s.Op < len(o.info.Ops) {
			sf -= aborted[o.info.Ops[s.Op]]
		}
		fmt.Fprintf(w, "SQL script %d: %s\n", i+1, s.Desc)
		fmt.Fprintf(w, " - weight: %d (targets %.1f%% of total)\n", s.Weight, 100*float64(s.Weight)/float64(total))
		fmt.Fprintf(w, " - %d transactions (%.1f%% of total, tps = %f)\n", sh.TotalCount(), pct(sh.TotalCount(), done), float64(sh.TotalCount())/secs)
		// pgbench's shares are of the script's transactions processed,
		// failed and skipped.
		ss := o.Source.Skipped(i)
		all := sh.TotalCount() + sf + ss
		fmt.Fprintf(w, " - number of failed transactions: %d (%.3f%%)\n", sf, pct(sf, all))
		if o.maxTries() != 1 {
			retried, retries := o.Source.Retries(i)
			fmt.Fprintf(w, " - number of transactions retried: %d (%.3f%%)\n", retried, pct(retried, all))
			fmt.Fprintf(w, " - total number of retries: %d\n", retries)
		}
		if o.Skipping && all > 0 {
			fmt.Fprintf(w, " - number of transactions skipped: %d (%.3f%%)\n", ss, pct(ss, all))
		}
		if sh.TotalCount() > 0 {
			lat, _ := o.Source.Moments(i)
			avg, sd := latencyMs(sh, lat)
			fmt.Fprintf(w, " - latency average = %.3f ms\n", avg)
			fmt.Fprintf(w, " - latency stddev = %.3f ms\n", sd)
		}
		if o.PerCommand {
			fmt.Fprintf(w, " - statement latencies in milliseconds%s:\n", o.commandColumns())
			o.commands(w, "", s, t)
		}
	}
}

// latencyMs is pgbench's latency average and stddev in ms: the exact
// moments' (those of the transaction log, µs) when kept, else the
// histogram's.
func latencyMs(h histogram, exact stats.Moments) (avg, stddev float64) {
	if exact.N > 0 {
		return exact.Mean() / 1e3, exact.StdDev() / 1e3
	}
	return nsToMs(h.Mean()), stddevMs(h)
}

// lag prints pgbench's "rate limit schedule lag": how much later than
// scheduled the transactions started. With the exact moments kept, the
// average and maximum are those of the transaction log; else the average
// is the mean latency from the scheduled start less the mean service
// time, and the maximum is the schedule lag series' (stampede's own pacer
// lag, well under a millisecond, is kept apart in its own series).
func (o *Pgbench) lag(w io.Writer, t stats.Tick) {
	var exact stats.Moments
	for i := range o.scripts() {
		_, l := o.Source.Moments(i)
		exact.Merge(l)
	}
	avg, maxLag := exact.Mean()/1e3, exact.Max/1e3
	if exact.N == 0 {
		if avg, maxLag = o.lagOf(t, true); avg < 0 {
			return
		}
	}
	fmt.Fprintf(w, "rate limit schedule lag: avg %.3f (max %.3f) ms\n", avg, maxLag)
}

// lagOf is the scripts' mean and maximum schedule lag in ms, over the
// run (cumulative) or the interval; a negative mean when none ran.
func (o *Pgbench) lagOf(t stats.Tick, cumulative bool) (avg, maxLag float64) {
	n := len(o.info.Ops)
	var sumIntended, sumService float64
	var count, most int64
	for i := range o.scripts() {
		if 2*n+i >= len(t.Series) {
			return -1, 0
		}
		in, sv, lg := t.Series[i].Interval, t.Series[n+i].Interval, t.Series[2*n+i].Interval
		if cumulative {
			in, sv, lg = t.Series[i].Cumulative, t.Series[n+i].Cumulative, t.Series[2*n+i].Cumulative
		}
		sumIntended += in.Mean() * float64(in.TotalCount())
		sumService += sv.Mean() * float64(sv.TotalCount())
		count += in.TotalCount()
		most = max(most, lg.Max())
	}
	if count == 0 {
		return -1, 0
	}
	return max(0, (sumIntended-sumService)/float64(count)) / 1e6, float64(most) / 1e6
}

// above counts the values of h above limit (to the histogram's
// precision: 3 significant digits).
func above(h *hdrhistogram.Histogram, limit time.Duration) int64 {
	var n int64
	for _, b := range h.Distribution() {
		if b.From > int64(limit) {
			n += b.Count
		}
	}
	return n
}

// commandColumns names -r's columns after the latency, as pgbench 15
// does: the retries' column only when a transaction may be tried again
// (--max-tries other than 1).
func (o *Pgbench) commandColumns() string {
	if o.maxTries() == 1 {
		return " and failures"
	}
	return ", failures and retries"
}

// commands prints -r's table: each command's mean latency over the
// script's transactions, its failures (the scripts that failed there for
// good), its retries when a transaction may be tried again, and its
// first line.
func (o *Pgbench) commands(w io.Writer, indent string, s pgscript.ScriptLayout, t stats.Tick) {
	for _, c := range s.Commands {
		mean := 0.0
		if c.Op >= 0 {
			if h := t.Series[c.Op].Cumulative; h.TotalCount() > 0 {
				mean = nsToMs(h.Mean())
			}
		}
		if o.maxTries() == 1 {
			fmt.Fprintf(w, "%s   %11.3f  %10d  %s\n", indent, mean, c.Failures, c.FirstLine)
		} else {
			fmt.Fprintf(w, "%s   %11.3f  %10d  %10d  %s\n", indent, mean, c.Failures, c.Retries, c.FirstLine)
		}
	}
}

// pct is 100 a / b, NaN for 0/0 as pgbench prints it.
func pct(a, b int64) float64 {
	if b == 0 {
		return math.NaN()
	}
	return 100 * float64(a) / float64(b)
}
