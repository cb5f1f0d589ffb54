package sqlscript

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/stampede-bench/stampede/pgscript/prng"
)

// txLog writes pgbench's per-transaction log (pgbench -l): one file per
// pgbench thread, PREFIX.PID for the first and PREFIX.PID.N for thread N,
// the clients dealt to the threads in contiguous blocks as pgbench deals
// them, and for each transaction the line
//
//	client_id transaction_no time script_no time_epoch time_us [schedule_lag] [retries]
//
// time being the transaction's latency in µs (or "failed", its failure's
// type "serialization" or "deadlock" with detailed as under pgbench's
// --failures-detailed, or "skipped" for one skipped as too late under -R
// and -L), script_no its script from
// 0, time_epoch and time_us when it ended, schedule_lag under a rate (-R)
// how long after its intended start it began in µs (0 for a skipped one,
// as pgbench writes; its latency then counts from the intended start),
// and retries its retries when --max-tries is not 1. With a sampling rate below 1,
// each thread draws from its Sample stream (pgbench's ts_sample_rs) which
// transactions it logs.
//
// With an aggregate interval, each thread writes instead one line per
// interval of that many seconds from the whole Unix second before its
// start (as pgbench 15: the first interval is partial), in its format:
//
//	interval_start num_transactions sum_latency sum_latency_2 min_latency max_latency
//	sum_lag sum_lag_2 min_lag max_lag skipped retried retries serialization_failures deadlock_failures
//
// (latencies in µs; the lag and skipped columns are 0 without a rate).
// The last interval, cut short by the end of the run, is not written, as
// in pgbench.
type txLog struct {
	threads  []*txLogThread
	thread   []int // by client
	count    []int64
	retries  bool
	detailed bool
	sampling float64
	agg      time.Duration
}

// txLogThread is one thread's file. Its clients share it.
type txLogThread struct {
	mu     sync.Mutex
	f      *os.File
	w      *bufio.Writer
	sample prng.State
	err    error
	// The aggregate of the interval from start (with txLog.agg).
	start                                      time.Time
	n, retried, retries, serial, dead, skipped int64
	sum, sum2, minLat, maxLat                  float64
	lagSum, lagSum2, minLag, maxLag            float64
}

// advance writes the intervals that ended before end.
func (th *txLogThread) advance(agg time.Duration, end time.Time) {
	for !end.Before(th.start.Add(agg)) {
		th.flushInterval()
		th.start = th.start.Add(agg)
	}
}

// aggregate adds a transaction that ended at end after d (lag after its
// intended start; negative without a rate) to the thread's aggregate,
// writing the intervals that ended before it.
func (th *txLogThread) aggregate(agg time.Duration, end time.Time, d, lag time.Duration, failed bool, code string, retries int) {
	th.advance(agg, end)
	if retries > 0 {
		th.retried++
		th.retries += int64(retries)
	}
	if failed {
		switch code {
		case "40001":
			th.serial++
		case "40P01":
			th.dead++
		}
		return
	}
	us := float64(d.Microseconds())
	if th.n == 0 || us < th.minLat {
		th.minLat = us
	}
	if us > th.maxLat {
		th.maxLat = us
	}
	if lag >= 0 {
		l := float64(lag.Microseconds())
		if th.n == 0 || l < th.minLag {
			th.minLag = l
		}
		th.maxLag = max(th.maxLag, l)
		th.lagSum += l
		th.lagSum2 += l * l
	}
	th.n++
	th.sum += us
	th.sum2 += us * us
}

// flushInterval writes the interval's line and starts the next.
func (th *txLogThread) flushInterval() {
	_, err := fmt.Fprintf(th.w, "%d %d %.0f %.0f %.0f %.0f %.0f %.0f %.0f %.0f %d %d %d %d %d\n",
		th.start.Unix(), th.n, th.sum, th.sum2, th.minLat, th.maxLat, th.lagSum, th.lagSum2, th.minLag, th.maxLag, th.skipped,
		th.retried, th.retries, th.serial, th.dead)
	if err != nil && th.err == nil {
		th.err = err
	}
	th.n, th.retried, th.retries, th.serial, th.dead, th.skipped = 0, 0, 0, 0, 0, 0
	th.sum, th.sum2, th.minLat, th.maxLat = 0, 0, 0, 0
	th.lagSum, th.lagSum2, th.minLag, th.maxLag = 0, 0, 0, 0
}

// newTxLog opens the log files of clients clients (from first) on jobs
// threads.
func newTxLog(prefix string, first, clients, jobs int, retries, detailed bool, sampling float64, agg time.Duration, streams prng.Streams) (*txLog, error) {
	jobs = max(1, min(jobs, clients))
	l := &txLog{thread: make([]int, clients), count: make([]int64, clients), retries: retries, detailed: detailed, sampling: sampling, agg: agg}
	now := time.Now()
	dealt := 0
	pid := os.Getpid()
	for t := range jobs {
		name := prefix + "." + strconv.Itoa(pid)
		if t > 0 {
			name += "." + strconv.Itoa(t)
		}
		f, err := os.OpenFile(name, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
		if err != nil {
			l.close()
			if errors.Is(err, os.ErrExist) {
				return nil, fmt.Errorf("the transaction log %s exists: stampede does not overwrite it; move it, or give another --log-prefix", name)
			}
			return nil, fmt.Errorf("cannot write the transaction log: %w", err)
		}
		// pgbench 15 rounds the first interval's start down to a whole
		// Unix second (its first interval is partial), so that every
		// interval_start is a whole second and the intervals end on them.
		th := &txLogThread{f: f, w: bufio.NewWriterSize(f, 64<<10), start: now.Truncate(time.Second)}
		if t < len(streams.Sample) {
			th.sample = streams.Sample[t]
		}
		l.threads = append(l.threads, th)
		n := (clients - dealt + jobs - t - 1) / (jobs - t)
		for c := dealt; c < dealt+n; c++ {
			l.thread[c] = t
		}
		dealt += n
	}
	_ = first
	return l, nil
}

// skipped writes the line of client c's transaction of script s skipped
// at now as too late (pgbench's -L under -R).
func (l *txLog) skipped(c, id, s int, now time.Time) {
	l.count[c]++
	th := l.threads[l.thread[c]]
	th.mu.Lock()
	defer th.mu.Unlock()
	if l.agg > 0 {
		th.advance(l.agg, now)
		th.skipped++
		return
	}
	l.line(th, c, id, s, now, -1, 0, false, "", 0)
}

// log writes the line of client c's transaction of script s that ended at
// end after d (lag after its intended start; negative without a rate),
// failed or not, with its retries.
func (l *txLog) log(c, id, s int, end time.Time, d, lag time.Duration, failed bool, code string, retries int) {
	l.count[c]++
	th := l.threads[l.thread[c]]
	th.mu.Lock()
	defer th.mu.Unlock()
	if l.agg > 0 {
		th.aggregate(l.agg, end, d, lag, failed, code, retries)
		return
	}
	l.line(th, c, id, s, end, d, lag, failed, code, retries)
}

// line writes a transaction's line on th, when sampled: its latency d
// (negative: skipped) and lag (negative: no rate, no column); code is a
// failure's SQLSTATE.
func (l *txLog) line(th *txLogThread, c, id, s int, end time.Time, d, lag time.Duration, failed bool, code string, retries int) {
	if l.sampling < 1 && th.sample.Double() > l.sampling {
		return
	}
	var b []byte
	b = strconv.AppendInt(b, int64(id), 10)
	b = append(b, ' ')
	b = strconv.AppendInt(b, l.count[c], 10)
	b = append(b, ' ')
	switch {
	case d < 0:
		b = append(b, "skipped"...)
	case failed && l.detailed && code == "40001":
		b = append(b, "serialization"...)
	case failed && l.detailed && code == "40P01":
		b = append(b, "deadlock"...)
	case failed:
		b = append(b, "failed"...)
	default:
		b = strconv.AppendInt(b, d.Microseconds(), 10)
	}
	b = append(b, ' ')
	b = strconv.AppendInt(b, int64(s), 10)
	b = append(b, ' ')
	b = strconv.AppendInt(b, end.Unix(), 10)
	b = append(b, ' ')
	b = strconv.AppendInt(b, int64(end.Nanosecond()/1000), 10)
	if lag >= 0 || d < 0 {
		b = append(b, ' ')
		b = strconv.AppendInt(b, max(lag, 0).Microseconds(), 10)
	}
	if l.retries {
		b = append(b, ' ')
		b = strconv.AppendInt(b, int64(retries), 10)
	}
	b = append(b, '\n')
	if _, err := th.w.Write(b); err != nil && th.err == nil {
		th.err = err
	}
}

// close flushes and closes the files; the first error is returned.
func (l *txLog) close() error {
	var first error
	for _, th := range l.threads {
		th.mu.Lock()
		// The last interval, cut short by the run's end, is not written,
		// as pgbench 15 does not write it.
		err := errors.Join(th.err, th.w.Flush(), th.f.Close())
		th.mu.Unlock()
		if err != nil && first == nil {
			first = fmt.Errorf("writing the transaction log %s: %w", th.f.Name(), err)
		}
	}
	return first
}
