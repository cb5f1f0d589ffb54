package workload_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/stampede-bench/stampede/workload"
)

// TestRefusal: one problem is refused as it is; several in one line that
// names each, says the flag once, at its end, and still matches
// ErrForeign and each problem's type.
func TestRefusal(t *testing.T) {
	foreign := &workload.ForeignError{Kind: "table", Names: []string{"mine"}, Where: `database "d" on h:1`, Why: "no mark", Action: "cleanup"}
	cols := &workload.AddedColumnsError{Columns: []string{"bank.notes"}, Where: `database "d" on h:1`, Action: "cleanup"}
	deps := &workload.DependentsError{What: "table bank", Objects: []string{"view public.v"}, Action: "cleanup"}
	for _, tc := range []struct {
		name     string
		problems []error
		want     []string
	}{
		{"none", []error{nil, nil}, nil},
		{"one", []error{nil, cols}, []string{cols.Error()}},
		{"three", []error{foreign, cols, deps}, []string{"table mine", "bank.notes", "view public.v"}},
		// rechk28d: "...(a column added since init): cleanup drops nothing;
		// and 1 object ... depends on table bank (...): cleanup drops
		// nothing; ..." said it twice.
		{"columns and dependents", []error{cols, deps}, []string{cols.Error()[:strings.Index(cols.Error(), ": cleanup")] + "; and 1 object that stampede did not make depends on table bank (view public.v): cleanup drops nothing; to drop them anyway, add --force-drop"}},
		// fix28f F2: a fleet's role refusal said "or add --force-drop
		// to drop the tenants and keep the role", and the line the flag
		// again after it.
		{"a problem whose flag does more", []error{foreign, cols, roleHolds{}}, []string{
			"table mine", "bank.notes", "run `REASSIGN OWNED BY r TO postgres`, then cleanup again; to drop them anyway and keep the role, add --force-drop"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := workload.Refusal(tc.problems...)
			if tc.want == nil {
				if err != nil {
					t.Fatalf("Refusal = %v, want nil", err)
				}
				return
			}
			if err == nil {
				t.Fatal("Refusal = nil")
			}
			msg := err.Error()
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("%q does not name %q", msg, w)
				}
			}
			if strings.Count(msg, "cleanup drops nothing")+strings.Count(msg, "cleanup leaves") > 1 {
				t.Errorf("says what cleanup does instead more than once: %q", msg)
			}
			if strings.Count(msg, workload.ForceDropFlag) != 1 || !strings.HasSuffix(msg, "add "+workload.ForceDropFlag) || strings.Contains(msg, "\n") {
				t.Errorf("not one line ending with the flag once: %q", msg)
			}
			if !errors.Is(err, workload.ErrForeign) {
				t.Error("does not match ErrForeign")
			}
			var ae *workload.AddedColumnsError
			if !errors.As(err, &ae) {
				t.Error("errors.As finds no AddedColumnsError")
			}
		})
	}
}

// roleHolds is a refusal whose flag does more than drop what it names, as
// a fleet's tenant role's (fleet.RoleHoldsError).
type roleHolds struct{}

func (roleHolds) Error() string {
	return "role r owns table t, which stampede did not make: cleanup drops nothing; run `REASSIGN OWNED BY r TO postgres`, then cleanup again, or to drop the tenants anyway and keep the role, add --force-drop"
}

func (roleHolds) ForceNote() string { return "keep the role" }

func (roleHolds) Is(target error) bool { return target == workload.ErrForeign }
