package run

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/spf13/pflag"

	"github.com/stampede-bench/stampede/fleet"
	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// FleetOp says which fleet a fleet operation (LoadFleet, CheckFleet,
// CleanupFleet, ExecFleet) works on, and how.
type FleetOp struct {
	// Workload is the workload's generator, its flags parsed.
	Workload workload.Generator
	// Spec names the tenants; Conn says where (its Database holds the
	// tenants in schema and column modes).
	Spec fleet.Spec
	Conn Conn
	// Concurrency is the number of tenants worked on at once; 0 means 8
	// (Conn.Conns, when set, wins).
	Concurrency int
	// Log receives the operation's lines; NewBar, when set, draws a
	// progress bar.
	Log    io.Writer
	NewBar func(unit string, total int64) fleet.Bar
	// ForceDrop lets cleanup and init --drop drop databases, schemas and
	// tables that are not stampede's tenants (--force-drop).
	ForceDrop bool
	// TenantRoles (init only) gives each tenant a login role of its own
	// (--tenant-roles; see fleet.RoleTable).
	TenantRoles bool
	// Share (init only), when its Count is set, makes init one of
	// Share.Count clients that split the fleet's load (--clients,
	// --client-index; see fleet.LoadTable).
	Share Part
}

// target builds the fleet.Target of op.
func (op FleetOp) target() (fleet.Target, error) {
	gen := op.Workload
	if op.Spec.Mode == fleet.ModeColumn {
		if _, ok := gen.(workload.TenantColumner); !ok {
			return fleet.Target{}, asInput(fleet.ColumnModeError(gen.Meta().Name))
		}
	}
	if op.Conn.Driver == sqlx.DriverNull {
		return fleet.Target{}, inputf("--tenants needs a server: the null driver has no databases or schemas to make tenants of")
	}
	concurrency := op.Concurrency
	if concurrency == 0 {
		concurrency = 8
	}
	opts, err := op.Conn.Options(gen.Meta().DatabaseName(), concurrency)
	if err != nil {
		return fleet.Target{}, err
	}
	if op.Conn.Conns > 0 {
		concurrency = op.Conn.Conns
	}
	log := op.Log
	if log == nil {
		log = io.Discard
	}
	return fleet.Target{Spec: op.Spec, Base: opts, Concurrency: concurrency, Workload: gen.Meta().Name,
		Logf: func(format string, args ...any) { fmt.Fprintf(log, format+"\n", args...) }, NewBar: op.NewBar, ForceDrop: op.ForceDrop}, nil
}

// shapingFlags returns the workload flags given that shape the data (not
// RuntimeOnly), as one sorted string for the tenants' markers.
func shapingFlags(gen workload.Generator) string {
	f, ok := gen.(workload.Flagser)
	if !ok {
		return ""
	}
	flags := f.Flags()
	var shape []string
	flags.VisitAll(func(fl *pflag.Flag) {
		if !fl.Changed || flags.Meta[fl.Name].RuntimeOnly {
			return
		}
		vals := []string{fl.Value.String()}
		if sv, ok := fl.Value.(pflag.SliceValue); ok {
			vals = sv.GetSlice()
		}
		for _, v := range vals {
			shape = append(shape, "--"+fl.Name+"="+v)
		}
	})
	sort.Strings(shape)
	return strings.Join(shape, " ")
}

// generatorFactory returns a function that makes generators configured as
// gen is, with the given seed.
func generatorFactory(gen workload.Generator, seed uint64) func() (workload.Generator, error) {
	args := GivenFlags(gen)
	meta := gen.Meta()
	return func() (workload.Generator, error) {
		g, err := workload.FromFlags(meta, args...)
		if err != nil {
			return nil, err
		}
		if s, ok := g.(workload.Seeder); ok {
			s.SetSeed(seed)
		}
		return g, nil
	}
}

// LoadFleet creates a fleet's tenants and loads their data (stampede init
// --tenants), resuming where an earlier one stopped (see fleet.Create):
// loaders is each tenant's COPY streams, extraTables the empty tables
// added to each tenant, drop drops every tenant first.
func LoadFleet(ctx context.Context, op FleetOp, loaders, extraTables int, drop bool, seed uint64) (fleet.Totals, error) {
	t, err := op.target()
	if err != nil {
		return fleet.Totals{}, err
	}
	if op.Share.Count > 0 && seed == 0 {
		// Every client, started alone, must draw the same rows.
		seed = fleet.SplitSeed(op.Spec, t.Base.Database, shapingFlags(op.Workload))
	}
	seed = pickSeed(seed)
	where := fmt.Sprintf("database %q", t.Base.Database)
	if op.Spec.Mode == fleet.ModeDatabase {
		where = "one database each"
	}
	// The line that says what is created comes with the first line or bar
	// of the work, so that a refusal (tenants stampede did not make) is
	// the only line printed.
	var said sync.Once
	logf, newBar := t.Logf, t.NewBar
	say := func() {
		said.Do(func() {
			share := ""
			if p := op.Share; p.Count > 0 {
				f, l := fleet.ShareRange(op.Spec.Tenants, p.Index, p.Count)
				share = fmt.Sprintf(" (client %d of %d: tenants %d..%d)", p.Index, p.Count, f, l)
			}
			logf("creating %s%s of %s: %s, %d at once, seed %d", TenantsSummary(op.Spec), share, op.Workload.Meta().Name, where, t.Concurrency, seed)
		})
	}
	t.Logf = func(format string, args ...any) { say(); logf(format, args...) }
	if newBar != nil {
		t.NewBar = func(unit string, total int64) fleet.Bar { say(); return newBar(unit, total) }
	}
	tot, err := fleet.Create(ctx, fleet.CreateOptions{Target: t, NewGenerator: generatorFactory(op.Workload, seed),
		Flags: shapingFlags(op.Workload), Seed: seed, LoadConcurrency: loaders, ExtraTables: extraTables, Drop: drop, Roles: op.TenantRoles,
		ShareIndex: op.Share.Index, ShareCount: op.Share.Count})
	var refused *fleet.RefusedError
	switch {
	case err == nil:
		say()
		if p := op.Share; p.Count > 0 {
			f, l := fleet.ShareRange(op.Spec.Tenants, p.Index, p.Count)
			share := fmt.Sprintf("client %d of %d's share, tenants %d..%d: %d created, %d complete before, in %s", p.Index, p.Count, f, l, tot.Created, tot.Existing, tot.Elapsed.Round(time.Millisecond))
			if tot.SharesIn >= p.Count {
				logf("%s; the load is complete: all %d shares are in", share, p.Count)
			} else {
				logf("%s; %d of %d shares are in: run and check refuse the fleet until every share is in", share, tot.SharesIn, p.Count)
			}
		}
	case ctx.Err() != nil:
		return tot, fmt.Errorf("init interrupted with %d tenants created now (%d were there before): run the same command again to create the others", tot.Created, tot.Existing)
	case errors.Is(err, workload.ErrTablesExist):
		return tot, tablesExist(err)
	case errors.Is(err, fleet.ErrTenantMismatch), errors.Is(err, workload.ErrForeign), errors.As(err, &refused):
		return tot, asInput(err)
	}
	return tot, err
}

// ValidateLoadFleet checks op as LoadFleet does before it connects (init
// --tenants --dry-run): the tenant mode, the server and the share of a
// split init.
func ValidateLoadFleet(op FleetOp) error {
	t, err := op.target()
	if err != nil {
		return err
	}
	return asInput(fleet.CheckCreate(fleet.CreateOptions{Target: t, Roles: op.TenantRoles, ShareIndex: op.Share.Index, ShareCount: op.Share.Count}))
}

// CheckFleet runs the consistency checks of every tenant (stampede check
// --tenants), writing each failure to out.
func CheckFleet(ctx context.Context, op FleetOp, out io.Writer) (fleet.CheckResult, error) {
	if h, ok := op.Workload.(workload.Hookser); ok && h.Hooks().CheckConsistency == nil && h.Hooks().NoChecks != "" {
		fmt.Fprintln(out, h.Hooks().NoChecks)
		return fleet.CheckResult{}, nil
	}
	if h, ok := op.Workload.(workload.Hookser); !ok || h.Hooks().CheckConsistency == nil {
		return fleet.CheckResult{}, inputf("workload %s has no consistency checks", op.Workload.Meta().Name)
	}
	t, err := op.target()
	if err != nil {
		return fleet.CheckResult{}, err
	}
	// A split init with a share missing: name it rather than fail every
	// missing tenant.
	if err := fleet.CheckShares(ctx, t); err != nil {
		return fleet.CheckResult{}, loadInput(err)
	}
	survey, err := fleet.SurveyTenants(ctx, t, "check reads", fleetTables(op.Workload, op.Spec), 0, 0)
	if err != nil {
		return fleet.CheckResult{}, foreignTenants(err)
	}
	if _, err := adoptFleetFlags(t, survey, op.Workload, op.Log); err != nil {
		return fleet.CheckResult{}, err
	}
	res, err := fleet.Check(ctx, fleet.CheckOptions{Target: t, NewGenerator: generatorFactory(op.Workload, 1)})
	for _, f := range res.Failed {
		fmt.Fprintln(out, f.Error())
	}
	if err == nil && len(res.Failed) > 0 {
		err = fmt.Errorf("%d of %d tenants failed their checks (listed above)", len(res.Failed), res.Checked)
	}
	return res, err
}

// CleanupFleet drops every tenant of the fleet that exists (stampede
// cleanup --tenants): databases, schemas, or the shared tables. It
// returns how many tenants were dropped and what is left.
func CleanupFleet(ctx context.Context, op FleetOp) (dropped int, left fleet.Totals, database string, err error) {
	t, err := op.target()
	if err != nil {
		return 0, left, "", err
	}
	var tables []string
	if op.Spec.Mode == fleet.ModeColumn {
		op.Workload.(workload.TenantColumner).SetTenant(1)
	}
	for _, tb := range op.Workload.Tables() {
		tables = append(tables, tb.Name)
	}
	dropped, left, err = fleet.Drop(ctx, fleet.DropOptions{Target: t, Tables: tables, Gen: op.Workload})
	var shared *fleet.SharedTenantsError
	if errors.Is(err, workload.ErrForeign) || errors.As(err, &shared) {
		err = asInput(err)
	}
	return dropped, left, t.Base.Database, err
}

// ExecFleet applies one statement to every tenant of the fleet (stampede
// fleet exec), recording each tenant done under resultsDir so that the
// same command resumes; restart ignores the record.
func ExecFleet(ctx context.Context, op FleetOp, stmt, resultsDir string, restart bool) (fleet.ExecResult, error) {
	if strings.TrimSpace(stmt) == "" {
		return fleet.ExecResult{}, inputf("the statement is empty")
	}
	t, err := op.target()
	if err != nil {
		return fleet.ExecResult{}, err
	}
	root, err := ResultsRoot(resultsDir)
	if err != nil {
		return fleet.ExecResult{}, err
	}
	record := filepath.Join(root, "fleet-exec", execRecordName(stmt, op.Spec, t.Base)+".ndjson")
	started := func() {
		t.Logf("applying to %s, %d at once; record %s", TenantsSummary(op.Spec), t.Concurrency, record)
	}
	var tables []string
	if op.Workload != nil {
		for _, tb := range op.Workload.Tables() {
			tables = append(tables, tb.Name)
		}
	}
	res, err := fleet.Exec(ctx, fleet.ExecOptions{Target: t, Statement: stmt, Record: record, Restart: restart, Started: started, Tables: tables})
	if errors.Is(err, fleet.ErrNotTenants) {
		return res, asInput(err)
	}
	if err != nil && ctx.Err() != nil {
		err = fmt.Errorf("interrupted after %d tenants: run the same command again to apply the statement to the others", res.Applied)
	}
	return res, err
}

// execRecordName is the record's file name: a hash of what makes two
// invocations the same job (the statement, the fleet, and the server and
// database it is on, so that a statement applied to a staging fleet is
// not skipped on production).
func execRecordName(stmt string, spec fleet.Spec, base sqlx.Options) string {
	h := sha256.New()
	parts := []string{stmt, spec.Pattern, string(spec.Mode), base.Database}
	if cfgs, err := sqlx.ParseConfigs(base); err == nil {
		for _, c := range cfgs {
			parts = append(parts, fmt.Sprintf("%s:%d", c.ConnConfig.Host, c.ConnConfig.Port))
		}
	}
	if spec.Mode == fleet.ModeDatabase {
		parts[3] = ""
	}
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// fleetTables returns the names of gen's tables (in column mode, of its
// first tenant's).
func fleetTables(gen workload.Generator, spec fleet.Spec) []string {
	if tc, ok := gen.(workload.TenantColumner); ok && spec.Mode == fleet.ModeColumn {
		tc.SetTenant(1)
	}
	var names []string
	for _, tb := range gen.Tables() {
		names = append(names, tb.Name)
	}
	return names
}

// foreignTenants makes fleet.RefuseForeignTenants' refusals bad input
// (exit 2); other errors stay as they are.
func foreignTenants(err error) error {
	if errors.Is(err, fleet.ErrNotTenants) || errors.Is(err, workload.ErrForeign) {
		return asInput(err)
	}
	return err
}

// adoptFleetFlags gives gen the data flags init recorded in the fleet's
// first tenant (read by fleet.SurveyTenants) that the command line did not give,
// as a single database's run and check take init's record, and says so
// on log ("note: using --rows=10, ..."). Flags the command line gave are
// left as given.
//
// A role that may not read the marker runs with the flags given: when
// some data setting was not given, a warning on log says which defaults
// stand, and unread (for the run's messages about tenants that do not
// hold them) says to give init's flags.
func adoptFleetFlags(t fleet.Target, survey fleet.Survey, gen workload.Generator, log io.Writer) (unread string, err error) {
	f, ok := gen.(workload.Flagser)
	if !ok {
		return "", nil
	}
	recorded, found, err := survey.Flags, survey.Found, survey.FlagsErr
	var mu *fleet.MarkerUnreadableError
	if errors.As(err, &mu) {
		var defaults []string
		for _, s := range scaleSettings(gen, f) {
			if !s.Given {
				defaults = append(defaults, s.Flag+" "+s.Value)
			}
		}
		if len(defaults) == 0 {
			return "", nil
		}
		unread = fmt.Sprintf("%s, so the defaults %s stand: give init's data flags on the command line", mu.Error(), strings.Join(defaults, ", "))
		if log != nil {
			fmt.Fprintf(log, "warning: %s\n", unread)
		}
		return unread, nil
	}
	if err != nil || !found {
		return "", err
	}
	flags := f.Flags()
	given := map[string]bool{}
	flags.VisitAll(func(fl *pflag.Flag) { given[fl.Name] = fl.Changed })
	var notes []string
	for _, a := range recorded {
		name, v, _ := strings.Cut(strings.TrimPrefix(a, "--"), "=")
		fl := flags.Lookup(name)
		if fl == nil || given[name] || flags.Meta[name].RuntimeOnly {
			continue
		}
		if sv, ok := fl.Value.(pflag.SliceValue); ok && fl.Changed {
			err = sv.Append(v)
		} else {
			err = fl.Value.Set(v)
		}
		if err != nil {
			return "", fmt.Errorf("adopting %s from the fleet's init: %w", a, err)
		}
		fl.Changed = true
		notes = append(notes, a)
	}
	if err := fleetMismatch(t, gen, recorded); err != nil {
		return "", err
	}
	if len(notes) > 0 && log != nil {
		fmt.Fprintf(log, "note: using %s, as init (of %s) loaded the fleet\n", strings.Join(notes, ", "), gen.Meta().Name)
	}
	return "", nil
}

// scaleSettings returns gen's data settings (TPC-C, which records its
// scale in tpcc_meta, its --warehouses).
func scaleSettings(gen workload.Generator, f workload.Flagser) []workload.DataSetting {
	if ds, ok := gen.(workload.DataSpecer); ok {
		return ds.DataSettings()
	}
	var settings []workload.DataSetting
	for _, s := range workload.FlagSettings(f.Flags()) {
		if s.Name == "warehouses" {
			settings = append(settings, s)
		}
	}
	return settings
}

// fleetMismatch refuses (bad input) a data setting the command line gave
// with a value other than the one init loaded the fleet with (recorded
// in its marker; a setting init was not given was loaded at its
// default), as a single database's run and check refuse it
// (workload.LoadMismatchError): the tenants would otherwise read as
// failed checks or missing tenants.
func fleetMismatch(t fleet.Target, gen workload.Generator, recorded []string) error {
	f, ok := gen.(workload.Flagser)
	if !ok {
		return nil
	}
	settings := scaleSettings(gen, f)
	loaded := map[string]string{}
	for _, a := range recorded {
		name, v, _ := strings.Cut(strings.TrimPrefix(a, "--"), "=")
		loaded[name] = v
	}
	for _, s := range settings {
		name := strings.TrimPrefix(s.Flag, "--")
		fl := f.Flags().Lookup(name)
		if !s.Given || fl == nil || !strings.HasPrefix(s.Flag, "--") {
			continue
		}
		if _, slice := fl.Value.(pflag.SliceValue); slice {
			continue
		}
		v, ok := loaded[name]
		if !ok {
			v = fl.DefValue
		}
		if v == s.Value || s.Fits != nil && s.Fits(v) {
			continue
		}
		name = gen.Meta().Name
		return inputf("%s %s differs from what init (of %s) loaded into the fleet's %s, %s %s: give %s %s, or reload the fleet with `stampede init %s --drop %s %s`",
			s.Flag, s.Value, name, TenantsSummary(t.Spec), s.Flag, v, s.Flag, v, name, s.Flag, s.Value)
	}
	return nil
}
