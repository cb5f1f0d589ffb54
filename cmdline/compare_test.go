package cmdline

import (
	"errors"
	"reflect"
	"testing"

	"github.com/stampede-bench/stampede/run"
)

// TestCompareSides: compare's arguments and tags sorted into two sides,
// and the command lines that name no two sides refused as usage errors.
func TestCompareSides(t *testing.T) {
	tag := []string{"side=a"}
	for _, tc := range []struct {
		name string
		args []string
		tags [2][]string
		want [2][]string
		err  string
	}{
		{"two runs", []string{"r1", "r2"}, [2][]string{}, [2][]string{{"r1"}, {"r2"}}, ""},
		{"two groups", []string{"a1,a2", "b1,b2,b3"}, [2][]string{}, [2][]string{{"a1", "a2"}, {"b1", "b2", "b3"}}, ""},
		{"a by tag", []string{"b1,b2"}, [2][]string{tag, nil}, [2][]string{nil, {"b1", "b2"}}, ""},
		{"b by tag", []string{"a1"}, [2][]string{nil, tag}, [2][]string{{"a1"}, nil}, ""},
		{"both by tag", nil, [2][]string{tag, tag}, [2][]string{}, ""},
		{"one side", []string{"r1"}, [2][]string{}, [2][]string{}, "name two sides to compare: two runs (A B), two groups of runs (A1,A2,... B1,B2,...) or --a-tag/--b-tag key=value"},
		{"three sides", []string{"r1", "r2", "r3"}, [2][]string{}, [2][]string{}, "too many arguments: a side given by --a-tag or --b-tag takes the place of one argument (two sides in all)"},
		{"tag and two runs", []string{"r1", "r2"}, [2][]string{tag, nil}, [2][]string{}, "too many arguments: a side given by --a-tag or --b-tag takes the place of one argument (two sides in all)"},
		{"empty name", []string{"a1,,a2", "b1"}, [2][]string{}, [2][]string{}, `"a1,,a2" holds an empty run name: separate runs with single commas, no spaces`},
		{"trailing comma", []string{"a1,", "b1"}, [2][]string{}, [2][]string{}, `"a1," holds an empty run name: separate runs with single commas, no spaces`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := CompareSides(tc.args, tc.tags)
			if tc.err != "" {
				if err == nil || err.Error() != tc.err || !errors.Is(err, run.ErrInput) {
					t.Fatalf("error %v, want usage error %q", err, tc.err)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("%q, %v: want %q", got, err, tc.want)
			}
		})
	}
}
