package output

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/term"
)

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// Progress draws a progress bar with rate and ETA on a terminal; elsewhere
// it prints a line every 10 seconds. Add is safe for concurrent use.
type Progress struct {
	w     io.Writer
	unit  string
	total int64
	done  atomic.Int64
	start time.Time
	tty   bool
	stop  chan struct{}
	wg    sync.WaitGroup
	end   time.Time
	// Bytes, when set, returns the bytes sent so far, shown as MB/s.
	Bytes func() int64
}

// NewProgress starts a bar counting total units (rows, tenants) on w.
func NewProgress(w io.Writer, unit string, total int64) *Progress {
	p := &Progress{w: w, unit: unit, total: total, start: time.Now(), tty: isTerminal(w), stop: make(chan struct{})}
	every := 10 * time.Second
	if p.tty {
		every = 250 * time.Millisecond
	}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				p.draw(false)
			case <-p.stop:
				return
			}
		}
	}()
	return p
}

// Add counts n more units done.
func (p *Progress) Add(n int64) { p.done.Add(n) }

// Done stops the bar and draws its last state.
func (p *Progress) Done() {
	close(p.stop)
	p.wg.Wait()
	p.end = time.Now()
	if p.tty {
		p.draw(true)
	}
}

// Elapsed is the time from start to Done.
func (p *Progress) Elapsed() time.Duration {
	if p.end.IsZero() {
		return time.Since(p.start)
	}
	return p.end.Sub(p.start)
}

// Rate is units per second.
func (p *Progress) Rate() float64 {
	if s := p.Elapsed().Seconds(); s > 0 {
		return float64(p.done.Load()) / s
	}
	return 0
}

func (p *Progress) draw(final bool) {
	done := p.done.Load()
	elapsed := time.Since(p.start)
	rate := float64(done) / max(elapsed.Seconds(), 1e-9)
	frac := 0.0
	if p.total > 0 {
		frac = min(float64(done)/float64(p.total), 1)
	}
	eta := "--"
	if rate > 0 && p.total > done {
		eta = time.Duration(float64(p.total-done) / rate * float64(time.Second)).Round(time.Second).String()
	} else if p.total <= done {
		eta = "0s"
	}
	line := fmt.Sprintf("%5.1f%% %s/%s %s  %s  %s %s/s", frac*100, human(float64(done)), human(float64(p.total)), p.unit, elapsed.Round(time.Second), human(rate), p.unit)
	if p.Bytes != nil {
		line += fmt.Sprintf("  %.1f MB/s", float64(p.Bytes())/1e6/max(elapsed.Seconds(), 1e-9))
	}
	line += "  ETA " + eta
	if !p.tty {
		fmt.Fprintln(p.w, line)
		return
	}
	const width = 30
	filled := int(frac * width)
	bar := strings.Repeat("=", filled) + strings.Repeat(" ", width-filled)
	if filled < width && filled > 0 {
		bar = strings.Repeat("=", filled-1) + ">" + strings.Repeat(" ", width-filled)
	}
	fmt.Fprintf(p.w, "\r[%s] %s\033[K", bar, line)
	if final {
		fmt.Fprintln(p.w)
	}
}

// human renders a count with k/M/G suffixes.
func human(v float64) string {
	switch {
	case v >= 1e9:
		return fmt.Sprintf("%.2fG", v/1e9)
	case v >= 1e6:
		return fmt.Sprintf("%.2fM", v/1e6)
	case v >= 1e4:
		return fmt.Sprintf("%.1fk", v/1e3)
	}
	return fmt.Sprintf("%.0f", v)
}
