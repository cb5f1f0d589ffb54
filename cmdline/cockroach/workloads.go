package cockroach

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	// The workloads cockroach and stampede both have.
	_ "github.com/stampede-bench/stampede/workload/bank"
	_ "github.com/stampede-bench/stampede/workload/tpcc"
	_ "github.com/stampede-bench/stampede/workload/ycsb"
)

// workloadDef is a cockroach workload stampede runs: its flags, as
// cockroach's pkg/workload/<name> declares them, and how they become
// stampede's.
type workloadDef struct {
	name string
	// conn says the workload has cockroach's connection flags.
	conn  bool
	flags []cflag
	// resolve applies what the table's cflags cannot say alone (flags
	// that depend on one another); it runs after the table's to flags.
	resolve func(c *Command) error
}

// workloads are the cockroach workloads stampede has, by name.
var workloads = map[string]*workloadDef{
	"ycsb": ycsbDef,
	"tpcc": tpccDef,
	"bank": bankDef,
}

// seedFlag is every workload's --seed (cockroach's RandomSeed): the data's
// and the operations' seed.
var seedFlag = cflag{name: "seed", kind: kUint, def: "0", usage: "random seed of the data and the operations (0: pick one and print it)"}

var ycsbDef = &workloadDef{
	name: "ycsb",
	conn: true,
	flags: []cflag{
		{name: "workload", kind: kString, def: "B", usage: "workload type: A-F or CUSTOM (default B)"},
		{name: "request-distribution", kind: kString, usage: "request key distribution: zipfian, uniform or latest (default zipfian, latest for D)",
			to: "request-distribution", conv: lowerChoice("request-distribution", "zipfian", "uniform", "latest")},
		{name: "scan-length-distribution", kind: kString, def: "uniform", usage: "scan length distribution: zipfian or uniform",
			to: "scan-length-distribution", conv: lowerChoice("scan-length-distribution", "zipfian", "uniform")},
		{name: "min-scan-length", kind: kUint, def: "1", usage: "the minimum length of scans", to: "min-scan-length"},
		{name: "max-scan-length", kind: kUint, def: "1000", usage: "the maximum length of scans (1000 for every workload, as cockroach's)", to: "max-scan-length", always: true},
		{name: "read-freq", kind: kFloat, def: "0", usage: "share of reads, with --workload=CUSTOM"},
		{name: "insert-freq", kind: kFloat, def: "0", usage: "share of inserts, with --workload=CUSTOM"},
		{name: "update-freq", kind: kFloat, def: "0", usage: "share of updates, with --workload=CUSTOM"},
		{name: "scan-freq", kind: kFloat, def: "0", usage: "share of scans, with --workload=CUSTOM"},
		{name: "read-modify-write-freq", kind: kFloat, def: "0", usage: "share of read-modify-writes, with --workload=CUSTOM"},
		{name: "delete-freq", kind: kFloat, def: "0", usage: "share of deletes, with --workload=CUSTOM"},
		{name: "insert-hash", kind: kBool, def: "true", usage: "hash key numbers into keys, else order them", to: "insert-order",
			conv: func(v string) (string, error) {
				if v == "false" {
					return "ordered", nil
				}
				return "hashed", nil
			}},
		{name: "zero-padding", kind: kInt, def: "1", usage: "digits of the ordered keys (with --insert-hash=false)", to: "zero-padding"},
		{name: "insert-start", kind: kInt, def: "0", usage: "the first key init inserts"},
		{name: "insert-count", kind: kInt, def: "10000", usage: "the number of rows init inserts"},
		{name: "record-count", kind: kInt, def: "0", usage: "the key the run's inserts start from, the keys reads choose among (default insert-start + insert-count)"},
		{name: "json", kind: kBool, usage: "the fields in one JSONB column: usertable (ycsb_key VARCHAR(255) PRIMARY KEY, field JSONB)", to: "json"},
		{name: "families", kind: kBool, usage: "each column in its own column family (CockroachDB's)"},
		{name: "read-modify-write-in-txn", kind: kBool, usage: "run read-modify-writes in an explicit transaction", to: "read-modify-write-in-txn"},
		{name: "select-for-update", kind: kBool, def: "true", usage: "read-modify-writes in a transaction read with SELECT FOR UPDATE", to: "select-for-update"},
		{name: "splits", kind: kInt, def: "0", usage: "split the table into this many ranges (CockroachDB's)"},
		{name: "time-string", kind: kBool, refuse: "stampede's ycsb values are random letters only; it does not prepend the time"},
		seedFlag,
	},
	resolve: resolveYCSB,
}

// ycsbWorkloads are cockroach's YCSB workloads (upper case).
var ycsbWorkloads = map[string]bool{"A": true, "B": true, "C": true, "D": true, "E": true, "F": true, "CUSTOM": true}

// ycsbFreqs are the --*-freq flags and stampede's proportion flags.
var ycsbFreqs = []struct{ flag, to string }{
	{"read-freq", "read-proportion"},
	{"insert-freq", "insert-proportion"},
	{"update-freq", "update-proportion"},
	{"scan-freq", "scan-proportion"},
	{"read-modify-write-freq", "read-modify-write-proportion"},
	{"delete-freq", "delete-proportion"},
}

// resolveYCSB applies --workload with the --*-freq flags, and cockroach's
// counts: --insert-count rows loaded from --insert-start, reads among
// the --record-count first keys.
func resolveYCSB(c *Command) error {
	w := strings.ToUpper(c.value("workload"))
	if !ycsbWorkloads[w] {
		return usagef("unknown --workload %q: use A, B, C, D, E, F or CUSTOM (as cockroach's ycsb)", c.value("workload"))
	}
	var sum float64
	var given []string
	for _, f := range ycsbFreqs {
		v, _ := strconv.ParseFloat(c.value(f.flag), 64)
		if v < 0 {
			return usagef("--%s %g is negative", f.flag, v)
		}
		sum += v
		if c.fs.Changed(f.flag) {
			given = append(given, "--"+f.flag)
		}
	}
	if w == "CUSTOM" {
		if math.Abs(sum-1) > 1e-6 {
			return usagef("--workload=CUSTOM: the --*-freq shares add up to %.6g, not 1", sum)
		}
		if err := c.setGen("workload", "a"); err != nil {
			return err
		}
		for _, f := range ycsbFreqs {
			v := c.value(f.flag)
			if f.flag == "delete-freq" && v == "0" && c.gen.Flags().Lookup(f.to) == nil {
				continue
			}
			if err := c.setGenFrom(f.flag, f.to, v); err != nil {
				return err
			}
		}
		if !c.fs.Changed("request-distribution") {
			if err := c.setGen("request-distribution", "zipfian"); err != nil {
				return err
			}
		}
	} else {
		if len(given) > 0 {
			return usagef("%s set with --workload=%s: the shares apply with --workload=CUSTOM only (as cockroach's)", strings.Join(given, ", "), w)
		}
		if err := c.setGen("workload", strings.ToLower(w)); err != nil {
			return err
		}
	}
	start, _ := strconv.Atoi(c.value("insert-start"))
	count, _ := strconv.Atoi(c.value("insert-count"))
	records, _ := strconv.Atoi(c.value("record-count"))
	for _, f := range []struct {
		name string
		n    int
	}{{"insert-start", start}, {"insert-count", count}, {"record-count", records}} {
		if f.n < 0 {
			return usagef("--%s must not be negative, not %d", f.name, f.n)
		}
	}
	if records == 0 {
		records = start + count
	}
	if start+count > records {
		return usagef("--insert-start + --insert-count (%d) must be at most --record-count (%d), as cockroach's", start+count, records)
	}
	// Without a count given, stampede's ycsb has cockroach's (10000 rows
	// from key 0), and a run takes what init loaded, as cockroach's run
	// reads the keys loaded: set them only when given.
	if c.fs.Changed("insert-start") || c.fs.Changed("insert-count") || c.fs.Changed("record-count") {
		for _, kv := range [][2]string{{"record-count", strconv.Itoa(records)}, {"insert-start", strconv.Itoa(start)}, {"insert-count", strconv.Itoa(count)}} {
			if err := c.setGen(kv[0], kv[1]); err != nil {
				return err
			}
		}
	}
	if c.fs.Changed("families") && c.value("families") == "true" {
		c.families = true
	}
	c.crdbFamilies = ycsbFamilies(w, c.fs.Changed("families"), c.value("families") == "true") && c.value("json") != "true"
	return nil
}

// ycsbFamilies is whether cockroach's ycsb puts each column in its own
// column family: --families when given, else its default for the
// workload (preferColumnFamilies: on for A, B, F and CUSTOM, whose
// single-column updates contend less with families; off for C, D and E).
func ycsbFamilies(workload string, given, value bool) bool {
	if given {
		return value
	}
	switch workload {
	case "A", "B", "F", "CUSTOM":
		return true
	}
	return false
}

var tpccDef = &workloadDef{
	name: "tpcc",
	conn: true,
	flags: []cflag{
		{name: "warehouses", kind: kInt, def: "1", usage: "number of warehouses for loading", to: "warehouses"},
		{name: "fks", kind: kBool, def: "true", usage: "add the foreign keys (on by default, as cockroach's)", to: "fks", always: true},
		{name: "deprecated-fk-indexes", kind: kBool, refuse: "it adds indexes CockroachDB 20.1 and older needed; stampede's schema has the ones TPC-C needs"},
		{name: "interleaved", kind: kBool, refuse: "interleaved tables were removed from CockroachDB (21.2); no server has them"},
		{name: "mix", kind: kString, def: "newOrder=10,payment=10,orderStatus=1,delivery=1,stockLevel=1", usage: "weights of the transaction mix", to: "mix"},
		{name: "wait", kind: kString, def: "true", noOpt: "true", usage: "keying and think times: true, false, or a factor of them", to: "wait"},
		{name: "workers", kind: kInt, def: "0", usage: "number of workers (default 10 per active warehouse)"},
		{name: "conns", kind: kInt, def: "0", usage: "number of connections (default 2 per active warehouse, or --workers without waits)"},
		{name: "idle-conns", kind: kInt, def: "0", usage: "idle connections held open per URL during the run"},
		{name: "txn-retries", kind: kBool, def: "true", usage: "run transactions in a retry loop", to: "txn-retries"},
		{name: "repair-order-ids", kind: kBool, refuse: "it repairs districts written by two clusters under logical replication, which stampede does not run"},
		{name: "partitions", kind: kInt, def: "1", usage: "run: with --partition-affinity I, run the terminals of partition I of this many ranges of the warehouses (cockroach's bounds; stampede's --clients N --client-index I); stampede partitions no table"},
		{name: "ignore-partitions", kind: kBool, refuse: scaleOut},
		{name: "client-partitions", kind: kInt, def: "0", refuse: scaleOut},
		{name: "partition-affinity", kind: kInts, usage: "run: with --partitions, the one partition whose warehouses this client's terminals run"},
		{name: "partition-strategy", kind: kString, refuse: scaleOut},
		{name: "zones", kind: kStrings, refuse: scaleOut},
		{name: "regions", kind: kStrings, refuse: scaleOut},
		{name: "survival-goal", kind: kString, refuse: scaleOut},
		{name: "active-warehouses", kind: kInt, def: "0", usage: "run on this many warehouses (default --warehouses)", to: "active-warehouses"},
		{name: "active-workers", kind: kInt, def: "0", usage: "workers that run a transaction at once (default --workers)", to: "active-workers"},
		{name: "scatter", kind: kBool, usage: "scatter the ranges (CockroachDB's)"},
		{name: "split", kind: kBool, usage: "split the tables into ranges (CockroachDB's)"},
		{name: "serializable", kind: kBool, usage: "force serializable isolation"},
		{name: "expensive-checks", kind: kBool, usage: "run the expensive checks", to: "expensive-checks"},
		{name: "families", kind: kBool, usage: "separate column families for dynamic and static columns (CockroachDB's)"},
		{name: "replicate-static-columns", kind: kBool, refuse: "it duplicates static columns into each zone's index, a multi-region layout stampede does not make; leave the flag out"},
		{name: "local-warehouses", kind: kBool, refuse: "it makes every transaction local, against the specification; stampede keeps TPC-C's remote warehouses"},
		{name: "query-trace-file", kind: kString, refuse: "stampede records no per-query trace; its run log keeps every interval's histograms"},
		{name: "txn-preamble-file", kind: kString, refuse: "stampede runs TPC-C's statements only; it injects no preamble"},
		{name: "aost", kind: kString, refuse: "AS OF SYSTEM TIME is CockroachDB's; stampede's checks read one consistent snapshot of the present"},
		seedFlag,
	},
	resolve: resolveTPCC,
}

// resolveTPCC applies cockroach's defaults that depend on one another:
// --workers (10 per active warehouse; with waits exactly that, as
// cockroach requires), --conns and --isolation-level.
func resolveTPCC(c *Command) error {
	wh, _ := strconv.Atoi(c.value("warehouses"))
	if wh < 1 {
		// --warehouses is at fault, not --active-warehouses: tpcc says so.
		return c.validateGen()
	}
	active, _ := strconv.Atoi(c.value("active-warehouses"))
	if active == 0 {
		active = wh
	}
	switch {
	case active > wh && c.awaitsLoad():
		// Judged against the warehouses init loaded, once adoptLoad
		// has read them (it resolves the flags again).
	case active > wh && c.loaded > 0:
		whs := "warehouses"
		if c.loaded == 1 {
			whs = "warehouse"
		}
		return usagef("--active-warehouses %d is more than the %d %s that init loaded (tpcc_meta): give --active-warehouses %d or fewer, or load more with `stampede workload init tpcc --drop --warehouses %d`",
			active, c.loaded, whs, c.loaded, active)
	case active < 1 || active > wh:
		return usagef("--active-warehouses %d must be between 1 and --warehouses %d", active, wh)
	}
	if n, err := resolvePartitions(c, wh); err != nil {
		return err
	} else if n > 0 {
		active = n
	}
	workers, _ := strconv.Atoi(c.value("workers"))
	if workers < 0 {
		return usagef("--workers %d is negative", workers)
	}
	if workers == 0 {
		workers = 10 * active
	}
	activeWorkers, _ := strconv.Atoi(c.value("active-workers"))
	if activeWorkers > workers {
		return usagef("--active-workers %d needs to be at most --workers %d", activeWorkers, workers)
	}
	if activeWorkers == 0 {
		activeWorkers = workers
	}
	wait := strings.ToLower(c.value("wait"))
	waits := wait != "false" && wait != "off" && wait != "0"
	if waits && activeWorkers != 10*active {
		return usagef("--wait > 0 and --warehouses=%d requires --active-workers=%d (10 per active warehouse, as cockroach's): give --wait=false for other numbers of workers",
			active, 10*active)
	}
	c.concurrency = workers
	conns, _ := strconv.Atoi(c.value("conns"))
	if conns < 0 {
		return usagef("--conns %d is negative", conns)
	}
	if conns == 0 {
		conns = workers
		if waits {
			conns = 2 * active
		}
	}
	c.conns = conns
	if c.value("serializable") == "true" {
		if err := c.setGen("isolation", "serializable"); err != nil {
			return err
		}
	}
	if c.fs.Changed("concurrency") {
		c.warnf("tpcc's --concurrency %s caps each of cockroach's connection pools; stampede has one pool per URL of --conns %d connections: it changes nothing here (--workers sets the workers)",
			c.value("concurrency"), conns)
	}
	if c.value("families") == "true" {
		c.families, c.crdbFamilies = true, true
	}
	c.split = c.value("split") == "true"
	c.scatter = c.value("scatter") == "true"
	return nil
}

// resolvePartitions maps cockroach's --partitions N --partition-affinity
// I on run onto stampede's --warehouse-range: the terminals of partition
// I's warehouses, with cockroach's bounds (I*W/N+1 .. (I+1)*W/N, as
// --clients N --client-index I). It returns the partition's warehouses, 0
// without partitions. Partitioning the tables (init) places nothing on
// PostgreSQL and is refused, as are several partitions for one client.
func resolvePartitions(c *Command, wh int) (int, error) {
	p, _ := strconv.Atoi(c.value("partitions"))
	aff := c.value("partition-affinity")
	if p == 1 && aff == "" {
		return 0, nil
	}
	switch {
	case c.Verb != "run":
		// Named as given: --partition-affinity alone leaves --partitions
		// at its default, which the user did not write.
		var given []string
		if c.fs.Changed("partitions") {
			given = append(given, fmt.Sprintf("--partitions %d", p))
		}
		if aff != "" {
			given = append(given, "--partition-affinity "+aff)
		}
		it := "it"
		if len(given) > 1 {
			it = "them"
		}
		return 0, usagef("%s: cockroach partitions the tables (PARTITION BY with zone configurations, CockroachDB's); stampede's %s does not: leave %s out (run's --partitions N --partition-affinity I runs the terminals of partition I's warehouses)", strings.Join(given, " "), c.Verb, it)
	case p < 1 || (p > wh && !c.awaitsLoad()):
		return 0, usagef("--partitions %d must be between 1 and --warehouses %d", p, wh)
	case aff == "":
		return 0, usagef("--partitions %d without --partition-affinity: stampede partitions no table, so the partitions change nothing; give --partition-affinity I, the partition whose warehouses this client's terminals run", p)
	case strings.Contains(aff, ","):
		return 0, usagef("--partition-affinity %s: stampede runs one partition per client; give one (and run a client per partition)", aff)
	case c.fs.Changed("active-warehouses"):
		return 0, usagef("--partitions with --active-warehouses: both choose the warehouses the terminals run; give one or the other")
	}
	i, _ := strconv.Atoi(aff)
	if i < 0 || i >= p {
		return 0, usagef("--partition-affinity %d must be a partition from 0 to %d (--partitions %d)", i, p-1, p)
	}
	if p > wh {
		// A run given no --warehouses takes the load's (adoptLoad),
		// which resolves the flags again against them.
		return 0, nil
	}
	first, last := i*wh/p+1, (i+1)*wh/p
	if err := c.setGen("warehouse-range", fmt.Sprintf("%d:%d", first, last)); err != nil {
		return 0, err
	}
	return last - first + 1, nil
}

var bankDef = &workloadDef{
	name: "bank",
	conn: true,
	flags: []cflag{
		{name: "rows", kind: kInt, def: "1000", usage: "initial number of accounts", to: "rows"},
		{name: "batch-size", kind: kInt, def: "1000", usage: "number of rows in each batch of initial data", to: "batch-size"},
		{name: "payload-bytes", kind: kInt, def: "100", usage: "size of each account's payload", to: "payload-bytes"},
		{name: "ranges", kind: kInt, def: "10", usage: "initial number of ranges of the table (CockroachDB's)"},
		{name: "tables", kind: kInt, def: "1", usage: "number of bank tables (1)"},
		seedFlag,
	},
	resolve: func(c *Command) error {
		if t := c.value("tables"); t != "1" {
			return usagef("--tables %s: stampede's bank has one table; run a fleet of tenants (`stampede init bank --tenants N`) for many", t)
		}
		rows, _ := strconv.Atoi(c.value("rows"))
		ranges, _ := strconv.Atoi(c.value("ranges"))
		if rows < 2 {
			// --rows is at fault, not --ranges: bank says so.
			return c.validateGen()
		}
		if ranges < 1 || ranges > rows {
			return usagef("--ranges %d must be between 1 and --rows %d", ranges, rows)
		}
		// cockroach's accounts start at 0, and transfers move up to 999.
		if err := c.setGen("initial-balance", "0"); err != nil {
			return err
		}
		c.split = c.fs.Changed("ranges")
		return nil
	},
}

// names of the workloads, for messages.
func workloadNames() string { return "bank, tpcc, ycsb" }

// errorf is fmt.Errorf, for the package's non-usage errors.
var errorf = fmt.Errorf
