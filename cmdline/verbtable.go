package cmdline

// Verb is a command that takes a workload: init, run, check, cleanup,
// sweep.
type Verb struct {
	// Name is the command's name and Short its one-line description.
	Name  string
	Short string
	// Example is a usage line; WORKLOAD is replaced by the workload's name.
	Example string
	// Aliases are other names of the verb (sysbench's "prepare").
	Aliases []string
	// Examples are the command lines of its help's Examples section.
	Examples string
}

// The verbs, in the order help lists them.
var (
	VerbInit = Verb{"init", "Create a workload's schema and load its initial data (sysbench's prepare)",
		"stampede init WORKLOAD [flags] [URL...]", []string{"prepare"},
		`  stampede init ycsb --workload a 'postgresql://postgres@localhost:5432/ycsb'
  stampede init tpcc --warehouses 10 --drop 'postgresql://postgres@localhost:5432/tpcc'
  stampede oltp_read_write --tables=4 --table_size=1000000 --pgsql-host=db1 prepare   # sysbench's form`}
	VerbRun = Verb{"run", "Run a workload and report throughput and latency",
		"stampede run WORKLOAD [flags] [URL...]", nil,
		`  stampede run ycsb --workload a --duration 60s --concurrency 16 'postgresql://postgres@localhost:5432/ycsb'
  stampede run tpcc --warehouses 10 --duration 10m --ramp 1m 'postgresql://postgres@localhost:5432/tpcc'
  stampede run bank --max-rate 2000 --duration 5m 'postgresql://postgres@localhost:5432/bank'`}
	VerbCheck = Verb{"check", "Run a workload's consistency checks",
		"stampede check WORKLOAD [flags] [URL...]", nil,
		`  stampede check tpcc --warehouses 10 'postgresql://postgres@localhost:5432/tpcc'
  stampede check bank 'postgresql://postgres@localhost:5432/bank'`}
	VerbCleanup = Verb{"cleanup", "Drop a workload's tables",
		"stampede cleanup WORKLOAD [flags] [URL...]", nil,
		`  stampede cleanup ycsb 'postgresql://postgres@localhost:5432/ycsb'
  stampede cleanup oltp_read_write --tables=4 'postgresql://postgres@localhost:5432/sbtest'`}
	VerbSweep = Verb{"sweep", "Run a workload at several rates or worker counts, or search for the most that meets an SLO",
		"stampede sweep WORKLOAD --max-rate 1000:16000:x2 [--slo p99<=5ms] [flags] [URL...]", nil,
		`  stampede sweep ycsb --workload a --max-rate 1000:16000:x2 --duration 1m 'postgresql://postgres@localhost:5432/ycsb'
  stampede sweep ycsb --workload b --max-rate 1000:64000 --search --slo 'p99<=5ms' --duration 1m 'postgresql://postgres@localhost:5432/ycsb'
  stampede sweep oltp_point_select --concurrency 1,2,4,8,16 --duration 30s 'postgresql://postgres@localhost:5432/sbtest'`}
)

// URLHelp is what the help of a command that connects says of URLs.
const URLHelp = `URLs are libpq connection strings: postgresql://user:password@host:port/db?sslmode=...
or key=value pairs. With no URL, the libpq environment variables apply (PGHOST, PGPORT,
PGUSER, PGPASSWORD, PGDATABASE, PGSSLMODE, ...). With several URLs, connections are
spread round-robin over them.`
