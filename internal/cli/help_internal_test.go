package cli

import (
	"bytes"
	"context"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/stampede-bench/stampede/proxy"
)

// examples is an Examples section with a stampede command line.
var examples = regexp.MustCompile(`(?s)\nExamples:\n  .*\bstampede `)

// TestEveryHelpHasExamples runs `--help` of every command (and of the
// cockroach form's verbs and workloads) and checks that it exits 0 and
// prints an Examples section, as the README promises.
func TestEveryHelpHasExamples(t *testing.T) {
	a := &app{stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}}
	var paths [][]string
	var walk func(c *cobra.Command, path []string)
	walk = func(c *cobra.Command, path []string) {
		if c.Hidden {
			return
		}
		paths = append(paths, path)
		for _, s := range c.Commands() {
			walk(s, append(append([]string{}, path...), s.Name()))
		}
	}
	walk(a.rootCmd(), nil)
	for _, verb := range []string{"init", "run", "check"} {
		paths = append(paths, []string{"workload", verb})
		for _, w := range []string{"bank", "tpcc", "ycsb"} {
			paths = append(paths, []string{"workload", verb, w})
		}
	}
	if len(paths) < 40 {
		t.Fatalf("only %d commands found", len(paths))
	}
	for _, p := range paths {
		args := append(append([]string{}, p...), "--help")
		var out, errb bytes.Buffer
		code := MainContext(context.Background(), args, &out, &errb)
		if code != 0 || errb.Len() != 0 {
			t.Errorf("stampede %s: exit %d, stderr %q", strings.Join(args, " "), code, errb.String())
			continue
		}
		if !examples.MatchString(out.String()) {
			t.Errorf("stampede %s has no Examples section:\n%s", strings.Join(args, " "), out.String())
		}
	}
}

// TestVersionFlag checks that `stampede --version` prints what `stampede
// version` prints.
func TestVersionFlag(t *testing.T) {
	var want, got, errb bytes.Buffer
	if code := MainContext(context.Background(), []string{"version"}, &want, &errb); code != 0 {
		t.Fatalf("version: exit %d %s", code, errb.String())
	}
	if code := MainContext(context.Background(), []string{"--version"}, &got, &errb); code != 0 {
		t.Fatalf("--version: exit %d %s", code, errb.String())
	}
	if got.String() != want.String() || !strings.HasPrefix(got.String(), "stampede ") {
		t.Errorf("--version printed %q, version %q", got.String(), want.String())
	}
}

// TestProxySetBadInput checks that `proxy set` of a listener the proxy
// does not have, or of faults it refuses, is bad input (exit 2, one line
// naming the listeners), and that a good one works.
func TestProxySetBadInput(t *testing.T) {
	p, err := proxy.Start([]proxy.Listener{{Name: "east", Listen: "127.0.0.1:0", To: "127.0.0.1:1"}}, func(string) {})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	srv := httptest.NewServer(p.Handler(nil))
	defer srv.Close()
	api := strings.TrimPrefix(srv.URL, "http://")
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"west"}, 2, `proxy set: the proxy at ` + api + ` has no listener "west": name one of its listeners (east)`},
		{[]string{"east", "--latency", "40ms"}, 0, "listener east:"},
	} {
		var out, errb bytes.Buffer
		args := append([]string{"proxy", "set", "--api", api}, tc.args...)
		code := MainContext(context.Background(), args, &out, &errb)
		got := errb.String() + out.String()
		if code != tc.code || !strings.Contains(got, tc.want) || strings.Count(got, "\n") != 1 {
			t.Errorf("%q: exit %d %q, want exit %d and one line with %q", tc.args, code, got, tc.code, tc.want)
		}
	}
}
