package workload

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/stampede-bench/stampede/dialect"
	"github.com/stampede-bench/stampede/internal/lazyre"
	"github.com/stampede-bench/stampede/sqlx"
)

// Object is one object of a database that a user can make, as
// dialect.UserObjectsQuery lists them.
type Object struct {
	// Kind is "table", "partitioned table", "partition", "sequence",
	// "view", "function", "schema", "extension", "large object"...
	Kind string
	// Schema is the schema holding it ("" for schemas, extensions,
	// publications and large objects); Name its name (for large objects,
	// how many there are).
	Schema, Name string
	// Marked is true when it carries stampede's mark (IsMark).
	Marked bool
	// Comment is its comment ("" without one).
	Comment string
}

// IsTable reports whether o is a table of rows (plain, partitioned or a
// partition).
func (o Object) IsTable() bool {
	return o.Kind == "table" || o.Kind == "partitioned table" || o.Kind == "partition"
}

// String is "KIND SCHEMA.NAME", or "N large objects".
func (o Object) String() string {
	switch {
	case o.Kind == "large object" && o.Name == "1":
		return "1 large object"
	case o.Kind == "large object":
		return o.Name + " large objects"
	case o.Schema == "":
		return o.Kind + " " + o.Name
	}
	return o.Kind + " " + o.Schema + "." + o.Name
}

// Objects returns the objects of db that a user can make (see
// dialect.UserObjectsQuery), marked or not.
func Objects(ctx context.Context, db *sqlx.DB) ([]Object, error) {
	if db.Null() {
		return nil, nil
	}
	rows, err := db.Query(ctx, dialect.UserObjectsQuery(db.Dialect()))
	if err != nil {
		return nil, fmt.Errorf("listing the objects of database %q: %w", db.Database(), err)
	}
	defer rows.Close()
	var out []Object
	for rows.Next() {
		var kind, name string
		var comment *string
		if err := rows.Scan(&kind, &name, &comment); err != nil {
			return nil, err
		}
		o := Object{Kind: kind, Name: name, Marked: comment != nil && IsMark(*comment)}
		if comment != nil {
			o.Comment = *comment
		}
		if schema, bare, ok := strings.Cut(name, "."); ok && kind != "large object" {
			o.Schema, o.Name = schema, bare
		}
		out = append(out, o)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return out, unvouchLegacy(ctx, db, out)
}

// unvouchLegacy takes the mark off those of objs that carry a mark of the
// older form, without an OID, that init's record in their own schema does
// not vouch for (legacyVouches): an old mark counts only for the data or
// workload the record names, never for a user's object that carries a
// copy of one. (dialect.OwnComment already gave NULL to those with no
// record in their schema, and to schemas holding none.)
func unvouchLegacy(ctx context.Context, db *sqlx.DB, objs []Object) error {
	if db.Dialect().Name() == "cockroach" || !slices.ContainsFunc(objs, func(o Object) bool { return o.Marked && o.Schema != "" }) {
		return nil
	}
	rows, err := db.Query(ctx, dialect.LegacyMarksQuery(db.Dialect()))
	if err != nil {
		return fmt.Errorf("listing the older marks of database %q: %w", db.Database(), err)
	}
	legacy := map[[3]string]bool{}
	for rows.Next() {
		var k [3]string
		if err := rows.Scan(&k[0], &k[1], &k[2]); err != nil {
			rows.Close()
			return err
		}
		legacy[k] = true
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	vouches := map[[2]string]bool{}
	for i, o := range objs {
		if !o.Marked || !legacy[[3]string{o.Schema, o.Name, o.Comment}] {
			continue
		}
		k := [2]string{o.Schema, o.Comment}
		ok, seen := vouches[k]
		if !seen {
			if ok, err = legacyVouches(ctx, db, o.Schema, o.Comment); err != nil {
				return err
			}
			vouches[k] = ok
		}
		objs[i].Marked = ok
	}
	return nil
}

// extraTablePattern matches the names of a fleet's extra tables
// (--extra-tables: extra_001...), which carry no mark.
var extraTablePattern = lazyre.New(`^extra_[0-9]{3,}$`)

// IsExtraTable reports whether name is one of a fleet's extra tables
// (--extra-tables: extra_001...), which carry no mark.
func IsExtraTable(name string) bool { return extraTablePattern().MatchString(name) }

// TenantForeign returns, of objs (a tenant database's objects, or a
// database's holding tenant schemas), those in schema (every schema but
// the tenants' when schema is "*") that stampede did not make for a
// tenant: neither marked, nor a table named in own (the workload's tables,
// the fleet's marker, init's record, the tables a schema tenant's clone
// copied without their mark), nor an extra table of the fleet.
func TenantForeign(objs []Object, schema string, own map[string]bool) []string {
	var out []string
	for _, o := range objs {
		if schema != "*" && o.Schema != schema || o.Marked {
			continue
		}
		if o.IsTable() && (own[o.Name] || extraTablePattern().MatchString(o.Name)) {
			continue
		}
		out = append(out, o.String())
	}
	return out
}

// HoldsForeignError refuses to drop a database or schema that stampede
// made (a demo's, a fleet's tenant) but that now holds objects stampede
// did not make: a user's, added since.
type HoldsForeignError struct {
	// Kind is "database" or "schema"; Names those that hold them (the
	// first named in full), Where where they are ("on 127.0.0.1:5432",
	// or "in database \"d\" on 127.0.0.1:5432" for schemas).
	Kind  string
	Names []string
	Where string
	// Objects are the objects that stampede did not make that they hold,
	// each "KIND NAME".
	Objects []string
	// Action is what would have dropped it ("cleanup", "--drop", "the
	// demo").
	Action string
}

func (e *HoldsForeignError) Error() string {
	n := "1 object"
	if len(e.Objects) != 1 {
		n = strconv.Itoa(len(e.Objects)) + " objects"
	}
	objs := e.Objects
	more := ""
	if len(objs) > 5 {
		objs, more = objs[:5], fmt.Sprintf(" and %d more", len(e.Objects)-5)
	}
	what := fmt.Sprintf("%s %q", e.Kind, e.Names[0])
	if others := e.Names[1:]; len(others) > 0 {
		list := strings.Join(quoted(others), ", ")
		if len(others) > 5 {
			list = strings.Join(quoted(others[:5]), ", ") + ", ..."
		}
		kinds := e.Kind
		if len(others) > 1 {
			kinds += "s"
		}
		what = fmt.Sprintf("%s %q (and %d more %s: %s)", e.Kind, e.Names[0], len(others), kinds, list)
	}
	// A table of stampede's load that the user renamed (RenamedTables)
	// is stampede's make, but the user's now.
	whose := "that stampede did not make"
	if slices.ContainsFunc(e.Objects, func(o string) bool { return strings.HasSuffix(o, renamedEnd) }) {
		whose = "that " + map[bool]string{true: "is", false: "are"}[len(e.Objects) == 1] + " not stampede's to drop"
	}
	kinds, it := e.Kind, "it"
	if len(e.Names) > 1 {
		kinds, it = e.Kind+"s", "them"
	}
	return fmt.Sprintf("%s %s holds %s %s (%s%s): %s leaves the %s alone; to drop %s anyway, add %s",
		what, e.Where, n, whose, strings.Join(objs, ", "), more, e.Action, kinds, it, ForceDropFlag)
}

// quoted quotes each name.
func quoted(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = strconv.Quote(n)
	}
	return out
}

// Is makes errors.Is(err, ErrForeign) true.
func (e *HoldsForeignError) Is(target error) bool { return target == ErrForeign }
