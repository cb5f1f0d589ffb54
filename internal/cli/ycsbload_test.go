package cli_test

import (
	"context"
	"strconv"
	"strings"
	"testing"
)

// TestYCSBLoadRecord: init records the properties the rows depend on; a
// run or check that does not give one adopts it (the run after
// `init ycsb -p recordcount=2000` reads the 2000 keys, where it used to
// fail with "key not found"), one given with another value is refused in
// one line naming both, and a smaller recordcount (a subset of the keys)
// is allowed.
func TestYCSBLoadRecord(t *testing.T) {
	srv := testServer(t)
	db := freshDB(t, "stampede_ycsb_loadrec")
	base := []string{"--db", db, srv}
	run := func(args ...string) result {
		return stampede(t, append(append([]string{"run", "ycsb", "--max-ops", "300", "--concurrency", "2", "--stop-on-error",
			"--results-dir", t.TempDir()}, args...), base...)...)
	}
	mustRun(t, append([]string{"init", "ycsb", "-p", "recordcount=2000"}, base...)...)
	r := run("--workload", "c", "-p", "requestdistribution=uniform")
	if r.code != 0 || !strings.Contains(r.stderr, `note: using -p recordcount=2000, as init (of ycsb) loaded database "`+db+`"`) {
		t.Errorf("run without recordcount: %d\n%s", r.code, r.stderr)
	}
	r = stampede(t, append([]string{"check", "ycsb"}, base...)...)
	if r.code != 0 || !strings.Contains(r.stdout, "2000 of 2000 loaded keys present PASS") {
		t.Errorf("check without recordcount: %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	propFile := writeFile(t, "# YCSB's layout\r\nrecordcount = 4000\r\n")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-p", "recordcount=3000"}, `-p recordcount=3000 differs from what init (of ycsb) loaded into database "` + db +
			`", -p recordcount=2000: give -p recordcount=2000, or reload with ` + "`stampede init ycsb --drop -p recordcount=3000"},
		{[]string{"--record-count", "3000"}, "-p recordcount=3000 (from --record-count) differs from what init (of ycsb) loaded"},
		{[]string{"-P", propFile}, "-p recordcount=4000 (from " + propFile + ":2) differs from what init (of ycsb) loaded"},
		{[]string{"-p", "fieldcount=3"}, "-p fieldcount=3 differs from what init (of ycsb) loaded into database \"" + db + "\", -p fieldcount=10"},
		{[]string{"-p", "insertorder=ordered"}, "-p insertorder=ordered differs from what init (of ycsb) loaded"},
		{[]string{"-p", "zeropadding=8"}, "-p zeropadding=8 differs from what init (of ycsb) loaded"},
		{[]string{"-p", "fieldlength=10"}, "-p fieldlength=10 differs from what init (of ycsb) loaded"},
		{[]string{"-p", "recordcount=2000", "-p", "insertstart=1500", "-p", "insertcount=1000"},
			"insertstart (1500) + insertcount (1000) exceeds recordcount (2000)"},
	} {
		checkOneLineError(t, run(tc.args...), 2, tc.want)
	}
	// A subset of the keys loaded.
	if r := run("-p", "recordcount=1000", "--workload", "a"); r.code != 0 || strings.Contains(r.stderr, "note:") {
		t.Errorf("run with a smaller recordcount: %d\n%s", r.code, r.stderr)
	}
}

// TestYCSBSplitLoad loads one table as two YCSB clients do, each its
// share of the keys (insertstart, insertcount): the second init joins the
// table the first created, the record holds the whole table once both
// are in, and parts that overlap or differ in other properties are
// refused. A run before the second part adopts the one part loaded.
func TestYCSBSplitLoad(t *testing.T) {
	srv := testServer(t)
	db := freshDB(t, "stampede_ycsb_splitload")
	base := []string{"--db", db, srv}
	part := func(start int, extra ...string) result {
		args := append([]string{"init", "ycsb", "-p", "recordcount=2000", "-p", "insertstart=" + itoa(start), "-p", "insertcount=1000"}, extra...)
		return stampede(t, append(args, base...)...)
	}
	run := func(args ...string) result {
		return stampede(t, append(append([]string{"run", "ycsb", "--workload", "c", "-p", "requestdistribution=uniform",
			"--max-ops", "300", "--concurrency", "2", "--stop-on-error", "--results-dir", t.TempDir()}, args...), base...)...)
	}
	if r := part(0); r.code != 0 {
		t.Fatalf("first part: %d %s", r.code, r.stderr)
	}
	if got := queryString(t, db, "SELECT settings::json->>'keys' FROM stampede_load WHERE data = 'ycsb'"); got != "0+1000" {
		t.Errorf("keys recorded after the first part: %q, want 0+1000", got)
	}
	r := run()
	if r.code != 0 || !strings.Contains(r.stderr, "note: using -p insertstart=0 -p insertcount=1000, -p recordcount=2000, as init (of ycsb) loaded") {
		t.Errorf("run after the first part: %d\n%s", r.code, r.stderr)
	}
	checkOneLineError(t, run("-p", "recordcount=2000", "-p", "insertstart=1000", "-p", "insertcount=1000"), 2,
		"-p insertstart=1000 -p insertcount=1000 differs from what init (of ycsb) loaded into database \""+db+"\", -p insertstart=0 -p insertcount=1000")
	checkOneLineError(t, part(500), 2, "this part cannot join what init (of ycsb) loaded into database \""+db+
		"\": keys -p insertstart=500 -p insertcount=1000 overlap the part loaded with -p insertstart=0 -p insertcount=1000: give each client keys of its own")
	checkOneLineError(t, part(1000, "-p", "fieldcount=3"), 2,
		"-p fieldcount=3 differs from the other parts' -p fieldcount=10: give every client the same properties but insertstart and insertcount")

	r = part(1000)
	if r.code != 0 || !strings.Contains(r.stderr, "loading a part into the existing usertable, beside the parts loaded before") {
		t.Fatalf("second part: %d %s", r.code, r.stderr)
	}
	if n := queryInt(t, db, "SELECT count(*) FROM usertable"); n != 2000 {
		t.Errorf("%d rows after both parts, want 2000", n)
	}
	if got := queryString(t, db, "SELECT settings::json->>'keys' FROM stampede_load WHERE data = 'ycsb'"); got != "all" {
		t.Errorf("keys recorded after both parts: %q, want all", got)
	}
	// Each client's share, and the whole table.
	for _, args := range [][]string{
		{"-p", "recordcount=2000", "-p", "insertstart=1000", "-p", "insertcount=1000"},
		{"-p", "recordcount=2000", "-p", "insertstart=0", "-p", "insertcount=1000"},
		nil,
	} {
		if r := run(args...); r.code != 0 {
			t.Errorf("run %v: %d %s", args, r.code, r.stderr)
		}
	}
	r = stampede(t, append([]string{"check", "ycsb"}, base...)...)
	if r.code != 0 || !strings.Contains(r.stdout, "2000 of 2000 loaded keys present PASS") {
		t.Errorf("check: %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	// A load of the whole table again replaces the record.
	mustRun(t, append([]string{"init", "ycsb", "--drop", "-p", "recordcount=300"}, base...)...)
	if got := queryString(t, db, "SELECT settings::json->>'recordcount' || ' ' || (settings::json->>'keys') FROM stampede_load"); got != "300 all" {
		t.Errorf("record after init --drop: %q", got)
	}
}

func queryString(t testing.TB, db, sql string) string {
	t.Helper()
	ctx := context.Background()
	conn := connectTo(t, ctx, db)
	defer conn.Close(ctx)
	var s string
	if err := conn.QueryRow(ctx, sql).Scan(&s); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return s
}

func itoa(n int) string { return strconv.Itoa(n) }
