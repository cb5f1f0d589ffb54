// Package fleet runs one workload for many tenants: it names the tenants,
// tells each one's connections where its data lives (a database, a schema,
// or a tenant id in shared tables), creates fleets fast, runs many tenant
// workloads at once from one process, and applies a statement to every
// tenant.
package fleet

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/stampede-bench/stampede/internal/lazyre"
	"github.com/stampede-bench/stampede/sqlx"
)

// Mode is how tenants are separated.
type Mode string

// Tenant modes.
const (
	// ModeDatabase gives each tenant a database of its own.
	ModeDatabase Mode = "database"
	// ModeSchema gives each tenant a schema of its own in one database.
	ModeSchema Mode = "schema"
	// ModeColumn keeps every tenant in one shared set of tables, with a
	// tenant id leading every primary key.
	ModeColumn Mode = "column"
)

// Modes lists the tenant modes in the order help text shows them.
var Modes = []Mode{ModeDatabase, ModeSchema, ModeColumn}

// ParseMode returns the mode named s.
func ParseMode(s string) (Mode, error) {
	for _, m := range Modes {
		if string(m) == s {
			return m, nil
		}
	}
	return "", fmt.Errorf("unknown tenant mode %q: use database, schema or column", s)
}

// DefaultPattern is the default --tenant-pattern of a workload: its name
// followed by the tenant's number, as in "tpcc_17".
func DefaultPattern(workload string) string { return workload + "_%d" }

// Spec names a fleet of tenants. Tenants are numbered from 1 to Tenants.
// A Spec is a plain value, safe to copy and to read concurrently.
type Spec struct {
	// Tenants is the number of tenants.
	Tenants int
	// Mode is how tenants are separated.
	Mode Mode
	// Pattern names tenant databases or schemas; it holds exactly one %d,
	// replaced by the tenant's number.
	Pattern string
}

// Validate checks the spec; its errors are one line and say what to do.
func (s Spec) Validate() error {
	if s.Tenants < 1 {
		return fmt.Errorf("--tenants %d: need at least 1 tenant", s.Tenants)
	}
	if _, err := ParseMode(string(s.Mode)); err != nil {
		return err
	}
	if s.Mode == ModeColumn {
		return nil
	}
	if strings.Count(s.Pattern, "%d") != 1 || strings.Count(s.Pattern, "%") != 1 {
		return fmt.Errorf("--tenant-pattern %q: the pattern must hold exactly one %%d (and no other %%), as in tpcc_%%d", s.Pattern)
	}
	if len(s.Name(s.Tenants)) > 63 {
		return fmt.Errorf("--tenant-pattern %q: tenant names would be longer than PostgreSQL's 63-byte identifiers; use a shorter pattern", s.Pattern)
	}
	return nil
}

// Name returns the name of tenant id's database or schema ("" in column
// mode, where tenants have no name of their own).
func (s Spec) Name(id int) string {
	if s.Mode == ModeColumn {
		return ""
	}
	return fmt.Sprintf(s.Pattern, id)
}

// nameRegexp returns a POSIX regular expression matching the name of
// every tenant of the pattern (bank_%d: ^bank_[0-9]+$).
func (s Spec) nameRegexp() string {
	parts := verbPattern().Split(s.Pattern, -1)
	for i, p := range parts {
		parts[i] = regexp.QuoteMeta(p)
	}
	return "^" + strings.Join(parts, "[0-9]+") + "$"
}

// verbPattern matches the tenant number's verb in a pattern (%d, %03d).
var verbPattern = lazyre.New(`%[0-9]*d`)

// Options returns the connection options for tenant id, derived from the
// options base would use for an ordinary, single-tenant run: in database
// mode the tenant's database, in schema mode the base database with the
// tenant's schema first on the search path, in column mode base unchanged.
func (s Spec) Options(base sqlx.Options, id int) sqlx.Options {
	opts := base
	opts.URLs = append([]string(nil), base.URLs...)
	switch s.Mode {
	case ModeDatabase:
		opts.Database = s.Name(id)
	case ModeSchema:
		// Quoted, so that the server does not fold the name to lower case.
		opts.SearchPath = `"` + strings.ReplaceAll(s.Name(id), `"`, `""`) + `"`
	}
	return opts
}
