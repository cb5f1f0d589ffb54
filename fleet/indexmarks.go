package fleet

import "github.com/stampede-bench/stampede/dialect"

// rebindIndexMarks returns the statements that bind anew, to the index's
// own OID, each mark a schema clone (CREATE TABLE ... LIKE ... INCLUDING
// ALL, which copies an index's comment) copied into schema to from the
// index of schema from that carries it bound to itself: fleet exec's
// mark (execMark) on an index it made in the template, which the clone
// holds as stampede's too (workload.UserIndexesIn reads a mark bound to
// another OID as none). A copy of a mark that was not bound to its index
// in from stays as it is. None on CockroachDB, whose clones keep no
// index comments.
func rebindIndexMarks(d dialect.Dialect, from, to string) []string {
	if d.Name() != "postgres" {
		return nil
	}
	return []string{`DO $stampede$ DECLARE r record; BEGIN
	FOR r IN SELECT c.relname, c.oid, m.mark FROM pg_class c
		CROSS JOIN LATERAL (SELECT obj_description(c.oid, 'pg_class') AS mark) m
		JOIN pg_class s ON s.oid = substring(m.mark FROM '; oid ([0-9]+)$')::oid
		WHERE c.relnamespace = (SELECT oid FROM pg_namespace WHERE nspname = ` + dialect.QuoteLiteral(to) + `) AND c.relkind IN ('i', 'I')
			AND m.mark ~ '^made by stampede .*; oid [0-9]+$'
			AND s.relnamespace = (SELECT oid FROM pg_namespace WHERE nspname = ` + dialect.QuoteLiteral(from) + `) AND obj_description(s.oid, 'pg_class') = m.mark
	LOOP
		EXECUTE format('COMMENT ON INDEX %I.%I IS %L', ` + dialect.QuoteLiteral(to) + `, r.relname, regexp_replace(r.mark, '; oid [0-9]+$', '') || '; oid ' || r.oid);
	END LOOP;
END $stampede$`}
}
