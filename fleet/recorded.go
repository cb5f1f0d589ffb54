package fleet

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/stampede-bench/stampede/sqlx"
)

// RecordedFlags returns the data flags that init recorded in the marker
// of the fleet's first tenant ("--rows=10", as CreateOptions.Flags), so
// that run and check take them as they take a single database's record;
// found is false when the tenant, or its marker, does not exist (the
// run or check then says what is missing). A role that may not read the
// marker gets a *MarkerUnreadableError.
func RecordedFlags(ctx context.Context, t Target) (flags []string, found bool, err error) {
	return newEnv(t).recordedFlags(ctx)
}

// Survey is what SurveyTenants read.
type Survey struct {
	// Flags and Found are RecordedFlags' (of the first tenant
	// surveyed), FlagsErr its error: a *MarkerUnreadableError for a
	// role that may not read the marker.
	Flags    []string
	Found    bool
	FlagsErr error
}

// SurveyTenants is what the start of a fleet's run or check reads of its
// tenants, each at most once: it refuses, as RefuseForeignTenants does,
// the databases or schemas that are no tenants of stampede's among
// tenants first..last (0, 0 for every tenant; a client of a split run
// gives its share, the only tenants it works on), and then reads the
// data flags init recorded in the marker of the first of them, as
// RecordedFlags does: a marker read to tell the tenant stampede's is not
// read again. err is the refusal (or a failure to read); the flags'
// own error is the Survey's.
func SurveyTenants(ctx context.Context, t Target, verb string, tables []string, first, last int) (Survey, error) {
	e := newEnv(t)
	e.survey = &survey{first: first, last: last}
	if err := e.refuseForeignOf(ctx, verb, tables); err != nil {
		return Survey{}, err
	}
	var s Survey
	s.Flags, s.Found, s.FlagsErr = e.recordedFlags(ctx)
	return s, nil
}

// recordedFlags is RecordedFlags on e's target, of the first tenant its
// survey reads (tenant 1 without one), whose marker the survey may have
// read already.
func (e *env) recordedFlags(ctx context.Context) (flags []string, found bool, err error) {
	t := e.Target
	id := 1
	if s := e.survey; s != nil {
		id = max(s.first, 1)
		if s.read && t.Spec.Mode != ModeColumn {
			if !s.ok || s.marker.workload != t.Workload {
				return nil, false, nil
			}
			return splitFlags(s.marker.flags), true, nil
		}
	}
	opts := e.Base
	if t.Spec.Mode == ModeDatabase {
		opts = t.Spec.Options(e.Base, id)
	}
	db, closeDB, err := e.connect(ctx, opts, 1)
	if err != nil {
		if sqlx.IsMissingDatabase(err) {
			return nil, false, nil
		}
		return nil, false, err
	}
	defer closeDB()
	var raw string
	switch t.Spec.Mode {
	case ModeColumn:
		m, err := readColumnMarker(ctx, db)
		if sqlx.SQLState(err) == "42501" {
			return nil, false, &MarkerUnreadableError{Where: fmt.Sprintf("table %s in database %q", MarkerTable, e.Base.Database), Err: err}
		}
		if err != nil || !m.recordsOnly(t.Workload) {
			return nil, false, err
		}
		err = db.QueryRow(ctx, "SELECT flags FROM "+db.Dialect().QuoteIdent(MarkerTable)+" ORDER BY tenant_id LIMIT 1").Scan(&raw)
		if errors.Is(err, sqlx.ErrNoRows) {
			return nil, false, nil
		}
		if err != nil {
			return nil, false, fmt.Errorf("reading the data flags init recorded in %s: %w", MarkerTable, err)
		}
	default:
		schema := ""
		if t.Spec.Mode == ModeSchema {
			schema = t.Spec.Name(id)
		}
		m, ok, err := readMarker(ctx, db, schema)
		if sqlx.SQLState(err) == "42501" {
			// A role that may not read the marker (a tenant's login
			// role, a limited one): the flags given stand, and the
			// caller says so.
			where := fmt.Sprintf("table %s in database %q", MarkerTable, opts.Database)
			if schema != "" {
				where = fmt.Sprintf("table %s in schema %q of database %q", MarkerTable, schema, opts.Database)
			}
			return nil, false, &MarkerUnreadableError{Where: where, Err: err}
		}
		if err != nil || !ok || m.workload != t.Workload {
			return nil, false, err
		}
		raw = m.flags
	}
	return splitFlags(raw), true, nil
}

// MarkerUnreadableError is RecordedFlags' error when the role may not
// read the fleet's marker, where init recorded its data flags: the run or
// check goes on with the flags given and the defaults, and says so.
type MarkerUnreadableError struct {
	// Where names the marker's table ("table stampede_tenant in schema
	// \"bank_1\" of database \"x\""); Err is the server's refusal.
	Where string
	Err   error
}

func (e *MarkerUnreadableError) Error() string {
	return fmt.Sprintf("this role may not read %s, where init recorded the fleet's data flags", e.Where)
}

// Unwrap returns the server's refusal.
func (e *MarkerUnreadableError) Unwrap() error { return e.Err }

// splitFlags splits CreateOptions.Flags ("--a=1 --b=x y") into its flags.
func splitFlags(raw string) []string {
	if raw == "" {
		return nil
	}
	parts := strings.Split(" "+raw, " --")
	var out []string
	for _, p := range parts[1:] {
		out = append(out, "--"+p)
	}
	return out
}
