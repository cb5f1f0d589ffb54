package proxy_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/proxy"
)

func TestRate(t *testing.T) {
	tests := []struct {
		in   string
		want proxy.Rate
		str  string
	}{
		{"0", 0, "0"},
		{"500KB/s", 500_000, "500KB/s"},
		{"10MB/s", 10_000_000, "10MB/s"},
		{"10mb", 10_000_000, "10MB/s"},
		{"1.5MB/s", 1_500_000, "1500KB/s"},
		{"1MiB/s", 1 << 20, "1048576B/s"},
		{"2GB", 2e9, "2GB/s"},
		{"64k", 64_000, "64KB/s"},
		{"1234", 1234, "1234B/s"},
	}
	for _, tt := range tests {
		var r proxy.Rate
		if err := r.Set(tt.in); err != nil {
			t.Errorf("%q: %v", tt.in, err)
			continue
		}
		if r != tt.want || r.String() != tt.str {
			t.Errorf("%q: got %d %q, want %d %q", tt.in, r, r, tt.want, tt.str)
		}
	}
	for _, bad := range []string{"", "fast", "-1MB", "1TB", "MB/s"} {
		var r proxy.Rate
		if err := r.Set(bad); err == nil {
			t.Errorf("%q: no error (got %v)", bad, r)
		}
	}
}

func TestFaultsSetAndValidate(t *testing.T) {
	tests := []struct {
		kvs     []string
		want    string // Faults.String()
		wantErr string
	}{
		{nil, "none", ""},
		{[]string{"latency=30ms", "jitter=5ms"}, "latency 30ms ±5ms", ""},
		{[]string{"bandwidth=1MB/s"}, "bandwidth 1MB/s", ""},
		{[]string{"reset"}, "reset", ""},
		{[]string{"reset-after=2s", "reset-fraction=0.25"}, "reset after 2s (0.25 of connections)", ""},
		{[]string{"stall-timeout=10s"}, "stall, closing after 10s", ""},
		{[]string{"down=true", "latency=1ms"}, "down, latency 1ms", ""},
		{[]string{"latency=30"}, "", "latency=30: not a duration"},
		{[]string{"latency=1500us"}, "", "whole milliseconds"},
		{[]string{"latency=5ms", "jitter=10ms"}, "", "jitter 10ms is more than latency 5ms"},
		{[]string{"latency=-5ms"}, "", "must not be negative"},
		{[]string{"bandwidth=100B/s"}, "", "at least 1KB/s"},
		{[]string{"reset-fraction=2"}, "", "between 0 and 1"},
		{[]string{"stall=maybe"}, "", "stall=maybe: invalid syntax"},
		{[]string{"lag=5ms"}, "", `unknown fault "lag"`},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.kvs, ","), func(t *testing.T) {
			var f proxy.Faults
			var err error
			for _, kv := range tt.kvs {
				k, v, _ := strings.Cut(kv, "=")
				if err = f.Set(k, v); err != nil {
					break
				}
			}
			if err == nil {
				err = f.Validate()
			}
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if f.String() != tt.want {
				t.Errorf("got %q, want %q", f, tt.want)
			}
		})
	}
}

func TestFaultsJSON(t *testing.T) {
	f := proxy.Faults{Latency: proxy.Duration(30 * time.Millisecond), Bandwidth: 2_000_000, Reset: true, ResetFraction: 0.5}
	b, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"latency":"30ms","jitter":"0s","bandwidth":"2MB/s","reset":true,"reset_after":"0s","reset_fraction":0.5,"stall":false,"stall_timeout":"0s","down":false}`
	if string(b) != want {
		t.Errorf("got %s\nwant %s", b, want)
	}
	var back proxy.Faults
	if err := json.Unmarshal(b, &back); err != nil || back != f {
		t.Errorf("round trip: %+v, %v", back, err)
	}
	if err := json.Unmarshal([]byte(`{"bandwidth": 5000}`), &back); err != nil || back.Bandwidth != 5000 {
		t.Errorf("bandwidth as a number: %v %v", back.Bandwidth, err)
	}
	for _, bad := range []string{`{"latency": 30}`, `{"latency": "30"}`, `{"bandwidth": "fast"}`} {
		if err := json.Unmarshal([]byte(bad), &back); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

func TestParseListener(t *testing.T) {
	defaults := proxy.Faults{Latency: proxy.Duration(5 * time.Millisecond)}
	tests := []struct {
		spec    string
		want    proxy.Listener
		wantErr string
	}{
		{"127.0.0.1:6001=127.0.0.1:5432", proxy.Listener{Listen: "127.0.0.1:6001", To: "127.0.0.1:5432", Faults: defaults}, ""},
		{"6001=db:5432,name=east,latency=30ms,jitter=2ms,stall", proxy.Listener{Name: "east", Listen: "6001", To: "db:5432",
			Faults: proxy.Faults{Latency: proxy.Duration(30 * time.Millisecond), Jitter: proxy.Duration(2 * time.Millisecond), Stall: true}}, ""},
		{"127.0.0.1:6001", proxy.Listener{}, "give LISTEN=UPSTREAM"},
		{"6001=db:5432,latency=fast", proxy.Listener{}, "latency=fast: not a duration"},
		{"6001=db:5432,colour=red", proxy.Listener{}, `unknown fault "colour"`},
	}
	for _, tt := range tests {
		got, err := proxy.ParseListener(tt.spec, defaults)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%q: err %v, want %q", tt.spec, err, tt.wantErr)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("%q: got %+v, %v; want %+v", tt.spec, got, err, tt.want)
		}
	}
}

func TestCheckAPIAddr(t *testing.T) {
	tests := []struct {
		addr, wantErr string
	}{
		{"127.0.0.1:8474", ""},
		{"localhost:1", ""},
		{"[::1]:65535", ""},
		{"http://127.0.0.1:8474", ""},
		{"https://proxy.example/", ""},
		{"127.0.0.1:1x", `API address "127.0.0.1:1x": port "1x" is not a port (1-65535): give host:port, e.g. 127.0.0.1:8474`},
		{"127.0.0.1:0", `port "0" is not a port`},
		{"127.0.0.1:65536", `port "65536" is not a port`},
		{"127.0.0.1", `API address "127.0.0.1": give host:port`},
		{"ftp://host:21", `API address "ftp://host:21" is not an http:// URL`},
		{"http://", `is not an http:// URL`},
	}
	for _, tt := range tests {
		err := proxy.CheckAPIAddr(tt.addr)
		switch {
		case tt.wantErr == "" && err != nil:
			t.Errorf("%q: %v", tt.addr, err)
		case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
			t.Errorf("%q: %v, want %q", tt.addr, err, tt.wantErr)
		}
	}
}

// TestDownWarning checks that the command the warning suggests goes to the
// API the proxy was given (the checker of issue 28, F6.1: it left out a
// non-default --api, so it would have asked another proxy, or none).
func TestDownWarning(t *testing.T) {
	f := proxy.Faults{Down: true, Latency: proxy.Duration(30 * time.Millisecond)}
	for _, tc := range []struct {
		api, want string
	}{
		{proxy.DefaultAPI, "listener east is down, so its other faults (latency 30ms) do nothing until it is up again (`stampede proxy set east --down=false`)"},
		{"127.0.0.1:18474", "listener east is down, so its other faults (latency 30ms) do nothing until it is up again (`stampede proxy set --api 127.0.0.1:18474 east --down=false`)"},
		{"off", "listener east is down, and with --api off stays so: its other faults (latency 30ms) do nothing"},
	} {
		if got := proxy.DownWarning("east", f, tc.api); got != tc.want {
			t.Errorf("DownWarning(--api %s) = %q, want %q", tc.api, got, tc.want)
		}
	}
	if got := proxy.DownWarning("east", proxy.Faults{Down: true}, "127.0.0.1:18474"); got != "" {
		t.Errorf("down alone: %q, want no warning", got)
	}
}
