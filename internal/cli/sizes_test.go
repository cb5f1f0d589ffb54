package cli_test

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/internal/cli"
)

const sizeHelperEnv = "STAMPEDE_SIZE_HELPER_ARGS"

// TestSizeHelperProcess is not a test: TestHugeSizesUnderAddressLimit
// runs the test binary again with it, to run a command line as the
// stampede binary would (its own process, exit code, runtime crashes).
func TestSizeHelperProcess(t *testing.T) {
	args := os.Getenv(sizeHelperEnv)
	if args == "" {
		return
	}
	os.Exit(cli.Main(strings.Split(args, "\n"), os.Stdout, os.Stderr))
}

// TestHugeSizesUnderAddressLimit runs, under ulimit -v 4000000 as the
// user's check did, command lines whose sizes would make stampede
// allocate more than it can get. Each must be refused in one line naming
// the flag, before anything is allocated, never end in Go's fatal "out of
// memory" with a stack trace; a run of ordinary size must still work
// under the same limit.
func TestHugeSizesUnderAddressLimit(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh to set the address-space limit")
	}
	results := t.TempDir()
	null := []string{"--driver", "null", "--duration", "1s", "--results-dir", results}
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string // "" for a run that must succeed
	}{
		{"sysbench tables run", append([]string{"run", "oltp_point_select", "--tables=100000000", "--table_size=10"}, null...), 2,
			"--tables 100000000 would need about 190.7 GB of client memory (2.0 kB per table"},
		{"sysbench tables init", []string{"init", "oltp_point_select", "--tables=100000000", "--table_size=10", "postgresql://u@127.0.0.1:1/x"}, 2,
			"--tables 100000000 would need about 190.7 GB"},
		{"sysbench tables prepare", []string{"oltp_read_write", "--pgsql-host=127.0.0.1", "--pgsql-port=1", "--tables=100000000", "prepare"}, 2,
			"--tables 100000000 would need about 190.7 GB"},
		{"sysbench random points", append([]string{"run", "select_random_points", "--random_points=1000000000"}, null...), 2,
			"--random_points 1000000000 would need about 59.6 GB"},
		{"sysbench ranges", append([]string{"run", "select_random_ranges", "--number_of_ranges=100000000"}, null...), 2,
			"--number_of_ranges 100000000 would need about 11.9 GB of client memory (128 B per range of a worker's statement (2 bounds))"},
		{"ycsb fieldlength 1e12", append([]string{"run", "ycsb", "-p", "fieldlength=1000000000000"}, null...), 2,
			"fieldlength 1000000000000 would need about 18.2 TB of client memory (20 B per byte of field length: fieldcount 10, each held twice)"},
		{"ycsb fieldlength 1e8", append([]string{"run", "ycsb", "-p", "fieldlength=100000000"}, null...), 2,
			"fieldlength 100000000 would need about 1.9 GB"},
		{"ycsb fieldlength 1e7 times workers", append([]string{"run", "ycsb", "-p", "fieldlength=10000000", "--concurrency", "8"}, null...), 2,
			"--concurrency 8 would need about 1.5 GB of client memory (190.8 MB per worker, for fieldcount 10 × fieldlength 10000000)"},
		{"ycsb init fieldlength", []string{"init", "ycsb", "-p", "fieldlength=1000000000000", "postgresql://u@127.0.0.1:1/x"}, 2,
			"fieldlength 1000000000000 would need"},
		{"bank payload", []string{"init", "bank", "--payload-bytes=1000000000", "--driver", "null"}, 2,
			"--payload-bytes 1000000000 would need about 1.8 TB of client memory (2.0 kB per byte of payload: --batch-size 1000 rows, held twice)"},
		{"bank batch size", []string{"init", "bank", "--rows=1000000000", "--batch-size=1000000000", "--payload-bytes=0", "--driver", "null"}, 2,
			"--batch-size 1000000000 would need about 238.4 GB of client memory (256 B per row of a load batch)"},
		{"tpcc default workers", append([]string{"run", "tpcc", "--warehouses=1000000"}, null...), 2,
			"--concurrency 10000000 would need about 610.4 GB of client memory (64.0 kB per worker)"},
		{"fleet workers' fields", append([]string{"run", "ycsb", "--tenants", "100", "--active", "100", "-p", "fieldlength=1000000"}, null...), 2,
			"--active 100 × 1 worker per tenant = 100 would need about 1.9 GB of client memory (19.1 MB per worker, for fieldcount 10 × fieldlength 1000000)"},
		{"ordinary run", append([]string{"run", "ycsb"}, null...), 0, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command("sh", "-c", `ulimit -v 4000000 && exec "$0" "$@"`, os.Args[0], "-test.run=^TestSizeHelperProcess$")
			cmd.Env = append(os.Environ(), sizeHelperEnv+"="+strings.Join(tc.args, "\n"))
			var out, errb strings.Builder
			cmd.Stdout, cmd.Stderr = &out, &errb
			_ = cmd.Run()
			r := result{cmd.ProcessState.ExitCode(), out.String(), errb.String()}
			if strings.Contains(r.stderr, "fatal error") || strings.Contains(r.stderr, "goroutine ") {
				t.Fatalf("crashed: %s", r.stderr)
			}
			if tc.want == "" {
				if r.code != 0 {
					t.Fatalf("exit code %d under the limit: %s", r.code, r.stderr)
				}
				return
			}
			checkOneLineError(t, r, tc.code, tc.want)
		})
	}
}

// TestHugeLoadWarns checks that a load estimated above 1 TB of rows is
// said in one warning line with its size before it starts, and not
// refused (a cluster may hold it); an ordinary load gives no warning.
func TestHugeLoadWarns(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string // "" for no warning
	}{
		{[]string{"init", "ycsb", "-p", "recordcount=999999999999", "--driver", "null"},
			"warning: this load is about 930.3 TB of rows (estimated from its first batches), more than 1.0 TB"},
		{[]string{"init", "oltp_read_write", "--tables=1000", "--table_size=10000000", "--driver", "null"},
			"warning: this load is about 1.8 TB of rows"},
		{[]string{"init", "ycsb", "-p", "recordcount=1000", "--driver", "null"}, ""},
	} {
		t.Run(strings.Join(tc.args[1:3], " "), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			r := stampedeCtx(t, ctx, tc.args...)
			if tc.want == "" {
				if r.code != 0 || strings.Contains(r.stderr, "warning: this load") {
					t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
				}
				return
			}
			lines := strings.Split(r.stderr, "\n")
			if len(lines) < 2 || !strings.HasPrefix(lines[1], tc.want) {
				t.Fatalf("stderr %q: want its second line (after loading's) to begin %q", r.stderr, tc.want)
			}
		})
	}
}
