package run

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/stampede-bench/stampede/workload"
)

// TestChooseLoadPaths: each URL that finds a user's table before the
// load's gets the search path that puts the load's schema first, the
// others keep theirs; a table outside the load, URLs that find
// different loads, or one that finds none beside one that does, are
// refused as bad input.
func TestChooseLoadPaths(t *testing.T) {
	none := urlLoadPath{LoadPath: workload.LoadPath{Workload: "bank", Was: "app"}, where: "h2:5432"}
	plain := urlLoadPath{LoadPath: workload.LoadPath{Workload: "bank", Schema: "public", Was: `"$user", public`, SearchPath: `public, "$user", public`}, where: "h1:5432"}
	hides := urlLoadPath{LoadPath: workload.LoadPath{Workload: "bank", Schema: "public", Was: "app, public", SearchPath: "public, app, public",
		Loaded: []string{"public.bank"}, Found: []string{"app.bank"}}, where: "h2:5432"}
	other := urlLoadPath{LoadPath: workload.LoadPath{Workload: "bank", Schema: "s2", Was: "s2, public"}, where: "h2:5432"}
	stray := plain
	stray.Strays = []workload.Stray{{Name: "bank", Schema: "app", Moved: true}}
	for _, tc := range []struct {
		name  string
		paths []urlLoadPath
		verb  string
		want  []string // search paths; nil for none
		err   string   // the refusal's words
	}{
		{"no load", []urlLoadPath{none}, "run", nil, ""},
		{"found", []urlLoadPath{plain}, "run", nil, ""},
		{"hidden", []urlLoadPath{hides}, "run", []string{"public, app, public"}, ""},
		{"second hidden", []urlLoadPath{plain, hides}, "run", []string{"", "public, app, public"}, ""},
		{"unreached", []urlLoadPath{hides, {unreached: true}}, "check", []string{"public, app, public", ""}, ""},
		{"moved", []urlLoadPath{stray}, "check", nil, "the load's table bank was moved to schema app since init of bank made it in schema public: check leaves it alone"},
		{"moved, cleanup", []urlLoadPath{stray}, "cleanup", nil, ""},
		{"moved through URL 2", []urlLoadPath{plain, stray}, "run", nil, "URL 2 (h1:5432): the load's table bank was moved"},
		{"different loads", []urlLoadPath{plain, other}, "run", nil, "URL 1 (h1:5432) finds stampede's load of bank in schema public and URL 2 (h2:5432) in schema s2"},
		{"no load through one", []urlLoadPath{plain, none}, "run", nil, `URL 2 (h2:5432) does not find stampede's load of bank with search_path "app", where URL 1 (h1:5432) finds it in schema public`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, notes, err := chooseLoadPaths(tc.paths, tc.verb)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) || !errors.Is(err, ErrInput) {
					t.Fatalf("error %v, want bad input saying %q", err, tc.err)
				}
				return
			}
			if err != nil || !slices.Equal(got, tc.want) {
				t.Fatalf("got %q, %v; want %q", got, err, tc.want)
			}
			if len(notes) == 0 != (tc.want == nil) {
				t.Errorf("notes %q for search paths %q", notes, got)
			}
		})
	}
}
