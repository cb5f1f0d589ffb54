package workload

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/stampede-bench/stampede/internal/lazyre"
	"github.com/stampede-bench/stampede/sqlx"
)

// ConstraintNamer is a Generator whose loads add constraints with
// statements its Tables' Schema does not hold (ALTER TABLE ... ADD
// CONSTRAINT, ADD PRIMARY KEY: TPC-C's --fks, pgbench's steps p and f):
// every such statement any of its loads may run, whatever its flags say
// now.
type ConstraintNamer interface {
	ConstraintStatements() []string
}

// IsBookkeeping reports whether name is one of stampede's own tables
// beside a load: init's record (LoadRecordTable) and a fleet's marker
// (TenantMarkerTable). Their primary key and the column defaults their
// DDL gives them (bookkeepingDefaults) are stampede's; any other index,
// constraint or default on them is a user's.
func IsBookkeeping(name string) bool {
	return name == LoadRecordTable || name == TenantMarkerTable
}

// userPartsQuery lists the constraints of the relations $1 (as SQL writes
// them) that a drop takes along, their own (not inherited, not a
// partition's clone; not NOT NULL, a column's property), each with its
// table, name, kind (pg_constraint.contype) and definition, and the
// column defaults (not a generated column's expression), each with its
// table, column and expression, and the column's comment (stampede's
// mark on a column fleet exec added).
const userPartsQuery = `SELECT tc.relname::text, 'constraint', k.conname::text, k.contype::text, pg_get_constraintdef(k.oid), ''
	FROM pg_constraint k JOIN pg_class tc ON tc.oid = k.conrelid
	WHERE k.conrelid = ANY(SELECT to_regclass(t) FROM unnest($1::text[]) t)
		AND k.contype IN ('p', 'u', 'c', 'f', 'x') AND k.conislocal AND k.conparentid = 0
UNION ALL
SELECT tc.relname::text, 'default', a.attname::text, '', pg_get_expr(d.adbin, d.adrelid), coalesce(col_description(a.attrelid, a.attnum), '')
	FROM pg_attrdef d JOIN pg_attribute a ON a.attrelid = d.adrelid AND a.attnum = d.adnum JOIN pg_class tc ON tc.oid = d.adrelid
	WHERE d.adrelid = ANY(SELECT to_regclass(t) FROM unnest($1::text[]) t) AND a.attgenerated = '' AND NOT a.attisdropped
ORDER BY 1, 2, 3`

// constraintKinds name pg_constraint's contype in a line.
var constraintKinds = map[string]string{"p": "PRIMARY KEY", "u": "UNIQUE", "c": "CHECK", "f": "FOREIGN KEY", "x": "EXCLUDE"}

// userParts returns, as "KIND constraint NAME on table T" and "default
// of column C on table T", the constraints and column defaults on the
// relations quoted (as SQL writes them) that stampede's DDL did not make
// (ownsConstraint, ownsDefault): a UNIQUE or EXCLUDE constraint of a
// user's (with its index), a CHECK, a foreign key from stampede's table
// to a user's, a DEFAULT set since. A drop of the table takes them
// along. schema, when given, qualifies the table in each line.
func userParts(ctx context.Context, db *sqlx.DB, gen Generator, schema string, quoted []string) ([]string, error) {
	rows, err := db.Query(ctx, userPartsQuery, quoted)
	if err != nil {
		return nil, fmt.Errorf("reading the constraints and defaults of stampede's tables: %w", err)
	}
	defer rows.Close()
	ddl := tableDDLs(gen)
	var out []string
	for rows.Next() {
		var table, kind, name, contype, def, colMark string
		if err := rows.Scan(&table, &kind, &name, &contype, &def, &colMark); err != nil {
			return nil, err
		}
		where := table
		if schema != "" {
			where = schema + "." + table
		}
		switch {
		case kind == "constraint" && !ddl.ownsConstraint(table, name, contype):
			out = append(out, fmt.Sprintf("%s constraint %s on table %s", constraintKinds[contype], name, where))
		// A column stampede marked (fleet exec's) has its default.
		case kind == "default" && userDefault(ddl, table, name, def, colMark):
			out = append(out, fmt.Sprintf("default %s of column %s on table %s", def, name, where))
		}
	}
	return out, rows.Err()
}

// ddlText is what gen's DDL says of its tables, lower-cased: each
// table's Schema and the ALTER TABLE statements its loads run on it, by
// table name; and every statement, for the names of constraints.
type ddlText struct {
	tables map[string]string
	all    string
	// profiles says gen names its tables by a flag its marks do not
	// name (TableNamer: TPC-C's --profile), so a table of its load may
	// have another profile's DDL than gen's flags give now.
	profiles bool
}

// alterTable finds the table an ALTER TABLE statement alters.
var alterTable = lazyre.New(`(?is)^\s*alter\s+table\s+(?:if\s+exists\s+)?(?:only\s+)?((?:"(?:[^"]|"")+"|[^\s"(]+)(?:\s*\.\s*(?:"(?:[^"]|"")+"|[^\s"(]+))?)`)

// tableDDLs gathers gen's DDL (nil gen: none).
func tableDDLs(gen Generator) ddlText {
	d := ddlText{tables: map[string]string{}}
	if gen == nil {
		return d
	}
	_, d.profiles = gen.(TableNamer)
	var stmts []string
	for _, t := range gen.Tables() {
		d.tables[t.Name] += strings.ToLower(t.Schema) + "\n"
		d.all += strings.ToLower(t.Schema) + "\n"
		stmts = append(stmts, t.Indexes...)
	}
	if n, ok := gen.(IndexNamer); ok {
		stmts = append(stmts, n.IndexStatements()...)
	}
	if n, ok := gen.(ConstraintNamer); ok {
		stmts = append(stmts, n.ConstraintStatements()...)
	}
	for _, s := range stmts {
		m := alterTable().FindStringSubmatch(s)
		if m == nil {
			continue // CREATE INDEX: no constraint
		}
		name := m[1]
		if j := strings.LastIndex(name, "."); j >= 0 && strings.Count(name[j:], `"`)%2 == 0 {
			name = strings.TrimSpace(name[j+1:]) // schema-qualified
		}
		if strings.HasPrefix(name, `"`) {
			name = strings.ReplaceAll(name[1:len(name)-1], `""`, `"`)
		} else {
			name = strings.ToLower(name)
		}
		d.tables[name] += strings.ToLower(s) + "\n"
		d.all += strings.ToLower(s) + "\n"
	}
	return d
}

// of returns the DDL of table, or of the table of gen's whose name
// differs from it only in its number (sysbench's sbtest3 of a load of
// more tables than gen's flags say); ok is false when gen's DDL does not
// make it.
func (d ddlText) of(table string) (string, bool) {
	if s, ok := d.tables[table]; ok {
		return s, true
	}
	stem := strings.TrimRight(table, "0123456789")
	if stem == table {
		return "", false
	}
	for name, s := range d.tables {
		if stem != name && strings.TrimRight(name, "0123456789") == stem {
			return s, true
		}
	}
	return "", false
}

// names reports whether the DDL text names constraint name ("CONSTRAINT
// name").
func names(text, name string) bool {
	n := regexp.QuoteMeta(strings.ToLower(name))
	re := regexp.MustCompile(`\bconstraint\s+(?:"` + n + `"|` + n + `)[\s(]`)
	return re.MatchString(text)
}

// ownsConstraint reports whether constraint name of kind contype on
// table is one gen's DDL makes: named in it (CONSTRAINT name), or of a
// kind the table's DDL makes under the name PostgreSQL gives it
// (bank_pkey; TABLE_..._key, _check, _fkey, _excl). On a table whose DDL
// gen does not hold (stampede's record and marker, a run's table) only
// a primary key is stampede's.
func (d ddlText) ownsConstraint(table, name, contype string) bool {
	if names(d.all, name) {
		return true
	}
	text, ok := d.of(table)
	if !ok || IsBookkeeping(table) {
		return contype == "p"
	}
	prefixed := strings.HasPrefix(name, table+"_")
	switch contype {
	case "p":
		// Under another profile's DDL (a load of TPC-C's other
		// --profile), a primary key of PostgreSQL's default name.
		return strings.Contains(text, "primary key") || d.profiles && name == table+"_pkey"
	case "u":
		return prefixed && strings.HasSuffix(name, "_key") && strings.Contains(text, "unique")
	case "c":
		return prefixed && strings.HasSuffix(name, "_check") && strings.Contains(text, "check")
	case "f":
		return prefixed && strings.HasSuffix(name, "_fkey") && strings.Contains(text, "references")
	case "x":
		return prefixed && strings.HasSuffix(name, "_excl") && strings.Contains(text, "exclude")
	}
	return false
}

// ownsDefault reports whether the default of column on table is one gen's
// DDL gives it: its column's definition says DEFAULT or SERIAL, or an
// ALTER TABLE of gen's sets it. Defaults on a table whose DDL gen does
// not hold (a run's table) are stampede's; those on stampede's record
// and marker userDefault judges by their own DDL.
func (d ddlText) ownsDefault(table, column string) bool {
	text, ok := d.of(table)
	if !ok || IsBookkeeping(table) {
		return true
	}
	for _, it := range schemaItems(text) {
		if it[0] == column {
			return strings.Contains(it[1], "default") || strings.Contains(it[1], "serial")
		}
	}
	return strings.Contains(text, "set default")
}

// BookkeepingTables returns the names of stampede's own tables
// (IsBookkeeping) among objs (a census: Objects) in schema ("*" for
// any), each once: those a census takes for stampede's by name, whose
// indexes and constraints of a user's it must still name (UserIndexes).
func BookkeepingTables(objs []Object, schema string) []string {
	var out []string
	for _, o := range objs {
		if o.IsTable() && IsBookkeeping(o.Name) && (schema == "*" || o.Schema == schema) && !slices.Contains(out, o.Name) {
			out = append(out, o.Name)
		}
	}
	return out
}

// RecordGoes reports whether ForgetLoad of gen drops init's record table
// (LoadRecordTable) with gen's record: it exists and records no other
// load. Its census then runs with the load's tables' (a user's index,
// constraint, trigger or view on it), before anything is dropped. A
// user's table of its name is refused (ForeignRecordError).
func RecordGoes(ctx context.Context, db *sqlx.DB, gen Generator) (bool, error) {
	if db.Null() {
		return false, nil
	}
	exists, err := recordExists(ctx, db)
	if err != nil || !exists {
		return false, err
	}
	d := db.Dialect()
	var others bool
	if err := db.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM "+d.QuoteIdent(LoadRecordTable)+" WHERE data <> "+d.Placeholder(1)+")", DataKeyOf(gen)).Scan(&others); err != nil {
		return false, fmt.Errorf("reading %s: %w", LoadRecordTable, err)
	}
	return !others, nil
}

// ForgetLoadCascade is ForgetLoad for --force-drop: where the record
// table goes (RecordGoes), it goes with CASCADE, taking what a user made
// on it that the refusal without --force-drop named (a view on it).
func ForgetLoadCascade(ctx context.Context, db *sqlx.DB, gen Generator) error {
	goes, err := RecordGoes(ctx, db, gen)
	if err != nil {
		return err
	}
	if !goes {
		return ForgetLoad(ctx, db, gen)
	}
	_, err = db.Exec(ctx, db.Dialect().DropTable(LoadRecordTable)+" CASCADE")
	return err
}
