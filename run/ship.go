package run

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/stampede-bench/stampede/redact"
	"github.com/stampede-bench/stampede/results/store"
)

// NoResultsDir is the --results-dir value of a run that keeps no run
// directory of its own: it is written into its results store (which must
// then be PostgreSQL), from a temporary directory removed when the store
// holds it all.
const NoResultsDir = "none"

// shipper copies a run directory into a results store while the run
// writes it: after every interval (kick), in its own goroutine, so that a
// slow store never delays the run, and between intervals (setting up,
// waiting for --start-at, ending) every beat and a half, so that the
// store knows the run's writer is alive (store.ShipLive: one transaction
// each). The first failure is said once, in one line, and ends the
// copying: the run goes on in its directory, which `stampede runs upload
// DIR` sends later.
type shipper struct {
	dir string
	// upload is the command that sends the run later.
	upload string
	beat   time.Duration
	log    io.Writer
	kick   chan struct{}
	quit   chan struct{}
	wg     sync.WaitGroup

	stop sync.Once

	mu     sync.Mutex
	st     *store.Store // nil once lost or finished
	failed bool
}

// maxBeat bounds a shipper's beat: a run of long intervals still tells
// the store it is alive every 15 s at least (see store.StaleAfter).
const maxBeat = 10 * time.Second

// shipBeat returns the beat of a run whose intervals last every: the
// interval, at most maxBeat.
func shipBeat(every time.Duration) time.Duration {
	return min(max(every, time.Millisecond), maxBeat)
}

// startShipper opens the store of url (from is the flag or variable that
// named it) and starts copying dir, a run of intervals of every, into it.
// A store it cannot reach is said once, and the run goes on in dir alone.
// A run without a results directory of its own (temporary: --results-dir
// none) is not advised to do without the store.
func startShipper(ctx context.Context, url, from, dir string, every time.Duration, temporary bool, log io.Writer) *shipper {
	s := &shipper{dir: dir, upload: uploadCommand(dir, url, from), beat: shipBeat(every), log: log, kick: make(chan struct{}, 1), quit: make(chan struct{})}
	octx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	st, err := store.Open(octx, url)
	if err != nil {
		if ue := (*store.UnreachableError)(nil); temporary && errors.As(err, &ue) {
			err = errors.New(ue.Short())
		}
		s.lost(fmt.Errorf("%s: %w", from, err))
		return s
	}
	s.st = st
	s.ship()
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		idle := time.NewTimer(s.beat * 3 / 2)
		defer idle.Stop()
		for {
			select {
			case <-s.quit:
				return
			case <-s.kick:
			case <-idle.C:
			}
			s.ship()
			idle.Reset(s.beat * 3 / 2)
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
	fmt.Fprintf(s.log, "warning: the run goes on in %s only: %s; %s sends it to the results store later\n",
		s.dir, oneLine(err.Error()), s.upload)
}

// uploadCommand returns the command, in backticks, that sends the run directory dir to
// the results store of url later: with --results-url when the URL came
// from it (from), its password masked (the command then says to give it,
// as $PGPASSWORD); $STAMPEDE_RESULTS_URL names it again by itself.
func uploadCommand(dir, url, from string) string {
	cmd := "stampede runs upload " + shellQuote(dir)
	if from != "--results-url" {
		return "`" + cmd + "`"
	}
	red := redact.Conn(url)
	cmd = "`" + cmd + " --results-url " + shellQuote(red) + "`"
	if red != url {
		cmd += " (the password in place of its mask)"
	}
	return cmd
}

// shellQuote quotes a word for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:=@,%+", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
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
	if _, err := s.st.ShipLive(ctx, s.dir, s.beat); err != nil {
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
