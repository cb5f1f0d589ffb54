package telemetry

import (
	"fmt"
	"strings"
)

// Thresholds of Bottleneck, on the run's averages.
const (
	// BusyCPUPct is the host CPU busy share (all but idle and iowait,
	// steal included: a guest's CPUs given to others) at which the CPU
	// is the limit.
	BusyCPUPct = 90
	// BusyDiskPct is a disk's %util at which it is the limit, and
	// IOWaitPct the iowait share.
	BusyDiskPct = 90
	IOWaitPct   = 20
)

// Bottleneck says in one line what limited a run, from its telemetry
// summary s and the CPU the client used on average, in cores
// (clientCores; negative when unknown): the disk when one was at least
// BusyDiskPct utilised or iowait at least IOWaitPct; else the CPU when the
// host's CPUs were at least BusyCPUPct busy, named by who used most of
// it: the server (the watched processes), the client, or other processes
// on the host (the busy cores less those two); else neither. It returns
// "" when s has no intervals, or none long enough for CPU figures
// (MinCPUInterval). No cores figure it gives exceeds the host's CPUs.
func Bottleneck(s Summary, clientCores float64) string {
	if s.Intervals == 0 || s.Cores == 0 || s.CPUUnknown {
		return ""
	}
	clientCores = min(clientCores, float64(s.Cores))
	cpu := s.CPU
	busy := 100 - cpu.Idle.Avg - cpu.IOWait.Avg
	var disk *DiskSummary
	for i := range s.Disks {
		if d := &s.Disks[i]; disk == nil || d.UtilPct.Avg > disk.UtilPct.Avg {
			disk = d
		}
	}
	diskText := "no disk"
	if disk != nil {
		diskText = fmt.Sprintf("%s %.0f%% utilised (await %.1f ms)", disk.Name, disk.UtilPct.Avg, disk.AwaitMs.Avg)
	}
	if disk != nil && disk.UtilPct.Avg >= BusyDiskPct || cpu.IOWait.Avg >= IOWaitPct {
		return fmt.Sprintf("disk: %s, iowait %.1f%% (CPUs %.1f%% busy)", diskText, cpu.IOWait.Avg, busy)
	}
	busyCores := busy / 100 * float64(s.Cores)
	var users []string
	server, watched := 0.0, len(s.Procs) > 0
	for _, g := range s.Procs {
		server += g.CPUCores.Avg
	}
	server = min(server, float64(s.Cores))
	type user struct {
		name  string
		cores float64
	}
	var who []user
	if watched {
		users = append(users, fmt.Sprintf("the server (watched) %.2f", server))
		who = append(who, user{"the server's CPU", server})
	}
	client := max(clientCores, 0)
	if clientCores >= 0 {
		users = append(users, fmt.Sprintf("this client %.2f", client))
		who = append(who, user{"the client's CPU", client})
	}
	if watched && clientCores >= 0 {
		other := max(busyCores-server-client, 0)
		users = append(users, fmt.Sprintf("other processes %.2f", other))
		who = append(who, user{"other processes' CPU (the host is shared)", other})
	}
	split := ""
	if len(users) > 0 {
		split = " (cores: " + strings.Join(users, ", ") + ")"
	}
	if busy < BusyCPUPct {
		return fmt.Sprintf("neither CPU nor disk: the host's %d CPUs %.1f%% busy%s, %s: the limit is elsewhere (round trips, locks, or the rate asked for)",
			s.Cores, busy, split, diskText)
	}
	top := user{name: "CPU"}
	if watched {
		for _, u := range who {
			if u.cores > top.cores {
				top = u
			}
		}
	} else if clientCores >= 0 && client >= busyCores/2 {
		top = who[0] // the client's, whatever the others are
	}
	advice := ""
	if !watched {
		advice = "; watch the server (--watch-pid PID or --watch-process) to tell its CPU from the others'"
	}
	return fmt.Sprintf("%s: the host's %d CPUs %.1f%% busy (steal %.1f%%)%s, %s%s",
		top.name, s.Cores, busy, cpu.Steal.Avg, split, diskText, advice)
}
