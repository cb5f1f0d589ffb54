package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/stampede-bench/stampede/engine"
	"github.com/stampede-bench/stampede/sqlx"
)

// connFlags select the database.
type connFlags struct {
	db     string
	conns  int
	driver string
}

func (c *connFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&c.db, "db", "", "database to use (default: the workload's name, unless the URL names one)")
	fs.IntVar(&c.conns, "conns", 0, "number of connections, spread over the URLs (default: one per worker)")
	fs.StringVar(&c.driver, "driver", sqlx.DriverPostgres, "driver: postgres, or null to run the workload without a server (measures stampede itself)")
}

// options builds sqlx options for the given URLs and workload.
func (c *connFlags) options(urls []string, workloadName string, conns int) (sqlx.Options, error) {
	opts := sqlx.Options{URLs: urls, Driver: c.driver, MaxConns: conns, AppName: "stampede"}
	if c.conns > 0 {
		opts.MaxConns = c.conns
	}
	if c.conns < 0 {
		return opts, usagef("--conns %d is negative", c.conns)
	}
	switch c.driver {
	case sqlx.DriverPostgres, sqlx.DriverNull:
	default:
		return opts, usagef("unknown --driver %q: use postgres or null", c.driver)
	}
	db := c.db
	if db == "" {
		cfgs, err := sqlx.ParseConfigs(sqlx.Options{URLs: urls})
		if err != nil {
			return opts, asUsage(err)
		}
		for _, u := range urls {
			if urlNamesDatabase(u) {
				db = cfgs[0].ConnConfig.Database
				break
			}
		}
		if db == "" && len(urls) == 0 && os.Getenv("PGDATABASE") != "" {
			db = os.Getenv("PGDATABASE")
		}
	}
	if db == "" {
		db = workloadName
	}
	opts.Database = db
	if _, err := sqlx.ParseConfigs(opts); err != nil {
		return opts, asUsage(err)
	}
	return opts, nil
}

// urlNamesDatabase reports whether a connection string names a database
// explicitly (a URL path, or dbname= in a DSN).
func urlNamesDatabase(u string) bool {
	if rest, ok := strings.CutPrefix(u, "postgresql://"); ok {
		u = rest
	} else if rest, ok := strings.CutPrefix(u, "postgres://"); ok {
		u = rest
	} else {
		return strings.Contains(u, "dbname=")
	}
	u, _, _ = strings.Cut(u, "?")
	_, path, ok := strings.Cut(u, "/")
	return ok && path != ""
}

// runFlags control the engine and the outputs of a run.
type runFlags struct {
	concurrency    int
	threads        int
	duration       time.Duration
	maxOps         int64
	events         int64
	ramp           time.Duration
	maxRate        float64
	displayEvery   time.Duration
	tolerateErrors bool
	seed           uint64
	format         string
	resultsDir     string
	tags           []string
	latency        string
	cpuProfile     string
}

func (r *runFlags) register(fs *pflag.FlagSet) {
	fs.IntVar(&r.concurrency, "concurrency", 8, "number of concurrent workers")
	fs.IntVar(&r.threads, "threads", 0, "alias of --concurrency (sysbench's name)")
	fs.DurationVar(&r.duration, "duration", 0, "how long to run after the ramp, such as 60s or 10m (0: until --max-ops or Ctrl-C)")
	fs.Int64Var(&r.maxOps, "max-ops", 0, "stop after this many operations in total (0: no limit)")
	fs.Int64Var(&r.events, "events", 0, "alias of --max-ops (sysbench's name)")
	fs.DurationVar(&r.ramp, "ramp", 0, "start workers gradually over this time; the ramp is excluded from the final figures")
	fs.Float64Var(&r.maxRate, "max-rate", 0, "total operations per second, scheduled open-loop; latency is then measured from each operation's intended start (0: as fast as possible)")
	fs.DurationVar(&r.displayEvery, "display-every", time.Second, "interval between progress lines")
	fs.BoolVar(&r.tolerateErrors, "tolerate-errors", false, "keep running when an operation fails (errors are counted); otherwise the first error ends the run")
	fs.Uint64Var(&r.seed, "seed", 0, "random seed for the operation sequence (0: pick one and print it)")
	fs.StringVar(&r.format, "format", "text", "output format: text or json (newline-delimited JSON)")
	fs.StringVar(&r.resultsDir, "results-dir", "", "where run directories are written (default $STAMPEDE_RESULTS_DIR or ~/.stampede/runs)")
	fs.StringArrayVar(&r.tags, "tag", nil, "key=value label stored with the run (repeatable)")
	fs.StringVar(&r.latency, "latency", "", "under --max-rate, which latency the progress lines show: intended (from the scheduled start, the default), service, or both")
	fs.StringVar(&r.cpuProfile, "cpuprofile", "", "write a Go CPU profile of stampede itself to this file")
	_ = fs.MarkHidden("cpuprofile")
}

// resolve applies aliases and validates; fs tells which flags were set.
func (r *runFlags) resolve(fs *pflag.FlagSet) error {
	if fs.Changed("threads") {
		if fs.Changed("concurrency") && r.threads != r.concurrency {
			return usagef("--threads %d and --concurrency %d disagree: give one of them", r.threads, r.concurrency)
		}
		r.concurrency = r.threads
	}
	if fs.Changed("events") {
		if fs.Changed("max-ops") && r.events != r.maxOps {
			return usagef("--events %d and --max-ops %d disagree: give one of them", r.events, r.maxOps)
		}
		r.maxOps = r.events
	}
	if r.concurrency < 1 {
		return usagef("--concurrency %d: need at least 1 worker", r.concurrency)
	}
	switch r.format {
	case "text", "json":
	default:
		return usagef("unknown --format %q: use text or json", r.format)
	}
	switch r.latency {
	case "", "intended", "service", "both":
	default:
		return usagef("unknown --latency %q: use intended, service or both", r.latency)
	}
	for _, t := range r.tags {
		if k, _, ok := strings.Cut(t, "="); !ok || k == "" {
			return usagef("malformed --tag %q: use key=value", t)
		}
	}
	return asUsage(r.engineConfig().Validate(r.concurrency))
}

func (r *runFlags) engineConfig() engine.Config {
	return engine.Config{
		Duration:       r.duration,
		MaxOps:         r.maxOps,
		Ramp:           r.ramp,
		MaxRate:        r.maxRate,
		DisplayEvery:   r.displayEvery,
		TolerateErrors: r.tolerateErrors,
	}
}

func (r *runFlags) tagMap() map[string]string {
	if len(r.tags) == 0 {
		return nil
	}
	m := map[string]string{}
	for _, t := range r.tags {
		k, v, _ := strings.Cut(t, "=")
		m[k] = v
	}
	return m
}

// resultsRoot returns the directory under which runs are saved.
func resultsRoot(flag string) (string, error) {
	if flag != "" {
		return flag, nil
	}
	if env := os.Getenv("STAMPEDE_RESULTS_DIR"); env != "" {
		return env, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("cannot find a home directory for results: pass --results-dir")
	}
	return filepath.Join(home, ".stampede", "runs"), nil
}

// newRunFlagSet returns a flag set holding the run flags, for callers that
// build runs programmatically (demo).
func newRunFlagSet(rf *runFlags) *pflag.FlagSet {
	fs := pflag.NewFlagSet("run", pflag.ContinueOnError)
	rf.register(fs)
	return fs
}
