package proxy_test

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/proxy"
)

// TestAPIOnEveryInterfaceWarns checks that the proxy warns when its
// unauthenticated API, which can take a node down, listens beyond
// loopback, and not when it listens on loopback.
func TestAPIOnEveryInterfaceWarns(t *testing.T) {
	for _, tc := range []struct {
		api  string
		warn bool
	}{{"0.0.0.0:0", true}, {":0", true}, {"127.0.0.1:0", false}} {
		specs, err := proxy.ParseListeners([]string{"127.0.0.1:0"}, "127.0.0.1:1", proxy.Faults{})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		var out, warn bytes.Buffer
		err = proxy.Run(ctx, specs, tc.api, &out, &warn)
		cancel()
		if err != nil {
			t.Fatalf("--api %s: %v", tc.api, err)
		}
		want := "warning: --api " + tc.api + " listens on every interface, without authentication: anyone who can reach this machine can change the proxy's faults (take a node down); give --api 127.0.0.1:"
		if got := strings.Contains(warn.String(), want); got != tc.warn {
			t.Errorf("--api %s: warnings %q, want the warning: %v", tc.api, warn.String(), tc.warn)
		}
	}
}
