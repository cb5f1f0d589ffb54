package promexport_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/stampede-bench/stampede/promexport"
)

// TestMetricsParse serves a snapshot and parses /metrics with the
// Prometheus text parser.
func TestMetricsParse(t *testing.T) {
	e := promexport.New("ycsb")
	srv, err := promexport.Serve("127.0.0.1:0", e)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	buckets := make([]uint64, len(promexport.Buckets))
	for i := range buckets {
		buckets[i] = uint64(min(10*(i+1), 100))
	}
	e.Update(promexport.Snapshot{
		Ops:        []promexport.Op{{Name: "read", Count: 100, Errors: 2, Buckets: buckets, SumSeconds: 0.5}},
		Reconnects: 3,
	})
	resp, err := http.Get("http://" + srv.Addr() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	parser := expfmt.NewTextParser(model.LegacyValidation)
	families, err := parser.TextToMetricFamilies(strings.NewReader(string(body)))
	if err != nil {
		t.Fatalf("not valid exposition text: %v\n%s", err, body)
	}
	ops := families["stampede_operations_total"]
	if ops == nil || ops.Metric[0].GetCounter().GetValue() != 100 {
		t.Fatalf("operations: %v", ops)
	}
	labels := map[string]string{}
	for _, l := range ops.Metric[0].Label {
		labels[l.GetName()] = l.GetValue()
	}
	if labels["workload"] != "ycsb" || labels["op"] != "read" {
		t.Errorf("labels %v", labels)
	}
	h := families["stampede_latency_seconds"].Metric[0].GetHistogram()
	if h.GetSampleCount() != 100 || h.GetSampleSum() != 0.5 || len(h.Bucket) < len(promexport.Buckets) {
		t.Errorf("histogram %v", h)
	}
	if families["stampede_errors_total"].Metric[0].GetCounter().GetValue() != 2 ||
		families["stampede_reconnects_total"].Metric[0].GetCounter().GetValue() != 3 {
		t.Errorf("errors or reconnects wrong:\n%s", body)
	}
}
