package sweep

import (
	"errors"
	"strings"
	"testing"

	"github.com/stampede-bench/stampede/run"
)

// TestUnknownOps: an SLO term on an operation that is none of the run's
// series is bad input naming the workload's operations; a term on one
// without samples, or on no operation, is not.
func TestUnknownOps(t *testing.T) {
	series := []run.NamedSummary{{Name: "newOrder"}, {Name: "delivery"}, {Name: "newOrder/error"}, {Name: "newOrder.service"}, {Name: "pacer.lag"}, {Name: "read_order"}}
	for _, c := range []struct {
		slo, want string
	}{
		{"newOrder.p90<=5s", ""},
		{"delivery.p90<=5s,p99<=1s", ""},
		{"efficiency>=85%", ""},
		{"newOrdr.p90<=5s", "--slo newOrdr.p90<=5s: the workload has no operation newOrdr; its operations are newOrder, delivery, read_order"},
	} {
		slo, err := ParseSLO(c.slo)
		if err != nil {
			t.Fatalf("%s: %v", c.slo, err)
		}
		err = unknownOps(slo, series)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v, want no error", c.slo, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want) || !errors.Is(err, run.ErrInput)):
			t.Errorf("%s: %v, want bad input %q", c.slo, err, c.want)
		}
	}
	if err := unknownOps(SLO{}, nil); err != nil {
		t.Errorf("no series: %v", err)
	}
}
