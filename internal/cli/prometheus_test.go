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

// TestPrometheusListenerWarning checks that a run warns when its metrics
// endpoint listens on every interface (--prometheus-listen 0.0.0.0:PORT,
// --prometheus-port), and not on loopback.
func TestPrometheusListenerWarning(t *testing.T) {
	free := func() string {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		_, port, _ := net.SplitHostPort(ln.Addr().String())
		return port
	}
	for _, tc := range []struct {
		flag, value func(port string) string
		warn        bool
	}{
		{func(string) string { return "--prometheus-listen" }, func(p string) string { return "0.0.0.0:" + p }, true},
		{func(string) string { return "--prometheus-port" }, func(p string) string { return p }, true},
		{func(string) string { return "--prometheus-listen" }, func(p string) string { return "127.0.0.1:" + p }, false},
	} {
		port := free()
		flag, value := tc.flag(port), tc.value(port)
		r := stampede(t, "run", "ycsb", "--driver", "null", "--duration", "300ms", "--telemetry=false", flag, value, "--results-dir", t.TempDir())
		if r.code != 0 {
			t.Fatalf("%s %s: %d %s", flag, value, r.code, r.stderr)
		}
		want := "warning: " + flag + " " + value + " listens on every interface, without authentication: anyone who can reach this machine can read the run's metrics; give --prometheus-listen 127.0.0.1:" + port + " to keep it to this machine\n"
		if got := strings.Contains(r.stderr, want); got != tc.warn {
			t.Errorf("%s %s: stderr %q, want the warning %q: %v", flag, value, r.stderr, want, tc.warn)
		}
	}
}
