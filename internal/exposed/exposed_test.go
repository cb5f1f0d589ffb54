package exposed

import (
	"net"
	"strconv"
	"strings"
	"testing"
)

// TestWarning checks that a listener on every interface is warned about,
// naming the flag, its value and the fix, and a loopback one is not.
func TestWarning(t *testing.T) {
	for _, listen := range []string{"127.0.0.1:0", "[::1]:0", "localhost:0", "0.0.0.0:0", ":0", "[::]:0"} {
		ln, err := net.Listen("tcp", listen)
		if err != nil {
			t.Logf("%s: %v (skipped: no such interface here)", listen, err)
			continue
		}
		got := Warning("--api", listen, ln.Addr(), "change the faults")
		port := ln.Addr().(*net.TCPAddr).Port
		ln.Close()
		host, _, _ := net.SplitHostPort(listen)
		if host == "127.0.0.1" || host == "::1" || host == "localhost" {
			if got != "" {
				t.Errorf("%s: warned %q", listen, got)
			}
			continue
		}
		want := "warning: --api " + listen + " listens on every interface, without authentication: anyone who can reach this machine can change the faults; give --api 127.0.0.1:" + strconv.Itoa(port) + " to keep it to this machine"
		if got != want {
			t.Errorf("%s: warning\n %q\nwant %q", listen, got, want)
		}
	}
	if got := Warning("--api", "/tmp/x", &net.UnixAddr{Name: "/tmp/x", Net: "unix"}, "x"); got != "" {
		t.Errorf("a Unix socket: warned %q", got)
	}
	// An address of this machine other than loopback.
	got := Warning("--prometheus-listen", "192.0.2.7:9090", &net.TCPAddr{IP: net.ParseIP("192.0.2.7"), Port: 9090}, "read the run's metrics")
	if !strings.HasPrefix(got, "warning: --prometheus-listen 192.0.2.7:9090 listens on 192.0.2.7, without authentication") {
		t.Errorf("a non-loopback address: %q", got)
	}
}
