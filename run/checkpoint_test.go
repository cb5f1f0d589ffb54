package run_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/stampede-bench/stampede/dialect"
	"github.com/stampede-bench/stampede/run"
)

// TestCheckpointStatement: PostgreSQL and servers of its SQL checkpoint
// with CHECKPOINT; CockroachDB has none, and --checkpoint is refused in
// one line, an input error.
func TestCheckpointStatement(t *testing.T) {
	for _, tc := range []struct {
		d    dialect.Dialect
		want string
		err  string
	}{
		{dialect.Postgres{}, "CHECKPOINT", ""},
		{dialect.Greenplum{}, "CHECKPOINT", ""},
		{dialect.Cockroach{}, "", "--checkpoint: the server (cockroach) has no CHECKPOINT statement; drop --checkpoint"},
	} {
		got, err := run.CheckpointStatement(tc.d)
		if tc.err != "" {
			if err == nil || !strings.HasPrefix(err.Error(), tc.err) || strings.Contains(err.Error(), "\n") || !errors.Is(err, run.ErrInput) {
				t.Errorf("%s: %q, %v; want the one-line input error %q", tc.d.Name(), got, err, tc.err)
			}
			continue
		}
		if got != tc.want || err != nil {
			t.Errorf("%s: %q, %v; want %q", tc.d.Name(), got, err, tc.want)
		}
	}
}
