package dialect_test

import (
	"strings"
	"testing"

	"github.com/stampede-bench/stampede/dialect"
)

// TestMarkBoundToOID: on PostgreSQL (and Greenplum) the statement that
// marks a table appends the table's OID, read when it runs, and the read
// of a mark keeps an older mark without OID only beside init's record;
// CockroachDB, which takes no DO block, marks by statement without the
// OID (workload.MarkTable binds it there) and keeps older marks as they
// were. The PostgreSQL forms run against the server in internal/cli's
// TestCopiedMarkNeverDrops and TestMarkOfOlderForm.
func TestMarkBoundToOID(t *testing.T) {
	for _, tc := range []struct {
		d              dialect.Dialect
		comment        string
		legacyByRecord bool
	}{
		{dialect.Postgres{}, `DO $stampede$ DECLARE m text := 'made by stampede x; oid ' || to_regclass('"bank"')::oid::text; BEGIN EXECUTE 'COMMENT ON TABLE ' || '"bank"' || ' IS ' || quote_literal(m); ` +
			`BEGIN EXECUTE 'COMMENT ON TYPE ' || (SELECT reltype::regtype::text FROM pg_class WHERE oid = to_regclass('"bank"') AND reltype <> 0) || ' IS ' || quote_literal(m || '; made in database oid ' || (SELECT oid::text FROM pg_database WHERE datname = current_database())); ` +
			`EXCEPTION WHEN null_value_not_allowed OR feature_not_supported OR wrong_object_type OR undefined_object THEN NULL; END; END $stampede$`, true},
		{dialect.Greenplum{}, `DO $stampede$ BEGIN EXECUTE 'COMMENT ON TABLE ' || '"bank"' || ' IS ' || quote_literal('made by stampede x; oid ' || to_regclass('"bank"')::oid::text); END $stampede$`, true},
		{dialect.Cockroach{}, `COMMENT ON TABLE "bank" IS 'made by stampede x'`, false},
	} {
		t.Run(tc.d.Name(), func(t *testing.T) {
			if got := dialect.CommentOnTable(tc.d, "bank", "made by stampede x"); got != tc.comment {
				t.Errorf("CommentOnTable:\n got %s\nwant %s", got, tc.comment)
			}
			own := dialect.OwnComment(tc.d, "c.oid", "pg_class")
			if !strings.Contains(own, "right(obj_description(c.oid, 'pg_class'), length(('; oid ' || (c.oid)::oid::text))) = ('; oid ' || (c.oid)::oid::text)") {
				t.Errorf("OwnComment does not compare the mark's OID with the object's: %s", own)
			}
			if got := strings.Contains(own, "relname = 'stampede_load'"); got != tc.legacyByRecord {
				t.Errorf("OwnComment asks for init's record beside an older mark: %v, want %v", got, tc.legacyByRecord)
			}
		})
	}
}
