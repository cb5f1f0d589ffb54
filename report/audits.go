package report

import (
	"fmt"
	"io"
	"strings"
)

// Audit is one audit of a run as the workload judged it (TPC-C's run-time
// audits, say), or one of its consistency checks. It mirrors
// workload.Audit, which report does not import; summary.json and `report
// --format json` hold it as written here.
type Audit struct {
	// Name says what is audited.
	Name string `json:"name"`
	// Required is what the audit requires ("0.9-1.1%"); "" when the name
	// says it all.
	Required string `json:"required,omitempty"`
	// Clause is the specification's clause ("2.4.1.4"), if any.
	Clause string `json:"clause,omitempty"`
	// Result is PASS, FAIL or SKIP.
	Result string `json:"result"`
	// Detail gives the figures behind the result: the value measured.
	Detail string `json:"value,omitempty"`
}

// Label is the audit as its line names it: the name, what is required
// and the clause, "New-Order rollbacks 0.9-1.1% (2.4.1.4)".
func (a Audit) Label() string {
	s := a.Name
	if a.Required != "" {
		s += " " + a.Required
	}
	if a.Clause != "" {
		s += " (" + a.Clause + ")"
	}
	return s
}

// Audits writes a block of audits, one line each, the labels padded to a
// column:
//
//	audits:
//	  PASS  New-Order rollbacks 0.9-1.1% (2.4.1.4)  1.02% of 95,210 New-Orders
//	  SKIP  remote order lines ~1% (2.4.1.5)        1 warehouse: no line can be remote
//
// It writes nothing when there are no audits.
func Audits(w io.Writer, audits []Audit) error {
	return block(w, "audits", audits, Audit.Label)
}

// Checks writes a block of consistency checks as Audits writes audits,
// each named by its clause and condition:
//
//	consistency checks:
//	  PASS  3.3.2.1 W_YTD = sum(D_YTD)  0 offending rows
//
// It writes nothing when there are no checks.
func Checks(w io.Writer, checks []Audit) error {
	return block(w, "consistency checks", checks, func(a Audit) string {
		return strings.TrimSpace(a.Clause + " " + a.Name)
	})
}

// block writes a titled block of audits, each named by name.
func block(w io.Writer, title string, audits []Audit, name func(Audit) string) error {
	if len(audits) == 0 {
		return nil
	}
	width := 0
	for _, a := range audits {
		width = max(width, len(name(a)))
	}
	var b strings.Builder
	b.WriteString("\n" + title + ":\n")
	for _, a := range audits {
		line := fmt.Sprintf("  %-4s  %-*s  %s", a.Result, width, name(a), a.Detail)
		b.WriteString(strings.TrimRight(line, " "))
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}
