package workload

import (
	"context"
	"fmt"
	"strings"

	"github.com/stampede-bench/stampede/internal/lazyre"
	"github.com/stampede-bench/stampede/sqlx"
)

// indexNameRE finds the name in a CREATE INDEX statement, and the table
// it is on (perhaps schema-qualified).
var indexNameRE = lazyre.New(`(?i)^\s*CREATE\s+(?:UNIQUE\s+)?INDEX\s+(?:CONCURRENTLY\s+)?(?:IF\s+NOT\s+EXISTS\s+)?("(?:[^"]|"")+"|[^\s(]+)\s+ON\b(?:\s+ONLY)?\s*((?:"(?:[^"]|"")+"|[^\s(."]+)(?:\.(?:"(?:[^"]|"")+"|[^\s(."]+))?)?`)

// IndexOwner is a Generator that tells its own indexes by the table they
// are on (sysbench's k_N and xid_N on sbtestN, whatever --tables it was
// given now): OwnsIndex reports whether its loads name index so on table.
type IndexOwner interface {
	OwnsIndex(table, index string) bool
}

// IndexNamer is a Generator whose loads may create indexes that its
// Tables do not name as configured (another profile's: TPC-C's HammerDB
// schema): every CREATE INDEX statement any of its loads runs.
type IndexNamer interface {
	IndexStatements() []string
}

// OwnIndexNames returns the names of the indexes gen's DDL creates on its
// tables (Table.Indexes, and IndexNamer's), unquoted.
func OwnIndexNames(gen Generator) []string {
	names, _ := ownIndexes(gen)
	return names
}

// ownIndexes returns the names of the indexes gen's DDL creates, unquoted,
// and beside each the table it is on, unquoted and unqualified ("" where
// the statement does not say plainly).
func ownIndexes(gen Generator) (names, tables []string) {
	var stmts []string
	for _, t := range gen.Tables() {
		stmts = append(stmts, t.Indexes...)
	}
	if n, ok := gen.(IndexNamer); ok {
		stmts = append(stmts, n.IndexStatements()...)
	}
	for _, stmt := range stmts {
		m := indexNameRE().FindStringSubmatch(stmt)
		if m == nil {
			continue
		}
		table := m[2]
		if i := strings.LastIndex(table, "."); i >= 0 && !strings.HasSuffix(table, `"`) {
			table = table[i+1:]
		} else if i := strings.LastIndex(table, `".`); i >= 0 {
			table = table[i+2:]
		}
		names, tables = append(names, unquoteIdent(m[1])), append(tables, unquoteIdent(table))
	}
	return names, tables
}

// unquoteIdent returns a name as SQL wrote it, unquoted: "A""b" is A"b; a
// name without quotes folds to lower case, as PostgreSQL folds it.
func unquoteIdent(n string) string {
	if strings.HasPrefix(n, `"`) && len(n) >= 2 {
		return strings.ReplaceAll(n[1:len(n)-1], `""`, `"`)
	}
	return strings.ToLower(n)
}

// UserIndexes returns, as "index SCHEMA.NAME on table T", the indexes on
// tables (gen's, by name, as the search path finds them) that stampede
// did not make: not backing a constraint, not named as gen's DDL names
// its indexes (OwnIndexNames, IndexOwner), without stampede's mark; and
// after them the constraints and column defaults on them that gen's DDL
// does not make (userParts: "UNIQUE constraint my_uq on table bank", with
// its index; "default 7 of column balance on table bank"). A drop of the
// table takes them along without a word. stampede's own tables
// (IsBookkeeping) may be among tables: there only their primary key and
// defaults are stampede's. It is nil on other databases than PostgreSQL.
func UserIndexes(ctx context.Context, db *sqlx.DB, gen Generator, tables []string) ([]string, error) {
	return UserIndexesIn(ctx, db, gen, "", tables)
}

// UserIndexesIn is UserIndexes of tables in schema (a fleet's tenant
// schema), or on the search path when schema is "". In a tenant schema,
// an index of the same definition as one gen names on the table of the
// same name in another schema is stampede's too: a schema clone's
// (CREATE TABLE ... LIKE ... INCLUDING ALL names its indexes anew).
func UserIndexesIn(ctx context.Context, db *sqlx.DB, gen Generator, schema string, tables []string) ([]string, error) {
	if db.Null() || db.Dialect().Name() != "postgres" || len(tables) == 0 {
		return nil, nil
	}
	quoted := make([]string, len(tables))
	for i, t := range tables {
		quoted[i] = db.Dialect().QuoteIdent(t)
		if schema != "" {
			quoted[i] = db.Dialect().QuoteIdent(schema) + "." + quoted[i]
		}
	}
	own, on := ownIndexes(gen)
	if own == nil {
		own, on = []string{}, []string{}
	}
	rows, err := db.Query(ctx, `SELECT 'index ' || quote_ident(n.nspname) || '.' || quote_ident(ic.relname) || ' on table ' || tc.relname, tc.relname::text, ic.relname::text
		FROM pg_index x JOIN pg_class ic ON ic.oid = x.indexrelid JOIN pg_class tc ON tc.oid = x.indrelid JOIN pg_namespace n ON n.oid = ic.relnamespace
		WHERE x.indrelid = ANY(SELECT to_regclass(t) FROM unnest($1::text[]) t)
			AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = x.indexrelid AND k.conrelid = x.indrelid)
			AND NOT EXISTS (SELECT 1 FROM unnest($2::text[], $4::text[]) o(i, t) WHERE o.i = ic.relname AND (o.t = '' OR o.t = tc.relname))
			AND NOT `+indexMarked("ic")+`
			AND NOT ($3 AND EXISTS (SELECT 1 FROM pg_index x2 JOIN pg_class ic2 ON ic2.oid = x2.indexrelid JOIN pg_class tc2 ON tc2.oid = x2.indrelid
				WHERE tc2.relname = tc.relname AND tc2.relnamespace <> tc.relnamespace AND x2.indisunique = x.indisunique
					AND ic2.relname = ANY($2::text[]) AND `+indexBody("x2")+` = `+indexBody("x")+`))
		ORDER BY 1`, quoted, own, schema != "", on)
	if err != nil {
		return nil, fmt.Errorf("reading the indexes of %s: %w", strings.Join(tables, ", "), err)
	}
	defer rows.Close()
	owner, _ := gen.(IndexOwner)
	var out []string
	for rows.Next() {
		var s, table, index string
		if err := rows.Scan(&s, &table, &index); err != nil {
			return nil, err
		}
		if owner != nil && owner.OwnsIndex(table, index) {
			continue
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rows.Close()
	parts, err := userParts(ctx, db, gen, schema, quoted)
	if err != nil {
		return nil, err
	}
	return append(out, parts...), nil
}

// indexBody is an SQL expression: the definition of the index of
// pg_index row x, without its name and table (pg_get_indexdef from its
// USING).
func indexBody(x string) string {
	return "substr(pg_get_indexdef(" + x + ".indexrelid), strpos(pg_get_indexdef(" + x + ".indexrelid), ' USING '))"
}

// UserIndexesError refuses to drop stampede's tables that carry indexes a
// user made (UserIndexes), which the drop takes along. It matches
// ErrForeign and exits as bad input.
type UserIndexesError struct {
	// Indexes are UserIndexes' list, Where the database, Action what
	// would have dropped them.
	Indexes []string
	Where   string
	Action  string
}

func (e *UserIndexesError) Error() string {
	them := "them"
	if len(e.Indexes) == 1 {
		them = "it"
	}
	return fmt.Sprintf("%s in %s, which stampede did not make, would go with the table: %s drops nothing; to drop %s too, add %s",
		strings.Join(e.Indexes, ", "), e.Where, e.Action, them, ForceDropFlag)
}

// Is makes errors.Is(err, ErrForeign) true.
func (e *UserIndexesError) Is(target error) bool { return target == ErrForeign }

// ExitCode is 2: bad input.
func (e *UserIndexesError) ExitCode() int { return 2 }
