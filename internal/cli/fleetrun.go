package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/stampede-bench/stampede/fleet"
	"github.com/stampede-bench/stampede/report"
	"github.com/stampede-bench/stampede/workload"
)

// fleetRunFlags are the flags only `run` has for fleets: how many tenant
// workloads run at once, with how many connections, picked how.
type fleetRunFlags struct {
	active         int
	connsPerTenant int
	pick           string
	rotate         bool
	tenantDuration time.Duration
}

func (f *fleetRunFlags) register(fs *pflag.FlagSet) {
	fs.IntVar(&f.active, "active", 0, "with --tenants: number of tenant workloads run at once (default: every tenant)")
	fs.IntVar(&f.connsPerTenant, "conns-per-tenant", 1, "with --tenants: connections of each active tenant")
	fs.StringVar(&f.pick, "pick", fleet.PickRandom, "with --tenants: which tenants are active: random (from --seed) or round-robin (1..M)")
	fs.BoolVar(&f.rotate, "rotate", false, "with --tenants: replace a tenant workload that fails, or whose --tenant-duration elapsed, by the next tenant (turns on --tolerate-errors)")
	fs.DurationVar(&f.tenantDuration, "tenant-duration", 0, "with --rotate: how long each tenant workload runs before the next tenant replaces it (0: until it fails)")
}

// validate checks the flags against the fleet spec (on tells whether
// --tenants names a fleet); errors are one-line usage errors.
func (f *fleetRunFlags) validate(fs *pflag.FlagSet, spec fleet.Spec, on bool) error {
	if !on {
		if n := changed(fs, "active", "conns-per-tenant", "pick", "rotate", "tenant-duration"); n != "" {
			return usagef("--%s needs --tenants N (N >= 1)", n)
		}
		return nil
	}
	if !fs.Changed("active") {
		f.active = spec.Tenants
	}
	switch {
	case f.active < 1:
		return usagef("--active %d: need at least 1 active tenant", f.active)
	case f.active > spec.Tenants:
		return usagef("--active %d is more than --tenants %d: at most every tenant can be active", f.active, spec.Tenants)
	case f.connsPerTenant < 1:
		return usagef("--conns-per-tenant %d: need at least 1 connection", f.connsPerTenant)
	case f.tenantDuration < 0:
		return usagef("--tenant-duration %s is negative", f.tenantDuration)
	case fs.Changed("tenant-duration") && !f.rotate:
		return usagef("--tenant-duration needs --rotate: without it every tenant workload runs for the whole run")
	}
	switch f.pick {
	case fleet.PickRandom, fleet.PickRoundRobin:
	default:
		return usagef("unknown --pick %q: use random or round-robin", f.pick)
	}
	return nil
}

// openRunSource opens what a run works on: a fleet of tenants when
// --tenants says so, else one database.
func (a *app) openRunSource(ctx context.Context, spec runSpec, opser workload.Opser, seed uint64) (*runSource, error) {
	if spec.tenants == nil {
		return a.openSource(ctx, spec, opser, seed)
	}
	fspec, on, err := spec.tenants.spec(spec.gen.Meta().Name)
	if err != nil {
		return nil, err
	}
	if err := spec.fleet.validate(spec.fs, fspec, on); err != nil {
		return nil, err
	}
	if !on {
		return a.openSource(ctx, spec, opser, seed)
	}
	return a.openFleetSource(ctx, spec, fspec, seed)
}

// openFleetSource opens the active tenant workloads of a fleet run.
func (a *app) openFleetSource(ctx context.Context, spec runSpec, fspec fleet.Spec, seed uint64) (*runSource, error) {
	gen, rf, ff := spec.gen, spec.flags, spec.fleet
	newGen, err := tenantGenerators(gen, fspec)
	if err != nil {
		return nil, err
	}
	wpt := workersPerTenant(gen, spec.fs, rf.concurrency)
	if err := checkWorkers(fmt.Sprintf("--active %d × %s per tenant =", ff.active, plural(wpt, "worker")), ff.active*wpt, false); err != nil {
		return nil, err
	}
	base, err := spec.conn.options(spec.urls, gen.Meta().DatabaseName(), ff.connsPerTenant)
	if err != nil {
		return nil, err
	}
	base.StatementTimeout = rf.opTimeout
	if ff.rotate {
		rf.tolerateErrors = true // a failing tenant is replaced, not fatal
	}
	if c, ok := gen.(workload.AfterRunChecker); ok && c.CheckAfterRun() && !rf.skipChecks {
		fmt.Fprintf(a.stderr, "note: a fleet run checks no tenant's consistency after the run: `%s` checks every tenant\n",
			a.completeHint(fmt.Sprintf("stampede check %s --tenants %d", gen.Meta().Name, fspec.Tenants)))
	}
	fmt.Fprintf(a.stderr, "opening %d tenant workloads: %s and %s each\n", ff.active, plural(wpt, "worker"), plural(ff.connsPerTenant, "connection"))
	opened := time.Now()
	run, err := fleet.Open(ctx, fleet.RunConfig{
		Spec:             fspec,
		Base:             base,
		Active:           ff.active,
		ConnsPerTenant:   ff.connsPerTenant,
		WorkersPerTenant: wpt,
		Pick:             ff.pick,
		Rotate:           ff.rotate,
		TenantDuration:   ff.tenantDuration,
		Seed:             seed,
		NewGen:           newGen,
		Warn:             a.warnf,
	})
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(a.stderr, "opened %d tenant workloads in %s\n", ff.active, time.Since(opened).Round(time.Millisecond))
	where := fmt.Sprintf("%s, %d active", tenantsSummary(fspec), ff.active)
	if ff.rotate {
		where += ", rotating"
		if ff.tenantDuration > 0 {
			where += " every " + ff.tenantDuration.String()
		}
	}
	database := fspec.Pattern
	if fspec.Mode != fleet.ModeDatabase {
		database = base.Database
	}
	cpu0, wall0 := processCPU(), time.Now()
	src := &runSource{
		load:          run.Load(),
		workers:       ff.active * wpt,
		endpoints:     run.Endpoints(),
		database:      database,
		serverVersion: run.ServerVersion(ctx),
		where:         where,
		reconnects:    run.Reconnects,
		close:         run.Close,
		tenantFigures: true,
		rampDone:      run.MarkRampEnd,
	}
	src.finish = func(sum *runSummary, out io.Writer, format string) {
		tenants := run.Tenants()
		fs := &fleetSummary{
			Summary:          fleet.Summarize(ff.active, tenants),
			Tenants:          fspec.Tenants,
			Mode:             string(fspec.Mode),
			Pattern:          fspec.Pattern,
			Rotate:           ff.rotate,
			WorkersPerTenant: wpt,
			ConnsPerTenant:   ff.connsPerTenant,
			QPS:              sum.Total.Rate,
			P99:              sum.Total.P99,
		}
		if wall := time.Since(wall0).Seconds(); wall > 0 {
			if cpu := processCPU(); cpu >= 0 && cpu0 >= 0 {
				fs.ClientCPU = (cpu - cpu0) / wall
			}
		}
		if src.serverCPU != nil {
			if v, ok := src.serverCPU(); ok {
				fs.ServerCPU = &v
			}
		}
		sum.Concurrency = ff.active * wpt
		sum.Tenants = tenants
		sum.Fleet = fs
		if format == "json" {
			_ = json.NewEncoder(out).Encode(struct {
				Type  string        `json:"type"`
				Fleet *fleetSummary `json:"fleet"`
			}{"fleet", fs})
			return
		}
		_ = writeFleetTable(out, fs)
	}
	return src, nil
}

// tenantGenerators returns a function that makes tenant id's generator:
// a new generator of gen's workload with gen's flags (as given on the
// command line) and, in column mode, the tenant's id. It is safe to call
// from several goroutines.
func tenantGenerators(gen workload.Generator, spec fleet.Spec) (func(id int) (workload.Generator, error), error) {
	var args []string
	if f, ok := gen.(workload.Flagser); ok {
		// VisitAll and Changed: the command's flag set parsed the
		// workload's flags, so the workload's own set has none "actual".
		f.Flags().VisitAll(func(fl *pflag.Flag) {
			if !fl.Changed {
				return
			}
			if sv, ok := fl.Value.(pflag.SliceValue); ok {
				for _, v := range sv.GetSlice() {
					args = append(args, "--"+fl.Name+"="+v)
				}
				return
			}
			args = append(args, "--"+fl.Name+"="+fl.Value.String())
		})
	}
	if _, ok := gen.(workload.TenantColumner); !ok && spec.Mode == fleet.ModeColumn {
		return nil, usagef("workload %s cannot share its tables between tenants: use --tenant-mode database or schema", gen.Meta().Name)
	}
	meta := gen.Meta()
	return func(id int) (workload.Generator, error) {
		g, err := workload.FromFlags(meta, args...)
		if err != nil {
			return nil, err
		}
		if c, ok := g.(workload.TenantColumner); ok && spec.Mode == fleet.ModeColumn {
			c.SetTenant(id)
		}
		return g, nil
	}, nil
}

// terminalsPerWarehouse is TPC-C's number of terminals per warehouse
// (clause 4.2.2): with keying and think times, a warehouse's full load.
const terminalsPerWarehouse = 10

// workersPerTenant returns the number of workers of each tenant:
// --concurrency when given, else what a tenant of the workload needs on
// its own: for a workload with --warehouses and --wait (TPC-C), 10 per
// warehouse as the spec's terminals; otherwise 1.
func workersPerTenant(gen workload.Generator, fs *pflag.FlagSet, concurrency int) int {
	if fs.Changed("concurrency") || fs.Changed("threads") {
		return concurrency
	}
	f, ok := gen.(workload.Flagser)
	if !ok {
		return 1
	}
	wait, wh := f.Flags().Lookup("wait"), f.Flags().Lookup("warehouses")
	if wait == nil || wh == nil || wait.Value.String() != "true" {
		return 1
	}
	n, err := strconv.Atoi(wh.Value.String())
	if err != nil || n < 1 {
		return 1
	}
	return terminalsPerWarehouse * n
}

// fleetSummary is the fleet's part of summary.json and of the final
// table: the field report's columns.
type fleetSummary struct {
	fleet.Summary
	// Tenants, Mode and Pattern name the fleet.
	Tenants int    `json:"tenants"`
	Mode    string `json:"mode"`
	Pattern string `json:"pattern,omitempty"`
	// Rotate is --rotate.
	Rotate bool `json:"rotate,omitempty"`
	// WorkersPerTenant and ConnsPerTenant are each tenant's.
	WorkersPerTenant int `json:"workers_per_tenant"`
	ConnsPerTenant   int `json:"conns_per_tenant"`
	// ClientCPU is stampede's own CPU time (user+system) over the run, in
	// cores.
	ClientCPU float64 `json:"client_cpu_cores"`
	// ServerCPU is the server's CPU over the run in cores, when telemetry
	// watched the server's processes (runSource.serverCPU); nil prints "-".
	ServerCPU *float64 `json:"server_cpu_cores,omitempty"`
	// QPS is the fleet's operations per second and P99 its 99th
	// percentile latency in ms, from the engine's merged histograms.
	QPS float64 `json:"qps"`
	P99 float64 `json:"p99_ms"`
}

// writeFleetTable prints the fleet's line of the field report's table,
// and a warning line when a tenant workload completed no operation.
func writeFleetTable(w io.Writer, f *fleetSummary) error {
	type col struct{ head, val string }
	cols := []col{{"active", strconv.Itoa(f.Active)}}
	if f.Rotate {
		cols = append(cols, col{"workloads", strconv.Itoa(f.Ran)})
	}
	server := "-"
	if f.ServerCPU != nil {
		server = fmt.Sprintf("%.2f", *f.ServerCPU)
	}
	cols = append(cols,
		col{"client-cpu", fmt.Sprintf("%.2f", f.ClientCPU)},
		col{"server-cpu", server},
		col{"qps", fmt.Sprintf("%.1f", f.QPS)},
		col{"p99(ms)", report.FormatMs(f.P99)},
		col{"ops/tenant-min", strconv.FormatInt(f.OpsMin, 10)},
		col{"median", strconv.FormatInt(f.OpsMedian, 10)},
		col{"max", strconv.FormatInt(f.OpsMax, 10)},
	)
	if f.Efficiency != nil {
		cols = append(cols,
			col{"efficiency-avg", fmt.Sprintf("%.1f%%", f.Efficiency.Avg)},
			col{"min", fmt.Sprintf("%.1f%%", f.Efficiency.Min)})
	}
	var head, vals strings.Builder
	for _, c := range cols {
		n := max(len(c.head), len(c.val)) + 2
		head.WriteString(strings.Repeat("_", n-len(c.head)) + c.head)
		vals.WriteString(strings.Repeat(" ", n-len(c.val)) + c.val)
	}
	title := fmt.Sprintf("%d tenants (%s mode", f.Tenants, f.Mode)
	if f.Mode != string(fleet.ModeColumn) {
		title += ", " + f.Pattern
	}
	title += fmt.Sprintf("), %d active, %s and %s each", f.Active, plural(f.WorkersPerTenant, "worker"), plural(f.ConnsPerTenant, "connection"))
	if _, err := fmt.Fprintf(w, "\nfleet: %s\n%s\n%s\n", title, head.String(), vals.String()); err != nil {
		return err
	}
	if n := len(f.Starved); n > 0 {
		ids := make([]string, 0, min(n, 10))
		for _, id := range f.Starved[:min(n, 10)] {
			ids = append(ids, strconv.Itoa(id))
		}
		more := ""
		if n > 10 {
			more = fmt.Sprintf(" and %d more", n-10)
		}
		who := "tenant"
		if n > 1 {
			who = "tenants"
		}
		if _, err := fmt.Fprintf(w, "warning: %d of %d tenant workloads completed no operation (starved): %s %s%s\n",
			n, f.Ran, who, strings.Join(ids, ", "), more); err != nil {
			return err
		}
	}
	return nil
}

// plural is "1 worker" or "10 workers".
func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
