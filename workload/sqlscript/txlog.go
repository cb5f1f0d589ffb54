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
//	client_id transaction_no time script_no time_epoch time_us [retries]
//
// time being the transaction's latency in µs (or "failed"), script_no
// its script from 0, time_epoch and time_us when it ended, and retries
// its retries when --max-tries is not 1. With a sampling rate below 1,
// each thread draws from its Sample stream (pgbench's ts_sample_rs) which
// transactions it logs.
type txLog struct {
	threads  []*txLogThread
	thread   []int // by client
	count    []int64
	retries  bool
	sampling float64
}

// txLogThread is one thread's file. Its clients share it.
type txLogThread struct {
	mu     sync.Mutex
	f      *os.File
	w      *bufio.Writer
	sample prng.State
	err    error
}

// newTxLog opens the log files of clients clients (from first) on jobs
// threads.
func newTxLog(prefix string, first, clients, jobs int, retries bool, sampling float64, streams prng.Streams) (*txLog, error) {
	jobs = max(1, min(jobs, clients))
	l := &txLog{thread: make([]int, clients), count: make([]int64, clients), retries: retries, sampling: sampling}
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
		th := &txLogThread{f: f, w: bufio.NewWriterSize(f, 64<<10)}
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

// log writes the line of client c's transaction of script s that ended at
// end after d, failed or not, with its retries.
func (l *txLog) log(c, id, s int, end time.Time, d time.Duration, failed bool, retries int) {
	l.count[c]++
	th := l.threads[l.thread[c]]
	th.mu.Lock()
	defer th.mu.Unlock()
	if l.sampling < 1 && th.sample.Double() > l.sampling {
		return
	}
	var b []byte
	b = strconv.AppendInt(b, int64(id), 10)
	b = append(b, ' ')
	b = strconv.AppendInt(b, l.count[c], 10)
	b = append(b, ' ')
	if failed {
		b = append(b, "failed"...)
	} else {
		b = strconv.AppendInt(b, d.Microseconds(), 10)
	}
	b = append(b, ' ')
	b = strconv.AppendInt(b, int64(s), 10)
	b = append(b, ' ')
	b = strconv.AppendInt(b, end.Unix(), 10)
	b = append(b, ' ')
	b = strconv.AppendInt(b, int64(end.Nanosecond()/1000), 10)
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
		err := errors.Join(th.err, th.w.Flush(), th.f.Close())
		th.mu.Unlock()
		if err != nil && first == nil {
			first = fmt.Errorf("writing the transaction log %s: %w", th.f.Name(), err)
		}
	}
	return first
}
