package sqlx

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stampede-bench/stampede/redact"
)

// EndpointsFileEvery is how often Open's endpoints file is read again.
// A variable so that tests can change it.
var EndpointsFileEvery = time.Second

// dynamic is what a DB needs to add endpoints while it is used, and to
// tell others about them.
type dynamic struct {
	opts Options

	mu       sync.Mutex // serializes changes of DB.set and watchers
	watchers []func(e Endpoint, removed bool)
	cells    map[int]*atomic.Int32

	stopOnce sync.Once
	stop     chan struct{} // closed by Close; nil without an endpoints file
	done     chan struct{} // closed when the watcher has stopped
}

// entry is one endpoint to open: its connection string without the
// locality, and its locality.
type entry struct {
	conn, locality string
	fromFile       bool
	// searchPath replaces Options.SearchPath for it (see
	// Options.SearchPaths).
	searchPath string
}

// key identifies an entry in an endpoints file, locality included: a
// line whose locality changes is an endpoint removed and one added.
func (e entry) key() string { return e.conn + " " + e.locality }

// endpointEntries returns the endpoints of opts: its URLs (or the libpq
// environment) with their localities, then those of its endpoints file.
func endpointEntries(opts Options) ([]entry, error) {
	urls := opts.URLs
	if len(urls) == 0 && opts.EndpointsFile == "" {
		urls = []string{""}
	}
	if len(opts.Localities) > len(urls) {
		return nil, ConfigErrorf("%d localities for %d URLs: give each --locality after the URL it describes", len(opts.Localities), len(urls))
	}
	var out []entry
	for i, u := range urls {
		conn, loc, err := SplitLocality(u)
		if err != nil {
			return nil, err
		}
		if i < len(opts.Localities) && opts.Localities[i] != "" {
			given := opts.Localities[i]
			if err := CheckLocality(given); err != nil {
				return nil, err
			}
			if loc != "" && loc != given {
				return nil, ConfigErrorf("%s has ?locality=%s and --locality %s: give one of them", redact.Conn(u), loc, given)
			}
			loc = given
		}
		e := entry{conn: conn, locality: loc}
		if i < len(opts.SearchPaths) {
			e.searchPath = opts.SearchPaths[i]
		}
		out = append(out, e)
	}
	if opts.EndpointsFile != "" {
		fe, err := readEndpointsFile(opts.EndpointsFile)
		if err != nil {
			return nil, err
		}
		if len(fe) == 0 {
			return nil, ConfigErrorf("the endpoints file %s lists no endpoint: put one connection URL per line", opts.EndpointsFile)
		}
		out = append(out, fe...)
	}
	if _, err := ParseConfigs(Options{URLs: connStrings(out)}); err != nil {
		return nil, err
	}
	return out, nil
}

func connStrings(es []entry) []string {
	var out []string
	for _, e := range es {
		out = append(out, e.conn)
	}
	return out
}

// EndpointsFileURLs returns the connection strings of an endpoints file
// (see Options.EndpointsFile), without their localities.
func EndpointsFileURLs(path string) ([]string, error) {
	es, err := readEndpointsFile(path)
	if err != nil {
		return nil, err
	}
	return connStrings(es), nil
}

// readEndpointsFile reads an endpoints file: one endpoint per line, a
// connection URL followed, optionally, by its locality (region=east, or
// --locality region=east), or a key=value DSN with a locality=... pair.
// Blank lines and lines starting with # are skipped.
func readEndpointsFile(path string) ([]entry, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, ConfigErrorf("cannot read the endpoints file: %w", err)
	}
	defer f.Close()
	var out []entry
	sc := bufio.NewScanner(f)
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if strings.IndexByte(text, 0) >= 0 || !utf8.ValidString(text) {
			// Never echoed: a binary file's bytes say nothing.
			return nil, ConfigErrorf("%s is not a text file (line %d holds bytes that are not text): give a file of endpoints, one connection URL per line", path, line)
		}
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		var e entry
		if strings.Contains(text, "://") {
			fields := strings.Fields(text)
			conn, loc, err := SplitLocality(fields[0])
			if err != nil {
				return nil, ConfigErrorf("%s:%d: %v", path, line, err)
			}
			rest := fields[1:]
			if len(rest) > 0 && (rest[0] == "--locality" || strings.HasPrefix(rest[0], "--locality=")) {
				if v, ok := strings.CutPrefix(rest[0], "--locality="); ok {
					rest = append([]string{v}, rest[1:]...)
				} else {
					rest = rest[1:]
				}
			}
			switch {
			case len(rest) > 1:
				return nil, ConfigErrorf("%s:%d: expected a URL and at most a locality, got %d more words", path, line, len(rest))
			case len(rest) == 1:
				if err := CheckLocality(rest[0]); err != nil {
					return nil, ConfigErrorf("%s:%d: %v", path, line, err)
				}
				if loc != "" && loc != rest[0] {
					return nil, ConfigErrorf("%s:%d: ?locality=%s and %s disagree", path, line, loc, rest[0])
				}
				loc = rest[0]
			}
			e = entry{conn: conn, locality: loc}
		} else {
			conn, loc, err := SplitLocality(text)
			if err != nil {
				return nil, ConfigErrorf("%s:%d: %v", path, line, err)
			}
			e = entry{conn: conn, locality: loc}
		}
		if _, err := ParseConfigs(Options{URLs: []string{e.conn}}); err != nil {
			return nil, ConfigErrorf("%s:%d: %v", path, line, err)
		}
		e.fromFile = true
		out = append(out, e)
	}
	if err := sc.Err(); err != nil {
		return nil, ConfigErrorf("cannot read the endpoints file: %v", err)
	}
	return out, nil
}

// endpointSet returns the endpoints now.
func (db *DB) endpointSet() *endpointSet {
	if s := db.set.Load(); s != nil {
		return s
	}
	return &endpointSet{}
}

// newEndpoint opens (without connecting) the pool of endpoint en, the
// i-th of n opened at once (for its share of the connections).
func (db *DB) newEndpoint(ctx context.Context, en entry, n, i int) (*endpoint, error) {
	opts := db.dyn.opts
	slot := len(db.endpointSet().all)
	e := &endpoint{Endpoint: Endpoint{Slot: slot, Locality: en.locality}, key: en.key(), fromFile: en.fromFile}
	one := opts // every per-connection option, for this endpoint's URL
	one.URLs = []string{en.conn}
	if en.searchPath != "" {
		one.SearchPath = en.searchPath
	}
	cfgs, err := ParseConfigs(one)
	if err != nil {
		return nil, err
	}
	cfg := cfgs[0]
	e.Name = endpointName(cfg)
	if db.null {
		return e, nil
	}
	maxConns := max(opts.MaxConns, 1)
	share := maxConns / n
	if i < maxConns%n {
		share++
	}
	if !db.shared {
		// Workers keep one connection each and move to another
		// endpoint when theirs fails (see workerConn), so any pool
		// may have to hold every worker's connection. The total
		// stays at most one per worker.
		share = maxConns
	}
	cfg.MaxConns = int32(max(share, 1))
	cfg.MinConns = 0
	cfg.ConnConfig.DialFunc = db.countingDial(cfg.ConnConfig.DialFunc, opts.ThreadIO)
	cfg.ConnConfig.OnNotice = db.notice // to OnNotice's function, or Options.Notices
	if cfg.ConnConfig.Tracer == nil {
		cfg.ConnConfig.Tracer = &db.connects
	}
	cfg.HealthCheckPeriod = 5 * time.Second
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, describeConnectError(cfg, err)
	}
	e.pool = pool
	return e, nil
}

// openNull sets up the null driver's endpoints: those of the URLs when
// there are several (so that figures split by endpoint can be measured
// without a server), else one named "null".
func (db *DB) openNull(opts Options) error {
	entries := []entry{{}}
	named := len(opts.URLs) > 1 || opts.EndpointsFile != ""
	if named {
		var err error
		if entries, err = endpointEntries(opts); err != nil {
			return err
		}
	} else if len(opts.Localities) > 0 {
		entries[0].locality = opts.Localities[0]
	}
	for i, en := range entries {
		e, err := db.newEndpoint(context.Background(), en, len(entries), i)
		if err != nil {
			return err
		}
		if !named {
			e.Name = "null"
		}
		db.set.Store(db.set.Load().with(e))
	}
	if opts.EndpointsFile != "" {
		db.watchFile(opts.EndpointsFile)
	}
	return nil
}

// warnf passes a warning to Options.Warn.
func (db *DB) warnf(format string, args ...any) {
	if w := db.dyn.opts.Warn; w != nil {
		w(format, args...)
	}
}

// WorkerCell returns the cell that holds the slot (see Endpoint.Slot) of
// the endpoint whose connection worker number worker used last, or -1
// before its first connection: the engine reads it to split figures by
// endpoint (engine.Split). The same worker number always gets the same
// cell. It is safe for concurrent use.
func (db *DB) WorkerCell(worker int) *atomic.Int32 {
	db.dyn.mu.Lock()
	defer db.dyn.mu.Unlock()
	if db.dyn.cells == nil {
		db.dyn.cells = map[int]*atomic.Int32{}
	}
	c := db.dyn.cells[worker]
	if c == nil {
		c = new(atomic.Int32)
		c.Store(-1)
		db.dyn.cells[worker] = c
	}
	return c
}

// OnEndpoint calls fn for each endpoint the DB has had (removed true for
// those removed), then, until Close, for each endpoint added (before any
// worker can use it) or removed. Calls are serialized.
func (db *DB) OnEndpoint(fn func(e Endpoint, removed bool)) {
	db.dyn.mu.Lock()
	defer db.dyn.mu.Unlock()
	for _, e := range db.endpointSet().all {
		fn(e.Endpoint, e.removed.Load())
	}
	db.dyn.watchers = append(db.dyn.watchers, fn)
}

// AllEndpoints returns every endpoint the DB has had, by slot.
func (db *DB) AllEndpoints() []Endpoint {
	var out []Endpoint
	for _, e := range db.endpointSet().all {
		out = append(out, e.Endpoint)
	}
	return out
}

// HomeEndpoint returns the endpoint worker number worker starts on (its
// home, round-robin over the live endpoints).
func (db *DB) HomeEndpoint(worker int) Endpoint {
	live := db.endpointSet().live
	return live[abs(worker)%len(live)].Endpoint
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// watchFile reads the endpoints file path every EndpointsFileEvery until
// Close, and applies its changes.
func (db *DB) watchFile(path string) {
	db.dyn.stop = make(chan struct{})
	db.dyn.done = make(chan struct{})
	go func() {
		defer close(db.dyn.done)
		t := time.NewTicker(EndpointsFileEvery)
		defer t.Stop()
		broken := "" // the last error, warned about once
		for {
			select {
			case <-db.dyn.stop:
				return
			case <-t.C:
			}
			entries, err := readEndpointsFile(path)
			if err == nil && len(entries) == 0 {
				err = fmt.Errorf("it lists no endpoint")
			}
			if err != nil {
				if err.Error() != broken {
					db.warnf("endpoints file %s: %v; keeping its last list (%d endpoints) until it can be read", path, err, db.fileEndpoints())
				}
				broken = err.Error()
				continue
			}
			if broken != "" {
				db.warnf("endpoints file %s can be read again", path)
				broken = ""
			}
			db.applyFile(entries)
		}
	}()
}

// fileEndpoints counts the live endpoints the endpoints file gave.
func (db *DB) fileEndpoints() int {
	n := 0
	for _, e := range db.endpointSet().live {
		if e.fromFile {
			n++
		}
	}
	return n
}

// applyFile adds the endpoints of entries the DB lacks, then removes the
// live endpoints from the file that entries no longer lists (in that
// order, so that a file whose nodes are all replaced never leaves the DB
// without an endpoint).
func (db *DB) applyFile(entries []entry) {
	db.dyn.mu.Lock()
	defer db.dyn.mu.Unlock()
	want := map[string]bool{}
	for _, en := range entries {
		want[en.key()] = true
	}
	have := map[string]bool{}
	for _, e := range db.endpointSet().live {
		if e.fromFile {
			have[e.key] = true
		}
	}
	for _, en := range entries {
		if have[en.key()] {
			continue
		}
		have[en.key()] = true
		e, err := db.newEndpoint(context.Background(), en, len(db.endpointSet().live)+1, 0)
		if err != nil {
			db.warnf("endpoints file: cannot add %s: %v", redact.Conn(en.conn), err)
			continue
		}
		for _, fn := range db.dyn.watchers {
			fn(e.Endpoint, false)
		}
		db.set.Store(db.endpointSet().with(e))
		db.warnf("endpoints file: added %s%s", e.Name, localityText(e.Locality))
	}
	for _, e := range db.endpointSet().live {
		if !e.fromFile || want[e.key] {
			continue
		}
		if len(db.endpointSet().live) == 1 {
			db.warnf("endpoints file: keeping %s, the last endpoint", e.Name)
			continue
		}
		e.removed.Store(true)
		db.set.Store(db.endpointSet().without(e))
		for _, fn := range db.dyn.watchers {
			fn(e.Endpoint, true)
		}
		db.warnf("endpoints file: removed %s%s; its workers move to the others", e.Name, localityText(e.Locality))
		if e.pool != nil {
			go e.pool.Close() // once its workers have left it
		}
	}
}

func localityText(loc string) string {
	if loc == "" {
		return ""
	}
	return " (" + loc + ")"
}

// stopWatching stops the endpoints file's watcher, if any, and waits for
// it.
func (db *DB) stopWatching() {
	if db.dyn.stop == nil {
		return
	}
	db.dyn.stopOnce.Do(func() { close(db.dyn.stop) })
	<-db.dyn.done
}
