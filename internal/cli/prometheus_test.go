package cli_test

import (
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// TestPrometheusDuringRun scrapes /metrics while a null-driver run goes on
// and parses it with the Prometheus text parser.
func TestPrometheusDuringRun(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	done := make(chan result, 1)
	go func() {
		done <- stampede(t, "run", "ycsb", "--driver", "null", "--duration", "3s", "--concurrency", "2",
			"--display-every", "200ms", "--prometheus-listen", addr, "--results-dir", t.TempDir())
	}()
	var body string
	deadline := time.Now().Add(3 * time.Second)
	for time.Now().Before(deadline) {
		time.Sleep(300 * time.Millisecond)
		resp, err := http.Get("http://" + addr + "/metrics")
		if err != nil {
			continue
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if strings.Contains(string(b), "stampede_operations_total") {
			body = string(b)
			break
		}
	}
	r := <-done
	if r.code != 0 {
		t.Fatalf("run: %d %s", r.code, r.stderr)
	}
	if body == "" {
		t.Fatal("no metrics served during the run")
	}
	parser := expfmt.NewTextParser(model.LegacyValidation)
	families, err := parser.TextToMetricFamilies(strings.NewReader(body))
	if err != nil {
		t.Fatalf("not valid exposition text: %v", err)
	}
	var reads float64
	for _, m := range families["stampede_operations_total"].GetMetric() {
		for _, l := range m.GetLabel() {
			if l.GetName() == "op" && l.GetValue() == "read" {
				reads = m.GetCounter().GetValue()
			}
		}
	}
	if reads <= 0 || families["stampede_latency_seconds"] == nil {
		t.Errorf("metrics lack reads or latency:\n%s", body)
	}
}
