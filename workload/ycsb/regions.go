package ycsb

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/spf13/pflag"

	"github.com/stampede-bench/stampede/dialect"
	"github.com/stampede-bench/stampede/randgen"
	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// Values of --locality-keys.
const (
	localityKeysShared = "shared"
	localityKeysOwn    = "own"
)

// regionFlags are ycsb's flags for clusters spread over regions, as the
// field report's multi-region YCSB ran it: --regions makes `init` set the
// database up as a CockroachDB multi-region database with usertable
// REGIONAL BY ROW, and --locality-keys own gives each locality of the
// endpoints its own share of the keys.
type regionFlags struct {
	regions      []string
	localityKeys string
}

func (r *regionFlags) define(fs *pflag.FlagSet, meta map[string]workload.FlagMeta) {
	fs.StringSliceVar(&r.regions, "regions", nil,
		"init: make the database multi-region over these regions, the primary first (CockroachDB: ALTER DATABASE ... PRIMARY REGION, ADD REGION; usertable REGIONAL BY ROW)")
	fs.StringVar(&r.localityKeys, "locality-keys", localityKeysShared,
		"run: shared (every worker draws from all the keys) or own (the keys [insertstart, insertstart+insertcount) split into one contiguous range per locality of the endpoints, in the order the endpoints are given; a worker draws from its home endpoint's)")
	// --regions changes no row but only init uses it (run says so); it
	// is not RuntimeOnly, which would have init warn that it ignores it.
	meta["locality-keys"] = workload.FlagMeta{RuntimeOnly: true}
}

// validate checks the flags' values.
func (r *regionFlags) validate() error {
	switch r.localityKeys {
	case localityKeysShared, localityKeysOwn:
	default:
		return fmt.Errorf("--locality-keys %q: use shared or own", r.localityKeys)
	}
	return nil
}

// CheckDialect refuses --regions, in one line, on a server without
// multi-region databases, before init creates anything (run.Load asks).
func (g *ycsb) CheckDialect(d dialect.Dialect) error {
	if len(g.region.regions) == 0 {
		return nil
	}
	_, err := dialect.MultiRegionDDL(d, "", g.region.regions, nil, nil)
	return err
}

// preLoad sets a CockroachDB database up as multi-region when --regions
// is given (after the table is created, before its rows are loaded); on
// another server it refuses in one line.
func (g *ycsb) preLoad(ctx context.Context, db *sqlx.DB) error {
	if len(g.region.regions) == 0 {
		return nil
	}
	c, err := g.config()
	if err != nil {
		return err
	}
	if c.tenant != 0 {
		return fmt.Errorf("--regions: a tenant's rows share the table; set the database up without --tenant")
	}
	stmts, err := dialect.MultiRegionDDL(db.Dialect(), db.Database(), g.region.regions, []string{c.tableName}, nil)
	if err != nil {
		return err
	}
	for _, s := range stmts {
		if _, err := db.Exec(ctx, s); err != nil {
			return fmt.Errorf("%s: %w", s, err)
		}
	}
	return nil
}

// localityKeys is, under --locality-keys own, each locality's share of
// the keys: its config (insertstart and insertcount of its range) and
// insert counter.
type localityKeys struct {
	configs  map[string]*config
	inserts  map[string]*randgen.AcknowledgedCounter
	db       *sqlx.DB
	describe []string // "region=east: user keys 0-333", for the run's header
}

// ownKeys splits c's keys among the localities of db's endpoints under
// --locality-keys own; nil with shared keys. Each locality takes a
// contiguous range of [insertstart, insertstart+insertcount), in the order
// the endpoints are given, and its inserts continue after its own earlier
// inserts (as a client with insertstart and insertcount would).
func (g *ycsb) ownKeys(ctx context.Context, db *sqlx.DB, c *config, warn func(string, ...any)) (*localityKeys, error) {
	if len(g.region.regions) > 0 && warn != nil {
		warn("--regions only changes what `stampede init ycsb` does: run ignores it")
	}
	if g.region.localityKeys != localityKeysOwn {
		return nil, nil
	}
	var locs []string
	seen := map[string]bool{}
	for _, e := range db.AllEndpoints() {
		if e.Locality == "" {
			return nil, sqlx.ConfigErrorf("--locality-keys own: endpoint %s has no locality: give --locality after its URL (or ?locality= in it)", e.Name)
		}
		if !seen[e.Locality] {
			seen[e.Locality] = true
			locs = append(locs, e.Locality)
		}
	}
	if len(locs) == 1 {
		return nil, nil // one locality: every key is its own
	}
	if int64(len(locs)) > c.insertCount {
		return nil, sqlx.ConfigErrorf("--locality-keys own: %d localities for %d keys", len(locs), c.insertCount)
	}
	lk := &localityKeys{configs: map[string]*config{}, inserts: map[string]*randgen.AcknowledgedCounter{}, db: db}
	n := int64(len(locs))
	for i, loc := range locs {
		lc := *c
		lo := c.insertCount * int64(i) / n
		hi := c.insertCount * int64(i+1) / n
		lc.insertStart, lc.insertCount = c.insertStart+lo, hi-lo
		next := lc.insertCount
		if !db.Null() {
			var err error
			if next, err = lc.insertStartIndex(ctx, db, -1); err != nil {
				return nil, err
			}
		}
		lk.configs[loc] = &lc
		lk.inserts[loc] = randgen.NewAcknowledgedCounter(next)
		lk.describe = append(lk.describe, fmt.Sprintf("%s: key numbers %d-%d", loc, lc.insertStart, lc.insertStart+lc.insertCount-1))
	}
	if warn != nil {
		// The keys are split once: a locality that comes later (an
		// endpoints file) gets none, and says so once.
		var mu sync.Mutex
		db.OnEndpoint(func(e sqlx.Endpoint, removed bool) {
			mu.Lock()
			defer mu.Unlock()
			if removed || seen[e.Locality] {
				return
			}
			seen[e.Locality] = true
			what := "locality " + e.Locality
			if e.Locality == "" {
				what = "no locality"
			}
			warn("--locality-keys own: endpoint %s, with %s, came after the keys were split among %s: the workers moving to it keep the keys they started with",
				e.Name, what, strings.Join(locs, ", "))
		})
	}
	return lk, nil
}

// of returns the config and insert counter of worker w: those of its home
// endpoint's locality.
func (lk *localityKeys) of(w int) (*config, *randgen.AcknowledgedCounter) {
	loc := lk.db.HomeEndpoint(w).Locality
	return lk.configs[loc], lk.inserts[loc]
}

// header is the run's header line about the keys.
func (lk *localityKeys) header() string {
	return "keys by locality (--locality-keys own): " + strings.Join(lk.describe, "; ")
}
