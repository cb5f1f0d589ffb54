package cli

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
		{"auto, a connection each", ioAuto, 8, pg(8), 8 <= most},
		{"auto, the most workers per CPU", ioAuto, most, pg(most), true},
		{"auto, one worker too many", ioAuto, most + 1, pg(most + 1), false},
		{"auto, shared connections", ioAuto, 4, pg(2), false},
		{"auto, null driver", ioAuto, 2, sqlx.Options{Driver: sqlx.DriverNull, MaxConns: 2}, false},
		{"thread, many workers", ioThread, 1000, pg(1000), true},
		{"thread, shared connections", ioThread, 4, pg(2), true},
		{"thread, null driver", ioThread, 2, sqlx.Options{Driver: sqlx.DriverNull, MaxConns: 2}, false},
		{"poller, one worker", ioPoller, 1, pg(1), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := &runFlags{ioMode: tc.mode, concurrency: tc.workers}
			if got := r.threadIO(tc.opts); got != tc.want {
				t.Errorf("threadIO = %v, want %v", got, tc.want)
			}
		})
	}
}
