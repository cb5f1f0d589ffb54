package run

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/stampede-bench/stampede/results/store"
)

// NoResultsDir is the --results-dir value of a run that keeps no run
// directory of its own: it is written into its results store (which must
// then be PostgreSQL), from a temporary directory removed when the store
// holds it all.
const NoResultsDir = "none"

// shipper copies a run directory into a results store while the run
// writes it: after every interval (kick), in its own goroutine, so that a
// slow store never delays the run. The first failure is said once, in
// one line, and ends the copying: the run goes on in its directory, which
// `stampede runs upload DIR` sends later.
type shipper struct {
	dir  string
	log  io.Writer
	kick chan struct{}
	quit chan struct{}
	wg   sync.WaitGroup

	stop sync.Once

	mu     sync.Mutex
	st     *store.Store // nil once lost or finished
	failed bool
}

// startShipper opens the store of url (from is the flag or variable that
// named it) and starts copying dir into it. A store it cannot reach is
// said once, and the run goes on in dir alone.
func startShipper(ctx context.Context, url, from, dir string, log io.Writer) *shipper {
	s := &shipper{dir: dir, log: log, kick: make(chan struct{}, 1), quit: make(chan struct{})}
	octx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	st, err := store.Open(octx, url)
	if err != nil {
		s.lost(fmt.Errorf("%s: %w", from, err))
		return s
	}
	s.st = st
	s.ship()
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for {
			select {
			case <-s.quit:
				return
			case <-s.kick:
				s.ship()
			}
		}
	}()
	return s
}

// lost says, once, that the store cannot be written and what to do.
func (s *shipper) lost(err error) {
	if s.failed {
		return
	}
	s.failed = true
	fmt.Fprintf(s.log, "warning: the run goes on in %s only: %s; `stampede runs upload %s` sends it to the results store later\n",
		s.dir, oneLine(err.Error()), s.dir)
}

// ship sends what the store lacks of the directory, unless the store is
// lost.
func (s *shipper) ship() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.st == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := s.st.Ship(ctx, s.dir); err != nil {
		s.lost(fmt.Errorf("cannot write the run into the results store %s: %w", s.st, err))
		_ = s.st.Close()
		s.st = nil
	}
}

// interval asks for a copy of what the last interval added.
func (s *shipper) interval() {
	select {
	case s.kick <- struct{}{}:
	default: // one is pending already
	}
}

// finish stops the copying goroutine, sends the rest of the finished run
// and reports whether the store holds all of it.
func (s *shipper) finish() bool {
	s.stop.Do(func() { close(s.quit) })
	s.wg.Wait()
	s.ship()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.st == nil {
		return false
	}
	_ = s.st.Close()
	s.st = nil
	return true
}
