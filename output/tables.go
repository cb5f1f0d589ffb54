package output

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/stampede-bench/stampede/report"
	"github.com/stampede-bench/stampede/results/store"
	"github.com/stampede-bench/stampede/runlog"
)

// Runs writes runs as text (one line per run) or as a JSON array; with no
// run as text it writes nothing and returns false.
func Runs(w io.Writer, rows []store.RunRow, asJSON bool) (bool, error) {
	if asJSON {
		if rows == nil {
			rows = []store.RunRow{}
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return true, enc.Encode(rows)
	}
	if len(rows) == 0 {
		return false, nil
	}
	table := [][]string{{"ID", "START (UTC)", "WORKLOAD", "STATUS", "OPS/S", "P99(MS)", "TAGS"}}
	for _, r := range rows {
		opsPerSec, p99 := "-", "-"
		if r.Intervals > 0 {
			opsPerSec, p99 = fmt.Sprintf("%.1f", r.OpsPerSec), report.FormatMs(r.P99)
		}
		status := r.Status
		if strings.Contains(r.Error, runlog.IncompletePrefix) {
			status += ", results incomplete" // its disk filled up, say
		}
		table = append(table, []string{r.ID, r.Start.UTC().Format(time.DateTime), r.Workload, status, opsPerSec, p99, formatTags(r.Tags)})
	}
	return true, writeTable(w, table, map[int]bool{4: true, 5: true})
}

// writeTable writes rows in columns two spaces apart, right-aligning the
// columns in right, and trims trailing spaces.
func writeTable(w io.Writer, rows [][]string, right map[int]bool) error {
	var widths []int
	for _, row := range rows {
		for i, cell := range row {
			if i == len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], utf8.RuneCountInString(cell))
		}
	}
	for _, row := range rows {
		var b strings.Builder
		for i, cell := range row {
			if i > 0 {
				b.WriteString("  ")
			}
			pad := strings.Repeat(" ", widths[i]-utf8.RuneCountInString(cell))
			if right[i] {
				b.WriteString(pad + cell)
			} else {
				b.WriteString(cell + pad)
			}
		}
		if _, err := fmt.Fprintln(w, strings.TrimRight(b.String(), " ")); err != nil {
			return err
		}
	}
	return nil
}

// formatTags renders tags as "k=v,k2=v2", sorted by key.
func formatTags(tags map[string]string) string {
	keys := make([]string, 0, len(tags))
	for k := range tags {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + tags[k]
	}
	return strings.Join(parts, ",")
}
