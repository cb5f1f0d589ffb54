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
		if sum.CPUUnknown && (r.Kind == "cpu" || r.Unit == "cores") {
			rows = append(rows, row{r.Label, "n/a", "n/a"}) // no interval of MinCPUInterval
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
	if note := telemetry.DirtiedSummaryNote(sum); note != "" {
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

// Bytes renders a byte count with a binary multiple (telemetry.Bytes).
func Bytes(v float64) string { return telemetry.Bytes(v) }
