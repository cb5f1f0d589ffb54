package sweep

import (
	"fmt"
	"testing"
)

// TestSLOLatencies: only terms on the whole run's latency are a chart's
// latency lines, in milliseconds by metric.
func TestSLOLatencies(t *testing.T) {
	for _, tc := range []struct {
		slo  string
		want string
	}{
		{"p99<=5ms", "map[p99:5]"},
		{"p50<=1ms,p99.9<=20ms,max<=1s,mean<=2ms", "map[max:1000 mean:2 p50:1 p99.9:20]"},
		{"efficiency>=85%,rate>=95%,errors<=1%", "map[]"},
		{"newOrder.p90<=5s,stockLevel.p90<=20s", "map[]"},
		{"newOrder.p90<=5s,p90<=10ms", "map[p90:10]"},
	} {
		slo, err := ParseSLO(tc.slo)
		if err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprint(slo.Latencies()); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.slo, got, tc.want)
		}
	}
}
