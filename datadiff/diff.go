package datadiff

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/stampede-bench/stampede/dialect"
	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// Defaults of Options.
const (
	DefaultConns     = 4
	DefaultMaxRows   = 100
	DefaultRangeRows = 10000
	DefaultLeafRows  = 1000
	// fanout is how many parts a differing range is split into.
	fanout = 16
	// convergeEvery is the pause between two checks of --converge.
	convergeEvery = 100 * time.Millisecond
)

// Options configure Diff.
type Options struct {
	// A and B are the two sides' connection options (one endpoint each);
	// MaxConns is set from Conns.
	A, B sqlx.Options
	// Tables are the tables to compare; none means every table either
	// side holds in a schema its user can see (see listTables), where a table on one side
	// only is a difference and a table without a primary key, unless
	// NoPK, is named as not compared (Status NoKey) instead of refused.
	Tables []string
	// Conns is the number of connections per side (default 4).
	Conns int
	// MaxRows is the most differing rows located and reported (default
	// 100); differing ranges beyond are counted, not searched.
	MaxRows int
	// NoPK compares tables without a primary key by one checksum of all
	// their rows; without it such tables are an error.
	NoPK bool
	// Converge, when positive, re-checks the differing ranges in new
	// snapshots until they are equal or this time has passed since the
	// first check.
	Converge time.Duration
	// RangeRows is about how many rows a first-level range holds (default
	// 10,000).
	RangeRows int
	// LeafRows is the size under which a differing range's rows are
	// fetched and compared (default 1,000); it bounds the client's memory.
	LeafRows int
	// Canonical uses the canonical row hash even where both sides share
	// a native one.
	Canonical bool
	// Progress, when set, is told the rows to check (an estimate, once
	// the tables are planned) and then the rows checked as ranges finish.
	Progress Progress
	// Note, when set, receives remarks as they happen (also kept in
	// Result.Notes).
	Note func(string)

	// afterPlan is a test hook called once the first check's ranges are
	// planned.
	afterPlan func()
	// byRange checks every table by sampled ranges, never by groups (a
	// test hook).
	byRange bool
}

// Progress is told how far a diff is.
type Progress interface {
	// Planned gives the estimated number of rows to check.
	Planned(rows int64)
	// Checked adds n rows checked.
	Checked(n int64)
}

// ErrNoPrimaryKey is the error of tables without a primary key when
// Options.NoPK is not set (errors.Is finds it in a *NoPrimaryKeyError).
var ErrNoPrimaryKey = errors.New("no primary key")

// NoPrimaryKeyError names the tables without a primary key.
type NoPrimaryKeyError struct {
	Tables []string
}

// Error implements error, saying what to do.
func (e *NoPrimaryKeyError) Error() string {
	n := len(e.Tables)
	return fmt.Sprintf("%s %s no primary key, so rows cannot be matched by key: give --no-pk to compare %s by one checksum of all %s rows (differing rows are then counted, not located), or leave %s out with --tables",
		strings.Join(e.Tables, ", "), plural(n, "has", "have"), plural(n, "it", "them"), plural(n, "its", "their"), plural(n, "it", "them"))
}

// Is makes errors.Is(err, ErrNoPrimaryKey) true.
func (e *NoPrimaryKeyError) Is(target error) bool { return target == ErrNoPrimaryKey }

// table is one table being compared.
type table struct {
	name    string
	res     *TableResult
	sql     [2]*tableSQL
	keyCols []string
	cols    []string
	fullRow bool
	// busy is the time its checks took, in nanoseconds.
	busy   atomic.Int64
	mu     sync.Mutex
	ranges []span // first-level ranges that differed
	again  []span // ranges re-checked by --converge that still differ
	// cut and searched hold the first-level ranges (span.top) of which a
	// differing part was left unsearched once MaxRows rows were found,
	// and those of which a part had its rows compared: Unlocated counts
	// the first kind that are not of the second, each range once however
	// many of its parts were left.
	cut, searched map[int]bool
}

// span is a key range of a table.
type span struct {
	t *table
	bounds
	// top numbers, within its table, the first-level range the span is
	// (part of).
	top int
}

// task is a unit of work: plan a table's ranges, or check a range.
type task struct {
	plan  *table
	span  span
	depth int
	// recheck marks a first-level range that differed, checked again by
	// --converge.
	recheck bool
	// counted marks a first-level range whose rows a group scan counted
	// (counts), and found to differ.
	counted bool
	counts  [2]int64
	// groups is a table's first check by groups.
	groups *groupPlan
}

// differ runs one diff.
type differ struct {
	opts   Options
	sides  [2]*side
	tables []*table
	notes  []string
	noteMu sync.Mutex

	// locate is false while checks only find differing ranges (the first
	// checks of --converge).
	locate bool
	found  atomic.Int64 // rows located so far
	// plansLeft counts the tables still to plan, estimate their rows.
	plansLeft, estimate atomic.Int64
	diffMu              sync.Mutex
	rows                []RowDiff
	// all says that the tables are every table of either side (no
	// Options.Tables).
	all bool
}

// tablesQuery lists the tables of every schema the connection's user can
// see, but the system's (PostgreSQL, CockroachDB and YugabyteDB alike):
// information_schema.tables holds only the tables the user has a
// privilege on.
const tablesQuery = `SELECT table_schema::text, table_name::text FROM information_schema.tables
WHERE table_type = 'BASE TABLE'
AND table_schema NOT IN ('pg_catalog', 'information_schema', 'crdb_internal', 'pg_extension')
AND table_schema NOT LIKE 'pg\_toast%' AND table_schema NOT LIKE 'pg\_temp\_%'
ORDER BY 1, 2`

// bookkeeping reports whether name is one of stampede's own tables: the
// load record and the tenant marker its workloads keep, and a results
// store's tables.
func bookkeeping(name string) bool {
	return name == workload.LoadRecordTable || name == workload.TenantMarkerTable || strings.HasPrefix(name, "stampede_run")
}

// listTables sets df.opts.Tables to every table either side holds in any
// schema its user can see (tablesQuery), schema-qualified ("public.t"),
// sorted; stampede's own tables (bookkeeping) are left out, with a note
// that names them (--tables compares them).
func (df *differ) listTables(ctx context.Context) error {
	seen := map[string]bool{}
	skipped := map[string]bool{}
	for _, s := range df.sides {
		rows, err := s.db.Query(ctx, tablesQuery)
		if err != nil {
			return s.wrap(fmt.Errorf("listing the tables: %w", err))
		}
		for rows.Next() {
			var nsp, name string
			if err := rows.Scan(&nsp, &name); err != nil {
				rows.Close()
				return s.wrap(fmt.Errorf("listing the tables: %w", err))
			}
			if bookkeeping(name) {
				skipped[nsp+"."+name] = true
			} else {
				seen[nsp+"."+name] = true
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return s.wrap(fmt.Errorf("listing the tables: %w", err))
		}
	}
	if len(seen) == 0 {
		return fmt.Errorf("neither side has a table in a schema its user can see (%s, %s): check the URLs' databases and users, or name the tables with --tables", df.sides[0].where, df.sides[1].where)
	}
	df.opts.Tables = slices.Sorted(maps.Keys(seen))
	if len(skipped) > 0 {
		df.notes = append(df.notes, fmt.Sprintf("not compared: stampede's own bookkeeping %s (name %s with --tables to compare %s)",
			strings.Join(slices.Sorted(maps.Keys(skipped)), ", "), plural(len(skipped), "it", "them"), plural(len(skipped), "it", "them")))
	}
	return nil
}

// Diff compares the tables of opts.Tables on the two sides and returns
// what it found. Errors of one side are *SideError values.
func Diff(ctx context.Context, opts Options) (*Result, error) {
	if opts.Conns <= 0 {
		opts.Conns = DefaultConns
	}
	if opts.MaxRows <= 0 {
		opts.MaxRows = DefaultMaxRows
	}
	if opts.RangeRows <= 0 {
		opts.RangeRows = DefaultRangeRows
	}
	if opts.LeafRows <= 0 {
		opts.LeafRows = DefaultLeafRows
	}
	start := time.Now()
	df := &differ{opts: opts, all: len(opts.Tables) == 0}
	defer func() {
		for _, s := range df.sides {
			s.close()
		}
	}()
	// Connect to both at once: a dead side fails as fast as a live one.
	var wg sync.WaitGroup
	var errs [2]error
	for i, o := range [2]sqlx.Options{opts.A, opts.B} {
		wg.Go(func() { df.sides[i], errs[i] = openSide(ctx, string(rune('A'+i)), o, opts.Conns) })
	}
	wg.Wait()
	if err := errors.Join(errs[0], errs[1]); err != nil {
		return nil, err
	}
	a, b := df.sides[0], df.sides[1]
	if a.where == b.where || a.identity == b.identity {
		return nil, fmt.Errorf("A (%s) and B (%s) are the same server and database: give two different nodes", a.where, b.where)
	}
	if df.all {
		if err := df.listTables(ctx); err != nil {
			return nil, err
		}
	}
	res := &Result{Conns: opts.Conns}
	for i, s := range df.sides {
		sd := Side{Where: s.where, Dialect: s.db.Dialect().Name(), Version: s.db.ServerVersion(ctx), Snapshot: s.d.Snapshot().Description}
		if i == 0 {
			res.A = sd
		} else {
			res.B = sd
		}
	}
	if err := df.prepare(ctx); err != nil {
		return nil, err
	}
	for _, t := range df.tables {
		res.Tables = append(res.Tables, *t.res) // placeholders, replaced below
	}

	// The first check: every table, planned in its snapshots.
	df.locate = opts.Converge <= 0
	var tasks []task
	for _, t := range df.tables {
		if t.res.Status == "" {
			tasks = append(tasks, task{plan: t})
		}
	}
	df.plansLeft.Store(int64(len(tasks)))
	t0, err := df.check(ctx, tasks)
	if err != nil {
		return nil, err
	}
	if opts.Converge > 0 {
		res.Converge, err = df.converge(ctx, t0)
		if err != nil {
			return nil, err
		}
	}
	df.finish(res)
	res.Seconds = time.Since(start).Seconds()
	return res, nil
}

// prepare reads and compares every table's shape, and refuses tables
// without a primary key unless NoPK.
func (df *differ) prepare(ctx context.Context) error {
	var keyless []string
	for _, name := range df.opts.Tables {
		t := &table{name: name, res: &TableResult{Table: name}, cut: map[int]bool{}, searched: map[int]bool{}}
		df.tables = append(df.tables, t)
		var scs [2]*schema
		for i, s := range df.sides {
			sc, err := s.readSchema(ctx, name)
			if err != nil {
				return err
			}
			scs[i] = sc
		}
		switch {
		case scs[0] == nil && scs[1] == nil:
			return fmt.Errorf("table %s exists on neither side (%s, %s): check the tables and the URLs' databases", name, df.sides[0].where, df.sides[1].where)
		case scs[0] == nil || scs[1] == nil:
			t.res.Status = "missing"
			t.res.Missing = "A"
			if scs[1] == nil {
				t.res.Missing = "B"
			}
			continue
		}
		diffs, notes := compareShapes(scs[0], scs[1])
		t.res.Shape, t.res.Notes = diffs, notes
		if len(diffs) > 0 {
			t.res.Status = "shape"
			continue
		}
		if scs[0].keyless() || scs[1].keyless() {
			if !df.opts.NoPK && df.all {
				t.res.Status = NoKey // named, not compared
				continue
			}
			if !df.opts.NoPK {
				keyless = append(keyless, name)
				continue
			}
			t.fullRow = true
			t.res.FullRow = true
		}
		t.cols = scs[0].cols
		t.keyCols = scs[0].keys
		a, b := df.sides[0], df.sides[1]
		_, tagA, okA := a.d.NativeRowHash(t.cols, typesOf(scs[0]))
		_, tagB, okB := b.d.NativeRowHash(t.cols, typesOf(scs[1]))
		native := !df.opts.Canonical && a.native && b.native && okA && okB && tagA == tagB && sameTypes(scs[0], scs[1])
		t.res.Hash = "canonical"
		if native {
			t.res.Hash = "native"
		}
		for i, s := range df.sides {
			t.sql[i] = newTableSQL(s.d, name, t.cols, t.keyCols, scs[i], native)
		}
	}
	if len(keyless) > 0 {
		return &NoPrimaryKeyError{Tables: keyless}
	}
	return nil
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// typesOf returns sc's column types in column order.
func typesOf(sc *schema) []dialect.Type {
	out := make([]dialect.Type, len(sc.cols))
	for i, c := range sc.cols {
		out[i] = sc.types[c]
	}
	return out
}

// note records a remark.
func (df *differ) note(s string) {
	df.noteMu.Lock()
	df.notes = append(df.notes, s)
	df.noteMu.Unlock()
	if df.opts.Note != nil {
		df.opts.Note(s)
	}
}

// maxRetries is how many times a check canceled by a server is started
// again.
const maxRetries = 5

// check runs checkOnce, again in new snapshots when a server canceled it:
// a hot standby cancels queries whose snapshot needs rows that the
// primary's changes, replayed, remove ("conflict with recovery"), as
// CockroachDB may ask for a retry.
func (df *differ) check(ctx context.Context, tasks []task) (time.Time, error) {
	for try := 0; ; try++ {
		restore := df.save()
		at, err := df.checkOnce(ctx, tasks)
		var se *SideError
		if err == nil || try == maxRetries || ctx.Err() != nil || !errors.As(err, &se) ||
			!sqlx.IsRetryable(err) && !errors.Is(err, errSnapshotGone) {
			return at, err
		}
		restore()
		df.note(fmt.Sprintf("server %s canceled the check (%s): checking again in new snapshots", se.Side, firstLine(se.Err)))
		select { // 0.1 s, 0.2 s ... 1.6 s: a standby catching up stops canceling
		case <-ctx.Done():
			return at, ctx.Err()
		case <-time.After(100 * time.Millisecond << try):
		}
	}
}

// save returns a function that puts back what a check records, for a
// check done again.
func (df *differ) save() (restore func()) {
	type saved struct {
		res           TableResult
		ranges, again []span
		cut, searched map[int]bool
		busy          int64
	}
	tables := make([]saved, len(df.tables))
	for i, t := range df.tables {
		t.mu.Lock()
		tables[i] = saved{*t.res, slices.Clone(t.ranges), slices.Clone(t.again), maps.Clone(t.cut), maps.Clone(t.searched), t.busy.Load()}
		t.mu.Unlock()
	}
	df.diffMu.Lock()
	rows, found := slices.Clone(df.rows), df.found.Load()
	df.diffMu.Unlock()
	plansLeft, estimate := df.plansLeft.Load(), df.estimate.Load()
	return func() {
		for i, t := range df.tables {
			t.mu.Lock()
			*t.res, t.ranges, t.again = tables[i].res, tables[i].ranges, tables[i].again
			t.cut, t.searched = tables[i].cut, tables[i].searched
			t.busy.Store(tables[i].busy)
			t.mu.Unlock()
		}
		df.diffMu.Lock()
		df.rows = rows
		df.found.Store(found)
		df.diffMu.Unlock()
		df.plansLeft.Store(plansLeft)
		df.estimate.Store(estimate)
	}
}

// checkOnce takes a snapshot on each side and runs tasks, and the tasks
// they add, on the connections; it returns when the snapshots were taken.
func (df *differ) checkOnce(ctx context.Context, tasks []task) (time.Time, error) {
	var at [2]time.Time
	var errs [2]error
	var wg sync.WaitGroup
	for i, s := range df.sides {
		wg.Go(func() { at[i], errs[i] = s.begin(ctx, df.opts.Conns, df.note) })
	}
	wg.Wait()
	if err := errors.Join(errs[0], errs[1]); err != nil {
		return at[0], err
	}
	lanes := min(len(df.sides[0].txs), len(df.sides[1].txs))
	q := newQueue(tasks)
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var lw sync.WaitGroup
	for l := 0; l < lanes; l++ {
		lw.Go(func() {
			for {
				t, ok := q.pop()
				if !ok {
					return
				}
				more, err := df.run(ctx, l, t)
				if err != nil {
					cancel(err)
					q.close()
					return
				}
				q.push(more...)
				q.done()
			}
		})
	}
	lw.Wait()
	if err := context.Cause(ctx); err != nil {
		return at[0], err
	}
	// The snapshot of the later side is when both had theirs.
	if at[1].After(at[0]) {
		return at[1], nil
	}
	return at[0], nil
}

// run does one task on connection lane and returns the tasks it adds.
func (df *differ) run(ctx context.Context, lane int, tk task) ([]task, error) {
	if tk.plan != nil {
		return df.plan(ctx, lane, tk.plan)
	}
	sp := tk.span
	t := sp.t
	if tk.groups != nil {
		began := time.Now()
		defer func() { t.busy.Add(int64(time.Since(began))) }()
		return df.runGroups(ctx, lane, t, tk.groups)
	}
	began := time.Now()
	defer func() { t.busy.Add(int64(time.Since(began))) }()
	counts := tk.counts
	if !tk.counted {
		var sums [2]string
		err := df.both(ctx, func(i int) error {
			q, args := t.sql[i].checksum(sp.bounds)
			if err := df.sides[i].tx(lane).QueryRow(ctx, q, args...).Scan(&counts[i], &sums[i]); err != nil {
				return fmt.Errorf("checksum of %s: %w", t.name, err)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		if counts[0] == counts[1] && sums[0] == sums[1] {
			if tk.depth == 0 {
				df.countRange(t, counts)
			}
			return nil, nil
		}
	}
	if tk.depth == 0 && !tk.counted {
		df.countRange(t, counts)
	}
	t.mu.Lock()
	switch {
	case tk.recheck:
		t.again = append(t.again, sp)
	case tk.depth == 0:
		t.res.DifferingRanges++
		t.ranges = append(t.ranges, sp)
	}
	t.mu.Unlock()
	if !df.locate || t.fullRow {
		return nil, nil
	}
	if df.found.Load() >= int64(df.opts.MaxRows) {
		t.mu.Lock()
		t.cut[sp.top] = true
		t.mu.Unlock()
		return nil, nil
	}
	n := max(counts[0], counts[1])
	if n > int64(df.opts.LeafRows) {
		// Split at keys of the side with more rows in the range.
		big := 0
		if counts[1] > counts[0] {
			big = 1
		}
		q, args := t.sql[big].split(sp.bounds, (n+fanout-1)/fanout)
		cuts, err := df.keys(ctx, df.sides[big], lane, q, args, 1)
		if err != nil {
			return nil, fmt.Errorf("splitting a range of %s: %w", t.name, err)
		}
		if len(cuts) > 0 {
			return spans(t, sp.bounds, cuts, tk.depth+1, sp.top), nil
		}
	}
	t.mu.Lock()
	t.searched[sp.top] = true
	t.mu.Unlock()
	return nil, df.compareRows(ctx, lane, sp)
}

// countRange counts a first-level range's rows.
func (df *differ) countRange(t *table, counts [2]int64) {
	t.mu.Lock()
	t.res.RowsA += counts[0]
	t.res.RowsB += counts[1]
	t.mu.Unlock()
	if df.opts.Progress != nil {
		df.opts.Progress.Checked(max(counts[0], counts[1]))
	}
}

// both runs f for side 0 and side 1 at once, and attributes errors.
func (df *differ) both(ctx context.Context, f func(i int) error) error {
	var errB error
	done := make(chan struct{})
	go func() {
		defer close(done)
		errB = df.sides[1].wrap(f(1))
	}()
	errA := df.sides[0].wrap(f(0))
	<-done
	if errA != nil && errB != nil && errors.Is(errB, context.Canceled) {
		return errA
	}
	return errors.Join(errA, errB)
}

// keys runs q on side s and returns every stride-th row as a key.
func (df *differ) keys(ctx context.Context, s *side, lane int, q string, args []any, stride int) ([]key, error) {
	rows, err := s.tx(lane).Query(ctx, q, args...)
	if err != nil {
		return nil, s.wrap(err)
	}
	defer rows.Close()
	var out []key
	n := 0
	for rows.Next() {
		n++
		if n%stride != 0 {
			continue
		}
		raw := rows.RawValues()
		k := make(key, len(raw))
		for i, v := range raw {
			k[i] = string(v)
		}
		out = append(out, k)
	}
	if err := rows.Err(); err != nil {
		return nil, s.wrap(err)
	}
	return out, nil
}

// spans returns the tasks checking b cut at cuts: [b.lo, c1), [c1, c2)
// ... [cn, b.hi) at depth.
func spans(t *table, b bounds, cuts []key, depth, top int) []task {
	out := make([]task, 0, len(cuts)+1)
	prev := b.lo
	// First-level ranges are numbered in order; the parts of one are
	// numbered as it is.
	num := func(i int) int {
		if depth == 0 {
			return i
		}
		return top
	}
	for i, c := range cuts {
		out = append(out, task{span: span{t: t, bounds: bounds{lo: prev, hi: c}, top: num(i)}, depth: depth})
		prev = c
	}
	return append(out, task{span: span{t: t, bounds: bounds{lo: prev, hi: b.hi, incl: b.incl}, top: num(len(cuts))}, depth: depth})
}

// plan samples table t's boundaries on side A and returns its ranges.
func (df *differ) plan(ctx context.Context, lane int, t *table) ([]task, error) {
	began := time.Now()
	defer func() { t.busy.Add(int64(time.Since(began))) }()
	if t.fullRow {
		t.res.Ranges = 1
		df.planned(0)
		return []task{{span: span{t: t}}}, nil
	}
	q, stride := t.sql[0].sample(df.opts.RangeRows)
	sample, err := df.keys(ctx, df.sides[0], lane, q, nil, 1)
	if err != nil {
		return nil, fmt.Errorf("sampling the keys of %s: %w", t.name, err)
	}
	rows := int64(len(sample)) * int64(df.opts.RangeRows) / int64(stride)
	df.planned(max(rows, 1))
	if df.opts.afterPlan != nil {
		df.opts.afterPlan()
	}
	if !df.opts.byRange {
		// Groups as small as the ranges whose rows are compared: a group
		// that differs costs one more query, and the scan costs the same
		// whatever the groups.
		if gp := planGroups(sample, rows, t.sql[0].kType, int64(df.opts.LeafRows)); gp != nil {
			return []task{{span: span{t: t}, groups: gp}}, nil
		}
	}
	var cuts []key
	for i := stride - 1; i < len(sample); i += stride {
		cuts = append(cuts, sample[i])
	}
	t.res.Ranges = len(cuts) + 1
	return spans(t, bounds{}, cuts, 0, 0), nil
}

// planned adds a planned table's estimated rows, and tells Progress the
// total once every table is planned.
func (df *differ) planned(rows int64) {
	total := df.estimate.Add(rows)
	if df.plansLeft.Add(-1) == 0 && df.opts.Progress != nil {
		df.opts.Progress.Planned(total)
	}
}

// finish fills res from the tables and rows found.
func (df *differ) finish(res *Result) {
	res.Identical = true
	for i, t := range df.tables {
		r := t.res
		r.Unlocated = 0
		for top := range t.cut {
			if !t.searched[top] {
				r.Unlocated++
			}
		}
		if r.Status == "" {
			converged := res.Converge != nil && res.Converge.Converged
			switch {
			case converged: // the ranges that differed became equal
				r.Status = "identical"
			case r.DifferingRows > 0 || r.Unlocated > 0:
				r.Status = "differs"
			case (t.fullRow || res.Converge != nil) && r.DifferingRanges > 0:
				r.Status = "differs" // rows not located, or not found any more
			default:
				r.Status = "identical"
			}
		}
		r.Seconds = time.Duration(t.busy.Load()).Seconds()
		if r.Status != "identical" {
			res.Identical = false
		}
		res.Tables[i] = *r
	}
	order := map[string]int{}
	for i, t := range df.tables {
		order[t.name] = i
	}
	sort.SliceStable(df.rows, func(i, j int) bool {
		a, b := df.rows[i], df.rows[j]
		if a.Table != b.Table {
			return order[a.Table] < order[b.Table]
		}
		return keyLess(a.Key, b.Key)
	})
	res.Rows = df.rows
	if res.Rows == nil {
		res.Rows = []RowDiff{} // [] in JSON, for scripts
	}
	res.Notes = df.notes
}

// keyLess orders keys column by column, numerically where both values are
// integers.
func keyLess(a, b []Value) bool {
	for i := range min(len(a), len(b)) {
		x, y := deref(a[i].Value), deref(b[i].Value)
		if x == y {
			continue
		}
		nx, ex := strconv.ParseInt(x, 10, 64)
		ny, ey := strconv.ParseInt(y, 10, 64)
		if ex == nil && ey == nil {
			return nx < ny
		}
		return x < y
	}
	return len(a) < len(b)
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
