package report_test

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/stampede-bench/stampede/internal/golden"
	"github.com/stampede-bench/stampede/report"
)

func TestAudits(t *testing.T) {
	var buf bytes.Buffer
	if err := report.Audits(&buf, nil); err != nil || buf.Len() != 0 {
		t.Fatalf("no audits: %q, %v", buf.String(), err)
	}
	err := report.Audits(&buf, []report.Audit{
		{Name: "newOrder p90 <= 5s (clause 5.2.5.3)", Result: "PASS", Detail: "p90 12.6ms over 4,210 transactions"},
		{Name: "New-Order rollbacks (0.9-1.1%)", Result: "SKIP", Detail: "1.05% of 4,210 New-Orders; 89,100 needed to judge"},
		{Name: "remote payments (14-16%)", Result: "FAIL", Detail: "9.80% of 20,000 Payments"},
		{Name: "no detail", Result: "PASS"},
	})
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "audits.golden"), buf.Bytes())
}
