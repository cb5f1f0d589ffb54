package sysbench

import (
	"fmt"
	"github.com/stampede-bench/stampede/internal/membudget"
	"math"
	"strings"

	"github.com/spf13/pflag"

	"github.com/stampede-bench/stampede/randgen"
	"github.com/stampede-bench/stampede/workload"
)

// config holds the options of a workload, under sysbench's names (in the
// comments) and with its defaults (in defaultConfig).
type config struct {
	tables    int // --tables
	tableSize int // --table_size
	rangeSize int // --range_size

	pointSelects    int // --point_selects
	simpleRanges    int // --simple_ranges
	sumRanges       int // --sum_ranges
	orderRanges     int // --order_ranges
	distinctRanges  int // --distinct_ranges
	indexUpdates    int // --index_updates
	nonIndexUpdates int // --non_index_updates
	deleteInserts   int // --delete_inserts

	rangeSelects    bool // --range_selects
	autoInc         bool // --auto_inc
	skipTrx         bool // --skip_trx
	secondary       bool // --secondary
	createSecondary bool // --create_secondary

	randType string                 // --rand-type
	rand     randgen.SysbenchParams // --rand-spec-iter, --rand-spec-pct, --rand-spec-res, --rand-pareto-h, --rand-zipfian-exp

	randomPoints   int // --random_points (select_random_points)
	numberOfRanges int // --number_of_ranges (select_random_ranges)
	delta          int // --delta (select_random_ranges)

	// tenant is the tenant of column mode (see SetTenant); 0 without.
	tenant int
}

// defaultConfig returns sysbench 1.0.20's defaults (oltp_common.lua,
// select_random_*.lua and sb_rand.c).
func defaultConfig() config {
	return config{
		tables:          1,
		tableSize:       10000,
		rangeSize:       100,
		pointSelects:    10,
		simpleRanges:    1,
		sumRanges:       1,
		orderRanges:     1,
		distinctRanges:  1,
		indexUpdates:    1,
		nonIndexUpdates: 1,
		deleteInserts:   1,
		rangeSelects:    true,
		autoInc:         true,
		skipTrx:         false,
		secondary:       false,
		createSecondary: true,
		randType:        "special",
		rand:            randgen.DefaultSysbenchParams(),
		randomPoints:    10,
		numberOfRanges:  10,
		delta:           5,
	}
}

// features are the groups of options a script has.
type features uint8

const (
	// featOLTP is oltp_common.lua's options.
	featOLTP features = 1 << iota
	// featRand is the --rand-* options of sysbench's random numbers.
	featRand
	// featRandomPoints is select_random_points.lua's --random_points.
	featRandomPoints
	// featRandomRanges is select_random_ranges.lua's --number_of_ranges
	// and --delta.
	featRandomRanges
)

// dataFlags are the flags that change the loaded data. The --rand-*
// flags are among them: the k column is loaded with the --rand-type
// distribution, as sysbench's prepare draws it (sb_rand(1, table_size)).
var dataFlags = map[string]bool{
	"tables": true, "table_size": true, "auto_inc": true, "secondary": true, "create_secondary": true,
	"rand-type": true, "rand-spec-iter": true, "rand-spec-pct": true, "rand-spec-res": true,
	"rand-pareto-h": true, "rand-zipfian-exp": true,
}

// defineFlags registers the options of feats on fs, bound to c, and
// marks the runtime-only ones in meta.
func defineFlags(fs *pflag.FlagSet, meta map[string]workload.FlagMeta, c *config, feats features) {
	if feats&featOLTP != 0 {
		fs.IntVar(&c.tables, "tables", c.tables, "number of tables, sbtest1 to sbtestN")
		fs.IntVar(&c.tableSize, "table_size", c.tableSize, "number of rows per table")
		fs.IntVar(&c.rangeSize, "range_size", c.rangeSize, "number of ids each range SELECT spans")
		fs.IntVar(&c.pointSelects, "point_selects", c.pointSelects, "point SELECTs per transaction (oltp_point_select always runs 1)")
		fs.IntVar(&c.simpleRanges, "simple_ranges", c.simpleRanges, "simple range SELECTs per transaction")
		fs.IntVar(&c.sumRanges, "sum_ranges", c.sumRanges, "SELECT SUM(k) range queries per transaction")
		fs.IntVar(&c.orderRanges, "order_ranges", c.orderRanges, "range SELECTs with ORDER BY per transaction")
		fs.IntVar(&c.distinctRanges, "distinct_ranges", c.distinctRanges, "range SELECT DISTINCTs per transaction")
		fs.IntVar(&c.indexUpdates, "index_updates", c.indexUpdates, "UPDATEs of the indexed column k per transaction")
		fs.IntVar(&c.nonIndexUpdates, "non_index_updates", c.nonIndexUpdates, "UPDATEs of the non-indexed column c per transaction")
		fs.IntVar(&c.deleteInserts, "delete_inserts", c.deleteInserts, "DELETE and re-INSERT pairs per transaction")
		boolVar(fs, &c.rangeSelects, "range_selects", "run the range SELECTs (on|off)")
		boolVar(fs, &c.autoInc, "auto_inc", "make id a SERIAL column; off: the client chooses ids (on|off)")
		boolVar(fs, &c.skipTrx, "skip_trx", "run every statement in autocommit mode, without BEGIN and COMMIT (on|off)")
		boolVar(fs, &c.secondary, "secondary", "index id with a non-unique index instead of the PRIMARY KEY (on|off)")
		boolVar(fs, &c.createSecondary, "create_secondary", "create the index k_N on k after loading (on|off)")
	}
	if feats&featRand != 0 {
		fs.StringVar(&c.randType, "rand-type", c.randType,
			"distribution of ids and k values: "+strings.Join(randgen.SysbenchKinds(), ", ")+" (zipfian is sysbench 1.1's)")
		fs.IntVar(&c.rand.SpecIter, "rand-spec-iter", c.rand.SpecIter, "uniform values summed per value of the gaussian and special distributions")
		fs.IntVar(&c.rand.SpecPct, "rand-spec-pct", c.rand.SpecPct, "percentage of the range, at its centre, where special values fall (special)")
		fs.IntVar(&c.rand.SpecRes, "rand-spec-res", c.rand.SpecRes, "percentage of values that are special (special)")
		fs.Float64Var(&c.rand.ParetoH, "rand-pareto-h", c.rand.ParetoH, "shape h of the pareto distribution")
		fs.Float64Var(&c.rand.ZipfianExp, "rand-zipfian-exp", c.rand.ZipfianExp, "exponent of the zipfian distribution")
	}
	if feats&featRandomPoints != 0 {
		fs.IntVar(&c.randomPoints, "random_points", c.randomPoints, "number of k values in the IN() list of each SELECT")
	}
	if feats&featRandomRanges != 0 {
		fs.IntVar(&c.numberOfRanges, "number_of_ranges", c.numberOfRanges, "number of k BETWEEN ranges in each SELECT")
		fs.IntVar(&c.delta, "delta", c.delta, "width of each k BETWEEN range")
	}
	fs.VisitAll(func(f *pflag.Flag) {
		switch {
		case !dataFlags[f.Name]:
			meta[f.Name] = workload.FlagMeta{RuntimeOnly: true}
		case f.Name == "secondary":
			// Only the DDL: a run's statements are the same either way.
			meta[f.Name] = workload.FlagMeta{LoadOnly: true}
		}
	})
}

// sbBool is a boolean flag that also accepts sysbench's spellings: on and
// off (and yes and no), besides true, false, 1 and 0. A bare --name means
// on.
type sbBool struct{ p *bool }

// boolVar defines an sbBool flag with *p as its default.
func boolVar(fs *pflag.FlagSet, p *bool, name, usage string) {
	fs.Var(sbBool{p}, name, usage)
	fs.Lookup(name).NoOptDefVal = "on"
}

// Set implements pflag.Value.
func (b sbBool) Set(s string) error {
	switch strings.ToLower(s) {
	case "on", "true", "yes", "1", "t":
		*b.p = true
	case "off", "false", "no", "0", "f":
		*b.p = false
	default:
		return fmt.Errorf("%q is not a boolean: use on or off", s)
	}
	return nil
}

// String implements pflag.Value: "true" or "false", parseable by
// strconv.ParseBool like pflag's own booleans.
func (b sbBool) String() string {
	if b.p != nil && *b.p {
		return "true"
	}
	return "false"
}

// Type implements pflag.Value.
func (sbBool) Type() string { return "bool" }

// IsBoolFlag marks the flag as a boolean for help output.
func (sbBool) IsBoolFlag() bool { return true }

// maxID is the largest id an INTEGER column holds.
const maxID = math.MaxInt32

// validate checks the options of feats, for the script named name. Its
// errors are one line, naming the flag.
func (c *config) validate(name string, feats features) error {
	if feats&featOLTP != 0 {
		if c.tables < 1 {
			return fmt.Errorf("--tables=%d: need at least 1 table", c.tables)
		}
		if c.tableSize < 1 {
			return fmt.Errorf("--table_size=%d: need at least 1 row per table", c.tableSize)
		}
		if c.tableSize > maxID {
			return fmt.Errorf("--table_size=%d: ids are INTEGERs, at most %d", c.tableSize, maxID)
		}
		for _, n := range []struct {
			name string
			v    int
		}{
			{"range_size", c.rangeSize},
			{"point_selects", c.pointSelects},
			{"simple_ranges", c.simpleRanges},
			{"sum_ranges", c.sumRanges},
			{"order_ranges", c.orderRanges},
			{"distinct_ranges", c.distinctRanges},
			{"index_updates", c.indexUpdates},
			{"non_index_updates", c.nonIndexUpdates},
			{"delete_inserts", c.deleteInserts},
		} {
			if n.v < 0 {
				return fmt.Errorf("--%s=%d: must not be negative", n.name, n.v)
			}
		}
		if c.rangeSize == 0 && c.rangeSelects && c.simpleRanges+c.sumRanges+c.orderRanges+c.distinctRanges > 0 {
			return fmt.Errorf("--range_size=0: a range SELECT must span at least 1 id; to run none, give --range_selects=off")
		}
		if int64(c.tableSize)+int64(c.rangeSize)-1 > maxID {
			return fmt.Errorf("--range_size=%d: ranges from id %d would pass the INTEGER limit %d", c.rangeSize, c.tableSize, maxID)
		}
	}
	if feats&featRand != 0 {
		if err := c.validateRand(); err != nil {
			return err
		}
	}
	if feats&featRandomPoints != 0 && c.randomPoints < 1 {
		return fmt.Errorf("--random_points=%d: need at least 1 point", c.randomPoints)
	}
	if feats&featRandomRanges != 0 {
		if c.numberOfRanges < 1 {
			return fmt.Errorf("--number_of_ranges=%d: need at least 1 range", c.numberOfRanges)
		}
		if c.delta < 0 {
			return fmt.Errorf("--delta=%d: must not be negative", c.delta)
		}
	}
	// select_random_* take --tables as sysbench 1.0.20's do: prepare and
	// cleanup make and drop that many tables, and events read sbtest1.
	// Each table's statements and schema are held in memory: a number
	// that would not fit is refused here, before they are made.
	if err := membudget.Check("--tables", int64(c.tables), bytesPerTable, "table: its statements and schema",
		"or fewer, larger tables (--table_size)"); err != nil {
		return err
	}
	for _, n := range []struct {
		name     string
		v        int
		per      int64
		what     string
		selected bool
	}{
		{"--random_points", c.randomPoints, bytesPerPoint, "point of a worker's statement", feats&featRandomPoints != 0},
		{"--number_of_ranges", c.numberOfRanges, 2 * bytesPerPoint, "range of a worker's statement (2 bounds)", feats&featRandomRanges != 0},
	} {
		if !n.selected {
			continue
		}
		if err := membudget.Check(n.name, int64(n.v), n.per, n.what, "or fewer"); err != nil {
			return err
		}
	}
	return nil
}

// Client memory per table (the statement texts of tableStatements and
// the table's schema and index texts, about 1 kB measured) and per point
// of select_random_*'s statements (its parameter and text), with room.
const (
	bytesPerTable = 2 << 10
	bytesPerPoint = 64
)

// workerBytes is the memory a worker of feats holds beyond the runner's:
// select_random_*'s points, their arguments and statement text.
func (c *config) workerBytes(feats features) (int64, string) {
	switch {
	case feats&featRandomPoints != 0:
		return int64(c.randomPoints) * bytesPerPoint, fmt.Sprintf("--random_points %d", c.randomPoints)
	case feats&featRandomRanges != 0:
		return 2 * int64(c.numberOfRanges) * bytesPerPoint, fmt.Sprintf("--number_of_ranges %d", c.numberOfRanges)
	}
	return 0, "its options"
}

// validateRand checks the --rand-* options.
func (c *config) validateRand() error {
	kinds := randgen.SysbenchKinds()
	known := false
	for _, k := range kinds {
		known = known || k == c.randType
	}
	p := c.rand
	switch {
	case !known:
		return fmt.Errorf("--rand-type=%s: unknown distribution (valid: %s)", c.randType, strings.Join(kinds, ", "))
	case p.SpecIter < 1:
		return fmt.Errorf("--rand-spec-iter=%d: need at least 1 iteration", p.SpecIter)
	case p.SpecPct < 0 || p.SpecPct > 100:
		return fmt.Errorf("--rand-spec-pct=%d: must be a percentage, 0 to 100", p.SpecPct)
	case p.SpecRes < 0 || p.SpecRes > 100:
		return fmt.Errorf("--rand-spec-res=%d: must be a percentage, 0 to 100", p.SpecRes)
	case !(p.ParetoH > 0 && p.ParetoH < 1):
		return fmt.Errorf("--rand-pareto-h=%g: must be between 0 and 1, exclusive", p.ParetoH)
	case !(p.ZipfianExp >= 0 && p.ZipfianExp <= math.MaxFloat64):
		return fmt.Errorf("--rand-zipfian-exp=%g: must be a non-negative number", p.ZipfianExp)
	}
	// The range is valid when the options are: report anything else as is.
	_, err := randgen.NewSysbench(c.randType, 1, 1, c.rand)
	return err
}

// ids returns a generator of the --rand-type distribution over [lo, hi],
// sysbench.rand.default(lo, hi). The config must be valid.
func (c *config) ids(lo, hi int64) randgen.IntGenerator {
	g, err := randgen.NewSysbench(c.randType, lo, hi, c.rand)
	if err != nil {
		panic(fmt.Sprintf("sysbench: unvalidated options: %v", err)) // programmer error
	}
	return g
}
