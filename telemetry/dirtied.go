package telemetry

import (
	"fmt"
	"strings"
)

// DirtiedNote says, in one line, when a watched process group's write
// figure (pidstat -d's kB_wr/s: the bytes the process dirtied, as the
// kernel charges them) is above what all the disks wrote (their wkB/s
// summed), procs and disks being rates over the same seconds; "" when
// none is. The kernel charges a whole page-cache folio each time a
// process dirties a clean one (mm/page-writeback.c,
// folio_account_dirtied: task_io_account_write(folio_nr_pages x
// PAGE_SIZE)), so with large folios PostgreSQL's WAL (an 8 KiB write,
// then fdatasync, which cleans the folio) is charged up to 2 MiB a commit.
func DirtiedNote(procs []ProcGroup, disks []Disk) string {
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
func DirtiedSummaryNote(sum Summary) string {
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
