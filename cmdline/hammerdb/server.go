package hammerdb

import (
	"context"
	"fmt"
	"github.com/stampede-bench/stampede/dialect"
	"net"
	"slices"
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

// BuildChecker is a Server that checks, before buildschema creates
// anything (the user, the database), what its load would refuse or fail
// over: PGServer is one.
type BuildChecker interface {
	// CheckBuild returns an error saying what to do when pg_dbase exists
	// and holds tables of TPC-C's names that stampede did not make
	// (unless force: --force-drop), or, with force, tables that pg_user
	// cannot drop (another role owns them).
	CheckBuild(ctx context.Context, c Conn, force bool) error
}

var _ BuildChecker = PGServer{}

// tpccTables are the tables stampede's TPC-C load creates.
var tpccTables = []string{"warehouse", "district", "customer", "history", "new_order", "orders", "order_line", "item", "stock"}

// CheckBuild implements BuildChecker.
func (PGServer) CheckBuild(ctx context.Context, c Conn, force bool) error {
	su, err := connect(ctx, c, c.Superuser, c.SuperPass, c.DefaultDB)
	if err != nil {
		return err
	}
	var n int
	err = su.QueryRow(ctx, "SELECT count(*) FROM pg_database WHERE datname = $1", c.DB).Scan(&n)
	su.Close(context.Background())
	if err != nil || n == 0 {
		return err
	}
	db, err := connect(ctx, c, c.Superuser, c.SuperPass, c.DB)
	if err != nil {
		return err
	}
	defer db.Close(context.Background())
	rows, err := db.Query(ctx, `SELECT c.relname, pg_get_userbyid(c.relowner),
			coalesce(`+dialect.OwnComment(dialect.Postgres{}, "c.oid", "pg_class")+`, '') LIKE 'made by stampede %',
			EXISTS (SELECT 1 FROM pg_roles r WHERE r.rolname = $2 AND (r.rolsuper OR pg_has_role(r.oid, c.relowner, 'USAGE')))
		FROM pg_class c WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind IN ('r', 'p') AND c.relname = ANY($1)
		ORDER BY array_position($1, c.relname::text)`, tpccTables, c.User)
	if err != nil {
		return fmt.Errorf("looking for TPC-C's tables in database %s: %w", c.DB, err)
	}
	var foreign, alien, owners []string
	for rows.Next() {
		var name, owner string
		var marked, canDrop bool
		if err := rows.Scan(&name, &owner, &marked, &canDrop); err != nil {
			rows.Close()
			return err
		}
		if !marked {
			foreign = append(foreign, name)
			if !canDrop {
				alien = append(alien, name)
				if !slices.Contains(owners, owner) {
					owners = append(owners, owner)
				}
			}
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	tables := func(names []string) string {
		if len(names) == 1 {
			return "table " + names[0]
		}
		return "tables " + strings.Join(names, ", ")
	}
	// What pg_user cannot drop, --force-drop cannot either: said in the
	// first refusal too, so that the flag it names is not refused next.
	owned, asOwner := "", ""
	if len(alien) > 0 {
		s, it, its := "s", "it", "its"
		if len(alien) > 1 {
			s, it, its = "", "them", "their"
		}
		owned = fmt.Sprintf("%s in database %s belong%s to role %s, and pg_user %s, which buildschema builds as, cannot drop %s: connect as their owner or a superuser (diset tpcc pg_user %s, or drop them as pg_superuser %s first)",
			tables(alien), c.DB, s, strings.Join(owners, ", "), c.User, it, owners[0], c.Superuser)
		asOwner = fmt.Sprintf(", building as %s owner or a superuser (%s belong%s to role %s, which pg_user %s cannot drop: diset tpcc pg_user %s, or drop %s as pg_superuser %s first)",
			its, tables(alien), s, strings.Join(owners, ", "), c.User, owners[0], it, c.Superuser)
	}
	switch {
	case len(foreign) > 0 && !force:
		it, were := "it", "was"
		if len(foreign) > 1 {
			it, were = "them", "were"
		}
		drop := "or to drop " + it + " anyway, add --force-drop" + asOwner
		return inputf("%s in database %s on %s:%s %s not made by stampede (no mark of stampede's init on %s; nothing was created): load into another database (diset tpcc pg_dbase NAME in the script), %s",
			tables(foreign), c.DB, c.Host, c.Port, were, it, drop)
	case owned != "":
		return inputf("--force-drop: %s; nothing was created", owned)
	}
	return nil
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
