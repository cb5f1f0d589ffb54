package hammerdb

import (
	"context"
	"io"
	"strings"
	"testing"
)

// TestCommandLines: each setting a script makes reaches the stampede
// command line it becomes, and the options after the script's name reach
// vurun's run only.
func TestCommandLines(t *testing.T) {
	const head = "dbset db pg\ndiset connection pg_host db1.example\ndiset connection pg_port 6543\ndiset tpcc pg_user u\ndiset tpcc pg_pass p\ndiset tpcc pg_dbase d\n"
	const url = "postgresql://u:p@db1.example:6543/d?sslmode=prefer"
	for _, tc := range []struct {
		name, src string
		opts      []string
		want      []string
	}{
		{"build defaults", "buildschema\n", nil,
			[]string{"init tpcc --profile hammerdb --warehouses 1 --concurrency 1 " + url}},
		{"build procedures and partitions", "diset tpcc pg_count_ware 200\ndiset tpcc pg_num_vu 8\ndiset tpcc pg_storedprocs true\ndiset tpcc pg_partition true\nbuildschema\n", nil,
			[]string{"init tpcc --profile hammerdb --warehouses 200 --concurrency 8 --stored-procs --partition " + url}},
		{"build ignores run options", "buildschema\n", []string{"--clients", "2", "--client-index", "1"},
			[]string{"init tpcc --profile hammerdb --warehouses 1 --concurrency 1 " + url}},
		{"run defaults", "vurun\n", nil,
			[]string{"run tpcc --profile hammerdb --warehouses 10 --concurrency 1 --ramp 2m --duration 5m " + url}},
		{"run every switch", "diset tpcc pg_storedprocs true\ndiset tpcc pg_allwarehouse true\ndiset tpcc pg_keyandthink true\ndiset tpcc pg_raiseerror true\nvuset vu 16\nvurun\n", nil,
			[]string{"run tpcc --profile hammerdb --warehouses 10 --concurrency 16 --ramp 2m --duration 5m --stored-procs --all-warehouses --key-and-think --raise-error " + url}},
		{"run vcpu", "diset tpcc pg_rampup 1\ndiset tpcc pg_duration 30\nvuset vu vcpu\nvurun\n", nil,
			[]string{"run tpcc --profile hammerdb --warehouses 10 --concurrency 4 --ramp 1m --duration 30m " + url}},
		{"run iterations", "diset tpcc pg_total_iterations 1000\nvuset vu 2\nvurun\n", nil,
			[]string{"run tpcc --profile hammerdb --warehouses 10 --concurrency 2 --ramp 2m --duration 5m --max-ops 2000 " + url}},
		{"test driver", "diset tpcc pg_driver test\ndiset tpcc pg_total_iterations 50\nvuset vu 3\nvurun\n", nil,
			[]string{"run tpcc --profile hammerdb --warehouses 10 --concurrency 3 --duration 0 --max-ops 150 " + url}},
		{"two clients", "vuset vu 4\nvurun\n", []string{"--clients", "2", "--client-index", "1", "--tag", "job=two", "--start-at", "next:1m"},
			[]string{"run tpcc --profile hammerdb --warehouses 10 --concurrency 4 --ramp 2m --duration 5m --client-index 1 --clients 2 --start-at next:1m --tag job=two " + url}},
		{"loaded script keeps its settings", "loadscript\ndiset tpcc pg_duration 9\nvurun\n", nil,
			[]string{"run tpcc --profile hammerdb --warehouses 10 --concurrency 1 --ramp 2m --duration 5m " + url}},
		{"loadscript again takes them", "loadscript\ndiset tpcc pg_duration 9\nloadscript\nvurun\n", nil,
			[]string{"run tpcc --profile hammerdb --warehouses 10 --concurrency 1 --ramp 2m --duration 9m " + url}},
		{"build then run", "diset tpcc pg_count_ware 4\ndiset tpcc pg_num_vu 2\nbuildschema\nvudestroy\nvurun\n", nil,
			[]string{"init tpcc --profile hammerdb --warehouses 4 --concurrency 2 " + url,
				"run tpcc --profile hammerdb --warehouses 10 --concurrency 3 --ramp 2m --duration 5m " + url}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts, err := parseOptions(tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			fr := &fakeRun{}
			env := Env{Stdout: io.Discard, Stderr: io.Discard, Exec: fr.exec, Server: &fakeServer{}, NumCPU: 4}
			if err := Run(context.Background(), head+tc.src, opts, env); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, l := range fr.lines {
				got = append(got, strings.Join(l, " "))
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

// TestNotes: what stampede does differently from HammerDB is said, on
// standard error, not passed over.
func TestNotes(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"diset tpcc pg_count_ware 40\nvurun\n", "pg_count_ware 40 is buildschema's: vurun runs the 10 warehouses"},
		{"loadscript\ndiset tpcc pg_rampup 1\n", "the script loaded before keeps pg_rampup 2"},
		{"tcstart\n", "no separate transaction counter"},
		{"vurun\nruntimer 600\n", "runtimer is deprecated"},
		{"vuset unique 1\n", "vuset unique shapes HammerDB's log file"},
		{"diset tpcc pg_timeprofile true\nvurun\n", "pg_timeprofile true"},
		{"diset tpcc pg_count_ware 2\nbuildschema\n", "buildschema builds all 2 warehouses"},
	} {
		var errOut strings.Builder
		fr := &fakeRun{}
		opts, _ := parseOptions([]string{"--clients", "2", "--client-index", "0"})
		env := Env{Stdout: io.Discard, Stderr: &errOut, Exec: fr.exec, Server: &fakeServer{}, NumCPU: 4}
		if err := Run(context.Background(), "dbset db pg\n"+tc.src, opts, env); err != nil {
			t.Fatalf("%q: %v", tc.src, err)
		}
		if !strings.Contains(errOut.String(), tc.want) {
			t.Errorf("%q: stderr %q does not say %q", tc.src, errOut.String(), tc.want)
		}
	}
}

// TestPrintVuconf: print vuconf as HammerDB prints it, with vuset's
// values.
func TestPrintVuconf(t *testing.T) {
	var out strings.Builder
	env := Env{Stdout: &out, Stderr: io.Discard, NumCPU: 4}
	if err := Run(context.Background(), "vuset vu 8\nvuset logtotemp 1\nvuset unique 1\nvuset timestamps 1\nprint vuconf\n", Options{}, env); err != nil {
		t.Fatal(err)
	}
	want := "Virtual Users = 8\nUser Delay(ms) = 500\nRepeat Delay(ms) = 500\nIterations = 1\nShow Output = 1\nLog Output = 1\nUnique Log Name = 1\nNo Log Buffer = 0\nLog Timestamps = 1\n"
	if out.String() != want {
		t.Errorf("got\n%s\nwant\n%s", out.String(), want)
	}
}
