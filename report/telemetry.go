package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/stampede-bench/stampede/telemetry"
)

// TelemetryLine renders one telemetry sample as a single line for the
// interval output, with sections separated by " | ": host CPU, memory, one
// section per disk (iostat -x figures; await, over reads, writes and
// discards, as sar -d's), per network interface and per watched process
// group, indented by two spaces, for example
//
//	telemetry: cpu usr 23.1% sys(excl. irq) 10.2% irq 1.5% iow 0.3% | mem 3.2G used | vda r/s 0 w/s 120 rkB/s 0 wkB/s 5120 await(r+w+discard) 2.1ms util 12% | lo rx 1.2M/s tx 1.2M/s | ^postgres: 3 procs 0.91 cores rss 210M r 0B/s dirtied 4.9M/s
//
// sys is mpstat's %sys, kernel time outside interrupts; irq, printed when
// not zero, is mpstat's %irq + %soft (iostat's %system is sys + irq).
//
// Sizes use binary multiples (1K = 1024 bytes, as free -h and iostat's kB
// do). The line has no trailing newline.
func TelemetryLine(s telemetry.Sample) string {
	var b strings.Builder
	c := s.CPU
	fmt.Fprintf(&b, "  telemetry: cpu usr %.1f%% sys(excl. irq) %.1f%%", c.User, c.System)
	if irq := c.IRQ + c.SoftIRQ; irq > 0 {
		fmt.Fprintf(&b, " irq %.1f%%", irq)
	}
	fmt.Fprintf(&b, " iow %.1f%%", c.IOWait)
	if c.Steal > 0 {
		fmt.Fprintf(&b, " stl %.1f%%", c.Steal)
	}
	fmt.Fprintf(&b, " | mem %s used", Bytes(float64(s.Memory.UsedBytes)))
	if s.Memory.SwapUsedBytes > 0 {
		fmt.Fprintf(&b, " swap %s", Bytes(float64(s.Memory.SwapUsedBytes)))
	}
	for _, d := range s.Disks {
		fmt.Fprintf(&b, " | %s r/s %.0f w/s %.0f rkB/s %.0f wkB/s %.0f await(r+w+discard) %sms util %.0f%%",
			d.Name, d.ReadsPerSec, d.WritesPerSec, d.ReadKBPerSec, d.WriteKBPerSec, FormatMs(d.AwaitMs), d.UtilPct)
	}
	for _, n := range s.Net {
		if n.RxBytesPerSec == 0 && n.TxBytesPerSec == 0 {
			continue
		}
		fmt.Fprintf(&b, " | %s rx %s/s tx %s/s", n.Name, Bytes(n.RxBytesPerSec), Bytes(n.TxBytesPerSec))
	}
	for _, g := range s.Procs {
		fmt.Fprintf(&b, " | %s: %d procs %.2f cores rss %s r %s/s dirtied %s/s",
			g.Name, g.Processes, g.CPUCores, Bytes(float64(g.RSSBytes)), Bytes(g.ReadBytesPerSec), Bytes(g.WriteBytesPerSec))
	}
	return b.String()
}

// DirtiedNote says, in one line, when a watched process group's write
// figure (pidstat -d's kB_wr/s: the bytes the process dirtied, as the
// kernel charges them) is above what all the disks wrote (their wkB/s
// summed), procs and disks being rates over the same seconds; "" when
// none is. The kernel charges a whole page-cache folio each time a
// process dirties a clean one (mm/page-writeback.c,
// folio_account_dirtied: task_io_account_write(folio_nr_pages x
// PAGE_SIZE)), so with large folios PostgreSQL's WAL (an 8 KiB write,
// then fdatasync, which cleans the folio) is charged up to 2 MiB a commit.
func DirtiedNote(procs []telemetry.ProcGroup, disks []telemetry.Disk) string {
	disk := 0.0
	for _, d := range disks {
		disk += d.WriteKBPerSec * 1024
	}
	var names []string
	var rates []float64
	for _, g := range procs {
		names, rates = append(names, g.Name), append(rates, g.WriteBytesPerSec)
	}
	return dirtiedNote(disk, names, rates)
}

// DirtiedSummaryNote is DirtiedNote over a run's averages.
func DirtiedSummaryNote(sum telemetry.Summary) string {
	disk := 0.0
	for _, d := range sum.Disks {
		disk += d.WriteKBPerSec.Avg * 1024
	}
	var names []string
	var rates []float64
	for _, g := range sum.Procs {
		names, rates = append(names, g.Name), append(rates, g.WriteBytesPerSec.Avg)
	}
	return dirtiedNote(disk, names, rates)
}

// dirtiedNote is DirtiedNote's line for the groups names writing rates,
// against disk bytes a second.
func dirtiedNote(disk float64, names []string, rates []float64) string {
	var above []string
	for i, w := range rates {
		name := names[i]
		if w > disk && w >= 1024 {
			above = append(above, fmt.Sprintf("%s dirtied %s/s", name, Bytes(w)))
		}
	}
	if len(above) == 0 {
		return ""
	}
	return fmt.Sprintf("note: %s is the kernel's per-process charge (pidstat -d's kB_wr/s: whole page-cache folios dirtied, up to 2M each), above the %s/s the disks wrote: read the disk's wkB/s for what reached storage",
		strings.Join(above, ", "), Bytes(disk))
}

// TelemetrySummary writes the averages and peaks of a run's telemetry as
// an aligned table: a header line with the number of intervals (and of the
// short ones joined to a neighbour for peaks), CPUs and memory, then one row per figure.
// The CPU rows are mpstat's (sys without irq and softirq, which iostat's
// %system includes); a disk's areq-sz and await count reads, writes and
// discards, as sar -d's do, and their rows say so.
func TelemetrySummary(w io.Writer, sum telemetry.Summary) error {
	type row struct {
		name     string
		avg, max string
	}
	var rows []row
	unused := map[string]bool{} // interfaces the run did not use
	for _, n := range sum.Net {
		unused[n.Name] = n.RxBytesPerSec.Max == 0 && n.TxBytesPerSec.Max == 0
	}
	for _, r := range sum.Rows() {
		if r.Kind == "net" && unused[r.Of] {
			continue
		}
		rows = append(rows, row{r.Label, TelemetryValue(r.Stat.Avg, r.Unit), TelemetryValue(r.Stat.Max, r.Unit)})
	}

	width := len("telemetry")
	for _, r := range rows {
		width = max(width, len(r.name))
	}
	var b strings.Builder
	short := ""
	if sum.ShortIntervals > 0 {
		short = fmt.Sprintf(" (%d short, joined to a neighbour for peaks)", sum.ShortIntervals)
	}
	fmt.Fprintf(&b, "telemetry: %d intervals%s, %d CPUs, %s memory\n", sum.Intervals, short, sum.Cores, Bytes(float64(sum.Memory.TotalBytes)))
	fmt.Fprintf(&b, "%-*s %10s %10s\n", width, "figure", "avg", "max")
	for _, r := range rows {
		fmt.Fprintf(&b, "%-*s %10s %10s\n", width, r.name, r.avg, r.max)
	}
	if note := DirtiedSummaryNote(sum); note != "" {
		b.WriteString(note + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// TelemetryValue renders a telemetry figure of unit (telemetry.Figure's)
// as the telemetry block prints it: sizes with a binary multiple (Bytes,
// "/s" after a rate), queue sizes, latencies and cores with 2 decimals,
// the rest with 1.
func TelemetryValue(v float64, unit string) string {
	switch unit {
	case "bytes":
		return Bytes(v)
	case "bytes/s":
		return Bytes(v) + "/s"
	case "requests", "ms", "cores":
		return fmt.Sprintf("%.2f", v)
	}
	return fmt.Sprintf("%.1f", v)
}

// Bytes renders a byte count with a binary multiple, as free -h does:
// "512B", "1.5K", "210M", "3.2G" (one decimal below 10, none above).
func Bytes(v float64) string {
	const units = "BKMGTPE"
	i := 0
	for v >= 1024 && i < len(units)-1 {
		v /= 1024
		i++
	}
	if i > 0 && v < 9.95 {
		return fmt.Sprintf("%.1f%c", v, units[i])
	}
	return fmt.Sprintf("%.0f%c", v, units[i])
}
