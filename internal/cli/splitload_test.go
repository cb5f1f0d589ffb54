package cli_test

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"

	"sigs.k8s.io/yaml"
)

// splitInit runs init of a split load from count clients at once, each
// with its --client-index and the same args, into db (which none created
// before: the clients race to create it, and the tables), and fails on
// any client's error.
func splitInit(t *testing.T, srv, db string, count int, args ...string) []result {
	t.Helper()
	res := make([]result, count)
	var wg sync.WaitGroup
	for i := range count {
		wg.Add(1)
		go func() {
			defer wg.Done()
			a := append([]string{"init"}, args...)
			a = append(a, "--clients", strconv.Itoa(count), "--client-index", strconv.Itoa(i), "--concurrency", "2", "--db", db, srv)
			res[i] = stampede(t, a...)
		}()
	}
	wg.Wait()
	completes := 0
	for i, r := range res {
		if r.code != 0 {
			t.Fatalf("client %d of %d: exit %d\n%s", i, count, r.code, r.stderr)
		}
		if strings.Contains(r.stderr, "the load is complete") {
			completes++
		}
	}
	if completes != 1 {
		t.Errorf("%d clients said they completed the load, want exactly 1", completes)
	}
	return res
}

// TestSplitLoadYCSB: three clients started together each load their
// 10,000 keys of 30,000 into one database none of them created: the
// table holds exactly keys 0..29,999 (count, distinct, min, max), the
// same rows (md5) as one init of every key with the same seed, the
// record says every share is in, and run and check take the data.
func TestSplitLoadYCSB(t *testing.T) {
	t.Parallel()
	srv := testServer(t)
	db := freshDB(t, "split_ycsb")
	args := []string{"ycsb", "-p", "recordcount=30000", "-p", "insertorder=ordered", "--seed", "5"}
	splitInit(t, srv, db, 3, args...)
	one := freshDB(t, "split_ycsbone")
	if r := stampede(t, append(append([]string{"init"}, args...), "--db", one, srv)...); r.code != 0 {
		t.Fatalf("init of every key: exit %d\n%s", r.code, r.stderr)
	}
	if split, whole := fingerprints(t, db, "public", []string{"usertable"}), fingerprints(t, one, "public", []string{"usertable"}); split != whole {
		t.Errorf("the split load's rows differ from one init's with the same seed:\n%s\n%s", split, whole)
	}
	if got := queryInt(t, db, "SELECT count(DISTINCT (field0, field1, field2, field3, field4, field5, field6, field7, field8, field9)) FROM usertable"); got != 30000 {
		t.Errorf("the split load holds %d distinct rows of values, want 30000", got)
	}
	// ordered keys are "user" and the key number (zeropadding 1).
	const num = "substr(ycsb_key, 5)::bigint"
	for _, q := range []struct {
		sql  string
		want int64
	}{
		{"SELECT count(*) FROM usertable", 30000},
		{"SELECT count(DISTINCT ycsb_key) FROM usertable", 30000},
		{"SELECT min(" + num + ") FROM usertable", 0},
		{"SELECT max(" + num + ") FROM usertable", 29999},
		{"SELECT count(*) FROM usertable WHERE ycsb_key <> 'user' || " + num, 0},
	} {
		if got := queryInt(t, db, q.sql); got != q.want {
			t.Errorf("%s = %d, want %d", q.sql, got, q.want)
		}
	}
	if got := queryInt(t, db, "SELECT count(*) FROM stampede_load WHERE settings::jsonb->>'shares' = '3:0,1,2'"); got != 1 {
		t.Errorf("the record does not say every share is in (%d rows)", got)
	}
	if r := stampede(t, "run", "ycsb", "--workload", "c", "--max-ops", "200", "--db", db, srv); r.code != 0 {
		t.Fatalf("run on the complete split load: exit %d\n%s", r.code, r.stderr)
	}
}

// TestSplitLoadShareMissing: a run and a check refuse a split load with a
// share missing, in one line naming the share, its keys and the command
// that loads it; that command, run as suggested, completes the load and
// the run then goes.
func TestSplitLoadShareMissing(t *testing.T) {
	t.Parallel()
	srv := testServer(t)
	db := freshDB(t, "split_missing")
	for _, i := range []string{"0", "2"} {
		if r := stampede(t, "init", "ycsb", "-p", "recordcount=3000", "-p", "fieldcount=4", "--clients", "3", "--client-index", i, "--db", db, srv); r.code != 0 {
			t.Fatalf("init share %s: %s", i, r.stderr)
		}
	}
	const want = "client 1 of 3's share (keys 1000-1999) is not loaded into database"
	const cmd = "run stampede init ycsb --clients 3 --client-index 1 -p recordcount=3000 -p fieldcount=4 URL"
	for _, verb := range []string{"run", "check"} {
		args := []string{verb, "ycsb", "--db", db, srv}
		if verb == "run" {
			args = []string{verb, "ycsb", "--max-ops", "10", "--db", db, srv}
		}
		r := stampede(t, args...)
		checkOneLineError(t, r, 2, want)
		if !strings.Contains(r.stderr, cmd) {
			t.Errorf("%s: the error does not give the command %q:\n%s", verb, cmd, r.stderr)
		}
	}
	// A run as one client of several needs every share too.
	r := stampede(t, "run", "ycsb", "--clients", "3", "--client-index", "0", "--max-ops", "10", "--db", db, srv)
	checkOneLineError(t, r, 2, want)
	// The suggested command, with the URL, completes the load.
	fields := strings.Fields(strings.TrimSuffix(strings.TrimPrefix(cmd, "run stampede "), " URL"))
	if r := stampede(t, append(fields, "--db", db, srv)...); r.code != 0 || !strings.Contains(r.stderr, "the load is complete") {
		t.Fatalf("the suggested init: exit %d\n%s", r.code, r.stderr)
	}
	if r := stampede(t, "run", "ycsb", "--max-ops", "10", "--db", db, srv); r.code != 0 {
		t.Fatalf("run after the missing share came in: exit %d\n%s", r.code, r.stderr)
	}
	if got := queryInt(t, db, "SELECT count(DISTINCT ycsb_key) FROM usertable"); got != 3000 {
		t.Errorf("%d distinct keys, want 3000", got)
	}
}

// TestSplitLoadBadInput: flags of a split load that cannot go, and a
// client whose data flags differ from those the first client recorded,
// are refused in one line naming the flag, exit 2, with nothing loaded.
func TestSplitLoadBadInput(t *testing.T) {
	t.Parallel()
	srv := testServer(t)
	db := freshDB(t, "split_bad")
	if r := stampede(t, "init", "ycsb", "-p", "recordcount=3000", "--clients", "3", "--client-index", "0", "--db", db, srv); r.code != 0 {
		t.Fatalf("share 0: %s", r.stderr)
	}
	sdb := freshDB(t, "split_badsb")
	if r := stampede(t, "init", "oltp_read_write", "--tables", "2", "--table-size", "1000", "--clients", "2", "--client-index", "0", "--db", sdb, srv); r.code != 0 {
		t.Fatalf("sysbench share 0: %s", r.stderr)
	}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"index past the clients", []string{"ycsb", "-p", "recordcount=3000", "--clients", "3", "--client-index", "3"}, "--client-index 3: give this client's share, from 0 to 2 (--clients 3)"},
		{"negative index", []string{"ycsb", "--clients", "3", "--client-index", "-1"}, "--client-index -1: give this client's share, from 0 to 2"},
		{"index without clients", []string{"ycsb", "--client-index", "1"}, "--client-index 1 needs --clients"},
		{"clients without index", []string{"ycsb", "--clients", "3"}, "--clients 3 needs --client-index"},
		{"zero clients", []string{"ycsb", "--clients", "0", "--client-index", "0"}, "--clients 0: give the number of clients"},
		{"drop", []string{"ycsb", "--clients", "3", "--client-index", "1", "--drop"}, "--drop with --clients"},
		{"output style", []string{"ycsb", "--clients", "3", "--client-index", "1", "--output-style", "ycsb"}, "--clients: a split load prints stampede's own lines"},
		{"property differs", []string{"ycsb", "-p", "recordcount=3000", "-p", "fieldcount=5", "--clients", "3", "--client-index", "1"},
			"-p fieldcount=5 differs from what the other clients of this split load of ycsb recorded"},
		{"recordcount differs", []string{"ycsb", "-p", "recordcount=6000", "--clients", "3", "--client-index", "1"},
			"-p recordcount=6000 differs from what the other clients of this split load of ycsb recorded"},
		{"clients differ", []string{"ycsb", "-p", "recordcount=3000", "--clients", "4", "--client-index", "1"},
			"--clients 4 differs from what the other clients of this split load of ycsb recorded"},
		{"seed differs", []string{"ycsb", "-p", "recordcount=3000", "--clients", "3", "--client-index", "1", "--seed", "5"},
			"--seed 5 differs from what the other clients"},
		{"share loaded twice", []string{"ycsb", "-p", "recordcount=3000", "--clients", "3", "--client-index", "0"},
			"client 0 of 3's share (keys 0-999) is loaded already in database"},
		{"more clients than keys", []string{"ycsb", "-p", "recordcount=2", "--clients", "3", "--client-index", "0"}, "--clients 3 with recordcount 2"},
		{"more clients than warehouses", []string{"tpcc", "--warehouses", "2", "--clients", "3", "--client-index", "0"}, "--clients 3 with 2 warehouses"},
		{"sysbench table size differs", []string{"oltp_read_write", "--tables", "2", "--table-size", "2000", "--clients", "2", "--client-index", "1"},
			"--table-size 2000 differs from what the other clients of this split load of oltp_read_write recorded"},
		{"bulk_insert", []string{"bulk_insert", "--clients", "2", "--client-index", "1"}, "init bulk_insert cannot split its load between clients (--clients): load it from one client"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			target := db
			if strings.HasPrefix(tc.args[0], "oltp") || tc.args[0] == "bulk_insert" {
				target = sdb
			}
			args := append([]string{"init"}, tc.args...)
			r := stampede(t, append(args, "--db", target, srv)...)
			checkOneLineError(t, r, 2, tc.want)
		})
	}
	if got := queryInt(t, db, "SELECT count(*) FROM usertable"); got != 1000 {
		t.Errorf("usertable holds %d rows after the refusals, want share 0's 1000", got)
	}
}

// TestSplitLoadSysbench: sysbench's tables split between clients, whole
// tables each (3 tables, 3 clients) or every table's ids (1 table, 2
// clients): every table holds ids 1..table_size once, with its secondary
// index, and sysbench's check passes.
func TestSplitLoadSysbench(t *testing.T) {
	t.Parallel()
	srv := testServer(t)
	for _, tc := range []struct {
		tables, clients int
		share0          string
	}{
		{3, 3, "table sbtest1"},
		{4, 2, "tables sbtest1-sbtest2"},
		{1, 2, "ids 1-2000 of every table"},
	} {
		t.Run(fmt.Sprintf("tables=%d/clients=%d", tc.tables, tc.clients), func(t *testing.T) {
			db := freshDB(t, "split_sb")
			args := []string{"oltp_read_write", "--tables", strconv.Itoa(tc.tables), "--table-size", "4000"}
			res := splitInit(t, srv, db, tc.clients, args...)
			if !strings.Contains(res[0].stderr, "("+tc.share0+")") {
				t.Errorf("client 0 does not name its share %q:\n%s", tc.share0, res[0].stderr)
			}
			for n := 1; n <= tc.tables; n++ {
				tab := fmt.Sprintf("sbtest%d", n)
				for _, q := range []struct {
					sql  string
					want int64
				}{
					{"SELECT count(*) FROM " + tab, 4000},
					{"SELECT count(DISTINCT id) FROM " + tab, 4000},
					{"SELECT min(id) FROM " + tab, 1},
					{"SELECT max(id) FROM " + tab, 4000},
					{"SELECT count(*) FROM pg_indexes WHERE tablename = '" + tab + "' AND indexname = 'k_" + strconv.Itoa(n) + "'", 1},
				} {
					if got := queryInt(t, db, q.sql); got != q.want {
						t.Errorf("%s = %d, want %d", q.sql, got, q.want)
					}
				}
			}
			if r := stampede(t, append([]string{"check"}, append(args, "--db", db, srv)...)...); r.code != 0 {
				t.Errorf("check: exit %d\n%s%s", r.code, r.stdout, r.stderr)
			}
		})
	}
}

// TestSplitLoadTPCC: 4 warehouses loaded by 2 clients at once (warehouses
// 1-2 and 3-4, as run --clients splits them) hold every warehouse's rows
// once and pass `check tpcc`; a run refuses the data while a share is
// missing.
func TestSplitLoadTPCC(t *testing.T) {
	if testing.Short() {
		t.Skip("loads 4 warehouses")
	}
	t.Parallel()
	srv := testServer(t)
	db := freshDB(t, "split_tpcc")
	splitInit(t, srv, db, 2, "tpcc", "--warehouses", "4", "--seed", "11")
	for _, q := range []struct {
		sql  string
		want int64
	}{
		{"SELECT count(*) FROM warehouse", 4},
		{"SELECT count(DISTINCT d_w_id) FROM district", 4},
		{"SELECT count(*) FROM district", 40},
		{"SELECT count(*) FROM customer", 120000},
		{"SELECT count(*) FROM stock", 400000},
		{"SELECT count(*) FROM item", 100000},
		{"SELECT count(*) FROM tpcc_meta", 1},
		{"SELECT count(*) FROM pg_indexes WHERE tablename IN ('customer', 'order') AND indexname NOT LIKE '%pkey'", 2},
	} {
		if got := queryInt(t, db, q.sql); got != q.want {
			t.Errorf("%s = %d, want %d", q.sql, got, q.want)
		}
	}
	if r := stampede(t, "check", "tpcc", "--db", db, srv); r.code != 0 || strings.Contains(r.stdout, "FAIL") {
		t.Fatalf("check tpcc: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// TestSplitLoadBank: bank's accounts from 2 clients: ids 0..rows-1 once
// each, the total balance bank's check expects.
func TestSplitLoadBank(t *testing.T) {
	t.Parallel()
	srv := testServer(t)
	db := freshDB(t, "split_bank")
	splitInit(t, srv, db, 2, "bank", "--rows", "5000")
	for _, q := range []struct {
		sql  string
		want int64
	}{
		{"SELECT count(DISTINCT id) FROM bank", 5000},
		{"SELECT min(id) FROM bank", 0},
		{"SELECT max(id) FROM bank", 4999},
	} {
		if got := queryInt(t, db, q.sql); got != q.want {
			t.Errorf("%s = %d, want %d", q.sql, got, q.want)
		}
	}
	if r := stampede(t, "check", "bank", "--db", db, srv); r.code != 0 {
		t.Fatalf("check bank: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	// With share 0 missing, run and check refuse, naming its accounts.
	half := freshDB(t, "split_bankhalf")
	if r := stampede(t, "init", "bank", "--rows", "5000", "--clients", "2", "--client-index", "1", "--db", half, srv); r.code != 0 {
		t.Fatalf("share 1: %s", r.stderr)
	}
	// The share missing is the ids below those loaded, and the rows
	// loaded are the others (whole batches of 1,000: 2 of 5, then 3).
	lo, hi, n := queryInt(t, half, "SELECT min(id) FROM bank"), queryInt(t, half, "SELECT max(id) FROM bank"), queryInt(t, half, "SELECT count(DISTINCT id) FROM bank")
	if lo != 2000 || hi != 4999 || n != 3000 {
		t.Errorf("share 1 loaded ids %d-%d (%d), want 2000-4999", lo, hi, n)
	}
	for _, verb := range []string{"run", "check"} {
		args := []string{verb, "bank", "--db", half, srv}
		if verb == "run" {
			args = []string{verb, "bank", "--max-ops", "10", "--db", half, srv}
		}
		checkOneLineError(t, stampede(t, args...), 2,
			fmt.Sprintf("client 0 of 2's share (ids 0-%d) is not loaded into database \"%s\": run stampede init bank --clients 2 --client-index 0 --rows 5000 URL", lo-1, half))
	}
}

// TestGenK8sInit: the pods of the Job `gen k8s --init` writes, their
// command lines run as the kubelet would (the completion index
// substituted), load the data between them: the load is complete with
// every key once. A run command line, --drop and --start-at are refused
// with --init.
func TestGenK8sInit(t *testing.T) {
	t.Parallel()
	srv := testServer(t)
	db := freshDB(t, "split_k8s")
	r := stampede(t, "gen", "k8s", "--init", "--clients", "3", "--image", "img", "--name", "load", "-o", "-",
		"--", "init", "ycsb", "-p", "recordcount=3000", "--db", db, srv)
	if r.code != 0 {
		t.Fatalf("gen k8s --init: exit %d\n%s", r.code, r.stderr)
	}
	var job struct {
		Spec struct {
			Completions int `json:"completions"`
			Template    struct {
				Spec struct {
					Containers []struct {
						Args []string `json:"args"`
					} `json:"containers"`
				} `json:"spec"`
			} `json:"template"`
		} `json:"spec"`
	}
	if err := yaml.Unmarshal([]byte(r.stdout), &job); err != nil {
		t.Fatal(err)
	}
	args := job.Spec.Template.Spec.Containers[0].Args
	var wg sync.WaitGroup
	res := make([]result, job.Spec.Completions)
	for i := range job.Spec.Completions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			pod := make([]string, len(args))
			for k, a := range args {
				pod[k] = strings.ReplaceAll(a, "$(JOB_COMPLETION_INDEX)", strconv.Itoa(i))
			}
			res[i] = stampede(t, pod...)
		}()
	}
	wg.Wait()
	for i, r := range res {
		if r.code != 0 {
			t.Fatalf("pod %d: exit %d\n%s", i, r.code, r.stderr)
		}
	}
	if got := queryInt(t, db, "SELECT count(DISTINCT ycsb_key) FROM usertable"); got != 3000 {
		t.Errorf("%d distinct keys, want 3000", got)
	}
	if r := stampede(t, "check", "ycsb", "--db", db, srv); r.code != 0 {
		t.Errorf("check after the Job's pods: exit %d\n%s", r.code, r.stderr)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--", "run", "ycsb", "u"}, "with --init, the clients' command line after -- is `init WORKLOAD"},
		{[]string{"--", "init", "ycsb", "--drop", "u"}, "--drop in a split load's command line"},
		{[]string{"--start-at", "next:1m", "--", "init", "ycsb", "u"}, "--init writes a load's Job"},
	} {
		a := append([]string{"gen", "k8s", "--init", "--clients", "3", "--image", "img", "-o", "-"}, tc.args...)
		checkOneLineError(t, stampede(t, a...), 2, tc.want)
	}
}
