package report

import (
	"fmt"
	"io"
	"strings"
)

// Audit is one audit of a run as the workload judged it (TPC-C's run-time
// audits, say). It mirrors workload.Audit, which report does not import.
type Audit struct {
	// Name says what is audited.
	Name string
	// Result is PASS, FAIL or SKIP.
	Result string
	// Detail gives the figures behind the result.
	Detail string
}

// Audits writes a block of audits, one line each, the names padded to a
// column:
//
//	audits:
//	  PASS  New-Order rollbacks (0.9-1.1%)  1.02% of 95,210 New-Orders
//	  SKIP  remote order lines (~1%)        1 warehouse: no remote warehouse
//
// It writes nothing when there are no audits.
func Audits(w io.Writer, audits []Audit) error {
	if len(audits) == 0 {
		return nil
	}
	width := 0
	for _, a := range audits {
		width = max(width, len(a.Name))
	}
	var b strings.Builder
	b.WriteString("\naudits:\n")
	for _, a := range audits {
		line := fmt.Sprintf("  %-4s  %-*s  %s", a.Result, width, a.Name, a.Detail)
		b.WriteString(strings.TrimRight(line, " "))
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}
