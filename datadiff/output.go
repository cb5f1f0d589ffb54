package datadiff

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
)

// WriteJSON writes res as one indented JSON object.
func WriteJSON(w io.Writer, res *Result) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(res)
}

// WriteText writes res for people: the two sides, a line per table, the
// rows that differ, the shapes that differ, and a verdict.
func WriteText(w io.Writer, res *Result) error {
	var b strings.Builder
	fmt.Fprintf(&b, "A: %s (%s)\nB: %s (%s)\n", res.A.Where, version(res.A), res.B.Where, version(res.B))
	snap := res.A.Snapshot
	if res.B.Snapshot != snap {
		snap = "A " + res.A.Snapshot + ", B " + res.B.Snapshot
	}
	fmt.Fprintf(&b, "each side read at one instant (%s), on %d connections\n\n", snap, res.Conns)
	// Numbers right-aligned; the names, padded by hand, and the status,
	// trailing text, left-aligned.
	width := len("table")
	for _, t := range res.Tables {
		width = max(width, len(t.Table))
	}
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "%-*s\trows A\trows B\tranges\tdiffering ranges\tdiffering rows\ttime\t  status\n", width, "table")
	for _, t := range res.Tables {
		status := t.Status
		switch {
		case t.Missing != "":
			status = "missing on " + t.Missing
		case t.FullRow && t.Status == "differs":
			status = "differs (no primary key: rows not located)"
		case t.Unlocated > 0:
			status = fmt.Sprintf("differs (%d more %s not searched: --max-rows)", t.Unlocated, plural(t.Unlocated, "range", "ranges"))
		case t.Status == NoKey:
			status = "not compared: no primary key (--no-pk compares it by one checksum of all its rows)"
		}
		if t.Status == "missing" || t.Status == "shape" || t.Status == NoKey {
			fmt.Fprintf(tw, "%-*s\t-\t-\t-\t-\t-\t-\t  %s\n", width, t.Table, status)
			continue
		}
		fmt.Fprintf(tw, "%-*s\t%s\t%s\t%d\t%d\t%d\t%.2fs\t  %s\n", width, t.Table, thousands(t.RowsA), thousands(t.RowsB),
			t.Ranges, t.DifferingRanges, t.DifferingRows, t.Seconds, status)
	}
	if err := tw.Flush(); err != nil {
		return err
	}

	if len(res.Rows) > 0 {
		b.WriteString("\nrows that differ:\n")
		for _, r := range res.Rows {
			fmt.Fprintf(&b, "  %s (%s): %s\n", r.Table, keyText(r.Key), rowText(r))
		}
	}
	var shapes []string
	for _, t := range res.Tables {
		for _, s := range t.Shape {
			shapes = append(shapes, t.Table+": "+s)
		}
		for _, s := range t.Notes {
			shapes = append(shapes, t.Table+": "+s)
		}
	}
	if len(shapes) > 0 {
		b.WriteString("\nshapes:\n")
		for _, s := range shapes {
			b.WriteString("  " + s + "\n")
		}
	}
	for _, n := range res.Notes {
		b.WriteString("note: " + n + "\n")
	}
	b.WriteString("\n" + Verdict(res) + "\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// Verdict is the diff's outcome in one line. Its counts are those of the
// per-table lines: the tables that differ (every status but identical
// and not compared), and of those, how many differ by rows (with how
// many rows, as their "differing rows" add up), by one checksum of
// all their rows (no primary key: rows not located), by ranges whose
// rows were not searched (--max-rows) or no longer found (--converge),
// in shape, or by being missing on a side.
func Verdict(res *Result) string {
	var rows int64
	var c verdictCounts
	var keyless []string
	for _, t := range res.Tables {
		rows += max(t.RowsA, t.RowsB)
		switch {
		case t.Status == "identical":
		case t.Status == NoKey:
			keyless = append(keyless, t.Table)
		case t.Status == "missing":
			c.missing[sideIndex(t.Missing)]++
		case t.Status == "shape":
			c.shape++
		case t.DifferingRows > 0:
			c.rowTables++
			c.rows += t.DifferingRows
		case t.FullRow:
			c.checksum++
		case t.Unlocated > 0:
			c.unsearched++
		default:
			c.unlocated++
		}
	}
	notCompared := ""
	if len(keyless) > 0 {
		notCompared = fmt.Sprintf("; not compared: %s (no primary key: --no-pk compares %s by one checksum)", strings.Join(keyless, ", "), plural(len(keyless), "it", "them"))
	}
	conv := ""
	if cv := res.Converge; cv != nil {
		switch {
		case cv.Ranges == 0:
			conv = "; nothing to converge"
		case cv.Converged:
			conv = fmt.Sprintf("; converged after %.2fs (to within %.2fs, %d checks): the replication lag", cv.After, cv.Resolution, cv.Checks)
		default:
			conv = fmt.Sprintf("; did not converge within %s (checked %d times)", strconv.FormatFloat(cv.Limit, 'f', -1, 64)+"s", cv.Checks)
		}
	}
	if res.Identical {
		return fmt.Sprintf("identical: %d %s, %s %s compared in %.2fs%s", len(res.Tables), plural(len(res.Tables), "table", "tables"), thousands(rows), plural(int(rows), "row", "rows"), res.Seconds, conv)
	}
	differ := c.tables()
	if differ == 0 {
		compared := len(res.Tables) - len(keyless)
		return fmt.Sprintf("not proven identical: the %d %s compared %s identical, %s %s in %.2fs%s%s", compared, plural(compared, "table", "tables"), plural(compared, "is", "are"), thousands(rows), plural(int(rows), "row", "rows"), res.Seconds, conv, notCompared)
	}
	var how []string
	if c.rowTables > 0 {
		shown := ""
		if len(res.Rows) < c.rows {
			shown = fmt.Sprintf(" (%d shown: --max-rows)", len(res.Rows))
		}
		how = append(how, fmt.Sprintf("%d by %s %s%s", c.rowTables, thousands(int64(c.rows)), plural(c.rows, "row", "rows"), shown))
	}
	for _, h := range []struct {
		n    int
		what string
	}{
		{c.checksum, "by checksum (no primary key: rows not located)"},
		{c.unsearched, "by ranges not searched (--max-rows)"},
		{c.unlocated, "by ranges whose rows were not found again"},
		{c.shape, "in shape"},
		{c.missing[0], "missing on A"},
		{c.missing[1], "missing on B"},
	} {
		if h.n > 0 {
			how = append(how, fmt.Sprintf("%d %s", h.n, h.what))
		}
	}
	return fmt.Sprintf("different: %d of %d %s %s: %s; %s rows compared in %.2fs%s%s", differ, len(res.Tables), plural(len(res.Tables), "table", "tables"),
		plural(differ, "differs", "differ"), strings.Join(how, ", "), thousands(rows), res.Seconds, conv, notCompared)
}

// verdictCounts counts the tables that differ, by how (see Verdict).
type verdictCounts struct {
	rowTables, rows                 int
	checksum, unsearched, unlocated int
	shape                           int
	missing                         [2]int // on A, on B
}

// tables is the number of tables that differ.
func (c verdictCounts) tables() int {
	return c.rowTables + c.checksum + c.unsearched + c.unlocated + c.shape + c.missing[0] + c.missing[1]
}

// sideIndex is 0 for side "A", 1 for "B".
func sideIndex(side string) int {
	if side == "A" {
		return 0
	}
	return 1
}

// version is a side's server, shortened to its name and version number.
func version(s Side) string {
	f := strings.Fields(s.Version)
	for i, w := range f {
		if strings.ContainsAny(w, "0123456789") {
			f = f[:i+1]
			break
		}
	}
	if len(f) == 0 {
		return s.Dialect
	}
	return strings.Join(f, " ")
}

// keyText prints a key as col=value, ....
func keyText(k []Value) string {
	parts := make([]string, len(k))
	for i, v := range k {
		parts[i] = v.Column + "=" + valueText(v.Value)
	}
	return strings.Join(parts, ", ")
}

// rowText says how a row differs.
func rowText(r RowDiff) string {
	switch r.Kind {
	case OnlyA:
		return "only on A"
	case OnlyB:
		return "only on B"
	}
	parts := make([]string, len(r.Columns))
	for i, c := range r.Columns {
		parts[i] = fmt.Sprintf("%s: A %s, B %s", c.Column, valueText(c.A), valueText(c.B))
	}
	return "changed " + strings.Join(parts, "; ")
}

// valueText prints a value: NULL, or quoted when it has spaces or is empty.
func valueText(v *string) string {
	if v == nil {
		return "NULL"
	}
	if *v == "" || strings.ContainsAny(*v, " \t\n,;") || len(*v) > 60 {
		s := *v
		if len(s) > 60 {
			s = s[:57] + "..."
		}
		return strconv.Quote(s)
	}
	return *v
}

// thousands prints n with thousands separators.
func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// Verdict is nil when the nodes are proven identical, else the one-line
// reason they are not: a table differs, or a table without a primary key
// was not compared.
func (r *Result) Verdict() error {
	if r.Identical {
		return nil
	}
	for _, t := range r.Tables {
		if t.Status != "identical" && t.Status != NoKey {
			return errors.New("the nodes differ")
		}
	}
	return errors.New("the nodes are not proven identical: a table without a primary key was not compared (--no-pk compares it)")
}
