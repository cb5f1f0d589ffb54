package run

import (
	"runtime"
	"testing"

	"github.com/stampede-bench/stampede/sqlx"
)

func TestThreadIO(t *testing.T) {
	most := threadIOWorkersPerCPU * runtime.NumCPU()
	pg := func(conns int) sqlx.Options { return sqlx.Options{Driver: sqlx.DriverPostgres, MaxConns: conns} }
	tests := []struct {
		name    string
		mode    string
		workers int
		opts    sqlx.Options
		want    bool
	}{
		{"auto, a connection each", IOAuto, 8, pg(8), 8 <= most},
		{"auto, the most workers per CPU", IOAuto, most, pg(most), true},
		{"auto, one worker too many", IOAuto, most + 1, pg(most + 1), false},
		{"auto, shared connections", IOAuto, 4, pg(2), false},
		{"auto, null driver", IOAuto, 2, sqlx.Options{Driver: sqlx.DriverNull, MaxConns: 2}, false},
		{"thread, many workers", IOThread, 1000, pg(1000), true},
		{"thread, shared connections", IOThread, 4, pg(2), true},
		{"thread, null driver", IOThread, 2, sqlx.Options{Driver: sqlx.DriverNull, MaxConns: 2}, false},
		{"poller, one worker", IOPoller, 1, pg(1), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := threadIO(tc.mode, tc.workers, tc.opts); got != tc.want {
				t.Errorf("threadIO = %v, want %v", got, tc.want)
			}
		})
	}
}
