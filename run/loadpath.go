package run

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// inLoad returns db, or, when the search path of one of its URLs finds
// other relations than the tables of stampede's load of gen
// (workload.LoadSearchPath: a user's app.bank before stampede's
// public.bank), db reopened with opts and, for each such URL, the search
// path that finds the load's first, saying so on log: a run, a check and
// a cleanup work on the tables stampede loaded, never on a user's of the
// same names. Every URL's search path is asked (a cluster's URLs may
// each give their own, or log in as roles that have their own). It
// refuses, for verb "run" and "check", a table of the load that a search
// path finds outside the load's schema (moved there, or a user's found
// in place of one missing), which cleanup and init's drop judge
// themselves (they refuse to drop such a table); and URLs whose search paths find different loads,
// or no load where another finds one. db is closed once the reopened one
// is open; on an error, the caller still closes it.
func inLoad(ctx context.Context, db *sqlx.DB, opts sqlx.Options, gen workload.Generator, verb string, log io.Writer) (*sqlx.DB, error) {
	paths, err := loadPaths(ctx, db, opts, gen)
	var denied *workload.DeniedError
	if errors.As(err, &denied) && denied.Table == workload.LoadRecordTable && verb != "cleanup" {
		// A role that may not read init's record: the run or check
		// goes on in the search path as it is (reconcileLoad warned).
		return db, nil
	}
	if err != nil {
		return db, err
	}
	searchPaths, notes, err := chooseLoadPaths(paths, verb)
	if err != nil || searchPaths == nil {
		return db, err
	}
	opts.SearchPaths = searchPaths
	in, err := sqlx.Open(ctx, opts)
	if err != nil {
		return db, configInput(err)
	}
	db.Close()
	if log != nil {
		for _, n := range notes {
			fmt.Fprintf(log, "note: %s\n", n)
		}
	}
	return in, nil
}

// urlLoadPath is where one URL's session finds the load.
type urlLoadPath struct {
	workload.LoadPath
	// where is the URL's endpoint (host:port); unreached says that the
	// URL could not be asked.
	where     string
	unreached bool
}

// loadPaths returns, for each URL of opts (db's), where its session
// finds the load of gen, in their order: db's own session for one URL,
// else a connection of each URL's. A URL that cannot be reached now is
// left unreached (the run says so when it cannot reach it either).
func loadPaths(ctx context.Context, db *sqlx.DB, opts sqlx.Options, gen workload.Generator) ([]urlLoadPath, error) {
	if len(opts.URLs) < 2 {
		p, err := workload.LoadSearchPath(ctx, db, gen)
		return []urlLoadPath{{LoadPath: p, where: strings.Join(db.Endpoints(), ",")}}, err
	}
	var out []urlLoadPath
	for _, u := range opts.URLs {
		o := opts
		o.URLs, o.SearchPaths, o.MaxConns, o.Workers, o.ThreadIO, o.Warn = []string{u}, nil, 1, 1, false, nil
		one, err := sqlx.Open(ctx, o)
		if err != nil {
			out = append(out, urlLoadPath{unreached: true})
			continue
		}
		p, err := workload.LoadSearchPath(ctx, one, gen)
		where := strings.Join(one.Endpoints(), ",")
		one.Close()
		if err != nil && sqlx.SQLState(err) == "" {
			// No server said anything: not reached.
			out = append(out, urlLoadPath{unreached: true})
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, urlLoadPath{LoadPath: p, where: where})
	}
	return out, nil
}

// chooseLoadPaths returns, from where each URL finds the load (paths),
// the search path for each URL (nil when none needs another than its
// own: "" for those that keep theirs) and the notes that say so; or the
// refusal (by verb, see inLoad) of a table of the load outside its
// schema, or of URLs that find different loads.
func chooseLoadPaths(paths []urlLoadPath, verb string) ([]string, []string, error) {
	name := func(i int) string {
		if len(paths) == 1 {
			return ""
		}
		return fmt.Sprintf("URL %d (%s): ", i+1, paths[i].where)
	}
	from := -1
	for i, p := range paths {
		if verb != "cleanup" && verb != "init" {
			if err := p.StrayError(verb); err != nil {
				return nil, nil, asInput(fmt.Errorf("%s%w", name(i), err))
			}
		}
		if p.unreached || p.Schema == "" {
			continue
		}
		if from >= 0 && p.Schema != paths[from].Schema {
			return nil, nil, inputf("URL %d (%s) finds stampede's load of %s in schema %s and URL %d (%s) in schema %s: their search paths (%q, %q) reach different tables, and %s would work on both; give every URL the same search_path",
				from+1, paths[from].where, p.Workload, paths[from].Schema, i+1, p.where, p.Schema, paths[from].Was, p.Was, verb)
		}
		if from < 0 {
			from = i
		}
	}
	if from < 0 {
		return nil, nil, nil
	}
	for i, p := range paths {
		if !p.unreached && p.Schema == "" {
			f := paths[from]
			return nil, nil, inputf("URL %d (%s) does not find stampede's load of %s with search_path %q, where URL %d (%s) finds it in schema %s: %s would reach other tables through it; give every URL a search_path that finds schema %s",
				i+1, p.where, f.Workload, p.Was, from+1, f.where, f.Schema, verb, f.Schema)
		}
	}
	var searchPaths, notes []string
	for i, p := range paths {
		sp := ""
		if p.Hides() {
			sp = p.SearchPath
			notes = append(notes, name(i)+p.Note())
		}
		searchPaths = append(searchPaths, sp)
	}
	if len(notes) == 0 {
		return nil, nil, nil
	}
	return searchPaths, notes, nil
}
