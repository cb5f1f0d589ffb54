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
//	telemetry: cpu usr 23.1% sys 10.2% irq 1.5% iow 0.3% | mem 3.2G used | vda r/s 0 w/s 120 rkB/s 0 wkB/s 5120 await 2.1ms util 12% | lo rx 1.2M/s tx 1.2M/s | ^postgres: 3 procs 0.91 cores rss 210M r 0B/s w 4.9M/s
//
// sys is mpstat's %sys, kernel time outside interrupts; irq, printed when
// not zero, is mpstat's %irq + %soft (iostat's %system is sys + irq).
//
// Sizes use binary multiples (1K = 1024 bytes, as free -h and iostat's kB
// do). The line has no trailing newline.
func TelemetryLine(s telemetry.Sample) string {
	var b strings.Builder
	c := s.CPU
	fmt.Fprintf(&b, "  telemetry: cpu usr %.1f%% sys %.1f%%", c.User, c.System)
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
		fmt.Fprintf(&b, " | %s r/s %.0f w/s %.0f rkB/s %.0f wkB/s %.0f await %sms util %.0f%%",
			d.Name, d.ReadsPerSec, d.WritesPerSec, d.ReadKBPerSec, d.WriteKBPerSec, FormatMs(d.AwaitMs), d.UtilPct)
	}
	for _, n := range s.Net {
		if n.RxBytesPerSec == 0 && n.TxBytesPerSec == 0 {
			continue
		}
		fmt.Fprintf(&b, " | %s rx %s/s tx %s/s", n.Name, Bytes(n.RxBytesPerSec), Bytes(n.TxBytesPerSec))
	}
	for _, g := range s.Procs {
		fmt.Fprintf(&b, " | %s: %d procs %.2f cores rss %s r %s/s w %s/s",
			g.Name, g.Processes, g.CPUCores, Bytes(float64(g.RSSBytes)), Bytes(g.ReadBytesPerSec), Bytes(g.WriteBytesPerSec))
	}
	return b.String()
}

// TelemetrySummary writes the averages and peaks of a run's telemetry as
// an aligned table: a header line with the number of intervals (and of the
// short ones left out of peaks), CPUs and memory, then one row per figure.
// The CPU rows are mpstat's (sys without irq and softirq, which iostat's
// %system includes); a disk's areq-sz and await count reads, writes and
// discards, as sar -d's do, and their rows say so.
func TelemetrySummary(w io.Writer, sum telemetry.Summary) error {
	type row struct {
		name     string
		avg, max string
	}
	var rows []row
	num := func(name string, s telemetry.Stat, format string) {
		rows = append(rows, row{name, fmt.Sprintf(format, s.Avg), fmt.Sprintf(format, s.Max)})
	}
	size := func(name string, s telemetry.Stat, suffix string) {
		rows = append(rows, row{name, Bytes(s.Avg) + suffix, Bytes(s.Max) + suffix})
	}
	c := sum.CPU
	for _, f := range []struct {
		name string
		s    telemetry.Stat
	}{
		{"cpu usr %", c.User}, {"cpu nice %", c.Nice}, {"cpu sys % (excl. irq, softirq)", c.System}, {"cpu iowait %", c.IOWait},
		{"cpu irq %", c.IRQ}, {"cpu softirq %", c.SoftIRQ}, {"cpu steal %", c.Steal}, {"cpu idle %", c.Idle},
	} {
		num(f.name, f.s, "%.1f")
	}
	size("mem used", sum.Memory.UsedBytes, "")
	size("mem buff/cache", sum.Memory.CacheBytes, "")
	size("swap used", sum.Memory.SwapUsedBytes, "")
	for _, d := range sum.Disks {
		num(d.Name+" r/s", d.ReadsPerSec, "%.1f")
		num(d.Name+" w/s", d.WritesPerSec, "%.1f")
		num(d.Name+" rkB/s", d.ReadKBPerSec, "%.1f")
		num(d.Name+" wkB/s", d.WriteKBPerSec, "%.1f")
		num(d.Name+" areq-sz kB (incl. discards)", d.AvgRequestKB, "%.1f")
		num(d.Name+" aqu-sz", d.AvgQueueSize, "%.2f")
		num(d.Name+" r_await ms", d.ReadAwaitMs, "%.2f")
		num(d.Name+" w_await ms", d.WriteAwaitMs, "%.2f")
		num(d.Name+" await ms (incl. discards)", d.AwaitMs, "%.2f")
		num(d.Name+" %util", d.UtilPct, "%.1f")
	}
	for _, n := range sum.Net {
		if n.RxBytesPerSec.Max == 0 && n.TxBytesPerSec.Max == 0 {
			continue // an interface the run did not use
		}
		size(n.Name+" rx", n.RxBytesPerSec, "/s")
		size(n.Name+" tx", n.TxBytesPerSec, "/s")
	}
	for _, g := range sum.Procs {
		num(g.Name+" procs", g.Processes, "%.1f")
		num(g.Name+" cores", g.CPUCores, "%.2f")
		size(g.Name+" rss", g.RSSBytes, "")
		size(g.Name+" read", g.ReadBytesPerSec, "/s")
		size(g.Name+" write", g.WriteBytesPerSec, "/s")
	}

	width := len("telemetry")
	for _, r := range rows {
		width = max(width, len(r.name))
	}
	var b strings.Builder
	short := ""
	if sum.ShortIntervals > 0 {
		short = fmt.Sprintf(" (%d short, left out of peaks)", sum.ShortIntervals)
	}
	fmt.Fprintf(&b, "telemetry: %d intervals%s, %d CPUs, %s memory\n", sum.Intervals, short, sum.Cores, Bytes(float64(sum.Memory.TotalBytes)))
	fmt.Fprintf(&b, "%-*s %10s %10s\n", width, "figure", "avg", "max")
	for _, r := range rows {
		fmt.Fprintf(&b, "%-*s %10s %10s\n", width, r.name, r.avg, r.max)
	}
	_, err := io.WriteString(w, b.String())
	return err
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
