package workload

import (
	"errors"
	"fmt"
	"strings"

	"github.com/stampede-bench/stampede/internal/lazyre"
)

// outcome finds, at the end of a refusal, what the command does instead:
// ": cleanup drops nothing", ": init leaves the database alone".
var outcome = lazyre.New(`: [^:;]*( drops nothing| alone)$`)

// RefusalError is one refusal to drop that names every problem found
// (Problems, each a refusal of its own kind: a user's tables or objects,
// columns holding data, dependents), so that what ForceDropFlag then
// drops is all that the refusal said, in one line.
type RefusalError struct {
	Problems []error
}

// Refusal returns nil without problems, the one problem alone, or a
// RefusalError naming them all.
func Refusal(problems ...error) error {
	var ps []error
	for _, p := range problems {
		if p != nil {
			ps = append(ps, p)
		}
	}
	switch len(ps) {
	case 0:
		return nil
	case 1:
		return ps[0]
	}
	return &RefusalError{Problems: ps}
}

func (e *RefusalError) Error() string {
	// A table the role may not drop, which no flag forces: said last,
	// with its own remedy beside the flag's.
	var problems []error
	var denied []string
	for _, p := range e.Problems {
		var d *DeniedError
		if errors.As(p, &d) {
			denied = append(denied, strings.TrimSuffix(d.Error(), "; "+d.Then))
			continue
		}
		problems = append(problems, p)
	}
	if len(denied) > 0 && len(problems) == 0 {
		return strings.Join(denied, "; and ") + "; nothing was dropped"
	}
	if len(denied) > 0 {
		end := ForceDropFlag + " as well"
		return fmt.Sprintf("%s; and %s, and to drop them anyway%s, add %s", refusal(problems, false), strings.Join(denied, "; and "), forceNotes(problems), end)
	}
	return refusal(problems, true)
}

// ForceNoter is a refusal whose ForceDropFlag does more than drop what it
// names (a fleet's tenant role that holds a user's objects: the flag
// drops the tenants and keeps the role). A refusal of several problems
// says the flag once, at its end, with each ForceNote beside it ("to drop
// them anyway and keep the role, add --force-drop").
type ForceNoter interface {
	// ForceNote says what else the flag does: "keep the role".
	ForceNote() string
}

// forceNotes returns " and " before each problem's ForceNote, joined.
func forceNotes(problems []error) string {
	var s string
	for _, p := range problems {
		var n ForceNoter
		if errors.As(p, &n) {
			s += " and " + n.ForceNote()
		}
	}
	return s
}

// withoutForce returns a refusal's message without its closing words on
// ForceDropFlag ("; to drop it anyway, add --force-drop", ", or to drop
// ..."), which a refusal of several problems says once, at its end.
func withoutForce(s string) string {
	if j := max(strings.LastIndex(s, "; to drop "), strings.LastIndex(s, ", or to drop ")); j > 0 {
		return s[:j]
	}
	return s
}

// refusal is Error of problems, none a *DeniedError, ending with the
// flag that forces them when end is set.
func refusal(problems []error, end bool) string {
	if len(problems) == 1 {
		return withoutForce(problems[0].Error())
	}
	parts := make([]string, len(problems))
	for i, p := range problems {
		// Each says how to drop anyway; the line says it once, at its end.
		s := withoutForce(p.Error())
		// And what the command does instead ("cleanup drops nothing"),
		// once, at the end of the last.
		if m := outcome().FindStringIndex(s); m != nil && i < len(problems)-1 {
			s = s[:m[0]]
		}
		parts[i] = s
	}
	if end {
		return fmt.Sprintf("%s; to drop them anyway%s, add %s", strings.Join(parts, "; and "), forceNotes(problems), ForceDropFlag)
	}
	return strings.Join(parts, "; and ")
}

// Unwrap returns the problems, for errors.Is and errors.As.
func (e *RefusalError) Unwrap() []error { return e.Problems }

// Is makes errors.Is(err, ErrForeign) true.
func (e *RefusalError) Is(target error) bool { return target == ErrForeign }

// RecordTableError refuses a workload whose tables include stampede's
// record of its loads (LoadRecordTable), as a table flag can name it
// (ycsb's -p table=stampede_load): init, and cleanup even with
// ForceDropFlag, would take the record of every load in the database
// for the workload's table. It is nil otherwise.
func RecordTableError(gen Generator, verb string) error {
	for _, t := range gen.Tables() {
		if t.Name == LoadRecordTable {
			return fmt.Errorf("table %s is stampede's record of the loads in the database, not a table of %s: %s never takes it for one (%s neither); give %s's table another name",
				LoadRecordTable, gen.Meta().Name, verb, ForceDropFlag, gen.Meta().Name)
		}
	}
	return nil
}
