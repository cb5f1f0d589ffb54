package cmdline

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/spf13/pflag"
	"github.com/stampede-bench/stampede/run"
	"github.com/stampede-bench/stampede/sqlx"
)

// Conn holds the connection flags: --db, --conns, --driver, and sysbench's
// --pgsql-* and --db-driver options.
type Conn struct {
	db     string
	conns  int
	driver string
	// sysbench's connection options, an alternative to a URL.
	pgHost, pgUser, pgPassword, pgDB string
	pgPort                           int
	dbDriver                         string
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
	fs.StringVar(&c.dbDriver, "db-driver", "pgsql", "sysbench's driver option; only pgsql is supported")
	for _, name := range []string{"pgsql-host", "pgsql-port", "pgsql-user", "pgsql-password", "pgsql-db", "db-driver"} {
		_ = fs.MarkHidden(name)
	}
	c.cluster.register(fs)
}

// sysbenchURL builds a URL from the --pgsql-* options, or returns "" when
// none is given.
func (c *Conn) sysbenchURL() string {
	if c.pgHost == "" && c.pgPort == 0 && c.pgUser == "" && c.pgPassword == "" {
		return ""
	}
	u := &url.URL{Scheme: "postgresql", Host: c.pgHost}
	if c.pgHost == "" {
		u.Host = "localhost"
	}
	if c.pgPort != 0 {
		u.Host += fmt.Sprintf(":%d", c.pgPort)
	}
	if c.pgUser != "" {
		u.User = url.User(c.pgUser)
		if c.pgPassword != "" {
			u.User = url.UserPassword(c.pgUser, c.pgPassword)
		}
	}
	return u.String()
}

// Spec returns the run.Conn of the given URLs and the flags, checking
// sysbench's --pgsql-* and --db-driver options.
func (c *Conn) Spec(urls []string) (run.Conn, error) {
	if c.dbDriver != "" && c.dbDriver != "pgsql" {
		return run.Conn{}, usagef("unsupported --db-driver %q: only pgsql (PostgreSQL and compatible servers) is supported", c.dbDriver)
	}
	if c.pgDB != "" {
		if c.db != "" && c.db != c.pgDB {
			return run.Conn{}, usagef("--pgsql-db %q and --db %q disagree: give one of them", c.pgDB, c.db)
		}
		c.db = c.pgDB
	}
	if u := c.sysbenchURL(); u != "" {
		if len(urls) > 0 {
			return run.Conn{}, usagef("give either connection URLs or --pgsql-host/--pgsql-port/--pgsql-user, not both")
		}
		urls = []string{u}
	}
	if c.conns < 0 {
		return run.Conn{}, usagef("--conns %d is negative", c.conns)
	}
	switch c.driver {
	case sqlx.DriverPostgres, sqlx.DriverNull:
	default:
		return run.Conn{}, usagef("unknown --driver %q: use postgres or null", c.driver)
	}
	rc := run.Conn{URLs: urls, Database: c.db, Conns: c.conns, Driver: c.driver}
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

// AcceptDashes lets every flag of fs spelled with underscores (sysbench's
// script options: --table_size, --point_selects) be given with dashes as
// well, as sysbench 1.0 accepts --table-size for --table_size. Help keeps
// sysbench's spelling.
func AcceptDashes(fs *pflag.FlagSet) {
	underscored := map[string]bool{}
	fs.VisitAll(func(f *pflag.Flag) {
		if strings.Contains(f.Name, "_") {
			underscored[f.Name] = true
		}
	})
	if len(underscored) == 0 {
		return
	}
	fs.SetNormalizeFunc(func(_ *pflag.FlagSet, name string) pflag.NormalizedName {
		if u := strings.ReplaceAll(name, "-", "_"); underscored[u] {
			return pflag.NormalizedName(u)
		}
		return pflag.NormalizedName(name)
	})
}
