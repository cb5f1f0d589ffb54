package hammerdb

import (
	"context"
	"fmt"
	"net"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/stampede-bench/stampede/sqlx"
)

// Server is what HammerDB does on the server beside stampede's init and
// run: the user and database of buildschema, the warehouses vurun reads,
// and pg_vacuum's CHECKPOINT and VACUUM.
type Server interface {
	// Prepare creates pg_user and pg_dbase as HammerDB's buildschema does
	// (as pg_superuser on pg_defaultdbase) and returns the lines it
	// prints.
	Prepare(ctx context.Context, c Conn) ([]string, error)
	// Warehouses returns the warehouses pg_dbase holds (max(w_id), as
	// HammerDB's driver reads them).
	Warehouses(ctx context.Context, c Conn) (int, error)
	// Vacuum runs CHECKPOINT (as pg_superuser) and VACUUM (as pg_user),
	// as pg_vacuum does at a run's end.
	Vacuum(ctx context.Context, c Conn) error
}

// PGServer is the Server of the PostgreSQL server a script names.
type PGServer struct{}

var _ Server = PGServer{}

func connect(ctx context.Context, c Conn, user, password, db string) (*pgx.Conn, error) {
	cfg, err := pgx.ParseConfig(c.URL(user, password, db))
	if err != nil {
		return nil, fmt.Errorf("the script's connection settings: %w", err)
	}
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, connectFailure(c, user, db, err)
	}
	return conn, nil
}

// connectFailure says in one line, as stampede run does, why the
// connection as user to database db failed and what to check: the
// server's own message or the innermost network error, not the driver's
// lines of every attempt.
func connectFailure(c Conn, user, db string, err error) error {
	endpoint := net.JoinHostPort(c.Host, c.Port)
	var why string
	switch {
	case sqlx.IsMissingDatabase(err) && user == c.Superuser && db == c.DefaultDB && db != c.DB:
		why = fmt.Sprintf("database %q does not exist: set pg_defaultdbase (diset tpcc) to a database that exists", db)
	case sqlx.IsMissingDatabase(err):
		why = fmt.Sprintf("database %q does not exist: run buildschema first, or set pg_dbase (diset tpcc) to one that exists", db)
	default:
		why = sqlx.DescribeConnectFailure(endpoint, err)
		if st := sqlx.SQLState(err); st == "28000" || st == "28P01" {
			why += " (the script's diset tpcc pg_superuser and pg_superuserpass, or pg_user and pg_pass)"
		}
	}
	return fmt.Errorf("cannot connect to %s (database %q, user %q): %s", endpoint, db, user, strings.Join(strings.Fields(why), " "))
}

// Prepare implements Server. Unlike HammerDB's, it never changes an
// existing user's password, nor the owner of an existing database: what
// stampede did not create it leaves as it is (stampede init then loads
// the existing database or refuses it).
func (PGServer) Prepare(ctx context.Context, c Conn) ([]string, error) {
	db, err := connect(ctx, c, c.Superuser, c.SuperPass, c.DefaultDB)
	if err != nil {
		return nil, err
	}
	defer db.Close(context.Background())
	lines := []string{fmt.Sprintf("CREATING DATABASE %s under OWNER %s", c.DB, c.User)}
	var n int
	if err := db.QueryRow(ctx, "SELECT count(*) FROM pg_roles WHERE rolname = $1", c.User).Scan(&n); err != nil {
		return lines, fmt.Errorf("looking for user %s: %w", c.User, err)
	}
	user := pgx.Identifier{c.User}.Sanitize()
	if n == 0 {
		// CREATE USER takes no parameters: the password as a quoted literal.
		if _, err := db.Exec(ctx, "CREATE USER "+user+" PASSWORD "+quote(c.Pass)); err != nil {
			return lines, fmt.Errorf("creating user %s: %w", c.User, err)
		}
		if _, err := db.Exec(ctx, "GRANT "+user+" TO "+pgx.Identifier{c.Superuser}.Sanitize()); err != nil {
			return lines, fmt.Errorf("granting %s to %s: %w", c.User, c.Superuser, err)
		}
	} else {
		lines = append(lines, fmt.Sprintf("Using existing User %s for Schema build", c.User))
	}
	if err := db.QueryRow(ctx, "SELECT count(*) FROM pg_database WHERE datname = $1", c.DB).Scan(&n); err != nil {
		return lines, fmt.Errorf("looking for database %s: %w", c.DB, err)
	}
	if n == 0 {
		if _, err := db.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{c.DB}.Sanitize()+" OWNER "+user); err != nil {
			return lines, fmt.Errorf("creating database %s: %w", c.DB, err)
		}
	} else {
		lines = append(lines, fmt.Sprintf("Using existing Database %s for Schema build", c.DB))
	}
	return lines, nil
}

// quote is a SQL string literal.
func quote(s string) string {
	out := []byte{'\''}
	for i := 0; i < len(s); i++ {
		if s[i] == '\'' {
			out = append(out, '\'')
		}
		out = append(out, s[i])
	}
	return string(append(out, '\''))
}

// Warehouses implements Server.
func (PGServer) Warehouses(ctx context.Context, c Conn) (int, error) {
	db, err := connect(ctx, c, c.User, c.Pass, c.DB)
	if err != nil {
		return 0, err
	}
	defer db.Close(context.Background())
	var n *int
	if err := db.QueryRow(ctx, "SELECT max(w_id) FROM warehouse").Scan(&n); err != nil {
		return 0, fmt.Errorf("reading the warehouses of database %s (select max(w_id) from warehouse, as HammerDB's driver does): %w; build the schema first (buildschema)", c.DB, err)
	}
	if n == nil || *n < 1 {
		return 0, fmt.Errorf("database %s holds no warehouse: build the schema first (buildschema)", c.DB)
	}
	return *n, nil
}

// Vacuum implements Server.
func (PGServer) Vacuum(ctx context.Context, c Conn) error {
	su, err := connect(ctx, c, c.Superuser, c.SuperPass, c.DefaultDB)
	if err != nil {
		return err
	}
	defer su.Close(context.Background())
	if _, err := su.Exec(ctx, "CHECKPOINT"); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	db, err := connect(ctx, c, c.User, c.Pass, c.DB)
	if err != nil {
		return err
	}
	defer db.Close(context.Background())
	if _, err := db.Exec(ctx, "VACUUM"); err != nil {
		return fmt.Errorf("vacuum: %w", err)
	}
	return nil
}
