package fleet

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// Tenant pick orders (--pick).
const (
	// PickRandom picks the active tenants at random (from --seed) among
	// all of them, and rotates through a random permutation.
	PickRandom = "random"
	// PickRoundRobin picks tenants 1..M, then M+1, M+2... when rotating.
	PickRoundRobin = "round-robin"
)

// RunConfig configures a fleet run.
type RunConfig struct {
	// Spec names the fleet's tenants.
	Spec Spec
	// MarkerUnread, when set, says that the role may not read the
	// fleet's marker and which defaults stand: a tenant that does not
	// hold what the run needs is described with it, not as missing.
	MarkerUnread string
	// Base is the connection options of an ordinary run; each tenant's
	// come from Spec.Options(Base, id), with MaxConns and Workers set
	// from ConnsPerTenant and WorkersPerTenant.
	Base sqlx.Options
	// Active is how many tenant workloads run at once (1..the tenants
	// of First..Last).
	Active int
	// First and Last, when set, are the tenants this run picks from, a
	// contiguous share of the fleet (one client's of several, run.Part);
	// 0 and 0 mean every tenant, 1..Spec.Tenants.
	First, Last int
	// ConnsPerTenant is each tenant's number of connections.
	ConnsPerTenant int
	// WorkersPerTenant is each tenant's number of workers.
	WorkersPerTenant int
	// Pick is PickRandom ("" means it) or PickRoundRobin.
	Pick string
	// Rotate replaces, in its slot, a tenant workload that failed or
	// whose TenantDuration elapsed with the next tenant in pick order.
	Rotate bool
	// TenantDuration is how long each tenant workload runs when rotating
	// (0: until it fails).
	TenantDuration time.Duration
	// Seed is the run's seed: it orders random picks, and tenant id's
	// workers derive their streams from a seed mixed from (Seed, id).
	Seed uint64
	// NewGen returns a new generator for tenant id with the run's flags
	// parsed (and, in column mode, SetTenant(id) done). It is called from
	// several goroutines at once.
	NewGen func(id int) (workload.Generator, error)
	// Warn receives non-fatal warnings; nil discards them.
	Warn func(format string, args ...any)
	// OpenConcurrency bounds how many tenants are opened at once (0: 16).
	OpenConcurrency int
	// Login, when set, gives tenant id's login role and password (see
	// Logins): each tenant's connections log in as its own role instead
	// of Base's user.
	Login func(id int) Login
}

// validate checks the configuration; its errors are one line.
func (c *RunConfig) validate() error {
	switch {
	case c.Spec.Tenants < 1:
		return fmt.Errorf("--tenants %d: need at least 1 tenant", c.Spec.Tenants)
	case c.Active < 1:
		return fmt.Errorf("--active %d: need at least 1 active tenant", c.Active)
	case c.First == 0 && c.Last == 0 && c.Active > c.Spec.Tenants:
		return fmt.Errorf("--active %d is more than --tenants %d", c.Active, c.Spec.Tenants)
	case (c.First != 0 || c.Last != 0) && (c.First < 1 || c.Last < c.First || c.Last > c.Spec.Tenants):
		return fmt.Errorf("tenants %d..%d: give a range within the fleet's 1..%d", c.First, c.Last, c.Spec.Tenants)
	case c.Active > c.Last-c.First+1 && c.Last != 0:
		return fmt.Errorf("--active %d is more than this run's %d tenants (%d..%d)", c.Active, c.Last-c.First+1, c.First, c.Last)
	case c.ConnsPerTenant < 1:
		return fmt.Errorf("--conns-per-tenant %d: need at least 1 connection", c.ConnsPerTenant)
	case c.WorkersPerTenant < 1:
		return fmt.Errorf("%d workers per tenant: need at least 1", c.WorkersPerTenant)
	case c.TenantDuration < 0:
		return fmt.Errorf("--tenant-duration %s is negative", c.TenantDuration)
	case c.NewGen == nil:
		return errors.New("fleet: RunConfig.NewGen is nil")
	}
	switch c.Pick {
	case "", PickRandom, PickRoundRobin:
	default:
		return fmt.Errorf("unknown --pick %q: use random or round-robin", c.Pick)
	}
	return nil
}

// Why a tenant workload ended.
const (
	endedRun int32 = iota
	endedDuration
	endedError
)

var endedNames = [...]string{"run", "duration", "error"}

// Run is a fleet run in progress: Active tenant workloads, each with its
// own generator, connections and workers, presented to the engine as one
// QueryLoad. Its methods are safe for concurrent use.
type Run struct {
	cfg     RunConfig
	ctx     context.Context // for opening replacements
	base    time.Time       // clock origin of the offsets below
	ops     []string
	classes []workload.OpClass
	header  []string  // the first tenant's QueryLoad.Header
	shares  []float64 // the first tenant's QueryLoad.RateShares (per tenant worker)
	primary []bool    // whether each op counts in TenantResult.Total
	slots   []*slot
	workers []*tenantWorkerFn

	mu     sync.Mutex
	all    []*tenant // every tenant workload opened, in order
	active map[int]bool
	pick   *picker
	closed bool
	bg     sync.WaitGroup // replacements being opened, tenants being closed
	endAt  atomic.Int64   // offset from base at which the run ended (0: not yet)
	rampAt int64          // offset of the end of the ramp (0: none); guarded by mu
	// snap and snapAt are every tenant's counts at the last
	// SnapshotCounts, and when; guarded by mu.
	snap   map[*tenant][]int64
	snapAt int64
	warned atomic.Bool
	// version is the server's version, asked on the first tenant's
	// connections before its workload takes them (ServerVersion).
	versionOnce sync.Once
	version     string
}

// slot is the place of one active tenant workload: its workers stay, the
// tenant they work on changes when rotating.
type slot struct {
	cur       atomic.Pointer[tenant]
	mu        sync.Mutex // guards switches and tenant.refs
	replacing atomic.Bool
}

// tenant is one tenant workload: a tenant's generator, connections and
// workers, and the figures its workers measure.
type tenant struct {
	id    int
	name  string
	gen   workload.Generator
	db    *sqlx.DB
	load  workload.QueryLoad
	slot  *slot          // whose workers use it; set before they can
	stats []*workerStats // one per tenant-local worker
	first atomic.Int64   // offset of its first call (-1: none yet)
	stop  atomic.Int64   // offset at which it was rotated out (0: still on)
	// base holds the completed operations per op at the end of the
	// engine's ramp, which the figures leave out; set by MarkRampEnd.
	base  []int64
	ended atomic.Int32
	refs  int // workers on it; guarded by its slot's mu
	once  sync.Once
}

// workerStats is what one worker measured on one tenant. Only that worker
// writes it (uncontended atomics); anyone may read it.
type workerStats struct {
	counts []atomic.Int64 // completed, per op
	errors []atomic.Int64 // failed, per op
	h      hist
}

// picker gives tenant ids in pick order, from first to first+n-1.
// Guarded by Run.mu.
type picker struct {
	first int
	n     int
	next  int // index into order, or (round-robin) the last id given less first-1
	order []int
	rng   *rand.Rand
}

func newPicker(cfg RunConfig) *picker {
	p := &picker{first: 1, n: cfg.Spec.Tenants}
	if cfg.Last != 0 {
		p.first, p.n = cfg.First, cfg.Last-cfg.First+1
	}
	if cfg.Pick == PickRoundRobin {
		return p
	}
	p.rng = rand.New(rand.NewPCG(cfg.Seed, 0x666c656574)) // "fleet"
	p.order = make([]int, p.n)
	for i := range p.order {
		p.order[i] = p.first + i
	}
	p.shuffle()
	return p
}

// shuffle draws a new random permutation of the tenants.
func (p *picker) shuffle() {
	p.rng.Shuffle(len(p.order), func(i, j int) { p.order[i], p.order[j] = p.order[j], p.order[i] })
}

// take returns the next tenant id not in busy, or, when every tenant is
// busy, the next id in order.
func (p *picker) take(busy map[int]bool) int {
	first := 0
	for range p.n {
		var id int
		if p.order == nil {
			p.next = p.next%p.n + 1
			id = p.first + p.next - 1
		} else {
			if p.next == len(p.order) {
				p.shuffle()
				p.next = 0
			}
			id = p.order[p.next]
			p.next++
		}
		if first == 0 {
			first = id
		}
		if !busy[id] {
			return id
		}
	}
	return first
}

// tenantSeed mixes the run's seed with a tenant id (splitmix64), so that
// tenants' streams differ and each is reproducible from (seed, id).
func tenantSeed(seed uint64, id int) uint64 {
	z := seed + uint64(id)*0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// Open opens the Active tenant workloads (in parallel, OpenConcurrency at
// a time) and returns the run. A missing or half-created tenant, or a
// server out of connections, fails it with one line; nothing stays open.
func Open(ctx context.Context, cfg RunConfig) (*Run, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	if cfg.Pick == "" {
		cfg.Pick = PickRandom
	}
	if cfg.OpenConcurrency < 1 {
		cfg.OpenConcurrency = 16
	}
	r := &Run{cfg: cfg, ctx: context.WithoutCancel(ctx), base: time.Now(), active: map[int]bool{}, pick: newPicker(cfg)}
	ids := make([]int, cfg.Active)
	for i := range ids {
		ids[i] = r.pick.take(r.active)
		r.active[ids[i]] = true
	}
	tenants := make([]*tenant, cfg.Active)
	errs := make([]error, cfg.Active)
	octx, cancel := context.WithCancel(ctx)
	defer cancel()
	var opened atomic.Int64
	var failed sync.Once
	var firstErr error // the first failure, not the cancellations it caused
	var wg sync.WaitGroup
	next := atomic.Int64{}
	for range min(cfg.OpenConcurrency, cfg.Active) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= len(ids) || octx.Err() != nil {
					return
				}
				t, err := r.openTenant(octx, ids[i])
				if err != nil {
					errs[i] = err
					failed.Do(func() { firstErr = describeOpenError(cfg, ids[i], err, opened.Load()) })
					cancel()
					return
				}
				opened.Add(1)
				tenants[i] = t
			}
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil && isTooManyConns(err) && !isTooManyConns(firstErr) {
			firstErr = describeOpenError(cfg, ids[i], err, opened.Load())
		}
	}
	if firstErr == nil && ctx.Err() != nil {
		firstErr = ctx.Err()
	}
	if firstErr == nil {
		firstErr = r.setup(tenants)
	}
	if firstErr != nil {
		for _, t := range tenants {
			if t != nil {
				t.close(r.ctx)
			}
		}
		return nil, firstErr
	}
	return r, nil
}

// setup lays out the slots and workers over the opened tenants.
func (r *Run) setup(tenants []*tenant) error {
	wpt := r.cfg.WorkersPerTenant
	first := tenants[0].load
	r.ops, r.classes, r.header, r.shares = first.Ops, first.Classes, first.Header, first.RateShares
	r.primary = make([]bool, len(r.ops))
	for i := range r.primary {
		r.primary[i] = len(r.classes) != len(r.ops) || r.classes[i] == workload.ClassTransaction
	}
	for _, t := range tenants {
		if len(t.load.Ops) != len(r.ops) {
			return fmt.Errorf("tenant %d has %d operation types, tenant %d has %d: the tenants' workloads differ", t.id, len(t.load.Ops), tenants[0].id, len(r.ops))
		}
		if len(t.load.Workers) != wpt {
			return fmt.Errorf("workload %s returned %d workers for %d per tenant", t.gen.Meta().Name, len(t.load.Workers), wpt)
		}
	}
	r.all = append(r.all, tenants...)
	r.slots = make([]*slot, len(tenants))
	r.workers = make([]*tenantWorkerFn, 0, len(tenants)*wpt)
	for si, t := range tenants {
		s := &slot{}
		t.slot = s
		s.cur.Store(t)
		t.refs = wpt
		r.slots[si] = s
		for i := range wpt {
			r.workers = append(r.workers, &tenantWorkerFn{r: r, s: s, i: i, t: t, st: t.stats[i], fn: t.load.Workers[i]})
		}
	}
	return nil
}

// openTenant opens tenant id: its generator, connections, pre-run check
// and operations.
func (r *Run) openTenant(ctx context.Context, id int) (*tenant, error) {
	cfg := r.cfg
	gen, err := cfg.NewGen(id)
	if err != nil {
		return nil, err
	}
	opser, ok := gen.(workload.Opser)
	if !ok {
		return nil, fmt.Errorf("workload %s cannot be run", gen.Meta().Name)
	}
	opts := cfg.Spec.Options(cfg.Base, id)
	opts.MaxConns = cfg.ConnsPerTenant
	opts.Workers = cfg.WorkersPerTenant
	if cfg.Login != nil {
		l := cfg.Login(id)
		opts.User, opts.Password = l.User, l.Password
	}
	db, err := sqlx.Open(ctx, opts)
	if err != nil {
		return nil, err
	}
	if h, ok := gen.(workload.Hookser); ok && h.Hooks().PreRun != nil {
		if err := h.Hooks().PreRun(ctx, db); err != nil {
			db.Close()
			return nil, err
		}
	}
	// Asked before Ops: a workload may keep every connection of the
	// tenant's pool for its workers from Ops on (the sql workload does),
	// and the question would then wait for one forever.
	r.versionOnce.Do(func() { r.version = db.ServerVersion(ctx) })
	load, err := opser.Ops(ctx, db, workload.OpsConfig{Concurrency: cfg.WorkersPerTenant, Seed: tenantSeed(cfg.Seed, id), Warn: r.warnOnce})
	if err != nil {
		db.Close()
		return nil, err
	}
	t := &tenant{id: id, name: cfg.Spec.Name(id), gen: gen, db: db, load: load, stats: make([]*workerStats, cfg.WorkersPerTenant)}
	t.first.Store(-1)
	for i := range t.stats {
		t.stats[i] = &workerStats{counts: make([]atomic.Int64, len(load.Ops)), errors: make([]atomic.Int64, len(load.Ops))}
	}
	return t, nil
}

// warnOnce passes the first workload warning on: every tenant's workload
// would repeat it.
func (r *Run) warnOnce(format string, args ...any) {
	if r.cfg.Warn != nil && r.warned.CompareAndSwap(false, true) {
		r.cfg.Warn(format, args...)
	}
}

// close releases a tenant's operations and connections, once.
func (t *tenant) close(ctx context.Context) {
	t.once.Do(func() {
		if t.load.Close != nil {
			_ = t.load.Close(ctx)
		}
		t.db.Close()
	})
}

// isTooManyConns reports whether err is the server refusing a connection
// because it has max_connections of them.
func isTooManyConns(err error) bool {
	if err == nil {
		return false
	}
	return sqlx.SQLState(err) == "53300" || strings.Contains(err.Error(), "too many clients") ||
		strings.Contains(err.Error(), "too many connections")
}

// describeOpenError turns the failure to open tenant id into one line that
// names the tenant and says what to do; opened tenants were open then.
func describeOpenError(cfg RunConfig, id int, err error, opened int64) error {
	who := fmt.Sprintf("tenant %d", id)
	if name := cfg.Spec.Name(id); name != "" {
		who += fmt.Sprintf(" (%s %q)", cfg.Spec.Mode, name)
	}
	if isTooManyConns(err) {
		return fmt.Errorf("%s: the server refused a connection (too many connections) with %d connections of this run open: "+
			"its max_connections limits them; raise max_connections or lower --active or --conns-per-tenant", who, opened*int64(cfg.ConnsPerTenant))
	}
	if errors.Is(err, context.Canceled) {
		return err
	}
	name := "WORKLOAD"
	if gen, gerr := cfg.NewGen(id); gerr == nil {
		name = gen.Meta().Name
	}
	if errors.Is(err, workload.ErrUsage) {
		// The run's settings, not the tenant: the same for every
		// tenant, and re-running init changes nothing. Reported as
		// itself, as outside a fleet, and where it counts workers, as
		// each tenant's.
		msg := strings.ReplaceAll(err.Error(), "\n", " ")
		if strings.Contains(msg, "--concurrency") {
			msg += " per tenant (each tenant of a fleet runs its workload with --concurrency workers)"
		}
		return &usageError{msg: msg, err: err}
	}
	if sqlx.SQLState(err) == "42501" && cfg.Login != nil {
		return fmt.Errorf("%s: its role %s lacks a privilege the workload needs: %s; renew the tenant roles' grants with `stampede init %s --tenants %d --tenant-roles` (it resumes, and grants what the workload needs)",
			who, cfg.Spec.RoleName(id), strings.ReplaceAll(err.Error(), "\n", " "), name, cfg.Spec.Tenants)
	}
	if sqlx.SQLState(err) == "42501" {
		// The connection's own role (no tenant roles): not a missing
		// tenant, and init would not mend it.
		return &usageError{msg: fmt.Sprintf("%s: this connection's role may not use what the workload needs (%s): connect as the role that owns the tenants or a superuser, or grant this role the workload's privileges on the tenants' tables",
			who, sqlx.Message(err)), err: err}
	}
	if cfg.MarkerUnread != "" && !sqlx.IsMissingDatabase(err) {
		// Its own advice assumes the flags are init's: cut it.
		found, _, _ := strings.Cut(strings.ReplaceAll(err.Error(), "\n", " "), "; ")
		return fmt.Errorf("%s does not hold what the run needs: %s; %s", who, found, cfg.MarkerUnread)
	}
	what := "is missing or incomplete: " + strings.ReplaceAll(err.Error(), "\n", " ")
	if sqlx.IsMissingDatabase(err) {
		what = "is missing: its database does not exist"
	}
	return fmt.Errorf("%s %s; create the fleet's missing tenants with `stampede init %s --tenants %d` (it resumes)",
		who, what, name, cfg.Spec.Tenants)
}

// usageError is an error of the run's settings met opening a tenant: it
// matches workload.ErrUsage through the workload's error.
type usageError struct {
	msg string
	err error
}

func (u *usageError) Error() string { return u.msg }

// Unwrap returns the workload's error.
func (u *usageError) Unwrap() error { return u.err }

// Load returns the QueryLoad the engine runs: the workload's operations,
// and Active*WorkersPerTenant workers, those of slot s being numbered
// s*WorkersPerTenant.. in order.
func (r *Run) Load() workload.QueryLoad {
	fns := make([]workload.Worker, len(r.workers))
	for w, tw := range r.workers {
		fns[w] = tw.call
	}
	var shares []float64
	if len(r.shares) == r.cfg.WorkersPerTenant {
		// Each tenant's workers keep the rates of their roles (lambda's
		// paths): the engine's rate is the tenants' together.
		shares = make([]float64, len(r.workers))
		for w, tw := range r.workers {
			shares[w] = r.shares[tw.i]
		}
	}
	return workload.QueryLoad{
		Ops:        r.ops,
		Classes:    r.classes,
		Header:     r.header,
		Workers:    fns,
		RateShares: shares,
		Attach:     func(w int, rec workload.Recorder) { r.workers[w].attach(rec) },
		Scheduled: func(w int, intended time.Time, skipped bool) {
			if tw := r.workers[w]; tw.t.load.Scheduled != nil {
				tw.t.load.Scheduled(tw.i, intended, skipped)
			}
		},
		Close: func(context.Context) error {
			r.markEnd()
			return nil
		},
	}
}

// now is the offset of the present from the run's clock origin.
func (r *Run) now() int64 { return int64(time.Since(r.base)) }

// markEnd records the end of the run (the first call wins).
func (r *Run) markEnd() { r.endAt.CompareAndSwap(0, max(r.now(), 1)) }

// MarkEnd records that the run ended at end, the engine's end (the last
// worker's stop), before Tenants or Close would mark it when called: the
// tenants' figures then cover the same time as the engine's. The first
// mark wins.
func (r *Run) MarkEnd(end time.Time) {
	r.endAt.CompareAndSwap(0, max(int64(end.Sub(r.base)), 1))
}

// tenantWorkerFn is one worker of the engine: worker i of its slot's
// current tenant. Only the engine's worker goroutine uses it.
type tenantWorkerFn struct {
	r   *Run
	s   *slot
	i   int
	t   *tenant
	st  *workerStats
	fn  workload.Worker
	rec workload.Recorder // the engine's, for this worker
	on  bool              // whether this worker has called t yet
}

// attach is the QueryLoad's Attach: it keeps the engine's recorder and
// attaches the current tenant's worker.
func (w *tenantWorkerFn) attach(rec workload.Recorder) {
	w.rec = rec
	if w.t.load.Attach != nil {
		w.t.load.Attach(w.i, &tenantRecorder{rec: rec, st: w.st})
	}
}

// tenantRecorder passes what a tenant's worker records on to the engine
// and counts it for the tenant.
type tenantRecorder struct {
	rec workload.Recorder
	st  *workerStats
}

// Record implements workload.Recorder.
func (t *tenantRecorder) Record(op int, d time.Duration) {
	t.rec.Record(op, d)
	t.st.counts[op].Add(1)
}

// RecordError implements workload.Recorder.
func (t *tenantRecorder) RecordError(op int, err error) {
	t.rec.RecordError(op, err)
	t.st.errors[op].Add(1)
}

// RecordPartError implements workload.PartErrorRecorder, passing it on
// to the engine's recorder (which takes it). The tenant's own error count
// is not raised: the operation's failure is counted in it already.
func (t *tenantRecorder) RecordPartError(op int) {
	if r, ok := t.rec.(workload.PartErrorRecorder); ok {
		r.RecordPartError(op)
	}
}

// call is the engine's Worker: one call of the current tenant's worker,
// measured for the tenant.
func (w *tenantWorkerFn) call(ctx context.Context) workload.Result {
	r := w.r
	if r.cfg.Rotate {
		if cur := w.s.cur.Load(); cur != w.t {
			w.switchTo()
		}
	}
	start := r.now()
	if !w.on {
		w.on = true
		w.t.first.CompareAndSwap(-1, start)
	}
	res := w.fn(ctx)
	end := r.now()
	if res.Err != nil {
		w.st.errors[res.Op].Add(1)
	} else {
		w.st.counts[res.Op].Add(1)
		w.st.h.record(time.Duration(end - start))
	}
	if r.cfg.Rotate {
		switch {
		case res.Err != nil:
			r.replace(w.s, w.t, endedError)
		case r.cfg.TenantDuration > 0 && end-w.t.first.Load() >= int64(r.cfg.TenantDuration):
			r.replace(w.s, w.t, endedDuration)
		}
	}
	return res
}

// switchTo moves the worker to its slot's current tenant, attaching that
// tenant's worker, and closes the tenant it leaves when it was the last
// worker there.
func (w *tenantWorkerFn) switchTo() {
	s := w.s
	s.mu.Lock()
	old, cur := w.t, s.cur.Load()
	old.refs--
	cur.refs++
	last := old.refs == 0
	s.mu.Unlock()
	if last {
		w.r.closeLater(old)
	}
	w.t, w.st, w.fn, w.on = cur, cur.stats[w.i], cur.load.Workers[w.i], false
	if cur.load.Attach != nil && w.rec != nil {
		cur.load.Attach(w.i, &tenantRecorder{rec: w.rec, st: w.st})
	}
}

// closeLater closes a tenant in the background (Close waits for it).
func (r *Run) closeLater(t *tenant) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return // Close closes every tenant
	}
	r.bg.Add(1)
	go func() {
		defer r.bg.Done()
		t.close(r.ctx)
	}()
}

// replace starts opening the next tenant for slot s, whose tenant old
// ended for the given reason; the slot's workers keep working on old
// until the new tenant is ready. Only one replacement per slot runs at a
// time.
func (r *Run) replace(s *slot, old *tenant, why int32) {
	if s.cur.Load() != old || r.endAt.Load() != 0 || !s.replacing.CompareAndSwap(false, true) {
		return
	}
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		s.replacing.Store(false)
		return
	}
	id := r.pick.take(r.active)
	r.active[id] = true
	r.bg.Add(1)
	r.mu.Unlock()
	go func() {
		defer r.bg.Done()
		defer s.replacing.Store(false)
		t, err := r.openTenant(r.ctx, id)
		if err == nil && len(t.load.Ops) != len(r.ops) {
			t.close(r.ctx)
			err = fmt.Errorf("its workload has %d operation types, not %d", len(t.load.Ops), len(r.ops))
		}
		r.mu.Lock()
		defer r.mu.Unlock()
		if err != nil || r.closed || r.endAt.Load() != 0 {
			delete(r.active, id)
			if err != nil && r.cfg.Warn != nil {
				r.cfg.Warn("%s; tenant %d keeps running", describeOpenError(r.cfg, id, err, 0), old.id)
			}
			if t != nil && err == nil {
				t.close(r.ctx)
			}
			return
		}
		old.ended.Store(why)
		old.stop.Store(r.now())
		delete(r.active, old.id)
		t.slot = s
		r.all = append(r.all, t)
		s.mu.Lock()
		s.cur.Store(t)
		s.mu.Unlock()
	}()
}

// Reconnects returns how many worker connections were re-established, over
// every tenant workload.
func (r *Run) Reconnects() int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	var n int64
	for _, t := range r.all {
		n += t.db.Reconnects()
	}
	return n
}

// Endpoints returns the servers' host:port, safe to print.
func (r *Run) Endpoints() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.all[0].db.Endpoints()
}

// ServerVersion returns the server's version, as one tenant's connections
// see it.
func (r *Run) ServerVersion(ctx context.Context) string {
	r.versionOnce.Do(func() {
		r.mu.Lock()
		db := r.all[0].db
		r.mu.Unlock()
		r.version = db.ServerVersion(ctx)
	})
	return r.version
}

// Ops returns the workload's operation names.
func (r *Run) Ops() []string { return r.ops }

// SnapshotCounts records every tenant's counts now, when the engine's tick
// has just ended an interval (call it first in the Tick hook, during the
// ramp): MarkRampEnd takes the counts of the tick the engine's ramp ended
// at, not those of its own later call, after the tick's hook has written
// the run log (a busy server's disk took long enough for tenants to miss
// dozens of operations the engine counted).
func (r *Run) SnapshotCounts() {
	off := r.now()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.snap == nil {
		r.snap = map[*tenant][]int64{}
	}
	for _, t := range r.all {
		r.snap[t] = r.counts(t, r.snap[t])
	}
	r.snapAt = off
}

// counts returns t's completed operations per op, in buf if it is large
// enough.
func (r *Run) counts(t *tenant, buf []int64) []int64 {
	if len(buf) != len(r.ops) {
		buf = make([]int64, len(r.ops))
	}
	clear(buf)
	for _, st := range t.stats {
		for op := range r.ops {
			buf[op] += st.counts[op].Load()
		}
	}
	return buf
}

// MarkRampEnd makes the tenants' figures start at the end of the engine's
// ramp, as the engine's own totals do: operations counted before are left
// out of the counts, the latencies and the figures (TPC-C's efficiency,
// whose terminals all start with a keying time), and the tenants' time
// starts there. The end is the last SnapshotCounts, if there was one, or
// now. Call it once, from the engine's RampDone hook.
func (r *Run) MarkRampEnd() {
	off := r.now()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.snap != nil {
		off = r.snapAt
	}
	r.rampAt = off
	for _, t := range r.all {
		if b, ok := r.snap[t]; ok {
			t.base = b
		} else {
			t.base = r.counts(t, nil)
		}
		for _, st := range t.stats {
			st.h.reset()
		}
	}
	r.snap = nil
}

// Tenants returns what every tenant workload that ran did, in the order
// they were opened: the tenants first active, then their replacements
// that completed a call. Figures are the workload's (workload.Figurer)
// computed from each tenant's own counts over its own time. Counts are
// read atomically; call it after the run for final figures (the first
// call after the run, or the load's Close, fixes the run's end). Tenant
// counts leave out the engine's ramp once MarkRampEnd was called, so they
// add up to the engine's totals (apart from errors, which count from the
// start).
func (r *Run) Tenants() []TenantResult {
	r.markEnd()
	end := r.endAt.Load()
	r.mu.Lock()
	all := append([]*tenant(nil), r.all...)
	rampAt := r.rampAt
	bases := make([][]int64, len(all))
	for k, t := range all {
		bases[k] = t.base
	}
	r.mu.Unlock()
	out := make([]TenantResult, 0, len(all))
	for k, t := range all {
		first := t.first.Load()
		if first < 0 && k >= len(r.slots) {
			continue // a replacement that never ran
		}
		res := TenantResult{ID: t.id, Name: t.name, Ops: make(map[string]int64, len(r.ops)), Ended: endedNames[t.ended.Load()]}
		var snap histSnapshot
		for _, st := range t.stats {
			for op := range r.ops {
				c := st.counts[op].Load()
				res.Ops[r.ops[op]] += c
				if r.primary[op] {
					res.Total += c
				}
				res.Errors += st.errors[op].Load()
			}
			st.h.addTo(&snap)
		}
		for op, b := range bases[k] {
			res.Ops[r.ops[op]] -= b
			if r.primary[op] {
				res.Total -= b
			}
		}
		if first >= 0 && first < rampAt {
			first = rampAt
		}
		res.P50, res.P99, res.Max = snap.quantile(0.50), snap.quantile(0.99), float64(snap.max)/1e6
		stop := t.stop.Load()
		if stop == 0 || stop > end {
			stop = end
		}
		if first >= 0 && stop > first {
			res.ElapsedSec = time.Duration(stop - first).Seconds()
		}
		if f, ok := t.gen.(workload.Figurer); ok && res.ElapsedSec > 0 {
			for _, fig := range f.Figures(res.Ops, time.Duration(stop-first)) {
				if res.Figures == nil {
					res.Figures = map[string]float64{}
				}
				res.Figures[fig.Name] = fig.Value
			}
		}
		out = append(out, res)
	}
	return out
}

// Summary is Summarize's, with the efficiency figure's text (see
// MinAvg.Pooled) pooled over the tenant workloads of ts and for the one
// with the lowest efficiency, as the workload's Figurer words it (TPC-C:
// with its 95% interval from the New-Order count, and whether a figure
// above the mix's maximum is sampling noise). The tenants' generators
// share their flags, so one of them words every tenant's counts.
func (r *Run) Summary(active int, ts []TenantResult) Summary {
	var f workload.Figurer
	r.mu.Lock()
	for _, t := range r.all {
		if fg, ok := t.gen.(workload.Figurer); ok {
			f = fg
			break
		}
	}
	r.mu.Unlock()
	return SummarizeWith(active, ts, f)
}

// SummarizeWith is Summarize's, with the efficiency figure's text as f
// (a tenant's workload) words it: pooled over every tenant workload's
// operations and time together, and the lowest tenant's. A report of a
// fleet's clients calls it on their tenants together, as the run of the
// whole fleet calls it on its own.
func SummarizeWith(active int, ts []TenantResult, f workload.Figurer) Summary {
	s := Summarize(active, ts)
	if s.Efficiency == nil || f == nil {
		return s
	}
	text := func(ops map[string]int64, sec float64) string {
		for _, fig := range f.Figures(ops, time.Duration(sec*float64(time.Second))) {
			if fig.Name == "efficiency" {
				return fig.Text
			}
		}
		return ""
	}
	pooled := map[string]int64{}
	var sec float64
	lowest := -1
	for i, t := range ts {
		e, ok := t.Figures["efficiency"]
		if !ok {
			continue
		}
		for op, n := range t.Ops {
			pooled[op] += n
		}
		sec += t.ElapsedSec
		if lowest < 0 || e < ts[lowest].Figures["efficiency"] {
			lowest = i
		}
	}
	s.Efficiency.Pooled = text(pooled, sec)
	s.Efficiency.MinText = text(ts[lowest].Ops, ts[lowest].ElapsedSec)
	s.Efficiency.MinTenant = ts[lowest].ID
	return s
}

// Abandon closes, from under them, the connections of the engine's
// workers (numbered as in Load) that the run's end abandoned, still in
// an operation (see sqlx.DB.Abandon): each one's, on the tenants of its
// slot (the one it works on, and one it may not have left yet).
func (r *Run) Abandon(workers []int) {
	r.mu.Lock()
	all := append([]*tenant(nil), r.all...)
	r.mu.Unlock()
	var wg sync.WaitGroup // each DB's Abandon waits for its cancel requests
	for _, w := range workers {
		if w < 0 || w >= len(r.workers) {
			continue
		}
		tw := r.workers[w] // s and i are set once
		for _, t := range all {
			if t.slot == tw.s {
				wg.Add(1)
				go func() {
					defer wg.Done()
					t.db.Abandon([]int{tw.i})
				}()
			}
		}
	}
	wg.Wait()
}

// Close waits for replacements being opened and closes every tenant
// workload. The run cannot be used afterwards.
func (r *Run) Close() {
	r.markEnd()
	r.mu.Lock()
	r.closed = true
	r.mu.Unlock()
	r.bg.Wait()
	r.mu.Lock()
	all := append([]*tenant(nil), r.all...)
	r.mu.Unlock()
	var wg sync.WaitGroup
	sem := make(chan struct{}, max(r.cfg.OpenConcurrency, 1))
	for _, t := range all {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			t.close(r.ctx)
		}()
	}
	wg.Wait()
}
