package report

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"
)

// YCSB writes YCSB's own output: the status lines of its StatusThread and
// the final report of its TextMeasurementsExporter, `[OVERALL],
// RunTime(ms), 10023` and one block per measurement. It is not safe for
// concurrent use.
type YCSB struct {
	W io.Writer
	// Layout is the final report's, that of one of YCSB's exporters.
	Layout YCSBLayout
	// Label leads each status line, as YCSB's -l does (with no space
	// between it and the date).
	Label string
	// GC, when set, are the client's garbage collections during the run,
	// which the final report gives after [OVERALL] as YCSB's totals of
	// its JVM's collectors.
	GC *YCSBGC
}

// YCSBGC is what the client's garbage collector did during a run: YCSB's
// [TOTAL_GCs], Count and [TOTAL_GC_TIME], Time(ms).
type YCSBGC struct {
	// Count is the number of collections.
	Count int64
	// Time is the time they took (for Go's collector, the time the
	// program was stopped for them).
	Time time.Duration
}

// YCSBLayout is the layout of YCSB's final report, that of one of its
// measurements exporters.
type YCSBLayout int

const (
	// YCSBText is TextMeasurementsExporter's: `[READ], Operations, 9570`
	// per line.
	YCSBText YCSBLayout = iota
	// YCSBJSON is JSONMeasurementsExporter's: one pretty-printed object
	// per figure, {"metric" : "READ", "measurement" : "Operations",
	// "value" : 9570}, separated by a space.
	YCSBJSON
	// YCSBJSONArray is JSONArrayMeasurementsExporter's: the same objects
	// in a JSON array.
	YCSBJSONArray
)

// YCSBMeasurement is one of YCSB's measurements (READ, Intended-READ,
// READ-FAILED): latencies in whole microseconds, as YCSB records them.
type YCSBMeasurement struct {
	// Name is the measurement's name, such as "READ".
	Name string
	// Count is the number of latencies recorded.
	Count int64
	// Mean, Min and Max summarize them (0 when there are none).
	Mean     float64
	Min, Max int64
	// Percentiles are the values at the percentiles asked for, in order.
	Percentiles []YCSBPercentile
	// Returns are the operations counted by status (`[READ], Return=OK,
	// 4985`), in order.
	Returns []YCSBReturn
	// Unmeasured leaves out the latency lines: Count operations were
	// done but not timed one by one (the rows of a load in COPY streams).
	Unmeasured bool
}

// YCSBPercentile is a measurement's latency at a percentile.
type YCSBPercentile struct {
	// Percentile is in (0, 100], such as 99.
	Percentile float64
	// Value is the latency, in microseconds.
	Value int64
}

// YCSBReturn is a count of operations with one status.
type YCSBReturn struct {
	// Status is YCSB's name of the status, such as "OK" or "NOT_FOUND".
	Status string
	// Count is the number of operations.
	Count int64
}

// Status writes one status line, as YCSB's StatusThread writes it when
// the run starts, every status.interval and when it ends:
//
//	2026-11-25 10:00:10:123 10 sec: 12345 operations; 1234.57 current ops/sec; est completion in 1 minute [READ: Count=..., Max=..., Min=..., Avg=..., 90=..., 99=..., 99.9=..., 99.99=...]
//
// at is the wall-clock time, elapsed the time since the run started, ops
// the operations done, todo those still to do (0 when the run is not
// bounded by a count, which leaves out the estimate); ms hold the
// interval's latencies, whose Percentiles must be 90, 99, 99.9 and 99.99.
func (y *YCSB) Status(at time.Time, elapsed time.Duration, ops, todo int64, current float64, ms []YCSBMeasurement) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s%s:%03d %d sec: %d operations; ", y.Label, at.Format("2006-01-02 15:04:05"), at.Nanosecond()/1e6, elapsed/time.Second, ops)
	if ops != 0 {
		b.WriteString(decimal2(current) + " current ops/sec; ")
	}
	if todo != 0 {
		// YCSB divides by the throughput since the start, in operations
		// per second of whole milliseconds, and casts to a long.
		throughput := 1000 * float64(ops) / float64(elapsed.Milliseconds())
		est := math.Ceil(float64(todo) / throughput)
		secs := int64(0)
		switch {
		case math.IsNaN(est):
		case est >= math.MaxInt64:
			secs = math.MaxInt64
		default:
			secs = int64(est)
		}
		b.WriteString("est completion in " + ycsbRemaining(secs))
	}
	for _, m := range ms {
		fmt.Fprintf(&b, "[%s: Count=%d, Max=%d, Min=%d, Avg=%s", m.Name, m.Count, m.Max, m.Min, decimal2(m.Mean))
		for _, p := range m.Percentiles {
			fmt.Fprintf(&b, ", %s=%d", strconv.FormatFloat(p.Percentile, 'f', -1, 64), p.Value)
		}
		b.WriteString("] ")
	}
	b.WriteByte('\n')
	_, err := io.WriteString(y.W, b.String())
	return err
}

// ycsbRemaining writes a number of seconds as YCSB's RemainingFormatter
// does: days and hours when there are some, minutes under a day, seconds
// only when nothing else was written ("0 second ", "12 seconds ": it
// picks the plural by the length of what it has written, the number), each
// part followed by a space.
func ycsbRemaining(seconds int64) string {
	var b strings.Builder
	part := func(n int64, one, many string) {
		unit := many
		if n == 1 {
			unit = one
		}
		fmt.Fprintf(&b, "%d %s ", n, unit)
	}
	days := seconds / 86400
	if days > 0 {
		part(days, "day", "days")
		seconds -= days * 86400
	}
	if hours := seconds / 3600; hours > 0 {
		part(hours, "hour", "hours")
		seconds -= hours * 3600
	}
	if minutes := seconds / 60; days < 1 && minutes > 0 {
		part(minutes, "minute", "minutes")
	}
	if b.Len() == 0 {
		n := strconv.FormatInt(seconds, 10)
		if len(n) == 1 {
			return n + " second "
		}
		return n + " seconds "
	}
	return b.String()
}

// Final writes YCSB's final report: the run time in milliseconds and the
// throughput of ops operations over it, then each measurement's count,
// mean, minimum, maximum and percentiles of latency in microseconds, and
// its counts by status.
func (y *YCSB) Final(runtime time.Duration, ops int64, ms []YCSBMeasurement) error {
	var entries []ycsbEntry
	runMs := runtime.Milliseconds()
	line := func(metric, measurement, value string, float bool) {
		entries = append(entries, ycsbEntry{metric, measurement, value, float})
	}
	integer := func(metric, measurement string, n int64) { line(metric, measurement, strconv.FormatInt(n, 10), false) }
	integer("OVERALL", "RunTime(ms)", runMs)
	line("OVERALL", "Throughput(ops/sec)", JavaDouble(1000*float64(ops)/float64(runMs)), true)
	if y.GC != nil {
		// YCSB's Client writes one block per JVM collector, then these
		// totals; the collectors are the JVM's, the totals the client's.
		gcMs := y.GC.Time.Milliseconds()
		integer("TOTAL_GCs", "Count", y.GC.Count)
		integer("TOTAL_GC_TIME", "Time(ms)", gcMs)
		line("TOTAL_GC_TIME_%", "Time(%)", JavaDouble(float64(gcMs)/float64(runMs)*100), true)
	}
	for _, m := range ms {
		integer(m.Name, "Operations", m.Count)
		if m.Unmeasured {
			for _, r := range m.Returns {
				integer(m.Name, "Return="+r.Status, r.Count)
			}
			continue
		}
		line(m.Name, "AverageLatency(us)", JavaDouble(m.Mean), true)
		integer(m.Name, "MinLatency(us)", m.Min)
		integer(m.Name, "MaxLatency(us)", m.Max)
		for _, p := range m.Percentiles {
			integer(m.Name, Ordinal(p.Percentile)+"PercentileLatency(us)", p.Value)
		}
		for _, r := range m.Returns {
			integer(m.Name, "Return="+r.Status, r.Count)
		}
	}
	var b strings.Builder
	switch y.Layout {
	case YCSBJSON, YCSBJSONArray:
		writeYCSBJSON(&b, entries, y.Layout == YCSBJSONArray)
	default:
		for _, e := range entries {
			fmt.Fprintf(&b, "[%s], %s, %s\n", e.metric, e.measurement, e.value)
		}
	}
	_, err := io.WriteString(y.W, b.String())
	return err
}

// ycsbEntry is one figure of YCSB's final report; value is written as
// YCSB writes it (a double as Java's Double.toString).
type ycsbEntry struct {
	metric, measurement, value string
	float                      bool
}

// writeYCSBJSON writes the entries as YCSB's JSON exporters do, through
// Jackson's DefaultPrettyPrinter: each an object whose fields are on
// lines of their own, indented by two spaces,
//
//	{
//	  "metric" : "OVERALL",
//	  "measurement" : "RunTime(ms)",
//	  "value" : 5130
//	}
//
// separated by a space (JSONMeasurementsExporter), or in an array, "[ {"
// ... "}, {" ... "} ]" (JSONArrayMeasurementsExporter), with no newline
// at the end. A double that is not a number (a run of 0 ms) is a string,
// as Jackson quotes NaN and Infinity.
func writeYCSBJSON(b *strings.Builder, entries []ycsbEntry, array bool) {
	if array {
		b.WriteString("[ ")
	}
	for i, e := range entries {
		if i > 0 {
			if array {
				b.WriteString(", ")
			} else {
				b.WriteString(" ")
			}
		}
		value := e.value
		if e.float && (strings.Contains(value, "NaN") || strings.Contains(value, "Infinity")) {
			value = strconv.Quote(value)
		}
		fmt.Fprintf(b, "{\n  \"metric\" : %s,\n  \"measurement\" : %s,\n  \"value\" : %s\n}",
			jsonString(e.metric), jsonString(e.measurement), value)
	}
	if array {
		if len(entries) > 0 {
			b.WriteString(" ")
		}
		b.WriteString("]")
	}
}

// jsonString quotes s as Jackson does: quotes and backslashes escaped,
// \b \t \f \n \r as such, other control characters as \u00XX, everything
// else as it is.
func jsonString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case strings.ContainsRune("\b\t\f\n\r", r):
			b.WriteString(map[rune]string{'\b': `\b`, '\t': `\t`, '\f': `\f`, '\n': `\n`, '\r': `\r`}[r])
		case r < 0x20:
			fmt.Fprintf(&b, "\\u%04X", r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// Ordinal names a percentile as YCSB's OneMeasurementHdrHistogram does:
// "99th", "1st", "12th", "99.9" (a fraction gets no suffix).
func Ordinal(p float64) string {
	if p != math.Trunc(p) {
		return strconv.FormatFloat(p, 'f', -1, 64)
	}
	j := int64(p)
	switch j % 100 {
	case 11, 12, 13:
		return strconv.FormatInt(j, 10) + "th"
	}
	return strconv.FormatInt(j, 10) + [...]string{"th", "st", "nd", "rd", "th", "th", "th", "th", "th", "th"}[j%10]
}

// JavaDouble formats f as Java's Double.toString does: the shortest
// decimal that reads back as f, with at least one digit after the point
// ("1000.0"), in scientific notation ("1.2345E7", "1.0E-4") below 10^-3
// and from 10^7 up.
func JavaDouble(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case f == 0:
		if math.Signbit(f) {
			return "-0.0"
		}
		return "0.0"
	}
	if a := math.Abs(f); a >= 1e-3 && a < 1e7 {
		s := strconv.FormatFloat(f, 'f', -1, 64)
		if !strings.Contains(s, ".") {
			s += ".0"
		}
		return s
	}
	s := strconv.FormatFloat(f, 'e', -1, 64) // 1.2345e+07
	mant, exp, _ := strings.Cut(s, "e")
	if !strings.Contains(mant, ".") {
		mant += ".0"
	}
	e, _ := strconv.Atoi(exp)
	return mant + "E" + strconv.Itoa(e)
}

// decimal2 formats f as Java's DecimalFormat("#.##"): at most two
// decimals, rounded half-even, without trailing zeros.
func decimal2(f float64) string {
	s := strconv.FormatFloat(math.RoundToEven(f*100)/100, 'f', 2, 64)
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}
