package lambda

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"sync"
	"time"

	"github.com/spf13/pflag"

	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

const details = `An IoT data path in the lambda architecture: --sensors devices append
readings (device, timestamp, temperature, humidity, pressure) open loop at
--ingest-rate events a second, --batch events per COPY (or multi-row INSERT,
--ingest insert); the hot path aggregates the last --window per device and
over all devices at --hot-rate queries a second; the cold path recomputes the
batch view (per device per hour: count, min, max, sum, avg of the
temperature) from the whole raw table every --batch-every; the serving query
answers "the last 24 hours of this device" from the batch view plus the raw
events after its horizon, at --serve-rate.

Every path keeps its own schedule (the run's --max-rate is their sum, set
by the workload): a path that cannot keep up shows it in its own schedule lag
(ingest.lag, batch.lag), and the events keep their scheduled timestamps, so
a lagging ingest also shows as staleness. hot/staleness and serve/staleness
are the age of the newest event each answer included (now minus its
timestamp), ingest_events_per_s the events ingested a second. The run needs
--concurrency 4 or more: the workers beyond the last three ingest, the last
three run the hot path, the serving queries and the batch recompute.

` + "`stampede check lambda`" + ` recomputes the batch view from the raw events up
to its horizon and compares every row exactly.

Examples:
  stampede init lambda 'postgresql://postgres@localhost:5432/lambda'
  stampede run lambda --ingest-rate 100000 --duration 60s 'postgresql://postgres@localhost:5432/lambda'
  stampede run lambda --sensors 50 --ingest-rate 2000 --batch 100 --ingest insert --window 30s --batch-every 5s --duration 2m 'postgresql://postgres@localhost:5432/lambda'
  stampede check lambda 'postgresql://postgres@localhost:5432/lambda'
  stampede cleanup lambda 'postgresql://postgres@localhost:5432/lambda'`

var lambdaMeta = workload.Meta{
	Name:        "lambda",
	Description: "IoT lambda architecture: sensors ingest open loop, sliding-window hot path, batch views recomputed, serving queries; check recomputes the batch view",
	Details:     details,
	Version:     "1.0.0",
	New:         newLambda,
}

func init() {
	workload.Register(lambdaMeta)
}

// Flag defaults.
const (
	defaultSensors    = 1000
	defaultIngestRate = 10000
	defaultBatch      = 1000
	defaultWindow     = 10 * time.Second
	defaultHotRate    = 1
	defaultServeRate  = 10
	defaultBatchEvery = 10 * time.Second
)

// Ingest modes.
const (
	ingestCopy   = "copy"
	ingestInsert = "insert"
)

// eventColumns are the raw table's columns, in the order the ingest
// writes them.
var eventColumns = []string{"device", "ts", "temp", "humidity", "pressure"}

// maxInsertBatch is the most events one INSERT carries: PostgreSQL's
// protocol has at most 65,535 bind parameters, 5 per event.
const maxInsertBatch = math.MaxUint16 / 5

// maxBatch bounds --batch: each batch's events are held in memory.
const maxBatch = 1_000_000

// maxRate is the highest rate of each path, the engine's highest
// (engine.MaxRateLimit), and maxRateText as the messages write it.
const (
	maxRate     = 1e9
	maxRateText = "1e9"
)

// pathWorkers returns the number of workers of the paths that run (the
// hot path, the serving queries and the batch recompute, each one worker
// unless turned off with a rate of 0); the other workers ingest.
func (g *lambda) pathWorkers() int {
	n := 0
	for _, on := range []bool{g.hotRate > 0, g.serveRate > 0, g.batchEvery > 0} {
		if on {
			n++
		}
	}
	return n
}

// lambda is the generator.
type lambda struct {
	flags workload.Flags

	sensors    int
	ingestRate float64
	batch      int
	ingest     string
	window     time.Duration
	hotRate    float64
	serveRate  float64
	batchEvery time.Duration
	// deviceIndex adds the B-tree on (device, ts) (init).
	deviceIndex bool

	// endWait is the run's wait at its end for operations in flight
	// (SetFigureEndWait), left out of the ingest's rate.
	endWait time.Duration
	// last is what the batch recomputes of the last run did, for its
	// observed figures.
	mu   sync.Mutex
	last recomputes
}

// recomputes sums up a run's batch recomputes.
type recomputes struct {
	count      int64 // recomputes committed
	rows       int64 // rows of the last one's view
	events     int64 // events the last one's view counts
	horizon    time.Time
	totalRows  int64 // rows written over the run's recomputes
	ran        bool  // a run prepared by Ops
	ingestRate float64
}

var (
	_ workload.Flagser        = (*lambda)(nil)
	_ workload.Hookser        = (*lambda)(nil)
	_ workload.Opser          = (*lambda)(nil)
	_ workload.RunDefaulter   = (*lambda)(nil)
	_ workload.Figurer        = (*lambda)(nil)
	_ workload.EndWaitFigurer = (*lambda)(nil)
)

func newLambda() workload.Generator {
	g := &lambda{}
	fs := pflag.NewFlagSet("lambda", pflag.ContinueOnError)
	g.flags = workload.Flags{FlagSet: fs, Meta: map[string]workload.FlagMeta{}}
	fs.IntVar(&g.sensors, "sensors", defaultSensors, "number of devices (0..sensors-1) the readings come from, round robin")
	fs.Float64Var(&g.ingestRate, "ingest-rate", defaultIngestRate, "events a second the sensors send, open loop (scheduled, never slowed by the server)")
	fs.IntVar(&g.batch, "batch", defaultBatch, "events per COPY or INSERT")
	fs.StringVar(&g.ingest, "ingest", ingestCopy, "how events are sent: copy (COPY FROM STDIN) or insert (one multi-row INSERT per batch)")
	fs.DurationVar(&g.window, "window", defaultWindow, "the hot path's sliding window: it aggregates the events of the last --window")
	fs.Float64Var(&g.hotRate, "hot-rate", defaultHotRate, "hot-path queries a second (0: no hot path)")
	fs.Float64Var(&g.serveRate, "serve-rate", defaultServeRate, "serving queries (the last 24 hours of one device) a second (0: none)")
	fs.DurationVar(&g.batchEvery, "batch-every", defaultBatchEvery, "interval between the starts of the batch view's recomputes (0: none)")
	fs.BoolVar(&g.deviceIndex, "device-index", true, "init: index the raw events by (device, ts) for the serving query's recent events; without it (--device-index=false) each serving query scans the events after the batch view's horizon, and the ingest does half the server's work")
	g.flags.Meta["device-index"] = workload.FlagMeta{LoadOnly: true}
	workload.SetFlagRange(fs, "sensors", "1", strconv.Itoa(math.MaxInt32))
	workload.SetFlagRange(fs, "batch", "1", strconv.Itoa(maxBatch))
	for _, name := range []string{"ingest-rate", "hot-rate", "serve-rate"} {
		workload.SetFlagRange(fs, name, "", maxRateText)
	}
	for _, name := range []string{"sensors", "ingest-rate", "batch", "ingest", "window", "hot-rate", "serve-rate", "batch-every"} {
		g.flags.Meta[name] = workload.FlagMeta{RuntimeOnly: true}
	}
	return g
}

// Meta implements the Generator interface.
func (*lambda) Meta() workload.Meta { return lambdaMeta }

// Flags implements the Flagser interface.
func (g *lambda) Flags() workload.Flags { return g.flags }

// Hooks implements the Hookser interface.
func (g *lambda) Hooks() workload.Hooks {
	return workload.Hooks{
		Validate:         g.validate,
		PostLoad:         g.postLoad,
		PreRun:           g.preRun,
		CheckConsistency: g.checkConsistency,
	}
}

// validate checks the flags' bounds.
func (g *lambda) validate() error {
	rate := func(name, what string, v float64, off bool) error {
		if off && v == 0 {
			return nil // the path is off
		}
		if math.IsNaN(v) || math.IsInf(v, 0) || v <= 0 || v > maxRate {
			if off {
				return fmt.Errorf("--%s %g is out of range: give a number of %s a second above 0, at most %s (or 0 to turn it off)", name, v, what, maxRateText)
			}
			return fmt.Errorf("--%s %g is out of range: give a number of %s a second above 0, at most %s", name, v, what, maxRateText)
		}
		return nil
	}
	switch {
	case g.sensors < 1 || g.sensors > math.MaxInt32:
		return fmt.Errorf("--sensors %d is out of range: give a whole number from 1 to %d", g.sensors, math.MaxInt32)
	case g.batch < 1 || g.batch > maxBatch:
		return fmt.Errorf("--batch %d is out of range: give a whole number from 1 to %d events (each batch is held in memory)", g.batch, maxBatch)
	case g.ingest != ingestCopy && g.ingest != ingestInsert:
		return fmt.Errorf("--ingest must be copy or insert, not %q", g.ingest)
	case g.ingest == ingestInsert && g.batch > maxInsertBatch:
		return fmt.Errorf("--batch %d with --ingest insert needs %d bind parameters, more than PostgreSQL's 65,535: use --batch %d or less, or --ingest copy", g.batch, 5*g.batch, maxInsertBatch)
	case g.window <= 0:
		return fmt.Errorf("--window must be positive, such as 10s, not %s", g.window)
	case g.window > 24*time.Hour:
		return fmt.Errorf("--window must be at most 24h (the serving query's span), not %s", g.window)
	case g.batchEvery != 0 && g.batchEvery < 100*time.Millisecond:
		return fmt.Errorf("--batch-every must be at least 100ms, such as 10s (or 0 for no recompute), not %s", g.batchEvery)
	}
	if err := rate("ingest-rate", "events", g.ingestRate, false); err != nil {
		return err
	}
	if err := rate("hot-rate", "hot-path queries", g.hotRate, true); err != nil {
		return err
	}
	return rate("serve-rate", "serving queries", g.serveRate, true)
}

// batchRate is the ingest's batches a second.
func (g *lambda) batchRate() float64 { return g.ingestRate / float64(g.batch) }

// rates returns each path's rate in operations a second: ingest batches,
// hot queries, serving queries and recomputes (0 for a path that is off).
func (g *lambda) rates() (ingest, hot, serve, batch float64) {
	if g.batchEvery > 0 {
		batch = 1 / g.batchEvery.Seconds()
	}
	return g.batchRate(), g.hotRate, g.serveRate, batch
}

// RunDefaults implements the RunDefaulter interface: the rate schedule is
// the workload's own (the sum of its paths' rates), with four ingest
// workers and one for each other path.
func (g *lambda) RunDefaults() workload.RunDefaults {
	if g.validate() != nil {
		return workload.RunDefaults{} // Ops says what is wrong
	}
	i, h, s, b := g.rates()
	return workload.RunDefaults{MaxRate: i + h + s + b, Concurrency: 4 + g.pathWorkers()}
}

// Tables implements the Generator interface: the raw events (with a BRIN
// index on the time for the windows and, with --device-index, a B-tree on
// (device, ts) for the serving query's recent events), the batch view and its one row of
// metadata (the horizon of its last recompute). All start empty.
func (g *lambda) Tables() []workload.Table {
	return []workload.Table{
		{
			Name:    eventsTable,
			Schema:  "(device INT NOT NULL, ts TIMESTAMPTZ NOT NULL, temp INT NOT NULL, humidity INT NOT NULL, pressure INT NOT NULL)",
			Columns: eventColumns,
			Indexes: g.eventIndexes(),
		},
		{
			Name: viewTable,
			Schema: "(device INT NOT NULL, hour TIMESTAMP NOT NULL, events BIGINT NOT NULL, min_temp INT NOT NULL, max_temp INT NOT NULL, " +
				"sum_temp BIGINT NOT NULL, avg_temp NUMERIC NOT NULL, newest TIMESTAMPTZ NOT NULL, PRIMARY KEY (device, hour))",
			Columns: []string{"device", "hour", "events", "min_temp", "max_temp", "sum_temp", "avg_temp", "newest"},
		},
		{
			Name: metaTable,
			Schema: "(id INT PRIMARY KEY, horizon TIMESTAMPTZ, computed_at TIMESTAMPTZ, view_rows BIGINT NOT NULL DEFAULT 0, " +
				"events BIGINT NOT NULL DEFAULT 0, recomputes BIGINT NOT NULL DEFAULT 0)",
			Columns: []string{"id"},
		},
	}
}

// IndexStatements returns the raw table's indexes with --device-index
// and without: a cleanup given other flags than the load's still knows
// them as lambda's (workload.IndexNamer).
func (g *lambda) IndexStatements() []string {
	return eventIndexes(true)
}

// eventIndexes are the raw table's indexes: a BRIN on ts (the events
// come in time order), and with --device-index a B-tree on (device, ts).
func (g *lambda) eventIndexes() []string { return eventIndexes(g.deviceIndex) }

// eventIndexes are the raw table's indexes, with the B-tree on (device,
// ts) when deviceIndex.
func eventIndexes(deviceIndex bool) []string {
	idx := []string{"CREATE INDEX " + eventsTable + "_ts ON " + eventsTable + " USING BRIN (ts) WITH (pages_per_range = 32, autosummarize = on)"}
	if deviceIndex {
		idx = append(idx, "CREATE INDEX "+eventsTable+"_device_ts ON "+eventsTable+" (device, ts)")
	}
	return idx
}

// Table names.
const (
	eventsTable = "lambda_events"
	viewTable   = "lambda_batch_view"
	metaTable   = "lambda_batch_meta"
)

// postLoad writes the batch view's metadata row: no recompute yet.
func (g *lambda) postLoad(ctx context.Context, db *sqlx.DB) error {
	if db.Null() {
		return nil
	}
	if _, err := db.Exec(ctx, "INSERT INTO "+metaTable+" (id) VALUES (1)"); err != nil {
		return fmt.Errorf("writing %s's row: %w", metaTable, err)
	}
	return nil
}

var _ workload.ClientPartitioner = (*lambda)(nil)

// PartitionClients implements the ClientPartitioner interface: lambda runs
// from one client only, as its batch view's horizon is the earliest of its
// own ingest workers' committed timestamps: another client's events could
// still commit below it, and the view would miss them.
func (g *lambda) PartitionClients(_, count int) error {
	if count > 1 {
		return fmt.Errorf("lambda runs from one client (--clients %d): its batch recompute's horizon needs every ingest worker's committed events; run it from one client with more --concurrency", count)
	}
	return nil
}
