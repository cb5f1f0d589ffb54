package run

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/stampede-bench/stampede/engine"
	"github.com/stampede-bench/stampede/report"
	"github.com/stampede-bench/stampede/results"
	"github.com/stampede-bench/stampede/runlog"
	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// errorLog records the first maxEventsPerCode failures of each code
// (sqlx.ErrorCode: an SQLSTATE, or conn, timeout, other) and kind as
// events. The counts by code are the registry's (engine.Hooks.Classify),
// exact per interval as the errors column is.
type errorLog struct {
	mu     sync.Mutex
	counts map[string]int64 // events logged, by kind and code
	w      *runlog.Writer
	// msgs counts the failed operations by code and message, the first
	// maxMessagesPerCode distinct messages of each code; others counts
	// the rest by code.
	msgs   map[string]map[string]int64
	others map[string]int64
}

// maxMessagesPerCode bounds the distinct messages of a code the summary
// prints (a message that names its key differs at every failure).
const maxMessagesPerCode = 3

// Event kinds of errorLog's events.
const (
	eventError = "error" // an operation failed
	eventRetry = "retry" // a worker retried or ignored a failure
)

// maxEventsPerCode bounds the events log under a storm of errors.
const maxEventsPerCode = 1000

func newErrorLog(w *runlog.Writer) *errorLog {
	return &errorLog{counts: map[string]int64{}, w: w, msgs: map[string]map[string]int64{}, others: map[string]int64{}}
}

// record logs an operation that failed (the engine's Hooks.Error).
func (e *errorLog) record(worker int, op string, err error) {
	e.add(eventError, worker, op, err)
}

// retried logs a failure that a worker handled (Hooks.Handled).
func (e *errorLog) retried(worker int, op string, err error) {
	e.add(eventRetry, worker, op, err)
}

func (e *errorLog) add(kind string, worker int, op string, err error) {
	code := sqlx.ErrorCode(err)
	msg := "<nil>"
	if err != nil {
		msg = oneLine(err.Error())
	}
	e.mu.Lock()
	e.counts[kind+" "+code]++
	n := e.counts[kind+" "+code]
	if kind == eventError {
		m := e.msgs[code]
		if m == nil {
			m = map[string]int64{}
			e.msgs[code] = m
		}
		if _, ok := m[msg]; ok || len(m) < maxMessagesPerCode {
			m[msg]++
		} else {
			e.others[code]++
		}
	}
	e.mu.Unlock()
	if n <= maxEventsPerCode && e.w != nil {
		e.w.Event(runlog.Event{Time: time.Now(), Kind: kind, Op: op, Code: code, Message: fmt.Sprintf("worker %d: %s", worker, msg)})
	}
}

// codeCounts splits a tick's failure labels into failed and retried
// operations by code; nil maps when there are none.
func codeCounts(labels map[string]int64) (errs, retries map[string]int64) {
	for label, n := range labels {
		m, code := &errs, ""
		if c, ok := strings.CutPrefix(label, engine.FailedPrefix); ok {
			code = c
		} else if c, ok := strings.CutPrefix(label, engine.RetriedPrefix); ok {
			m, code = &retries, c
		} else {
			continue
		}
		if *m == nil {
			*m = map[string]int64{}
		}
		(*m)[code] += n
	}
	return errs, retries
}

// SkippedLine is the final block's line of the operations skipped under
// --skip-late (late: its value), beside ran, those that ran (done or
// failed): "skipped: N operations whose turn came more than 2ms late (89%
// of those scheduled)".
func SkippedLine(skipped, ran int64, late string) report.Extra {
	pct := 0.0
	if skipped+ran > 0 {
		pct = 100 * float64(skipped) / float64(skipped+ran)
	}
	return report.Extra{Name: results.SkippedExtra, Value: float64(skipped),
		Text: fmt.Sprintf("%d operations whose turn came more than %s late (%.0f%% of those scheduled)", skipped, late, pct)}
}

// endLineMin is the wait at a run's end below which endLine says nothing
// unless operations were abandoned: a run's last operations take that long.
const endLineMin = 100 * time.Millisecond

// endLine is the final block's line of a run's end, when it waited
// endLineMin or more for operations in flight or abandoned some: "end:
// waited 2.713 s after the run's end for operations in flight (in the
// elapsed time); 3 still running after the grace were abandoned, not
// counted".
func endLine(res engine.Result) (report.Extra, bool) {
	if res.Stop.IsZero() || !res.End.After(res.Stop) {
		return report.Extra{}, false
	}
	wait := res.End.Sub(res.Stop)
	if wait < endLineMin && res.Unfinished == 0 {
		return report.Extra{}, false
	}
	text := fmt.Sprintf("waited %.3f s after the run's end for operations in flight (in the elapsed time and its rates)", wait.Seconds())
	if res.Unfinished > 0 {
		text += fmt.Sprintf("; %d still running after the grace were abandoned with their connections, not counted", res.Unfinished)
	} else {
		text += "; none abandoned"
	}
	return report.Extra{Name: "end", Value: float64(res.Unfinished), Text: text}, true
}

// CodeExtras are the final lines of the failures by code: failed
// operations as errors_CODE, retried or ignored ones as retries_CODE.
func CodeExtras(errs, retries map[string]int64) []report.Extra {
	var out []report.Extra
	for _, code := range sortedKeys(errs) {
		out = append(out, report.Extra{Name: engine.FailedPrefix + code, Value: float64(errs[code]),
			Text: fmt.Sprintf("%d failed (%s)", errs[code], describeCode(code))})
	}
	for _, code := range sortedKeys(retries) {
		if code == workload.NotFoundCode {
			out = append(out, report.Extra{Name: code, Value: float64(retries[code]),
				Text: fmt.Sprintf("%d found no row for their key (YCSB's NOT_FOUND reads, UNEXPECTED_STATE updates and deletes): counted, not retried", retries[code])})
			continue
		}
		out = append(out, report.Extra{Name: engine.RetriedPrefix + code, Value: float64(retries[code]),
			Text: fmt.Sprintf("%d retried or ignored (%s)", retries[code], describeCode(code))})
	}
	return out
}

// describeCode names an error code of sqlx.ErrorCode for the final lines.
func describeCode(code string) string {
	switch code {
	case "conn":
		return "connection lost"
	case "timeout":
		return "timed out"
	case "other":
		return "not a server error"
	}
	if name := sqlx.SQLStateName(code); name != "" {
		return "SQLSTATE " + code + ", " + name
	}
	return "SQLSTATE " + code
}

func sortedKeys(m map[string]int64) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// oneLine flattens a message to a single line.
func oneLine(msg string) string {
	msg = strings.TrimSpace(msg)
	msg = strings.ReplaceAll(msg, "\n\t", " ")
	return strings.Join(strings.Fields(strings.ReplaceAll(msg, "\n", " ")), " ")
}

// messageExtras are the final lines of the failed operations' messages:
// each distinct message of a code once, with its count ("message_42883:
// 561 x neword: ERROR: function dbms_random(integer, integer) does not exist
// (SQLSTATE 42883)"), most frequent first, so that a run whose operations
// fail says why on screen, not only in its run log.
func (e *errorLog) messageExtras() []report.Extra {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []report.Extra
	codes := make([]string, 0, len(e.msgs))
	for code := range e.msgs {
		codes = append(codes, code)
	}
	sort.Strings(codes)
	for _, code := range codes {
		m := e.msgs[code]
		msgs := make([]string, 0, len(m))
		for msg := range m {
			msgs = append(msgs, msg)
		}
		sort.Slice(msgs, func(i, j int) bool {
			if m[msgs[i]] != m[msgs[j]] {
				return m[msgs[i]] > m[msgs[j]]
			}
			return msgs[i] < msgs[j]
		})
		name := func(i int) string { // unique: JSON's summary maps names to values
			if i == 0 {
				return "message_" + code
			}
			return fmt.Sprintf("message_%s_%d", code, i+1)
		}
		for i, msg := range msgs {
			out = append(out, report.Extra{Name: name(i), Value: float64(m[msg]), Text: fmt.Sprintf("%d x %s", m[msg], msg)})
		}
		if n := e.others[code]; n > 0 {
			out = append(out, report.Extra{Name: name(len(msgs)), Value: float64(n),
				Text: fmt.Sprintf("%d x other messages (the run log, events.ndjson, keeps the first %d failures of each code)", n, maxEventsPerCode)})
		}
	}
	return out
}
