package pgbench

import (
	"fmt"
	"io"
	"math"
	"strings"
	"sync"
	"time"

	"github.com/stampede-bench/stampede/workload"
)

// stepNames are, per step letter, pgbench 15's line when the step starts
// and its name in the final "done in" line.
var stepNames = map[byte][2]string{
	'd': {"dropping old tables...", "drop tables"},
	't': {"creating tables...", "create tables"},
	'g': {"generating data (client-side)...", "client-side generate"},
	'G': {"generating data (server-side)...", "server-side generate"},
	'v': {"vacuuming...", "vacuum"},
	'p': {"creating primary keys...", "primary keys"},
	'f': {"creating foreign keys...", "foreign keys"},
}

// progressRows is how often pgbench says how many accounts it has sent,
// and logStepSeconds how often with -q.
const (
	progressRows   = 100000
	logStepSeconds = 5
)

// InitLog writes the lines pgbench 15 writes to stderr while it
// initialises, as an init of the pgbench workload takes its steps: a
// line when each step starts ("creating tables...", "creating 4
// partitions..."), a progress line every 100,000 accounts generated
// client-side ("100000 of 500000 tuples (20%) done (elapsed 0.05 s,
// remaining 0.20 s)"; with Quiet every 5 s), and "done in 1.23 s (drop
// tables 0.00 s, ...)." at the end. The init's own steps are timed, as
// pgbench times its: the drop from when the loader begins it (after
// refusing tables stampede did not make, so that a refused init prints
// no step) to the tables' creation (LoadOptions). A nil
// *InitLog writes nothing.
type InitLog struct {
	w io.Writer
	// Quiet is pgbench's -q: a progress line every 5 s rather than every
	// 100,000 rows.
	Quiet bool
	// Now is the clock (time.Now when nil); tests set it.
	Now func() time.Time

	mu          sync.Mutex
	start       time.Time
	cur         byte
	curStart    time.Time
	done        []string
	total, rows int64
	genStart    time.Time
	logInterval int
	created     bool
	dropFirst   bool
}

// NewInitLog returns an InitLog writing to w.
func NewInitLog(w io.Writer) *InitLog { return &InitLog{w: w, logInterval: 1} }

func (l *InitLog) now() time.Time {
	if l.Now != nil {
		return l.Now()
	}
	return time.Now()
}

// Start starts the log of an init that takes steps (InitLogger.Steps):
// step d is said when the loader begins the drop, when they begin with
// it.
func (l *InitLog) Start(steps string) {
	if l == nil {
		return
	}
	l.dropFirst = strings.HasPrefix(steps, "d")
}

// LoadOptions returns the load options by which the loader tells l when
// it creates the tables (step t): give them to run.LoadSpec.Steps.
func (l *InitLog) LoadOptions() *workload.LoadOptions {
	return &workload.LoadOptions{Step: func(st workload.LoadStep) {
		if st.Kind == workload.StepDrop && l.dropFirst {
			// Said when the drop begins, after the loader's refusal of
			// tables stampede did not make: a refused -i prints no
			// step.
			l.begin('d', 0)
		}
		if st.Kind != workload.StepCreate {
			return
		}
		l.mu.Lock()
		first := !l.created
		l.created = true
		l.mu.Unlock()
		if first {
			l.begin('t', 0)
		}
	}}
}

// begin ends the step under way and starts step s; total is the accounts
// a client-side generation (g) sends.
func (l *InitLog) begin(s byte, total int64) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	l.endStep(now)
	if l.start.IsZero() {
		l.start = now
	}
	l.cur, l.curStart = s, now
	if s == 'g' {
		l.total, l.rows, l.genStart, l.logInterval = total, 0, now, 1
	}
	fmt.Fprintln(l.w, stepNames[s][0])
}

// endStep records the time of the step under way, if any.
func (l *InitLog) endStep(now time.Time) {
	if l.cur == 0 {
		return
	}
	l.done = append(l.done, fmt.Sprintf("%s %.2f s", stepNames[l.cur][1], now.Sub(l.curStart).Seconds()))
	l.cur = 0
}

// line writes a line of its own ("creating 4 partitions...").
func (l *InitLog) line(s string) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	fmt.Fprintln(l.w, s)
}

// tuples counts n more accounts generated, and writes pgbench's progress
// lines.
func (l *InitLog) tuples(n int64) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.total == 0 {
		return
	}
	from := l.rows
	l.rows += n
	elapsed := l.now().Sub(l.genStart).Seconds()
	if !l.Quiet {
		for j := (from/progressRows + 1) * progressRows; j <= l.rows; j += progressRows {
			l.progress(j, elapsed)
		}
		return
	}
	if l.rows == l.total || elapsed >= float64(l.logInterval*logStepSeconds) {
		l.progress(l.rows, elapsed)
		l.logInterval = int(math.Ceil(elapsed / logStepSeconds))
	}
}

// progress writes the line of j accounts sent in elapsed seconds.
func (l *InitLog) progress(j int64, elapsed float64) {
	remaining := float64(l.total-j) * elapsed / float64(j)
	fmt.Fprintf(l.w, "%d of %d tuples (%d%%) done (elapsed %.2f s, remaining %.2f s)\n",
		j, l.total, j*100/l.total, elapsed, remaining)
}

// end ends the last step and writes the "done in" line.
func (l *InitLog) end() {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	l.endStep(now)
	if l.start.IsZero() {
		l.start = now
	}
	fmt.Fprintf(l.w, "done in %.2f s (%s).\n", now.Sub(l.start).Seconds(), strings.Join(l.done, ", "))
}
