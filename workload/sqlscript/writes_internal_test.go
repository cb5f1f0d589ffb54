package sqlscript

import (
	"fmt"
	"testing"
)

// TestWrites: the reading of a statement finds each table whose rows it
// removes or changes, wherever the statement writes it, and no table of
// a statement that only adds rows or names a verb in another sense.
func TestWrites(t *testing.T) {
	for _, c := range []struct{ sql, want string }{
		{"TRUNCATE a, b", "[TRUNCATE a TRUNCATE b]"},
		{"TRUNCATE TABLE ONLY s.a *, \"Q t\" RESTART IDENTITY CASCADE", "[TRUNCATE s.a cascade TRUNCATE \"Q t\" cascade]"},
		{"DELETE FROM ONLY ut WHERE id > 0", "[DELETE ut]"},
		{"delete from app.\"Users\" u using x where u.id = x.id", "[DELETE app.\"Users\"]"},
		{"UPDATE ut AS u SET n = 1 FROM other o WHERE o.id = u.id", "[UPDATE ut]"},
		{"UPDATE ONLY s.ut * SET n = 1", "[UPDATE s.ut]"},
		{"WITH d AS (DELETE FROM ut RETURNING *) INSERT INTO a SELECT * FROM d", "[DELETE ut]"},
		{"WITH x AS (SELECT 1) UPDATE ut SET n = 2", "[UPDATE ut]"},
		{"DO $$ BEGIN DELETE FROM ut; UPDATE vt SET n = 1; END $$", "[DELETE ut UPDATE vt]"},
		{"DO LANGUAGE plpgsql 'BEGIN TRUNCATE ut; END'", "[TRUNCATE ut]"},
		{"MERGE INTO ut USING src ON ut.id = src.id WHEN MATCHED THEN UPDATE SET n = src.n", "[MERGE ut]"},
		{"INSERT INTO ut VALUES (1) ON CONFLICT (id) DO UPDATE SET n = excluded.n", "[INSERT ... ON CONFLICT DO UPDATE ut]"},
		{"COMMENT ON TABLE item IS 'made by stampede init of sql (data sql); oid 1'", "[COMMENT ON item]"},
		{"comment on materialized view s.\"M v\" is null", "[COMMENT ON s.\"M v\"]"},
		{"COMMENT ON INDEX ix IS 'x'", "[COMMENT ON ix]"},
		// Only adds rows, or names the verbs otherwise.
		{"COMMENT ON COLUMN ut.n IS 'x'", "[]"},
		{"COMMENT ON FUNCTION f() IS 'x'", "[]"},
		{"INSERT INTO ut VALUES (1) ON CONFLICT DO NOTHING", "[]"},
		{"MERGE INTO ut USING src ON ut.id = src.id WHEN NOT MATCHED THEN INSERT VALUES (src.id)", "[]"},
		{"CREATE TABLE c (id int REFERENCES ut ON DELETE CASCADE ON UPDATE SET NULL)", "[]"},
		{"CREATE TRIGGER t BEFORE UPDATE OR DELETE OR TRUNCATE ON ut EXECUTE FUNCTION f()", "[]"},
		{"GRANT TRUNCATE, DELETE, UPDATE ON ut TO PUBLIC", "[]"},
		{"SELECT * FROM ut FOR UPDATE", "[]"},
		{"INSERT INTO a VALUES ('DELETE FROM ut')", "[]"},
		{"CREATE FUNCTION f() RETURNS void LANGUAGE sql AS $$ DELETE FROM ut $$", "[]"},
		{"DO $$ BEGIN EXECUTE 'DELETE FROM ut'; END $$", "[]"},
	} {
		var got []string
		for _, w := range writes(c.sql) {
			s := w.action + " " + w.table
			if w.cascade {
				s += " cascade"
			}
			got = append(got, s)
		}
		if g := fmt.Sprint(got); g != c.want {
			t.Errorf("writes(%q) = %s, want %s", c.sql, g, c.want)
		}
	}
}
