package workload

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/stampede-bench/stampede/dialect"
	"github.com/stampede-bench/stampede/sqlx"
)

// Mark is how the comment stampede puts on each table, schema and database
// it creates begins. Cleanup and --drop drop only what carries it (or what
// init's record names, for loads of a stampede that marked nothing).
const Mark = "made by stampede"

// ForceDropFlag is the flag that drops what stampede did not make.
const ForceDropFlag = "--force-drop"

// InitMark returns the comment of a table that init of gen creates.
func InitMark(gen Generator) string {
	return Mark + " init of " + gen.Meta().Name + " (data " + DataKeyOf(gen) + ")"
}

// InitTableMark returns the comment of a table that init of gen creates:
// InitMark, then the data flags init was given (DataFlags), so that a
// load interrupted before init recorded it (UnfinishedLoadError) names
// the command that reloads it as it was.
func InitTableMark(gen Generator) string {
	return InitMark(gen) + dataFlagsSep + strings.Join(DataFlags(gen), " ")
}

// HasInitMark reports whether comment is the mark of a table that init
// of gen created: InitMark, alone or followed by the data flags
// (InitTableMark).
func HasInitMark(comment string, gen Generator) bool {
	m := InitMark(gen)
	return comment == m || strings.HasPrefix(comment, m+dataFlagsSep)
}

// dataFlagsSep separates InitMark from the data flags in InitTableMark.
const dataFlagsSep = "; its data flags: "

// DataFlags returns the data settings of gen (a DataSpecer) that its
// command line gave, as given there ("--rows 3000000", "-p
// recordcount=1000"); a setting whose name says password is left out.
func DataFlags(gen Generator) []string {
	ds, ok := gen.(DataSpecer)
	if !ok {
		return nil
	}
	var out []string
	for _, s := range ds.DataSettings() {
		if (s.Given || s.Adopted) && !strings.Contains(strings.ToLower(s.Name), "password") {
			out = append(out, s.arg(s.Value))
		}
	}
	return out
}

// markFlags returns the data flags a table's mark (InitTableMark) names,
// and whether it names them (a mark of an older stampede does not).
func markFlags(comment string) (string, bool) {
	_, flags, ok := strings.Cut(comment, dataFlagsSep)
	return flags, ok
}

// RunMark returns the comment of a table that a run of workload creates
// (sysbench's bulk_insert makes one per thread).
func RunMark(workload string) string {
	return Mark + " run of " + workload
}

// IsMark reports whether comment is stampede's mark.
func IsMark(comment string) bool { return strings.HasPrefix(comment, Mark+" ") }

// MarkOwner is implemented by a Generator whose tables stampede may mark
// otherwise than InitMark and RunMark (pgbench's form marks those of
// `stampede pgbench -i` with its own mark).
type MarkOwner interface {
	// OwnsMark reports whether comment is such a mark of the generator's.
	OwnsMark(comment string) bool
}

// IsMarkOf reports whether comment is the mark of a table that stampede
// made for gen: the mark of an init of gen's data (its data key, which
// sysbench's OLTP scripts share: a table one of them loaded is each of
// theirs), of a run of gen (bulk_insert's sbtestN), or a mark gen owns
// (MarkOwner). The mark of another workload's load is not: cleanup of
// ycsb with -p table=customer leaves TPC-C's customer alone.
func IsMarkOf(comment string, gen Generator) bool {
	if comment == RunMark(gen.Meta().Name) {
		return true
	}
	if mo, ok := gen.(MarkOwner); ok && mo.OwnsMark(comment) {
		return true
	}
	rest, ok := strings.CutPrefix(comment, Mark+" init of ")
	if !ok {
		return false
	}
	_, data, ok := strings.Cut(rest, " (data ")
	key := DataKeyOf(gen) + ")"
	return ok && (data == key || strings.HasPrefix(data, key+dataFlagsSep))
}

// MarkMaker returns the workload that stampede's mark comment names
// (init of NAME, run of NAME), "pgbench" for the pgbench form's mark, or
// "" when comment names none.
func MarkMaker(comment string) string {
	if rest, ok := strings.CutPrefix(comment, Mark+" init of "); ok {
		name, _, _ := strings.Cut(rest, " (")
		return name
	}
	if rest, ok := strings.CutPrefix(comment, Mark+" run of "); ok {
		return rest
	}
	if strings.HasPrefix(comment, Mark+" pgbench -i") {
		return "pgbench"
	}
	return ""
}

// isInitMark reports whether comment is the mark of a table init created.
func isInitMark(comment string) bool { return strings.HasPrefix(comment, Mark+" init of ") }

// DataKeyOf returns the key under which init records gen's data: its
// DataKey when it is a DataSpecer, else its name.
func DataKeyOf(gen Generator) string {
	if ds, ok := gen.(DataSpecer); ok {
		return ds.DataKey()
	}
	return gen.Meta().Name
}

// MarkTable puts mark on table name, bound to the table's OID
// (dialect.MarkOIDSep), read once the table exists: a copy of the comment
// on another table is no mark (TableComment). On PostgreSQL the mark goes
// on the table's row type too (dialect.MarkRowType), so that a user's
// COMMENT ON TABLE does not change who made the table.
func MarkTable(ctx context.Context, db *sqlx.DB, name, mark string) error {
	if db.Null() {
		return nil
	}
	return markTableOn(ctx, db, db.Dialect(), name, mark)
}

// markTableOn is MarkTable through q (a transaction's, when the mark must
// commit with the table).
func markTableOn(ctx context.Context, q sqlx.Querier, d dialect.Dialect, name, mark string) error {
	oq, arg := dialect.TableOIDQuery(d, name)
	var oid *string
	if err := q.QueryRow(ctx, oq, arg).Scan(&oid); err != nil {
		return fmt.Errorf("marking table %s as stampede's: %w", name, err)
	}
	if oid == nil {
		return fmt.Errorf("marking table %s as stampede's: no such table", name)
	}
	stmt := "COMMENT ON TABLE " + d.QuoteIdent(name) + " IS " + dialect.QuoteLiteral(mark+dialect.MarkOIDSep+*oid)
	if _, err := q.Exec(ctx, stmt); err != nil {
		return fmt.Errorf("marking table %s as stampede's: %w", name, err)
	}
	// And on its row type, where a user's COMMENT ON TABLE leaves it.
	if stmt := dialect.MarkRowType(d, d.QuoteIdent(name), mark+dialect.MarkOIDSep+*oid); stmt != "" {
		if _, err := q.Exec(ctx, stmt); err != nil {
			return fmt.Errorf("marking table %s as stampede's: %w", name, err)
		}
	}
	return nil
}

// beforeMark, when set (by tests), runs between CreateMarkedTable's CREATE
// and its mark; an error from it fails the creation.
var beforeMark func(name string) error

// CreateMarkedTable runs create, the statement that creates table name, and
// puts mark on the table (as MarkTable does) in one transaction, so that a
// kill between the two leaves neither: no table of stampede's exists
// without its mark. An empty mark runs create alone.
func CreateMarkedTable(ctx context.Context, db *sqlx.DB, create, name, mark string) (err error) {
	if mark == "" || db.Null() {
		_, err := db.Exec(ctx, create)
		return err
	}
	tx, err := db.Begin(ctx, sqlx.TxOptions{})
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_ = tx.Rollback(context.WithoutCancel(ctx))
		}
	}()
	if _, err = tx.Exec(ctx, create); err != nil {
		return err
	}
	if beforeMark != nil {
		if err = beforeMark(name); err != nil {
			return err
		}
	}
	if err = markTableOn(ctx, tx, db.Dialect(), name, mark); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// TableComment returns table name's comment ("" without one), as stampede
// reads its mark: a mark bound to another table's OID (a copy: pg_dump's
// restore, a user's hand) reads as "", and so does a mark of the older
// form, without an OID, unless init's record of the data it names is in
// db (an older stampede's load, which the record vouches for); a bound
// mark reads without its OID (see dialect.OwnComment).
func TableComment(ctx context.Context, db *sqlx.DB, name string) (string, error) {
	if db.Null() {
		return "", nil
	}
	q, arg := dialect.TableMarkQuery(db.Dialect(), name)
	var c, raw *string
	if err := db.QueryRow(ctx, q, arg).Scan(&c, &raw); err != nil {
		return "", fmt.Errorf("reading the comment of table %s: %w", name, err)
	}
	if c == nil {
		return "", nil
	}
	if IsMark(*c) && raw != nil && *raw == *c {
		return vouched(ctx, db, *c)
	}
	return *c, nil
}

// vouched returns comment, a mark without an OID (an older stampede's), when
// init's record (found through the search path, as the table is) names
// the data or the workload it marks (legacyVouches), and "" otherwise: a
// mark the record does not vouch for is the user's copy.
func vouched(ctx context.Context, db *sqlx.DB, comment string) (string, error) {
	if db.Dialect().Name() == "cockroach" {
		// Its marks written by statements carry no OID: an init's
		// stands where the record of its data is, any other as it is.
		if !isInitMark(comment) {
			return comment, nil
		}
		_, data, _ := strings.Cut(comment, " (data ")
		key, _, _ := strings.Cut(data, ")")
		if found, err := hasRecord(ctx, db, key); err != nil || !found {
			return "", err
		}
		return comment, nil
	}
	ok, err := legacyVouches(ctx, db, "", comment)
	if err != nil || !ok {
		return "", err
	}
	return comment, nil
}

// legacyVouches reports whether init's record in schema of db ("" through
// the search path) vouches for comment, a mark of the older form without
// an OID: a mark of an init names the data its record holds ("init of W
// (data K)": a row of K), any other mark the workload a row names (a
// run's, "run of W"; pgbench's). A mark that names neither (a fleet's) is
// vouched for by nothing, nor is any mark where no record is, or where a
// table of the record's name is not stampede's record.
func legacyVouches(ctx context.Context, db *sqlx.DB, schema, comment string) (bool, error) {
	col, val := "workload", MarkMaker(comment)
	if rest, ok := strings.CutPrefix(comment, Mark+" init of "); ok {
		_, data, ok := strings.Cut(rest, " (data ")
		if !ok {
			return false, nil
		}
		col = "data"
		val, _, _ = strings.Cut(data, ")")
	}
	if val == "" {
		return false, nil
	}
	d := db.Dialect()
	var n int
	err := db.QueryRow(ctx, `SELECT count(DISTINCT column_name) FROM information_schema.columns
		WHERE table_schema = coalesce(nullif($1, ''), (SELECT n.nspname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.oid = to_regclass($2)))
		AND table_name = $3 AND column_name = ANY($4)`,
		schema, d.QuoteIdent(LoadRecordTable), LoadRecordTable, recordColumns).Scan(&n)
	if err != nil {
		return false, fmt.Errorf("reading the columns of %s: %w", LoadRecordTable, err)
	}
	if n != len(recordColumns) {
		return false, nil
	}
	t := d.QuoteIdent(LoadRecordTable)
	if schema != "" {
		t = d.QuoteIdent(schema) + "." + t
	}
	var found bool
	if err := db.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM "+t+" WHERE "+col+" = "+d.Placeholder(1)+")", val).Scan(&found); err != nil {
		return false, fmt.Errorf("reading what init loaded (%s): %w", LoadRecordTable, err)
	}
	return found, nil
}

// ForeignTables returns those of names, tables that exist in db, that
// stampede did not make for gen: those without stampede's mark of gen
// (IsMarkOf: another workload's load is not gen's to drop; a table
// a user made, even in place of one of stampede's after its load), unless
// init's record of gen's data is in db and says its load marked nothing
// (an older stampede's, whose tables the record vouches for); and those
// the record says the load adopted (a user's own table that init loaded
// into, as YCSB's JDBC binding has users create usertable: see
// RecordLoad).
func ForeignTables(ctx context.Context, db *sqlx.DB, gen Generator, names []string) ([]string, error) {
	if db.Null() || len(names) == 0 {
		return nil, nil
	}
	recorded, err := hasRecord(ctx, db, DataKeyOf(gen))
	if err != nil {
		return nil, err
	}
	if recorded {
		adopted, err := readAdopted(ctx, db, db, DataKeyOf(gen))
		if err != nil {
			return nil, err
		}
		marked, err := readMarked(ctx, db, DataKeyOf(gen))
		if err != nil {
			return nil, err
		}
		if !marked {
			// An older stampede's load, which marked nothing: the
			// record says the tables are its own, but those it adopted.
			return slices.DeleteFunc(slices.Clone(names), func(n string) bool { return !slices.Contains(adopted, n) }), nil
		}
		// This stampede's load marked every table it created: one
		// without the mark was made by someone else since (in place of
		// one of stampede's), or adopted; and one in another schema than
		// the record (init's tables are where its record is) was moved
		// there by the user to keep it (ALTER TABLE bank SET SCHEMA keep,
		// found first on the search path), as a renamed one is kept.
		var foreign []string
		for _, n := range names {
			c, err := TableComment(ctx, db, n)
			if err != nil {
				return nil, err
			}
			moved, err := movedFromRecord(ctx, db, n)
			if err != nil {
				return nil, err
			}
			if moved || slices.Contains(adopted, n) || !IsMarkOf(c, gen) {
				foreign = append(foreign, n)
			}
		}
		return foreign, nil
	}
	var foreign []string
	for _, n := range names {
		c, err := TableComment(ctx, db, n)
		if err != nil {
			return nil, err
		}
		if !IsMarkOf(c, gen) {
			foreign = append(foreign, n)
			continue
		}
		// No record vouches for it: a table stampede makes carries its
		// mark on its row type too, which pg_dump does not dump. A
		// table with the mark on itself alone was restored from a
		// dump (pg_dump -t bank | psql): on a new server its OID, and
		// so its mark, match (chk28e's recheck: cleanup dropped it).
		if typed, err := rowTypeMarked(ctx, db, n); err != nil {
			return nil, err
		} else if !typed {
			foreign = append(foreign, n)
		}
	}
	return foreign, nil
}

// movedFromRecord reports whether table name (of the search path) is in
// another schema than init's record of the loads (LoadRecordTable, found
// the same way), on PostgreSQL: a table of init's that the user moved.
func movedFromRecord(ctx context.Context, db *sqlx.DB, name string) (bool, error) {
	if db.Dialect().Name() != "postgres" {
		return false, nil
	}
	var moved bool
	err := db.QueryRow(ctx, `SELECT coalesce((SELECT relnamespace FROM pg_class WHERE oid = to_regclass($1))
		<> (SELECT relnamespace FROM pg_class WHERE oid = to_regclass($2)), false)`,
		db.Dialect().QuoteIdent(name), db.Dialect().QuoteIdent(LoadRecordTable)).Scan(&moved)
	if err != nil {
		return false, fmt.Errorf("looking for table %s beside stampede's record of the loads: %w", name, err)
	}
	return moved, nil
}

// hasRecord reports whether init's record of data key is in db.
func hasRecord(ctx context.Context, db *sqlx.DB, key string) (bool, error) {
	_, _, found, err := readRecord(ctx, db, db, key, false)
	return found, err
}

// ForeignError refuses to drop what stampede did not make.
type ForeignError struct {
	// Kind is what was found: "table", "database", "schema".
	Kind string
	// Names are the objects, Where where they are ("database \"ycsb\" on
	// 127.0.0.1:5432").
	Names []string
	Where string
	// Why says why they are not stampede's.
	Why string
	// Action is what would have dropped them ("cleanup", "--drop").
	Action string
	// Verdict says what they are, when not "not made by stampede"
	// (stampede's tables that the user moved out of the load).
	Verdict string
	// Verb is what ForceDropFlag does to them: "drop" when empty,
	// "replace" for init sql's CREATE OR REPLACE.
	Verb string
	// Elsewhere says where stampede's load is, when the search path
	// does not find it (LoadsElsewhere): the tables found are not it.
	Elsewhere string
}

func (e *ForeignError) Error() string {
	what, hint := e.parts()
	return what + ": " + hint
}

// parts returns the refusal in two parts: what was found and why it is
// not stampede's to drop, and what Action does and how to drop it anyway.
func (e *ForeignError) parts() (what, hint string) {
	what = e.Kind + " " + strings.Join(e.Names, ", ")
	verb := "was"
	if len(e.Names) > 1 {
		what = e.Kind + "s " + strings.Join(e.Names, ", ")
		verb = "were"
	}
	if e.Verdict != "" {
		verb += " " + e.Verdict
	} else {
		verb += " not made by stampede"
	}
	where := ""
	if e.Where != "" {
		where = " in " + e.Where
	}
	it := "it"
	if len(e.Names) > 1 {
		it = "them"
	}
	do := e.Verb
	if do == "" {
		do = "drop"
	}
	return fmt.Sprintf("%s%s %s (%s)", what, where, verb, e.Why),
		fmt.Sprintf("%s leaves %s alone; %sto %s %s anyway, add %s", e.Action, it, e.Elsewhere, do, it, ForceDropFlag)
}

// ErrForeign matches every *ForeignError (errors.Is).
var ErrForeign = errors.New("not made by stampede")

// Is makes errors.Is(err, ErrForeign) true.
func (e *ForeignError) Is(target error) bool { return target == ErrForeign }

// ForeignTablesError returns the error refusing to drop tables, gen's by
// name but not made by stampede, or nil when there are none. adopted
// names those of them that a load of gen filled without making them
// (ForeignTables), moved those that stampede's init made and the user
// moved to another schema (MovedTables), and copied those that carry the
// mark of another table (CopiedTables): the error says so.
func ForeignTablesError(db *sqlx.DB, gen Generator, tables []string, action string, moved []MovedTable, copied []CopiedTable, adopted ...string) error {
	if len(tables) == 0 {
		return nil
	}
	var own, theirs []string
	var movedOnes []MovedTable
	var copies []CopiedTable
	for _, t := range tables {
		i := slices.IndexFunc(moved, func(m MovedTable) bool { return m.Name == t })
		j := slices.IndexFunc(copied, func(c CopiedTable) bool { return c.Name == t })
		switch {
		case slices.Contains(adopted, t):
			theirs = append(theirs, t)
		case i >= 0:
			movedOnes = append(movedOnes, moved[i])
		case j >= 0:
			copies = append(copies, copied[j])
		default:
			own = append(own, t)
		}
	}
	// Each group says why; named when there are several.
	var whys []string
	why := func(names []string, say func(it string) string) {
		it, pre := "it", ""
		if len(names) > 1 {
			it = "them"
		}
		if len(names) < len(tables) {
			pre = strings.Join(names, ", ") + ": "
		}
		whys = append(whys, pre+say(it))
	}
	if len(own) > 0 {
		why(own, func(it string) string {
			return "no mark of stampede's init on " + it + ", which every table stampede's init makes carries"
		})
	}
	if len(theirs) > 0 {
		why(theirs, func(it string) string {
			return fmt.Sprintf("%s existed before stampede's init of %s loaded into %s: adopted, as %s records", it, gen.Meta().Name, it, LoadRecordTable)
		})
	}
	for _, c := range copies {
		why([]string{c.Name}, func(string) string { return copiedWhy(c) })
	}
	for _, g := range movedGroups(movedOnes) {
		why(g.names, func(it string) string {
			they, was, are := "it", "was", "is"
			if it == "them" {
				they, was, are = "they", "were", "are"
			}
			return fmt.Sprintf("stampede's init of %s made %s in schema %s, where %s records the load, and %s %s moved to schema %s since: %s %s yours now",
				gen.Meta().Name, it, g.From, LoadRecordTable, they, was, g.To, they, are)
		})
	}
	e := &ForeignError{Kind: "table", Names: tables, Action: action,
		Where: db.Where(),
		Why:   strings.Join(whys, "; ")}
	if len(movedOnes) == len(tables) {
		e.Verdict = "moved out of stampede's load"
	}
	return e
}

// MovedTable is a table that stampede's init made and the user moved to
// another schema than the one init's record of the loads is in (ALTER
// TABLE bank SET SCHEMA app): the user's to keep now.
type MovedTable struct {
	// Name is the table's name; To its schema now; From the schema of
	// init's record, where init made it.
	Name, To, From string
}

// movedGroup is moved tables of one From and To.
type movedGroup struct {
	names    []string
	From, To string
}

// movedGroups groups moved by their schemas, in order.
func movedGroups(moved []MovedTable) []movedGroup {
	var gs []movedGroup
	for _, m := range moved {
		i := slices.IndexFunc(gs, func(g movedGroup) bool { return g.From == m.From && g.To == m.To })
		if i < 0 {
			gs = append(gs, movedGroup{From: m.From, To: m.To})
			i = len(gs) - 1
		}
		gs[i].names = append(gs[i].names, m.Name)
	}
	return gs
}

// MovedTables returns those of names (tables, resolved through the search
// path) that carry the mark of gen's init or run but lie in another schema
// than init's record of the loads (found the same way): stampede's
// tables that the user moved (ForeignTables counts them as the user's).
// None on other databases than PostgreSQL.
func MovedTables(ctx context.Context, db *sqlx.DB, gen Generator, names []string) ([]MovedTable, error) {
	if db.Null() || db.Dialect().Name() != "postgres" {
		return nil, nil
	}
	var out []MovedTable
	for _, n := range names {
		m := MovedTable{Name: n}
		err := db.QueryRow(ctx, `SELECT n.nspname, rn.nspname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace,
			pg_class r JOIN pg_namespace rn ON rn.oid = r.relnamespace
			WHERE c.oid = to_regclass($1) AND r.oid = to_regclass($2) AND c.relnamespace <> r.relnamespace`,
			db.Dialect().QuoteIdent(n), db.Dialect().QuoteIdent(LoadRecordTable)).Scan(&m.To, &m.From)
		if errors.Is(err, sqlx.ErrNoRows) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("looking for table %s beside stampede's record of the loads: %w", n, err)
		}
		c, err := TableComment(ctx, db, n)
		if err != nil {
			return nil, err
		}
		if IsMarkOf(c, gen) {
			out = append(out, m)
		}
	}
	return out, nil
}

// AdoptedTables returns the tables that init's record of gen's data in db
// says its load adopted (see RecordLoad).
func AdoptedTables(ctx context.Context, db *sqlx.DB, gen Generator) ([]string, error) {
	if db.Null() {
		return nil, nil
	}
	return readAdopted(ctx, db, db, DataKeyOf(gen))
}

// ForeignObjectsIn returns the objects of db, of every kind a user can
// make (tables, views, sequences, functions, types, schemas, extensions,
// large objects...: see dialect.UserObjectsQuery), that stampede did not
// make for gen, each as "KIND NAME": without stampede's mark, other than
// init's record table, a fleet's marker of gen's fleet (markers, named:
// one of a marker's exact shape whose rows name gen, TenantMarkerWorkloads),
// and gen's tables where init's record of gen's data says its load marked
// nothing (an older stampede's). A table that carries the mark of
// another workload's load is foreign too, named with that workload
// ("table public.usertable (stampede's load of ycsb)"), and so is one of
// gen's names without gen's mark (a user's, made in its place); and the
// columns holding data that a user added to gen's tables (AddedColumns),
// and the indexes a user made on them (UserIndexes); and the triggers,
// rules, policies and statistics objects on stampede's tables
// (AttachedForeign). A database that holds none is gen's to drop.
func ForeignObjectsIn(ctx context.Context, db *sqlx.DB, gen Generator, markers ...string) ([]string, error) {
	if db.Null() {
		return nil, nil
	}
	recorded, err := hasRecord(ctx, db, DataKeyOf(gen))
	if err != nil {
		return nil, err
	}
	unmarked := map[string]bool{} // gen's tables of an older stampede's load
	if recorded {
		adopted, err := readAdopted(ctx, db, db, DataKeyOf(gen))
		if err != nil {
			return nil, err
		}
		marked, err := readMarked(ctx, db, DataKeyOf(gen))
		if err != nil {
			return nil, err
		}
		for _, t := range gen.Tables() {
			unmarked[t.Name] = !marked && !slices.Contains(adopted, t.Name)
		}
	}
	objs, err := Objects(ctx, db)
	if err != nil {
		return nil, err
	}
	var foreign, ours []string
	for _, o := range objs {
		switch {
		case !o.IsTable():
			if o.Marked {
				continue
			}
		case o.Name == LoadRecordTable:
			continue
		case slices.Contains(markers, o.Name):
			ws, ok, err := TenantMarkerWorkloads(ctx, db, o.Schema, o.Name)
			if err != nil {
				return nil, err
			}
			if ok && len(ws) == 1 && ws[0] == gen.Meta().Name {
				continue
			}
			if ok && len(ws) == 0 {
				foreign = append(foreign, o.String()+" (the marker of a fleet whose rows this role may not read)")
				continue
			}
			if ok {
				foreign = append(foreign, o.String()+" (the marker of a fleet of "+strings.Join(ws, ", ")+")")
				continue
			}
		case isRenamed(o, gen):
			// gen's table under a name gen does not use: the user
			// renamed it to keep it (ALTER TABLE bank RENAME TO
			// bank_keep).
			foreign = append(foreign, o.String()+RenamedNote(gen.Meta().Name))
			continue
		case o.Marked && IsMarkOf(o.Comment, gen):
			ours = append(ours, o.Name)
			continue
		case o.Marked && MarkMaker(o.Comment) != "":
			foreign = append(foreign, o.String()+" (stampede's load of "+MarkMaker(o.Comment)+")")
			continue
		case unmarked[o.Name]:
			ours = append(ours, o.Name)
			continue
		case o.Marked:
			continue
		}
		foreign = append(foreign, o.String())
	}
	// A column a user added to one of gen's tables and filled is data
	// stampede did not make, though no object of its own.
	cols, err := AddedColumns(ctx, db, gen, ours)
	if err != nil {
		return nil, err
	}
	for _, c := range cols {
		foreign = append(foreign, "table column "+c+" (holding data)")
	}
	// So is an index or constraint a user made on one of them, or on
	// stampede's record or marker (UserIndexes).
	idx, err := UserIndexes(ctx, db, gen, append(ours, BookkeepingTables(objs, "*")...))
	if err != nil {
		return nil, err
	}
	// And a trigger, rule, policy or statistics object on a table of
	// stampede's (AttachedForeign), as the drop of a table would say.
	attached, err := AttachedForeign(ctx, db, objs, "*", foreign)
	if err != nil {
		return nil, err
	}
	return append(append(foreign, idx...), attached...), nil
}

// RenamedNote follows, in ForeignObjectsIn's list, a table of workload's
// load that carries its mark under a name workload does not use.
func RenamedNote(workload string) string {
	return " (stampede's table of " + workload + renamedEnd
}

// renamedEnd ends RenamedNote.
const renamedEnd = ", renamed)"

// RenamedTables returns, of objs (a database's objects, see Objects),
// those in schema ("*" for any) that are gen's tables, carrying the mark
// of gen's init, under a name gen does not use: the user renamed them to
// keep them (ALTER TABLE bank RENAME TO bank_keep), so a drop of the
// database or schema holding them would destroy what is now the user's.
// Each is named as ForeignObjectsIn names it ("table public.bank_keep
// (stampede's table of bank, renamed)"). gen nil finds none.
func RenamedTables(objs []Object, schema string, gen Generator) []string {
	if gen == nil {
		return nil
	}
	var out []string
	for _, o := range objs {
		if (schema == "*" || o.Schema == schema) && isRenamed(o, gen) {
			out = append(out, o.String()+RenamedNote(gen.Meta().Name))
		}
	}
	return out
}

// isRenamed reports whether o is a table (not a partition, which goes
// with its parent) carrying the mark of gen's init under a name gen does
// not use (renamedTable).
func isRenamed(o Object, gen Generator) bool {
	return o.IsTable() && o.Kind != "partition" && o.Name != LoadRecordTable && o.Marked &&
		isInitMark(o.Comment) && IsMarkOf(o.Comment, gen) && renamedTable(o.Name, gen)
}

// renamedTable reports whether name, a table carrying the mark of gen's
// init, is none of gen's tables' names. A name ending in a number is
// gen's when one of gen's tables ends in a number too and the names
// differ only there (sysbench's sbtest3 of a load of more tables than
// gen's flags say); another number after a name without one (usertable2
// beside usertable) is a name the user gave.
func renamedTable(name string, gen Generator) bool {
	tables := gen.Tables()
	if len(tables) == 0 {
		return false
	}
	stem := func(s string) string { return strings.TrimRight(s, "0123456789") }
	for _, t := range tables {
		if t.Name == name || stem(t.Name) != t.Name && stem(name) != name && stem(t.Name) == stem(name) {
			return false
		}
	}
	return true
}

// TenantMarkerMark is the mark on a fleet's marker table (TenantMarkerTable)
// in database and schema modes, bound to the table's OID (see
// dialect.CommentOnTableIdent): a copy of the marker is none.
const TenantMarkerMark = Mark + " fleet: the marker of a tenant"

// tenantMarkerMarkPrefix begins the mark of every fleet marker: database
// and schema modes' (TenantMarkerMark) and column mode's.
const tenantMarkerMarkPrefix = Mark + " fleet: the marker of a"

// tenantMarkerColumns are the columns of a fleet's marker table in
// database and schema modes, and in column mode.
var tenantMarkerColumns = [][]string{
	{"flags", "loaded_at", "version", "workload"},
	{"flags", "loaded_at", "seed", "tenant_id", "version", "workload"},
}

// TenantMarkerWorkloads reads table (a fleet's marker, TenantMarkerTable)
// in schema of db ("" for the current schema): ok is true when it has a
// marker's exact columns, at least one row, and stampede's marker mark
// bound to its own OID (dialect.MarkOIDSep), and workloads are then the
// workloads its rows name, sorted. A user's table of the name, a copy of
// a marker, and an older stampede's marker without the mark are not ok.
// A role that may not read its rows gets ok with no workloads: the
// caller tells whose fleet it marks otherwise (the tenant's own mark).
func TenantMarkerWorkloads(ctx context.Context, db *sqlx.DB, schema, table string) (workloads []string, ok bool, err error) {
	d := db.Dialect()
	name := d.QuoteIdent(table)
	if schema != "" {
		name = d.QuoteIdent(schema) + "." + name
	}
	// pg_attribute, not information_schema.columns: the latter lists
	// only the columns the role may use, and a role that may not read
	// the marker must still see its shape.
	rows, err := db.Query(ctx, `SELECT attname::text FROM pg_catalog.pg_attribute
		WHERE attrelid = to_regclass(`+d.Placeholder(1)+`) AND attnum > 0 AND NOT attisdropped ORDER BY 1`, name)
	if err != nil {
		return nil, false, fmt.Errorf("reading the columns of table %s: %w", table, err)
	}
	var cols []string
	for rows.Next() {
		var c string
		if err := rows.Scan(&c); err != nil {
			rows.Close()
			return nil, false, err
		}
		cols = append(cols, c)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, false, err
	}
	if !slices.ContainsFunc(tenantMarkerColumns, func(want []string) bool { return slices.Equal(cols, want) }) {
		return nil, false, nil
	}
	// Only a marker carrying stampede's mark bound to its own OID is
	// one: a table of the name without it was made by hand, and one
	// whose mark is bound to another table's OID is a copy (pg_dump -t
	// stampede_tenant restored into a user's database). A marker of an
	// older stampede, which put no mark on it, is refused as well (its
	// tenants take --force-drop). CockroachDB's marks carry no OID.
	rel := "to_regclass(" + d.Placeholder(1) + ")"
	var own, raw *string
	if err := db.QueryRow(ctx, "SELECT "+dialect.OwnComment(d, rel, "pg_class")+", obj_description("+rel+", 'pg_class')", name).Scan(&own, &raw); err != nil {
		return nil, false, fmt.Errorf("reading the comment of table %s: %w", table, err)
	}
	if own == nil || !strings.HasPrefix(*own, tenantMarkerMarkPrefix) || d.Name() != "cockroach" && *raw == *own {
		return nil, false, nil
	}
	wrows, err := db.Query(ctx, "SELECT DISTINCT workload FROM "+name+" ORDER BY workload")
	if sqlx.SQLState(err) == "42501" {
		return nil, true, nil // as below: rows this role may not read
	}
	if err != nil {
		return nil, false, fmt.Errorf("reading table %s: %w", table, err)
	}
	defer wrows.Close()
	for wrows.Next() {
		var w string
		if err := wrows.Scan(&w); err != nil {
			return nil, false, err
		}
		workloads = append(workloads, w)
	}
	if err := wrows.Err(); sqlx.SQLState(err) == "42501" {
		// The role may not read its rows: the mark says it is
		// stampede's marker, not whose fleet it marks.
		return nil, true, nil
	} else if err != nil {
		return nil, false, fmt.Errorf("reading table %s: %w", table, err)
	}
	return workloads, len(workloads) > 0, nil
}

// OtherLoads returns, of tables (in db), those that carry the mark of
// stampede's load of another workload than gen, each with that workload
// (MarkMaker).
func OtherLoads(ctx context.Context, db *sqlx.DB, gen Generator, tables []string) (map[string]string, error) {
	out := map[string]string{}
	for _, t := range tables {
		c, err := TableComment(ctx, db, t)
		if err != nil {
			return nil, err
		}
		if m := MarkMaker(c); m != "" && !IsMarkOf(c, gen) {
			out[t] = m
		}
	}
	return out, nil
}

// OtherLoadError refuses to drop tables that stampede made for another
// workload than the one whose cleanup or --drop was asked for (TPC-C's
// customer under `cleanup ycsb -p table=customer`, oltp's sbtest1 under
// bulk_insert's --drop).
type OtherLoadError struct {
	// Tables are the tables, each with the workload whose load made it;
	// Workload is the workload asked for; Where where they are.
	Tables   map[string]string
	Workload string
	Where    string
	// Action is what would have dropped them ("cleanup", "--drop").
	Action string
	// Verb is what ForceDropFlag does to them: "drop" when empty,
	// "replace" for init sql's CREATE OR REPLACE.
	Verb string
}

func (e *OtherLoadError) Error() string {
	names := slices.Sorted(maps.Keys(e.Tables))
	var parts []string
	for _, n := range names {
		parts = append(parts, n+" ("+e.Tables[n]+")")
	}
	what, it, verb := "table", "it", "was"
	if len(names) > 1 {
		what, it, verb = "tables", "them", "were"
	}
	first := e.Tables[names[0]]
	return fmt.Sprintf("%s %s in %s %s made by stampede's load of another workload than %s: %s leaves %s alone; `stampede cleanup %s` drops %s, or to drop %s anyway, add %s",
		what, strings.Join(parts, ", "), e.Where, verb, e.Workload, e.Action, it, first, it, it, ForceDropFlag)
}

// Is makes errors.Is(err, ErrForeign) true, for its exit code.
func (e *OtherLoadError) Is(target error) bool { return target == ErrForeign }

// DeniedError is a role's refusal by the server (SQLSTATE 42501) on one
// of stampede's tables, said in one line that names the privilege needed
// and who has it.
type DeniedError struct {
	// Kind is what Table is ("table" when empty, "schema").
	Kind string
	// Table is the table, Owner the role it belongs to, Role the
	// connection's; Need the privilege ("SELECT", "ownership").
	Table, Owner, Role, Need string
	// What says what the table is, for the message ("stampede's record
	// of what init loaded"); Then what was (not) done ("nothing was
	// dropped").
	What, Then string
	// Err is the server's refusal.
	Err error
}

func (e *DeniedError) Error() string {
	what := cmp.Or(e.Kind, "table") + " " + e.Table
	if e.What != "" {
		what += " (" + e.What + ")"
	}
	then := ""
	if e.Then != "" {
		then = "; " + e.Then
	}
	if e.Need == "ownership" {
		return fmt.Sprintf("%s belongs to role %s, and role %s may not drop it (only its owner may): connect as its owner %s or a superuser%s",
			what, e.Owner, e.Role, e.Owner, then)
	}
	return fmt.Sprintf("role %s may not read %s, which belongs to role %s: connect as %s or a superuser, or have %s `GRANT %s ON %s TO %s`%s",
		e.Role, what, e.Owner, e.Owner, e.Owner, e.Need, e.Table, e.Role, then)
}

// Unwrap returns the server's refusal.
func (e *DeniedError) Unwrap() error { return e.Err }

// Is makes a refusal to drop what the role does not own match ErrForeign,
// for its exit code: like a refusal of a user's object, it drops nothing.
func (e *DeniedError) Is(target error) bool { return target == ErrForeign && e.Need == "ownership" }

// Denied returns err as a *DeniedError when it is the server's refusal
// (SQLSTATE 42501) of privilege need on table; other errors are returned
// as they are.
func Denied(ctx context.Context, db sqlx.Querier, table, need, what string, err error) error {
	if sqlx.SQLState(err) != "42501" {
		return err
	}
	d := &DeniedError{Table: table, Need: need, What: what, Err: err}
	if qerr := db.QueryRow(ctx, "SELECT coalesce((SELECT pg_get_userbyid(relowner) FROM pg_class WHERE oid = to_regclass($1)), '?'), current_user::text",
		d.Table).Scan(&d.Owner, &d.Role); qerr != nil {
		return err
	}
	return d
}

// RefuseSchemasNotOwned returns a *DeniedError for the first of schemas,
// or of the relations in them, that the connection's role may not drop
// (neither its owner nor a member of the owner), so that a fleet's
// cleanup drops nothing rather than some of its tenants.
func RefuseSchemasNotOwned(ctx context.Context, db *sqlx.DB, schemas []string) error {
	if db.Null() || len(schemas) == 0 {
		return nil
	}
	var kind, name, owner, role string
	err := db.QueryRow(ctx, `SELECT x.kind, x.name, pg_get_userbyid(x.owner), current_user::text FROM (
			SELECT 'schema' AS kind, quote_ident(nspname) AS name, nspowner AS owner FROM pg_namespace WHERE nspname = ANY($1)
			UNION ALL
			SELECT 'table', quote_ident(n.nspname) || '.' || quote_ident(c.relname), c.relowner
			FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
			WHERE n.nspname = ANY($1) AND c.relkind IN ('r', 'p', 'v', 'm', 'S', 'f')
		) x WHERE NOT pg_has_role(current_user, x.owner, 'USAGE') ORDER BY x.kind, x.name LIMIT 1`, schemas).Scan(&kind, &name, &owner, &role)
	if errors.Is(err, sqlx.ErrNoRows) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("reading the owners of the schemas to drop: %w", err)
	}
	return &DeniedError{Kind: kind, Table: name, Owner: owner, Role: role, Need: "ownership", Then: "nothing was dropped"}
}

// RefuseDatabasesNotOwned returns a *DeniedError for the first of
// databases (that exist) the connection's role may not drop, as it
// neither owns it nor is a member of its owner, so that a fleet's cleanup
// drops none rather than some.
func RefuseDatabasesNotOwned(ctx context.Context, db *sqlx.DB, databases []string) error {
	if db.Null() || len(databases) == 0 {
		return nil
	}
	var name, owner, role string
	err := db.QueryRow(ctx, `SELECT datname::text, pg_get_userbyid(datdba), current_user::text FROM pg_database
		WHERE datname = ANY($1) AND NOT pg_has_role(current_user, datdba, 'USAGE') ORDER BY 1 LIMIT 1`, databases).Scan(&name, &owner, &role)
	if errors.Is(err, sqlx.ErrNoRows) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("reading the owners of the databases to drop: %w", err)
	}
	return &DeniedError{Kind: "database", Table: name, Owner: owner, Role: role, Need: "ownership", Then: "nothing was dropped"}
}

// RefuseNotOwned returns a *DeniedError for the first of tables (that
// exist) the connection's role may not drop, as it neither owns it nor is
// a member of its owner (a superuser may drop any), so that a cleanup
// drops nothing rather than part of a load.
func RefuseNotOwned(ctx context.Context, db *sqlx.DB, tables []string) error {
	if db.Null() || len(tables) == 0 {
		return nil
	}
	for _, t := range tables {
		var owner, role string
		err := db.QueryRow(ctx, `SELECT pg_get_userbyid(relowner), current_user::text FROM pg_class
			WHERE oid = to_regclass($1) AND NOT pg_has_role(current_user, relowner, 'USAGE')`, t).Scan(&owner, &role)
		if errors.Is(err, sqlx.ErrNoRows) {
			continue
		}
		if err != nil {
			return fmt.Errorf("reading the owner of table %s: %w", t, err)
		}
		return &DeniedError{Table: t, Owner: owner, Role: role, Need: "ownership", Then: "nothing was dropped"}
	}
	return nil
}
