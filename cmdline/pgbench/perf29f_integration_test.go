package pgbench_test

import (
	"fmt"
	"regexp"
	"strconv"
	"testing"
)

var reportTPS = regexp.MustCompile(`(?m)^tps = ([0-9.]+) \(without initial connection time\)$`)

// TestMomentsWithoutLog: without -l, pgbench's report's latency average
// (printed with -P) is its clients' time in transactions over the
// transactions done: in a closed loop each client is always in one, so
// the average times the tps is the number of clients, for the real
// pgbench and for stampede's (whose moments then come from the
// monotonic clock, not the log's).
func TestMomentsWithoutLog(t *testing.T) {
	srv := server(t)
	db := freshDB(t)
	const clients = 4
	for _, real := range []bool{true, false} {
		t.Run(fmt.Sprintf("real=%v", real), func(t *testing.T) {
			out, _ := tool(t, real, t.TempDir(), append(append([]string{}, srv...), "-n", "-S", "-c", strconv.Itoa(clients), "-j", "2", "-T", "3", "-P", "10", db)...)
			avg, tps := reportAverage.FindStringSubmatch(out), reportTPS.FindStringSubmatch(out)
			sd := reportStddev.FindStringSubmatch(out)
			if avg == nil || tps == nil || sd == nil {
				t.Fatalf("no latency average, stddev or tps in the report:\n%s", out)
			}
			a, _ := strconv.ParseFloat(avg[1], 64)
			r, _ := strconv.ParseFloat(tps[1], 64)
			s, _ := strconv.ParseFloat(sd[1], 64)
			busy := a * r / 1e3 // clients in a transaction, on average
			if busy < 0.85*clients || busy > 1.02*clients {
				t.Errorf("latency average %.3f ms at %.0f tps: %.2f clients in a transaction, want about %d\n%s", a, r, busy, clients, out)
			}
			if s <= 0 || s > 100*a {
				t.Errorf("latency stddev %.3f ms beside an average of %.3f ms\n%s", s, a, out)
			}
		})
	}
}
