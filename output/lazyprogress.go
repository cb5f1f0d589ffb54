package output

import (
	"io"
	"sync"
)

// LazyProgress is a progress bar that starts when the total is known: it
// counts what is done before (a datadiff.Progress, say). Its methods are
// safe for concurrent use.
type LazyProgress struct {
	// W is where the bar is drawn, Unit what it counts.
	W    io.Writer
	Unit string

	mu     sync.Mutex
	before int64
	p      *Progress
}

// Planned starts the bar for total units; a second call (a check started
// over) keeps the first bar.
func (l *LazyProgress) Planned(total int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.p != nil {
		return
	}
	l.p = NewProgress(l.W, l.Unit, total)
	l.p.Add(l.before)
}

// Checked counts n more units done.
func (l *LazyProgress) Checked(n int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.p != nil {
		l.p.Add(n)
	} else {
		l.before += n
	}
}

// Done stops the bar, if it started.
func (l *LazyProgress) Done() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.p != nil {
		l.p.Done()
	}
}
