package pgbench_test

import (
	"bytes"
	"context"
	"net/url"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stampede-bench/stampede/internal/testdb"
	"github.com/stampede-bench/stampede/run"
	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
	"github.com/stampede-bench/stampede/workload/pgbench"
)

// realPgbench returns the path of Debian's pgbench, or skips.
func realPgbench(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("pgbench")
	if err != nil {
		t.Skip("pgbench not installed")
	}
	return p
}

// dbURL is the test server's URL with the database name.
func dbURL(t *testing.T, name string) string {
	t.Helper()
	u, err := url.Parse(testdb.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	return u.String()
}

// snapshotQueries read what an init built: the columns (names, types,
// order), the relations (kind, persistence, options, partition bounds and
// keys), constraints, indexes, whether each table was vacuumed and
// analyzed, each table's rows (count and a digest of their contents in
// key order) and the rows of each partition.
var snapshotQueries = []string{
	`SELECT table_name, ordinal_position, column_name, data_type, coalesce(character_maximum_length, 0), is_nullable
	   FROM information_schema.columns WHERE table_name LIKE 'pgbench%' ORDER BY 1, 2`,
	`SELECT relname, relkind::text, relpersistence::text, coalesce(array_to_string(reloptions, ','), ''),
	        coalesce(pg_get_expr(relpartbound, oid), ''), CASE WHEN relkind = 'p' THEN pg_get_partkeydef(oid) ELSE '' END,
	        coalesce((SELECT spcname FROM pg_tablespace WHERE oid = reltablespace), '')
	   FROM pg_class WHERE relname LIKE 'pgbench%' ORDER BY 1`,
	`SELECT conrelid::regclass::text, conname, contype::text, pg_get_constraintdef(oid)
	   FROM pg_constraint WHERE conrelid::regclass::text LIKE 'pgbench%' ORDER BY 1, 2`,
	`SELECT tablename, indexname, indexdef FROM pg_indexes WHERE tablename LIKE 'pgbench%' ORDER BY 1, 2`,
	`SELECT relname, (last_vacuum IS NOT NULL)::text, (last_analyze IS NOT NULL)::text
	   FROM pg_stat_user_tables WHERE relname LIKE 'pgbench%' ORDER BY 1`,
	`SELECT 'branches', count(*), coalesce(sum(bbalance), 0), md5(string_agg(t::text, ',' ORDER BY bid)) FROM pgbench_branches t
	 UNION ALL SELECT 'tellers', count(*), coalesce(sum(tbalance), 0), md5(string_agg(t::text, ',' ORDER BY tid)) FROM pgbench_tellers t
	 UNION ALL SELECT 'accounts', count(*), coalesce(sum(abalance), 0), md5(string_agg(t::text, ',' ORDER BY aid)) FROM pgbench_accounts t
	 UNION ALL SELECT 'history', count(*), coalesce(sum(delta), 0), coalesce(md5(string_agg(t::text, ',')), '') FROM pgbench_history t`,
	`SELECT 'filler', count(filler), count(DISTINCT filler), coalesce(max(octet_length(filler)), 0) FROM pgbench_accounts
	 UNION ALL SELECT 'filler', count(filler), 0, 0 FROM pgbench_branches UNION ALL SELECT 'filler', count(filler), 0, 0 FROM pgbench_tellers`,
	`SELECT tableoid::regclass::text, count(*) FROM pgbench_accounts GROUP BY 1 ORDER BY 1`,
}

// snapshot returns the rows of snapshotQueries in db, as text.
func snapshot(t *testing.T, db *sqlx.DB) []string {
	t.Helper()
	ctx := context.Background()
	var out []string
	for _, q := range snapshotQueries {
		rows, err := db.Query(ctx, "SELECT s::text FROM ("+q+") s ORDER BY 1")
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		for rows.Next() {
			var row string
			if err := rows.Scan(&row); err != nil {
				t.Fatal(err)
			}
			out = append(out, strings.Join(strings.Fields(row), " "))
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		rows.Close()
	}
	return out
}

// numbers blanks the numbers of pgbench's lines (times, counts that
// depend on timing are not compared; the line's shape is).
var numbers = regexp.MustCompile(`[0-9]+(\.[0-9]+)?`)

// TestSameAsPgbench initialises a database with the real pgbench 15 and
// another with stampede's pgbench workload, with the same options, and
// compares what they built (see snapshotQueries) and their lines, numbers
// blanked (pgbench's NOTICEs about missing tables left out).
func TestSameAsPgbench(t *testing.T) {
	bin := realPgbench(t)
	cases := []struct {
		name     string
		pgbench  []string
		stampede []string
	}{
		{"scale 5", []string{"-s", "5"}, []string{"--scale", "5"}},
		{"fillfactor and foreign keys", []string{"-s", "2", "-F", "80", "--foreign-keys"}, []string{"--scale", "2", "--fillfactor", "80", "--foreign-keys"}},
		{"range partitions", []string{"-s", "3", "--partitions", "4"}, []string{"--scale", "3", "--partitions", "4"}},
		{"hash partitions", []string{"-s", "3", "--partitions", "4", "--partition-method", "hash"}, []string{"--scale", "3", "--partitions", "4", "--partition-method", "hash"}},
		{"server-side", []string{"-s", "2", "-I", "dtGvp"}, []string{"--scale", "2", "--init-steps", "dtGvp"}},
		{"unlogged", []string{"-s", "1", "--unlogged-tables"}, []string{"--scale", "1", "--unlogged-tables"}},
		{"unlogged partitions", []string{"-s", "1", "--unlogged-tables", "--partitions", "3"}, []string{"--scale", "1", "--unlogged-tables", "--partitions", "3"}},
		{"tablespaces, keys first, no vacuum", []string{"-s", "1", "-I", "dtpgf", "--tablespace", "pg_default", "--index-tablespace", "pg_default"},
			[]string{"--scale", "1", "--init-steps", "dtpgf", "--tablespace", "pg_default", "--index-tablespace", "pg_default"}},
		{"no vacuum", []string{"-s", "1", "-n"}, []string{"--scale", "1", "--no-vacuum"}},
		{"quiet", []string{"-s", "2", "-q"}, []string{"--scale", "2"}},
		{"keys before the data", []string{"-s", "1", "-I", "dtpfg"}, []string{"--scale", "1", "--init-steps", "dtpfg"}},
	}
	meta, _ := workload.Get("pgbench")
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ref := testdb.Fresh(t, "pginit_ref", sqlx.Options{MaxConns: 1})
			var refErr bytes.Buffer
			cmd := exec.Command(bin, append(append([]string{"-i"}, c.pgbench...), dbURL(t, ref.Database()))...)
			cmd.Stderr = &refErr
			if err := cmd.Run(); err != nil {
				t.Fatalf("pgbench: %v\n%s", err, refErr.String())
			}
			got := testdb.Fresh(t, "pginit_st", sqlx.Options{MaxConns: 1})
			gen, err := workload.FromFlags(meta, c.stampede...)
			if err != nil {
				t.Fatal(err)
			}
			var lines bytes.Buffer
			il := pgbench.NewInitLog(&lines)
			il.Quiet = slices.Contains(c.pgbench, "-q") // pgbench's quiet lines
			gen.(pgbench.InitLogger).SetInitLog(il)
			il.Start(gen.(pgbench.InitLogger).Steps())
			err = run.Load(context.Background(), run.LoadSpec{Workload: gen, Conn: run.Conn{URLs: []string{testdb.URL(t)}, Database: got.Database()},
				Steps: il.LoadOptions()})
			if err != nil {
				t.Fatal(err)
			}
			want, have := snapshot(t, ref), snapshot(t, got)
			if !slices.Equal(want, have) {
				t.Errorf("stampede built something else than pgbench %v:\npgbench:\n%s\nstampede:\n%s", c.pgbench, strings.Join(want, "\n"), strings.Join(have, "\n"))
			}
			var wantLines []string
			for _, l := range strings.Split(strings.TrimSpace(refErr.String()), "\n") {
				if !strings.HasPrefix(l, "NOTICE:") {
					wantLines = append(wantLines, numbers.ReplaceAllString(l, "N"))
				}
			}
			haveLines := strings.Split(numbers.ReplaceAllString(strings.TrimSpace(lines.String()), "N"), "\n")
			if !slices.Equal(wantLines, haveLines) {
				t.Errorf("pgbench's lines:\n%s\nstampede's:\n%s", strings.Join(wantLines, "\n"), strings.Join(haveLines, "\n"))
			}
		})
	}
}
