package cockroach

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/url"
	"strings"
	"testing"

	"github.com/stampede-bench/stampede/cmdline"
	"github.com/stampede-bench/stampede/internal/testdb"
	"github.com/stampede-bench/stampede/run"
	"github.com/stampede-bench/stampede/sqlx"
)

// TestPartitionsTakeTheLoad: a run given no --warehouses takes the
// warehouses init loaded (adoptLoad), and its --partitions are judged
// against those, not against the default of 1 (chk31 1c: the partitions,
// recorded as --warehouse-range, were refused against "--warehouses 1").
func TestPartitionsTakeTheLoad(t *testing.T) {
	base := testdb.URL(t)
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = ""
	server := u.String()
	name := fmt.Sprintf("crdb_part_%d", rand.Uint32())
	t.Cleanup(func() {
		admin, err := sqlx.Open(context.Background(), sqlx.Options{URLs: []string{base}, MaxConns: 1})
		if err == nil {
			_, _ = admin.Exec(context.Background(), admin.Dialect().DropDatabase(name)+" WITH (FORCE)")
			admin.Close()
		}
	})
	dir := t.TempDir()
	main := func(line string) (string, error) {
		args := append(strings.Fields(line), "--db", name, "--results-dir", dir, server)
		var stdout, stderr bytes.Buffer
		err := Main(context.Background(), args, cmdline.Env{Args: append([]string{"stampede", "workload"}, args...), Stdout: &stdout, Stderr: &stderr})
		return stderr.String(), err
	}
	if _, err := main("init tpcc --warehouses=2"); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		line string
		// want is in stderr of a run, or in the error of a refusal.
		want    []string
		refused bool
	}{
		{"run tpcc --partitions=2 --partition-affinity=1 --wait=false --workers=2 --duration=1s",
			[]string{"note: using --warehouses 2, as init (of tpcc) loaded", "the terminals of warehouse 2 of 2"}, false},
		{"run tpcc --partitions=2 --partition-affinity=0 --wait=false --workers=2 --duration=1s",
			[]string{"the terminals of warehouse 1 of 2"}, false},
		{"run tpcc --partitions=3 --partition-affinity=1 --wait=false --workers=2 --duration=1s",
			[]string{"--partitions 3 must be between 1 and --warehouses 2"}, true},
	} {
		t.Run(tc.line, func(t *testing.T) {
			stderr, err := main(tc.line)
			got := stderr
			switch {
			case tc.refused && (err == nil || !errors.Is(err, run.ErrInput)):
				t.Fatalf("%v, want an input error (exit 2)\n%s", err, stderr)
			case tc.refused:
				got = err.Error()
			case err != nil:
				t.Fatalf("%v\n%s", err, stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("lacks %q:\n%s", w, got)
				}
			}
		})
	}
}
