package pgbench

// usage is `stampede pgbench --help`: pgbench 15's options, with what
// stampede does with each.
const usage = `stampede pgbench runs a pgbench command line with stampede: the same options,
scripts and report, with stampede's run directory (HDR latency per second,
telemetry) written as for any run. It runs as "stampede init pgbench" (-i) or
"stampede run sql" (a benchmark); see README's "sql — your own SQL, and
pgbench's scripts" and "pgbench's command lines: stampede pgbench".

Usage:
  stampede pgbench [OPTION]... [DBNAME]

Initialization options:
  -i, --initialize         invokes initialization mode
  -I, --init-steps=[dtgGvpf]+ (default "dtgvp")
                           run selected initialization steps
  -F, --fillfactor=NUM     set fill factor
  -n, --no-vacuum          do not run VACUUM during initialization
  -q, --quiet              quiet logging (one message each 5 seconds)
  -s, --scale=NUM          scaling factor
  --foreign-keys           create foreign key constraints between tables
  --index-tablespace=TABLESPACE
                           create indexes in the specified tablespace
  --partition-method=(range|hash)
                           partition pgbench_accounts with this method (default: range)
  --partitions=NUM         partition pgbench_accounts into NUM parts (default: 0)
  --tablespace=TABLESPACE  create tables in the specified tablespace
  --unlogged-tables        create tables as unlogged tables

Options to select what to run:
  -b, --builtin=NAME[@W]   add builtin script NAME weighted at W (default: 1)
                           (use "-b list" to list available scripts)
  -f, --file=FILENAME[@W]  add script FILENAME weighted at W (default: 1)
  -N, --skip-some-updates  skip updates of pgbench_tellers and pgbench_branches
                           (same as "-b simple-update")
  -S, --select-only        perform SELECT-only transactions
                           (same as "-b select-only")

Benchmarking options:
  -c, --client=NUM         number of concurrent database clients (default: 1)
  -C, --connect            establish new connection for each transaction
  -D, --define=VARNAME=VALUE
                           define variable for use by custom script
  -j, --jobs=NUM           number of threads (default: 1; stampede's workers
                           are goroutines: -j groups the clients for -R's
                           schedules, -l's files and the report)
  -M, --protocol=simple|extended|prepared
                           protocol for submitting queries (default: simple)
  -n, --no-vacuum          do not run VACUUM before tests
  -P, --progress=NUM       show thread progress report every NUM seconds
  -r, --report-per-command report latencies and failures per command
  -R, --rate=NUM           target rate in transactions per second (latency
                           counts from each transaction's scheduled start)
  -s, --scale=NUM          report this scale factor in output
  -v, --vacuum-all         vacuum all four standard tables before tests
  --failures-detailed      report the failures grouped by basic types
  --progress-timestamp     use Unix epoch timestamps for progress
  -t, --transactions=NUM   number of transactions each client runs (default: 10)
  -T, --time=NUM           duration of benchmark test in seconds
  -l, --log                write transaction times to log file
  -L, --latency-limit=NUM  count transactions lasting more than NUM ms as late
                           (with -R: skip those that would start later)
  --aggregate-interval=NUM aggregate data over NUM seconds
  --log-prefix=PREFIX      prefix for transaction time log file
                           (default: "pgbench_log")
  --max-tries=NUM          max number of tries to run transaction (default: 1)
  --random-seed=SEED       set random seed ("time", "rand", integer): the same
                           seed draws the same \set values as pgbench's
  --sampling-rate=NUM      fraction of transactions to log (e.g., 0.01 for 1%)
  --show-script=NAME       show builtin script code, then exit
  --verbose-errors         print messages of all errors

Not taken yet (refused in one line, with what to use instead):
  -d, --debug              print debugging output

Common options:
  -h, --host=HOSTNAME      database server host or socket directory
  -p, --port=PORT          database server port number
  -U, --username=USERNAME  connect as specified database user
  -V, --version            output version information, then exit
  -?, --help               show this help, then exit

PGHOST, PGPORT, PGUSER, PGDATABASE, PGPASSWORD and PGSSLMODE are read as libpq
reads them.

Examples:
  stampede pgbench -i -s 10 bench
  stampede pgbench -c 8 -j 2 -T 60 -P 5 -M prepared bench
  stampede pgbench -c 4 -T 30 -f read.sql@10 -f write.sql@1 -r -h 127.0.0.1 -U postgres bench
`

// builtinList is pgbench's answer to -b list.
const builtinList = `Available builtin scripts:
      tpcb-like: <builtin: TPC-B (sort of)>
  simple-update: <builtin: simple update>
    select-only: <builtin: select only>

`
