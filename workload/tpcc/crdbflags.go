package tpcc

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/stampede-bench/stampede/workload"
)

// The flags `cockroach workload tpcc` has beside TPC-C's own, with its
// meanings: --wait as a factor of the keying and think times,
// --active-warehouses (the warehouses the terminals work on, of those
// loaded), --active-workers (how many terminals run a transaction at
// once) and --txn-retries (retry conflicts in a loop, or count them as
// errors).

// waitValue is --wait: true or on (1), false or off (0), or a factor of
// the keying and think times, as cockroach's --wait takes it. It keeps
// g.wait, which says whether there are waits at all, in step.
type waitValue struct{ g *tpcc }

// Set implements pflag.Value.
func (v waitValue) Set(s string) error {
	switch strings.ToLower(s) {
	case "true", "on", "t", "1":
		v.g.waitFactor = 1
	case "false", "off", "f", "0":
		v.g.waitFactor = 0
	default:
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || f < 0 || f > 1000 {
			return fmt.Errorf("use true, false or a factor of the keying and think times in [0, 1000], not %q", s)
		}
		v.g.waitFactor = f
	}
	v.g.wait = v.g.waitFactor > 0
	return nil
}

// String implements pflag.Value.
func (v waitValue) String() string {
	switch v.g.waitFactor {
	case 0:
		return "false"
	case 1:
		return "true"
	}
	return strconv.FormatFloat(v.g.waitFactor, 'g', -1, 64)
}

// Type implements pflag.Value.
func (waitValue) Type() string { return "true|false|factor" }

// registerCrdbFlags defines the flags of cockroach's tpcc on fs.
func (g *tpcc) registerCrdbFlags(fs *pflag.FlagSet) {
	g.waitFactor, g.wait, g.txnRetries = 1, true, true
	f := fs.VarPF(waitValue{g}, "wait", "",
		"apply the keying and think times of clause 5.2.5.7: true, false (runs flat out) or a factor of the times, as cockroach's --wait (0.5 halves them)")
	f.NoOptDefVal = "true"
	fs.IntVar(&g.activeWarehouses, "active-warehouses", 0,
		"run the terminals on the first N warehouses of those loaded (default --warehouses); efficiency is over them")
	fs.IntVar(&g.activeWorkers, "active-workers", 0,
		"at most N workers run a transaction at once, the others wait their turn (default: all)")
	fs.BoolVar(&g.txnRetries, "txn-retries", true,
		"retry serialization failures and deadlocks in a loop (counted as retries_CODE); false counts them as errors")
	for _, name := range []string{"wait", "active-warehouses", "active-workers", "txn-retries"} {
		g.flags.Meta[name] = workload.FlagMeta{RuntimeOnly: true}
	}
}

// active returns the number of warehouses the terminals work on.
func (g *tpcc) active() int {
	if g.activeWarehouses > 0 {
		return g.activeWarehouses
	}
	return g.warehouses
}

// validateCrdb checks the flags of registerCrdbFlags. --active-warehouses
// is checked against --warehouses once the count is the run's: given, or
// taken from the load (AdoptWarehouses); a run given no --warehouses
// takes the load's count after its flags are parsed, and PreRun checks
// it then (checkActive).
func (g *tpcc) validateCrdb() error { return g.checkActive("", "") }

// checkActive is validateCrdb; whose, when not empty, says what the count
// of a run given no --warehouses is (PreRun: the load's, or the default's
// under the null driver), and --active-warehouses is then checked
// against it; give is the refusal's advice.
func (g *tpcc) checkActive(whose, give string) error {
	a, w := g.activeWarehouses, g.warehouses
	switch {
	case a < 0:
		return fmt.Errorf("--active-warehouses must not be negative, not %d", a)
	case a > w && g.adopted:
		return fmt.Errorf("--active-warehouses %d is more than the %s that init loaded (tpcc_meta): give --active-warehouses %d or fewer, or load more with `stampede init tpcc --drop --warehouses %d`", a, nWarehouses(int64(w)), w, a)
	case a > w && !g.warehousesSet() && whose != "":
		return fmt.Errorf("--active-warehouses %d is more than %s: give %s", a, whose, give)
	case a > w && g.warehousesSet():
		return fmt.Errorf("--active-warehouses %d must be at most --warehouses %d", a, w)
	case g.activeWorkers < 0:
		return fmt.Errorf("--active-workers must not be negative, not %d", g.activeWorkers)
	}
	return nil
}

// scaleWait is a keying or think time times --wait's factor; factor 0
// (a worker without waits, whose waits are never asked for) leaves d.
func scaleWait(d time.Duration, factor float64) time.Duration {
	if factor == 1 || factor == 0 {
		return d
	}
	return time.Duration(float64(d) * factor)
}

// turns is the semaphore of --active-workers: a worker holds a turn while
// it runs a transaction (its waits hold none). Nil means no limit.
type turns chan struct{}

func newTurns(n, workers int) turns {
	if n <= 0 || n >= workers {
		return nil
	}
	return make(turns, n)
}

// take waits for a turn; it reports false when ctx ended first.
func (t turns) take(ctx context.Context) bool {
	if t == nil {
		return true
	}
	select {
	case t <- struct{}{}:
		return true
	case <-ctx.Done():
		return false
	}
}

// give returns a turn.
func (t turns) give() {
	if t != nil {
		<-t
	}
}
