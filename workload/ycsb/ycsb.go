package ycsb

import (
	"errors"

	"github.com/spf13/pflag"

	"github.com/stampede-bench/stampede/workload"
)

const details = `The YCSB core workloads A-F on a usertable laid out as YCSB's JDBC binding
lays it out (ycsb_key VARCHAR(255) PRIMARY KEY, field0..fieldN-1 TEXT).

Properties use YCSB's names and defaults and come from, lowest precedence
first: built-in defaults, --workload, each -P file, each -p key=value, and
the kebab-case flags. YCSB workload files run unchanged; unknown properties
are ignored with a warning. recordcount defaults to 10000 (YCSB's workload
files say 1000); an operationcount given by -P or -p caps the run like
--max-ops.

As in YCSB, a failed operation does not end the run: its latency goes to
its status's series (read/not_found: YCSB's READ-FAILED) and the statuses
are counted (read_return_not_found: [READ], Return=NOT_FOUND);
--stop-on-error ends the run at the first instead. --output-style ycsb
prints YCSB's own report ([OVERALL], [READ], ...) in its
measurement.interval (op unless given).

  workload a  read 0.5, update 0.5                     zipfian
  workload b  read 0.95, update 0.05                   zipfian
  workload c  read 1                                   zipfian
  workload d  read 0.95, insert 0.05                   latest
  workload e  scan 0.95, insert 0.05 (maxscanlength 100, uniform) zipfian
  workload f  read 0.5, read-modify-write 0.5          zipfian

Examples:
  stampede init ycsb --workload a 'postgresql://root@localhost:26257?sslmode=disable'
  stampede run ycsb --workload a --duration 60s --concurrency 64 'postgresql://root@localhost:26257?sslmode=disable'
  stampede run ycsb --workload e --request-distribution uniform --max-scan-length 10 'postgresql://postgres@localhost:5432/ycsb'
  stampede init ycsb -p recordcount=1000000 'postgresql://postgres@localhost:5432/ycsb'
  stampede run ycsb -P workloads/workloada -p recordcount=1000000 -p requestdistribution=uniform 'postgresql://postgres@localhost:5432/ycsb'
  stampede run ycsb -P workloads/workloadd -p insertstart=500000 -p insertcount=500000 -p recordcount=1000000 --output-style ycsb URL
  stampede check ycsb -p recordcount=1000000 'postgresql://postgres@localhost:5432/ycsb'

YCSB's own command lines run with stampede in place of bin/ycsb (jdbc and
postgrenosql are ycsb; -threads, -target, -s, -load, -t, -db, -l, and the
JDBC binding's db.url, db.user and db.passwd are read; -cp, db.driver and
jdbc.* are ignored with a warning):
  stampede load jdbc -P workloads/workloada -p db.url=jdbc:postgresql://h1:26257,h2:26257/ycsb -p db.user=root -threads 32
  stampede run jdbc -P workloads/workloada -p db.url=jdbc:postgresql://h1:26257,h2:26257/ycsb -p db.user=root -threads 6 -target 500 -s
  stampede run jdbc -P workloads/workloadd -p jdbc.batchupdateapi=true -p db.batchsize=10 -p db.url=... (batched inserts)

init records the properties its rows depend on; run and check adopt those
not given and refuse one given with another value.`

var ycsbMeta = workload.Meta{
	Name:        "ycsb",
	Description: "YCSB core workloads A-F (read, update, insert, scan, read-modify-write on usertable)",
	Details:     details,
	Version:     "1.0.0",
	New:         newYCSB,
}

func init() {
	workload.Register(ycsbMeta)
}

// ycsb is the generator. Its flags hold the raw sources of properties; the
// typed config is resolved from them by Validate.
type ycsb struct {
	flags workload.Flags
	// part is this client's index and the clients' count
	// (PartitionClients); count 0 for a single client.
	part [2]int

	workloadLetter string
	propFiles      []string
	props          []string
	dataSeed       uint64
	// tenant is the tenant whose rows the generator works on (0: none,
	// the table has no tenant column).
	tenant int
	// stopOnError ends the run at the first failed operation
	// (--stop-on-error) rather than recording it as YCSB does.
	stopOnError bool
	// measureCleanup times each worker's cleanup (MeasureCleanup).
	measureCleanup bool
	// rmwInTxn and selectForUpdate are cockroach's
	// --read-modify-write-in-txn and --select-for-update (rmwtxn.go).
	rmwInTxn, selectForUpdate bool
	// json is cockroach's --json layout (json.go).
	json bool
	// families is SetColumnFamilies's (families.go).
	families bool

	// region holds --regions and --locality-keys (see regionFlags).
	region regionFlags
	// adopted are the properties taken from what init loaded (see
	// DataSettings), above every other source.
	adopted map[string]string

	// cfg is the resolved configuration, set by a successful resolve.
	cfg *config
	// warnings are the non-fatal findings of the last resolve.
	warnings []string
}

var (
	_ workload.Flagser      = (*ycsb)(nil)
	_ workload.Hookser      = (*ycsb)(nil)
	_ workload.Opser        = (*ycsb)(nil)
	_ workload.Seeder       = (*ycsb)(nil)
	_ workload.RunDefaulter = (*ycsb)(nil)
	_ workload.Figurer      = (*ycsb)(nil)
	_ workload.YCSBMeasurer = (*ycsb)(nil)

	_ workload.TenantColumner = (*ycsb)(nil)
)

func newYCSB() workload.Generator {
	g := &ycsb{}
	fs := pflag.NewFlagSet("ycsb", pflag.ContinueOnError)
	g.flags = workload.Flags{FlagSet: fs, Meta: map[string]workload.FlagMeta{}}

	fs.StringVar(&g.workloadLetter, "workload", "a",
		"YCSB core workload: a, b, c, d, e or f (applies under -P files only when given)")
	fs.StringArrayVarP(&g.propFiles, "property-file", "P", nil,
		"load YCSB properties from `FILE` (Java properties format); repeatable, later files win")
	fs.StringArrayVarP(&g.props, "property", "p", nil,
		"set a YCSB property, as `key=value`; repeatable, overrides -P files")
	fs.BoolVar(&g.stopOnError, "stop-on-error", false,
		"end the run at the first failed operation (with --tolerate-errors, count it as an error and go on), "+
			"rather than recording it under its status (read/not_found: YCSB's READ-FAILED, Return=NOT_FOUND) as YCSB does")
	g.registerTxnFlags(fs)
	g.registerJSONFlag(fs)
	g.dataSeed = 1
	g.flags.Meta["workload"] = workload.FlagMeta{RuntimeOnly: true}
	g.flags.Meta["stop-on-error"] = workload.FlagMeta{RuntimeOnly: true}

	g.region.define(fs, g.flags.Meta)
	for _, pf := range propertyFlags {
		pf.define(fs)
		if pf.runtimeOnly {
			g.flags.Meta[pf.name] = workload.FlagMeta{RuntimeOnly: true}
		}
		if pf.hidden {
			_ = fs.MarkHidden(pf.name)
		}
	}
	return g
}

// SetSeed implements the Seeder interface: batch b of the initial data
// draws its values from the stream (seed, b).
func (g *ycsb) SetSeed(seed uint64) {
	g.dataSeed = seed
	if g.cfg != nil {
		g.cfg.dataSeed = seed
	}
}

// RunDefaults implements the RunDefaulter interface: an operationcount
// given by -P or -p becomes the default --max-ops, and an explicit
// measurement.interval the default --latency (op is stampede's "service",
// intended and both keep their names).
func (g *ycsb) RunDefaults() workload.RunDefaults {
	_, cfg := fromGenerator(g)
	if cfg == nil {
		return workload.RunDefaults{}
	}
	rd := workload.RunDefaults{MaxOps: cfg.operationCount, Warnings: Warnings(g)}
	if cfg.measurementSet {
		rd.Latency = map[string]string{"op": "service", "intended": "intended", "both": "both"}[cfg.measurementInterval]
	}
	return rd
}

// Meta implements the Generator interface.
func (*ycsb) Meta() workload.Meta { return ycsbMeta }

// Flags implements the Flagser interface.
func (g *ycsb) Flags() workload.Flags { return g.flags }

// Hooks implements the Hookser interface.
func (g *ycsb) Hooks() workload.Hooks {
	return workload.Hooks{
		Validate:         g.validate,
		PreLoad:          g.preLoad,
		PreRun:           g.preRun,
		CheckConsistency: g.checkConsistency,
	}
}

// validate resolves the properties into the typed config.
func (g *ycsb) validate() error {
	if err := g.region.validate(); err != nil {
		return err
	}
	cfg, warnings, err := g.resolve()
	if err == nil {
		cfg.json, cfg.families = g.json, g.families
		if cfg.json && cfg.batchSize > 0 {
			err = errors.New("--json with jdbc.batchupdateapi: batched inserts write the plain layout's field columns; drop one of them")
		}
	}
	if err != nil {
		g.cfg = nil
		return err
	}
	g.cfg, g.warnings = cfg, warnings
	return nil
}

// PartitionClients implements workload.ClientPartitioner: client index of
// count loads and inserts its own share of the keys, [recordcount*index/count,
// recordcount*(index+1)/count), as YCSB's clients do with insertstart and
// insertcount, which it sets (and refuses when they are given).
func (g *ycsb) PartitionClients(index, count int) error {
	g.part = [2]int{index, count}
	return g.validate()
}

// config returns the resolved config, resolving it first if Validate was
// not called.
func (g *ycsb) config() (*config, error) {
	if g.cfg == nil {
		if err := g.validate(); err != nil {
			return nil, err
		}
	}
	return g.cfg, nil
}

// Tables implements the Generator interface. It returns nil when the
// properties do not resolve (Validate reports why).
func (g *ycsb) Tables() []workload.Table {
	cfg, err := g.config()
	if err != nil {
		return nil
	}
	if cfg.json {
		return []workload.Table{cfg.jsonTable()}
	}
	return []workload.Table{cfg.table()}
}

// fromGenerator returns g's resolved config when g is a ycsb generator
// whose properties resolve.
func fromGenerator(g workload.Generator) (*ycsb, *config) {
	y, ok := g.(*ycsb)
	if !ok {
		return nil, nil
	}
	cfg, err := y.config()
	if err != nil {
		return y, nil
	}
	return y, cfg
}

// MeasurementInterval returns the measurement.interval property of a ycsb
// generator, with YCSB's meaning: "op" (latency measured from when the
// operation starts, the default), "intended" (from when it was scheduled to
// start under a target rate) or "both". It returns "" when g is not a ycsb
// generator or its properties do not resolve.
func MeasurementInterval(g workload.Generator) string {
	if _, cfg := fromGenerator(g); cfg != nil {
		return cfg.measurementInterval
	}
	return ""
}

// Warnings returns the non-fatal findings of resolving a ycsb generator's
// properties, one line each (ignored unknown properties, with hints where
// stampede has a flag for them). Ops also passes them to OpsConfig.Warn;
// commands that do not call Ops (init) should print these. It returns nil
// when g is not a ycsb generator or its properties do not resolve.
func Warnings(g workload.Generator) []string {
	if y, cfg := fromGenerator(g); cfg != nil {
		return append([]string(nil), y.warnings...)
	}
	return nil
}

// OperationCount returns the operationcount property of a ycsb generator
// when it was given by a -P file or a -p flag (the CLI uses it as
// --max-ops), and 0 otherwise.
func OperationCount(g workload.Generator) int64 {
	if _, cfg := fromGenerator(g); cfg != nil {
		return cfg.operationCount
	}
	return 0
}
