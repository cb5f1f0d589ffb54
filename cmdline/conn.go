package cmdline

import (
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/stampede-bench/stampede/redact"
	"github.com/stampede-bench/stampede/run"
	"github.com/stampede-bench/stampede/sqlx"
)

// Conn holds the connection flags: --db, --conns, --driver, and sysbench's
// --pgsql-*, --db-driver and --db-ps-mode options.
type Conn struct {
	db     string
	conns  int
	driver string
	// sysbench's connection options, an alternative to a URL.
	pgHost, pgUser, pgPassword, pgDB, pgSSLMode string
	pgPort                                      int
	dbDriver                                    string
	psMode                                      string
	// cluster holds --locality and --endpoints-file.
	cluster clusterConn
}

// Register defines the flags on fs.
func (c *Conn) Register(fs *pflag.FlagSet) {
	fs.StringVar(&c.db, "db", "", "database to use (default: the one the URL names, else the workload's: ycsb, sbtest for sysbench's)")
	fs.IntVar(&c.conns, "conns", 0, "number of connections, spread over the URLs (default: one per worker)")
	fs.StringVar(&c.driver, "driver", sqlx.DriverPostgres, "driver: postgres, or null to run the workload without a server (measures stampede itself)")
	fs.StringVar(&c.pgHost, "pgsql-host", "", "sysbench-style connection: host (instead of a URL)")
	fs.IntVar(&c.pgPort, "pgsql-port", 0, "sysbench-style connection: port")
	fs.StringVar(&c.pgUser, "pgsql-user", "", "sysbench-style connection: user")
	fs.StringVar(&c.pgPassword, "pgsql-password", "", "sysbench-style connection: password")
	fs.StringVar(&c.pgDB, "pgsql-db", "", "sysbench-style connection: database (same as --db)")
	fs.StringVar(&c.pgSSLMode, "pgsql-sslmode", "", "sysbench-style connection: sslmode (disable, allow, prefer, require, verify-ca, verify-full)")
	fs.StringVar(&c.dbDriver, "db-driver", "pgsql", "sysbench's driver option; only pgsql is supported")
	fs.StringVar(&c.psMode, "db-ps-mode", "auto", "sysbench's prepared statements mode: auto (prepare each statement once per connection) or disable (send every statement as text, its parameters written into it)")
	for _, name := range []string{"pgsql-host", "pgsql-port", "pgsql-user", "pgsql-password", "pgsql-db", "pgsql-sslmode", "db-driver", "db-ps-mode"} {
		_ = fs.MarkHidden(name)
	}
	c.cluster.register(fs)
}

// sysbenchDSN builds a key=value connection string from the --pgsql-*
// options, each on its own (what one leaves out, the libpq environment
// variables and defaults give, as for libpq's PQsetdbLogin, which
// sysbench calls), or returns "" when none is given. An empty
// --pgsql-password means no password, as in sysbench.
func (c *Conn) sysbenchDSN() string {
	var kv []string
	add := func(k, v string) {
		if v != "" {
			kv = append(kv, k+"="+dsnQuote(v))
		}
	}
	add("host", c.pgHost)
	if c.pgPort != 0 {
		add("port", strconv.Itoa(c.pgPort))
	}
	add("user", c.pgUser)
	add("password", c.pgPassword)
	add("sslmode", c.pgSSLMode)
	return strings.Join(kv, " ")
}

// dsnQuote quotes a value of a key=value connection string.
func dsnQuote(v string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(v) + "'"
}

// Spec returns the run.Conn of the given URLs and the flags, checking
// sysbench's --pgsql-* and --db-driver options.
func (c *Conn) Spec(urls []string) (run.Conn, error) {
	if c.dbDriver != "" && c.dbDriver != "pgsql" {
		return run.Conn{}, usagef("unsupported --db-driver %q: only pgsql (PostgreSQL and compatible servers) is supported", c.dbDriver)
	}
	dbFlag := "--db" // the flag that named the database, for the messages
	if c.pgDB != "" {
		if c.db != "" && c.db != c.pgDB {
			return run.Conn{}, usagef("--pgsql-db %q and --db %q disagree: give one of them", c.pgDB, c.db)
		}
		if c.db == "" {
			dbFlag = "--pgsql-db"
		}
		c.db = c.pgDB
	}
	if c.db != "" {
		for _, u := range urls {
			if d := urlDatabase(u); d != "" && d != c.db && !serverDefaultDatabase[d] {
				return run.Conn{}, usagef("%s %s and database %q, which %s names, disagree: give one of them", dbFlag, c.db, d, redact.Conn(u))
			}
		}
	}
	switch c.pgSSLMode {
	case "", "disable", "allow", "prefer", "require", "verify-ca", "verify-full":
	default:
		return run.Conn{}, usagef("unknown --pgsql-sslmode %q: use disable, allow, prefer, require, verify-ca or verify-full", c.pgSSLMode)
	}
	if c.pgPort < 0 || c.pgPort > 65535 {
		return run.Conn{}, usagef("--pgsql-port=%d is not a port number", c.pgPort)
	}
	if u := c.sysbenchDSN(); u != "" {
		if len(urls) > 0 {
			return run.Conn{}, usagef("give either connection URLs or --pgsql-host/--pgsql-port/--pgsql-user/--pgsql-password/--pgsql-sslmode, not both")
		}
		urls = []string{u}
	}
	var text bool
	switch c.psMode {
	case "", "auto":
	case "disable":
		text = true
	default:
		return run.Conn{}, usagef("unknown --db-ps-mode %q: use auto (prepared statements) or disable (statements as text)", c.psMode)
	}
	if c.conns < 0 {
		return run.Conn{}, usagef("--conns %d is negative", c.conns)
	}
	switch c.driver {
	case sqlx.DriverPostgres, sqlx.DriverNull:
	default:
		return run.Conn{}, usagef("unknown --driver %q: use postgres or null", c.driver)
	}
	rc := run.Conn{URLs: urls, Database: c.db, Conns: c.conns, Driver: c.driver, TextStatements: text}
	if err := c.cluster.spec(&rc, urls); err != nil {
		return run.Conn{}, err
	}
	return rc, nil
}

// Options builds sqlx options for the given URLs and workload, with conns
// connections unless --conns says otherwise.
func (c *Conn) Options(urls []string, defaultDB string, conns int) (sqlx.Options, error) {
	rc, err := c.Spec(urls)
	if err != nil {
		return sqlx.Options{}, err
	}
	return rc.Options(defaultDB, conns)
}

// typedAnnotation is the annotation under which AcceptDashes keeps the
// spelling a user typed for an underscored flag (table-size).
const typedAnnotation = "stampede-typed"

// AcceptDashes lets every flag of fs spelled with underscores (sysbench's
// script options: --table_size, --point_selects) be given with dashes as
// well, as sysbench 1.0 accepts --table-size for --table_size. Help keeps
// sysbench's spelling; the spelling typed is kept for Respell.
func AcceptDashes(fs *pflag.FlagSet) {
	underscored := map[string]*pflag.Flag{}
	fs.VisitAll(func(f *pflag.Flag) {
		if strings.Contains(f.Name, "_") {
			underscored[f.Name] = f
		}
	})
	if len(underscored) == 0 {
		return
	}
	fs.SetNormalizeFunc(func(_ *pflag.FlagSet, name string) pflag.NormalizedName {
		u := strings.ReplaceAll(name, "-", "_")
		f := underscored[u]
		if f == nil {
			return pflag.NormalizedName(name)
		}
		if name != u {
			if f.Annotations == nil {
				f.Annotations = map[string][]string{}
			}
			f.Annotations[typedAnnotation] = []string{name}
		}
		return pflag.NormalizedName(u)
	})
}

// Respell returns err with every underscored flag of fs that the user
// typed with dashes written as typed (--table-size where the user typed
// it, --table_size where they typed that), so that a refusal names the
// flag as it is on the user's command line. The error keeps err's chain.
func Respell(fs *pflag.FlagSet, err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	fs.VisitAll(func(f *pflag.Flag) {
		if typed := f.Annotations[typedAnnotation]; len(typed) == 1 {
			msg = flagWord(f.Name).ReplaceAllString(msg, "${1}--"+typed[0])
		}
	})
	if msg == err.Error() {
		return err
	}
	return respelled{msg: msg, err: err}
}

// RespellErrors makes cmd's errors name fs's flags as the user typed
// them (see Respell), and returns cmd.
func RespellErrors(cmd *cobra.Command, fs *pflag.FlagSet) *cobra.Command {
	run := cmd.RunE
	cmd.RunE = func(cmd *cobra.Command, args []string) error { return Respell(fs, run(cmd, args)) }
	return cmd
}

// flagWord matches --name as a whole flag (not the start of a longer one).
func flagWord(name string) *regexp.Regexp {
	return regexp.MustCompile(`(^|[^\w-])--` + regexp.QuoteMeta(name) + `\b`)
}

// respelled is an error whose message names flags as the user typed them.
type respelled struct {
	msg string
	err error
}

func (e respelled) Error() string { return e.msg }
func (e respelled) Unwrap() error { return e.err }

// serverDefaultDatabase are the databases a server has from the start,
// which a URL names to reach the server rather than to choose the data:
// --db chooses beside them.
var serverDefaultDatabase = map[string]bool{"postgres": true, "template1": true, "defaultdb": true}

// urlDatabase returns the database a connection string names itself
// (a postgresql:// URL's path, a key=value string's dbname), "" for none
// or when it cannot be parsed (the connection reports that).
func urlDatabase(u string) string {
	u, _, err := sqlx.SplitLocality(u)
	if err != nil {
		return ""
	}
	if strings.Contains(u, "://") {
		pu, err := url.Parse(u)
		if err != nil {
			return ""
		}
		return strings.TrimPrefix(pu.Path, "/")
	}
	if !strings.Contains(u, "dbname") {
		return "" // pgconn would take $PGDATABASE, which is not the URL's
	}
	cfg, err := pgconn.ParseConfig(u)
	if err != nil {
		return ""
	}
	return cfg.Database
}
