package cli_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"slices"
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

// TestListenerWarnings opens every listener stampede opens (a run's
// Prometheus endpoint by either flag, the cockroach form's pprof, the
// proxy's API and its listeners, serve's dashboard) on every interface and
// on loopback: each of the first warns in one line naming the flag the
// user gave and the address that keeps it to this machine (the advice
// works: the loopback cases are those addresses, and do not warn).
func TestListenerWarnings(t *testing.T) {
	testServer(t)
	t.Setenv("STAMPEDE_RESULTS_DIR", t.TempDir())
	free := func() string {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		_, port, _ := net.SplitHostPort(ln.Addr().String())
		return port
	}
	const every = " listens on every interface, without authentication: anyone who can reach this machine can "
	db := freshDB(t, "listen")
	if r := stampede(t, "workload", "init", "bank", "--rows", "10", "--db", db, u0(t)); r.code != 0 {
		t.Fatalf("workload init: %d %s", r.code, r.stderr)
	}
	run := []string{"run", "ycsb", "--driver", "null", "--duration", "300ms", "--telemetry=false"}
	pprof := []string{"workload", "run", "bank", "--rows", "10", "--duration", "300ms", "--db", db}
	upstream := strings.TrimPrefix(u0(t), "postgresql://")
	upstream = upstream[strings.Index(upstream, "@")+1:]
	upstream = strings.TrimRight(strings.Split(upstream, "?")[0], "/")
	for _, tc := range []struct {
		name string
		args func(port string) []string
		stop bool   // a server that runs until Ctrl-C
		want string // the warning, with PORT for the port; "" for none
	}{
		{"--prometheus-listen 0.0.0.0", func(p string) []string { return append(run, "--prometheus-listen", "0.0.0.0:"+p) }, false,
			"warning: --prometheus-listen 0.0.0.0:PORT" + every + "read the run's metrics; give --prometheus-listen 127.0.0.1:PORT to keep it to this machine"},
		{"--prometheus-listen :PORT", func(p string) []string { return append(run, "--prometheus-listen", ":"+p) }, false,
			"warning: --prometheus-listen :PORT" + every + "read the run's metrics; give --prometheus-listen 127.0.0.1:PORT to keep it to this machine"},
		{"--prometheus-port", func(p string) []string { return append(run, "--prometheus-port", p) }, false,
			"warning: --prometheus-port PORT" + every + "read the run's metrics; give --prometheus-listen 127.0.0.1:PORT to keep it to this machine"},
		{"--prometheus-listen loopback", func(p string) []string { return append(run, "--prometheus-listen", "127.0.0.1:"+p) }, false, ""},
		// The cockroach form has no --prometheus-listen: its
		// --prometheus-port takes host:port, and the advice names it.
		{"workload --prometheus-port", func(p string) []string { return append(pprof, "--prometheus-port", p, u0(t)) }, false,
			"warning: --prometheus-port PORT" + every + "read the run's metrics; give --prometheus-port 127.0.0.1:PORT to keep it to this machine"},
		{"workload --prometheus-port loopback", func(p string) []string { return append(pprof, "--prometheus-port", "127.0.0.1:"+p, u0(t)) }, false, ""},
		{"workload --pprofport", func(p string) []string { return append(pprof, "--pprofport", p, u0(t)) }, false,
			"warning: --pprofport PORT" + every + "read this process's memory (heap profiles, with the connection's password) and stacks; give --pprofport 127.0.0.1:PORT to keep it to this machine"},
		{"workload --pprofport loopback", func(p string) []string { return append(pprof, "--pprofport", "127.0.0.1:"+p, u0(t)) }, false, ""},
		{"proxy --api 0.0.0.0", func(p string) []string {
			return []string{"proxy", "--listen", "127.0.0.1:0", "--to", upstream, "--api", "0.0.0.0:" + p}
		}, true, "warning: --api 0.0.0.0:PORT" + every + "change the proxy's faults (take a node down); give --api 127.0.0.1:PORT to keep it to this machine"},
		{"proxy --api loopback", func(p string) []string {
			return []string{"proxy", "--listen", "127.0.0.1:0", "--to", upstream, "--api", "127.0.0.1:" + p}
		}, true, ""},
		{"proxy --listen 0.0.0.0", func(p string) []string {
			return []string{"proxy", "--listen", "0.0.0.0:" + p, "--to", upstream, "--api", "off"}
		}, true, "warning: --listen 0.0.0.0:PORT" + every + "reach " + upstream + " through it; give --listen 127.0.0.1:PORT to keep it to this machine"},
		{"serve --listen 0.0.0.0", func(p string) []string {
			return []string{"serve", "--listen", "0.0.0.0:" + p, "--results-dir", t.TempDir()}
		}, true,
			"--listen 0.0.0.0:PORT is not a loopback address: the dashboard, and the results it shows (hosts, command lines, tags), are visible to the network"},
		{"serve --listen loopback", func(p string) []string {
			return []string{"serve", "--listen", "127.0.0.1:" + p, "--results-dir", t.TempDir()}
		}, true, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			port := free()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tc.stop {
				time.AfterFunc(1500*time.Millisecond, cancel)
			}
			r := stampedeCtx(t, ctx, tc.args(port)...)
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			want := strings.ReplaceAll(tc.want, "PORT", port)
			if tc.want == "" {
				if strings.Contains(r.stderr, "without authentication") || strings.Contains(r.stderr, "not a loopback") {
					t.Errorf("a loopback listener warns: %s", r.stderr)
				}
				return
			}
			if n := strings.Count(r.stderr, want+"\n"); n != 1 {
				t.Errorf("%d warnings %q in:\n%s", n, want, r.stderr)
			}
		})
	}
	// The reload a refused run suggests carries what init loads, not the
	// run's listeners.
	mismatch := append(slices.Clone(pprof), "--rows", "20", "--prometheus-port", "127.0.0.1:"+free(), "--pprofport", "127.0.0.1:"+free(), u0(t))
	r := stampede(t, mismatch...)
	_, reload, _ := strings.Cut(r.stderr, "reload with `")
	if r.code != 2 || !strings.HasPrefix(reload, "stampede workload init bank --drop --rows=20 --db "+db) || strings.Contains(reload, "--prometheus-port") || strings.Contains(reload, "--pprofport") {
		t.Errorf("a run whose --rows differs from init's: exit %d, want 2 and a reload without the run's listeners:\n%s", r.code, r.stderr)
	}
}
