package cli

import (
	"bytes"
	"context"
	"regexp"
	"testing"
)

// TestHelpListsPgbench: stampede --help lists the pgbench form among its
// commands, and `stampede pgbench --help` is still pgbench's own help.
func TestHelpListsPgbench(t *testing.T) {
	var out, errb bytes.Buffer
	if code := MainContext(context.Background(), []string{"--help"}, &out, &errb); code != 0 {
		t.Fatalf("stampede --help: exit %d: %s", code, errb.String())
	}
	if !regexp.MustCompile(`(?m)^  pgbench +Run a pgbench command line`).MatchString(out.String()) {
		t.Errorf("stampede --help does not list pgbench:\n%s", out.String())
	}
	out.Reset()
	if code := MainContext(context.Background(), []string{"pgbench", "--help"}, &out, &errb); code != 0 || !bytes.Contains(out.Bytes(), []byte("Usage:\n  stampede pgbench [OPTION]... [DBNAME]")) {
		t.Errorf("stampede pgbench --help: exit %d, not pgbench's help:\n%s", code, out.String())
	}
}
