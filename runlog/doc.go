// Package runlog writes and reads a run's master dataset: an append-only,
// self-describing run directory holding everything stampede measured during
// one run. Reports, comparisons and exports are derived from it; nothing in
// it is derived from anything else.
//
// runlog is a leaf package: it knows nothing about SQL, workloads or the rest
// of stampede. A [Writer] is used by the process doing the run; [Open],
// [Find] and [List] are used by everything that reads runs afterwards.
// Reading never modifies a run directory.
//
// # Directory layout (format version 1)
//
// Every run lives in its own directory <root>/<run-id>/, whose name is the
// run ID (see [NewID], e.g. "20261122-103512-ycsb-3f9a"). It contains:
//
//	run.json          run metadata; written at start, replaced once at the end
//	intervals.hlog    per-interval latency histograms (HdrHistogram interval log)
//	intervals.ndjson  per-interval counters, one line per interval (the commit record)
//	events.ndjson     notable events, one JSON object per line
//	summary.json      caller-defined summary, written once when the run finishes
//	totals.json       a completed run's merged figures (results.SaveTotals), after run.json
//	series.ndjson     a completed run's chart points (results.SaveSeries), after run.json
//
// intervals.hlog, intervals.ndjson and events.ndjson are created (empty but
// for the intervals.hlog header) before run.json is first written, so a
// directory that contains run.json contains all three. They are append-only:
// bytes once written are never changed. summary.json is written once.
// run.json is the only file ever replaced, exactly once, when the run
// finishes. Both JSON documents are written atomically: to a temporary file
// in the run directory whose name starts with ".", which is fsynced, renamed
// over the final name, after which the directory is fsynced. A reader sees
// the old or the new content, never a mix; readers ignore files whose names
// start with ".". All times are RFC 3339 with nanoseconds, in UTC.
//
// # run.json
//
// One JSON object (see [RunInfo] for the fields), indented by two spaces,
// with object keys of maps (flags, tags) sorted. For example (arrays and the
// host object shown compacted here):
//
//	{
//	  "format_version": 1,
//	  "id": "20261122-103512-ycsb-3f9a",
//	  "workload": "ycsb",
//	  "command": ["stampede", "run", "ycsb", "--duration", "10m"],
//	  "flags": {"duration": "10m", "workers": "64"},
//	  "series": ["read", "update"],
//	  "stampede_version": "v0.3.0",
//	  "seed": 42,
//	  "host": {"hostname": "bench1", "os": "linux", "arch": "amd64", ...},
//	  "start": "2026-11-22T10:35:12.123456789Z",
//	  "ramp_end": "2026-11-22T10:36:12.123456789Z",
//	  "end": "2026-11-22T10:45:12.5Z",
//	  "status": "completed"
//	}
//
// status is "running" from the start until the run finishes, then one of
// "completed", "interrupted" or "failed" (with "error" holding the reason);
// end and ramp_end are only filled in at that point. A run directory whose
// status is still "running" although no process writes it any more was
// killed (kill -9, crash, power loss); its measurement files remain readable
// up to the last complete interval, and its ramp-up end, if any, is found in
// events.ndjson (a "phase" event with code "ramp_end"). A run whose
// writes failed (its disk full) but which could record its end has an
// "error" beginning with [IncompletePrefix].
//
// While a run is live, its directory also holds .reserve, 512 KiB (on a
// disk with less free, half of what was free) that Finish frees before it writes summary.json and the final run.json, so
// that a run that filled its disk can still record its end; a killed run
// leaves it behind. Run directories are created 0700 and their files
// 0600, whatever the umask.
//
// format_version is 1. Readers ignore unknown fields, so fields may be added
// within a format version; incompatible changes increment [FormatVersion],
// and [Open] refuses versions it does not know.
//
// # intervals.hlog
//
// The latency histograms, in HdrHistogram's standard interval log format
// (log format version 1.3, as written by HdrHistogram's HistogramLogWriter),
// so that HdrHistogram's own tools (HistogramLogProcessor, HistogramLogReader
// in any language) can read the file directly. It starts with this header:
//
//	#[Histogram log format version 1.3]
//	#[stampede run <run-id>: values in nanoseconds, Interval_Max in milliseconds]
//	#[StartTime: <unix seconds> (seconds since epoch), <RFC 3339 time>]
//	#[BaseTime: <unix seconds> (seconds since epoch)]
//	"StartTimestamp","Interval_Length","Interval_Max","Interval_Compressed_Histogram"
//
// StartTime and BaseTime are both the run's start time truncated to whole
// seconds. The header is followed, for each interval, by one line per series:
//
//	Tag=<series>,<start>,<length>,<max>,<histogram>
//
// where <series> is the series name (the histogram's tag), <start> is the
// interval's start in seconds after BaseTime and <length> the interval's
// length in seconds (both with millisecond precision, printed with six
// decimals), <max> is the largest recorded value in milliseconds, and
// <histogram> is the histogram in HdrHistogram's V2 compressed encoding, in
// base64: its zlib stream in stored blocks since 2026-11-30 (inflated as a
// copy; a report that merges every interval read most of its time
// inflating), at the best compression before; every reader of the format
// reads both (see intervalEncoding). The values recorded in the histograms are latencies in
// nanoseconds. A series whose histogram is empty in an interval still gets
// its line, so every interval has a line for every series the writer passed.
// Series names are non-empty and contain no commas, equals signs, white
// space or control characters.
//
// # intervals.ndjson
//
// One JSON object per line and per interval, holding what the histograms do
// not: the interval's exact bounds, each series' operation and error count,
// and optional numeric extras (for example reconnects):
//
//	{"start":"2026-11-22T10:35:12.123456789Z","end":"2026-11-22T10:35:13.123456789Z","series":{"read":{"count":9750,"errors":3},"update":{"count":250,"errors":0}},"extra":{"reconnects":1}}
//
// count is the number of operations the caller counted for the series
// (normally the histogram's total count); errors counts failed operations,
// whose latencies are not in the histogram. extra is omitted when empty.
//
// # Commit protocol and crash tolerance
//
// For each interval the writer appends all its histogram lines to
// intervals.hlog and fsyncs it, then appends the interval's line to
// intervals.ndjson and fsyncs that. The intervals.ndjson line is the
// interval's commit record: the k-th line of intervals.ndjson lists the
// series of the k-th interval, and that interval's histogram lines are the
// next len(series) histogram lines of intervals.hlog after those of intervals
// 1 to k-1, one per listed series, each with the interval's start and length.
// Readers return only committed intervals whose histogram lines are complete
// and decode. Reading stops at the first incomplete or unreadable line of
// either file, or at histogram lines that have no commit record (an interval
// that was being written when the process died); the intervals before it are
// returned together with a [*TruncatedError] describing where and why reading
// stopped.
//
// # events.ndjson
//
// One JSON object per line, in the order the events were recorded:
//
//	{"time":"2026-11-22T10:35:14.5Z","kind":"error","op":"read","code":"40001","message":"could not serialize access"}
//	{"time":"2026-11-22T10:36:12.123456789Z","kind":"phase","code":"ramp_end","message":"ramp-up finished"}
//
// kind is "error", "reconnect", "phase" or another caller-defined word; op,
// code and message are omitted when empty. Events are buffered in memory and
// appended and fsynced at every interval and when the run finishes or the
// writer is closed, so a killed process loses at most the events of its last
// interval. A truncated last line is tolerated like in intervals.ndjson.
//
// # summary.json
//
// An arbitrary JSON value supplied by the caller when the run finishes,
// indented by two spaces. It is absent while the run is running, if the run
// was killed, or if the caller supplied none.
package runlog
