package runlog

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// FormatVersion is the version of the run directory format written by this
// package and the only one [Open] reads. It is a constant and thus safe for
// concurrent use.
const FormatVersion = 1

// Names of the files in a run directory (see the package documentation).
// They are constants and thus safe for concurrent use.
const (
	RunFile       = "run.json"
	HlogFile      = "intervals.hlog"
	IntervalsFile = "intervals.ndjson"
	EventsFile    = "events.ndjson"
	SummaryFile   = "summary.json"
	// TelemetryFile holds one telemetry sample per line (host CPU, memory,
	// disks, network, watched processes, cgroup counters), written only by
	// runs with telemetry on.
	TelemetryFile = "telemetry.ndjson"
)

// Values of RunInfo.Status. They are constants and thus safe for concurrent
// use.
const (
	StatusRunning     = "running"
	StatusCompleted   = "completed"
	StatusInterrupted = "interrupted"
	StatusFailed      = "failed"
	// StatusKilled is what readers report for a run whose run.json says
	// "running" but whose writer is gone (killed with kill -9, crashed):
	// no process holds the lock a writer holds on intervals.hlog while it
	// runs, and the directory is not a live run's copy (LiveCopyFile).
	// It is never written to run.json.
	StatusKilled = "killed"
	// IncompletePrefix begins RunInfo.Error when a write to the run's
	// files failed during the run (its disk full, say): the run log
	// holds only part of the run, though the run itself went on.
	IncompletePrefix = "results incomplete: "
)

// RunInfo is the content of run.json: what was run, where, with which
// settings and when. A RunInfo is a plain value; as with any Go value,
// concurrent reads are safe and writes need external synchronization.
type RunInfo struct {
	// FormatVersion is the run directory format version; Create sets it to
	// FormatVersion.
	FormatVersion int `json:"format_version"`
	// ID is the run ID and the name of the run directory (see NewID).
	ID string `json:"id"`
	// Workload is the workload's name.
	Workload string `json:"workload"`
	// WorkloadVersion is the workload's own version, if it has one.
	WorkloadVersion string `json:"workload_version,omitempty"`
	// Command is the argv the run was started with, already redacted by the
	// caller.
	Command []string `json:"command"`
	// Flags are the effective workload and run flags.
	Flags map[string]string `json:"flags"`
	// Tags are free-form user labels.
	Tags map[string]string `json:"tags,omitempty"`
	// Series are the histogram series names, which are the tags of the lines
	// in intervals.hlog.
	Series []string `json:"series"`
	// Counted are the operation series the run's total counts, when the
	// workload says (a user's script counts, its statements do not);
	// empty in older runs and when every operation counts (results
	// then counts the "transaction" series alone when there is one).
	Counted []string `json:"counted,omitempty"`
	// StampedeVersion is the version of stampede that did the run.
	StampedeVersion string `json:"stampede_version"`
	// ServerVersion is the database server's version string.
	ServerVersion string `json:"server_version,omitempty"`
	// Endpoints are the database endpoints, already redacted by the caller.
	Endpoints []string `json:"endpoints,omitempty"`
	// Database is the database name.
	Database string `json:"database,omitempty"`
	// Seed is the random seed of the run.
	Seed uint64 `json:"seed"`
	// Host describes the machine stampede ran on.
	Host Host `json:"host"`
	// Start is when the run started.
	Start time.Time `json:"start"`
	// RampEnd is when the ramp-up ended; set at Finish from SetRampEnd.
	RampEnd *time.Time `json:"ramp_end,omitempty"`
	// End is when the run ended; set at Finish.
	End *time.Time `json:"end,omitempty"`
	// Status is "running", "completed", "interrupted" or "failed"; readers
	// report "killed" for a run left "running" by a process that died.
	Status string `json:"status,omitempty"`
	// Error is why the run failed or was interrupted, if known.
	Error string `json:"error,omitempty"`
	// Limits are the resource limits (cgroup CPU, memory and IO limits)
	// applied to the system under test during the run, as the limit
	// package encodes them; absent when none were.
	Limits json.RawMessage `json:"limits,omitempty"`
	// Telemetry describes what telemetry.ndjson samples (watched process
	// patterns and PIDs); absent when telemetry was off.
	Telemetry json.RawMessage `json:"telemetry,omitempty"`
}

// Host describes the machine a run was performed on. A Host is a plain
// value; as with any Go value, concurrent reads are safe and writes need
// external synchronization.
type Host struct {
	Hostname    string `json:"hostname"`
	OS          string `json:"os"`
	Arch        string `json:"arch"`
	Kernel      string `json:"kernel,omitempty"`
	GoVersion   string `json:"go_version"`
	CPUs        int    `json:"cpus"`
	MemoryBytes uint64 `json:"memory_bytes,omitempty"`
}

// HostFacts describes the current machine: host name, OS, architecture and
// Go version from the runtime, the number of CPUs usable by the process,
// and, on Linux, the kernel release from /proc/sys/kernel/osrelease and the
// total memory from /proc/meminfo. Facts that cannot be determined are left
// empty. It is safe for concurrent use.
func HostFacts() Host {
	h := Host{
		OS:        runtime.GOOS,
		Arch:      runtime.GOARCH,
		GoVersion: runtime.Version(),
		CPUs:      runtime.NumCPU(),
	}
	if name, err := os.Hostname(); err == nil {
		h.Hostname = name
	}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		h.Kernel = strings.TrimSpace(string(b))
	}
	h.MemoryBytes = memTotal("/proc/meminfo")
	return h
}

// memTotal returns MemTotal from a /proc/meminfo style file in bytes, or 0.
func memTotal(path string) uint64 {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), "MemTotal:")
		if !ok {
			continue
		}
		fields := strings.Fields(rest)
		if len(fields) == 0 {
			return 0
		}
		n, err := strconv.ParseUint(fields[0], 10, 64)
		if err != nil {
			return 0
		}
		if len(fields) > 1 && strings.EqualFold(fields[1], "kB") {
			n *= 1024
		}
		return n
	}
	return 0
}

// NewID returns a new run ID such as "20261122-103512-ycsb-3f9a": the UTC
// date and time of t to the second, the workload name (characters other than
// ASCII letters, digits, '.', '_' and '-' replaced by '-'; "run" if empty)
// and four random hex digits. IDs of different start times sort
// chronologically. It is safe for concurrent use.
func NewID(workload string, t time.Time) string {
	var b [2]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	return t.UTC().Format("20060102-150405") + "-" + sanitizeName(workload) + "-" + hex.EncodeToString(b[:])
}

func sanitizeName(s string) string {
	s = strings.Map(func(r rune) rune {
		if isIDChar(r) {
			return r
		}
		return '-'
	}, s)
	s = strings.Trim(s, "-.")
	if s == "" {
		return "run"
	}
	return s
}

func isIDChar(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-'
}

// validateID checks that id can serve as a directory name on every platform:
// ASCII letters, digits, '.', '_' and '-', starting with a letter or digit.
func validateID(id string) error {
	if id == "" {
		return fmt.Errorf("empty run id")
	}
	if len(id) > 200 {
		return fmt.Errorf("run id %q is too long (%d bytes, at most 200)", id, len(id))
	}
	for i, r := range id {
		if !isIDChar(r) || i == 0 && (r == '.' || r == '-' || r == '_') {
			return fmt.Errorf("invalid run id %q: only ASCII letters, digits, '.', '_' and '-' are allowed, starting with a letter or digit", id)
		}
	}
	return nil
}

// ValidSeriesName reports whether name can be used as a series name: it must
// be non-empty and contain no commas, equals signs, white space or control
// characters (it becomes a tag in intervals.hlog). It is safe for concurrent
// use.
func ValidSeriesName(name string) error {
	if name == "" {
		return fmt.Errorf("empty series name")
	}
	for _, r := range name {
		if r == ',' || r == '=' || unicode.IsSpace(r) || unicode.IsControl(r) || r == unicode.ReplacementChar {
			return fmt.Errorf("invalid series name %q: must not contain commas, '=', white space or control characters", name)
		}
	}
	return nil
}

// validateInfo checks the fields Create relies on.
func validateInfo(info *RunInfo) error {
	if err := validateID(info.ID); err != nil {
		return err
	}
	if info.Start.IsZero() {
		return fmt.Errorf("run %s: start time is not set", info.ID)
	}
	if info.Start.UnixMilli() < 0 {
		return fmt.Errorf("run %s: start time %s is before 1970", info.ID, info.Start)
	}
	seen := make(map[string]bool, len(info.Series))
	for _, s := range info.Series {
		if err := ValidSeriesName(s); err != nil {
			return fmt.Errorf("run %s: %w", info.ID, err)
		}
		if seen[s] {
			return fmt.Errorf("run %s: duplicate series %q", info.ID, s)
		}
		seen[s] = true
	}
	return nil
}

// normalize brings info into the canonical form it has after a round trip
// through run.json: times in UTC without monotonic clock readings, empty
// rather than nil command, flags and series, nil rather than empty tags and
// endpoints.
func normalize(info *RunInfo) {
	if info.Command == nil {
		info.Command = []string{}
	}
	if info.Flags == nil {
		info.Flags = map[string]string{}
	}
	if info.Series == nil {
		info.Series = []string{}
	}
	if len(info.Tags) == 0 {
		info.Tags = nil
	}
	if len(info.Endpoints) == 0 {
		info.Endpoints = nil
	}
	info.Start = info.Start.UTC()
	if info.RampEnd != nil {
		t := info.RampEnd.UTC()
		info.RampEnd = &t
	}
	if info.End != nil {
		t := info.End.UTC()
		info.End = &t
	}
}

// cloneInfo returns a deep copy of info.
func cloneInfo(info RunInfo) RunInfo {
	c := info
	c.Command = slices.Clone(info.Command)
	c.Flags = maps.Clone(info.Flags)
	c.Tags = maps.Clone(info.Tags)
	c.Series = slices.Clone(info.Series)
	c.Endpoints = slices.Clone(info.Endpoints)
	if info.RampEnd != nil {
		t := *info.RampEnd
		c.RampEnd = &t
	}
	if info.End != nil {
		t := *info.End
		c.End = &t
	}
	return c
}
