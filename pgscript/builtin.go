package pgscript

import (
	"fmt"
	"sort"
	"strings"
)

// builtin is one of pgbench's built-in scripts.
type builtin struct {
	desc, src string
}

// builtins are pgbench 15's built-in scripts, as `pgbench
// --show-script=NAME` prints them.
var builtins = map[string]builtin{
	"tpcb-like": {"<builtin: TPC-B (sort of)>", `\set aid random(1, 100000 * :scale)
\set bid random(1, 1 * :scale)
\set tid random(1, 10 * :scale)
\set delta random(-5000, 5000)
BEGIN;
UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;
SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
UPDATE pgbench_tellers SET tbalance = tbalance + :delta WHERE tid = :tid;
UPDATE pgbench_branches SET bbalance = bbalance + :delta WHERE bid = :bid;
INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (:tid, :bid, :aid, :delta, CURRENT_TIMESTAMP);
END;
`},
	"simple-update": {"<builtin: simple update>", `\set aid random(1, 100000 * :scale)
\set bid random(1, 1 * :scale)
\set tid random(1, 10 * :scale)
\set delta random(-5000, 5000)
BEGIN;
UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;
SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (:tid, :bid, :aid, :delta, CURRENT_TIMESTAMP);
END;
`},
	"select-only": {"<builtin: select only>", `\set aid random(1, 100000 * :scale)
SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
`},
}

// BuiltinNames are the names of pgbench's built-in scripts.
func BuiltinNames() []string {
	names := make([]string, 0, len(builtins))
	for n := range builtins {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Builtin returns pgbench's built-in script called name (or an unambiguous
// prefix of it, as pgbench takes -b tpcb), parsed, with its weight.
func Builtin(name string, weight int) (*Script, error) {
	full, err := resolveBuiltin(name)
	if err != nil {
		return nil, err
	}
	b := builtins[full]
	s, err := Parse(full, weight, b.src)
	if err != nil {
		return nil, err // a built-in parses
	}
	s.Desc, s.Builtin = b.desc, true
	return s, nil
}

// resolveBuiltin returns the built-in script's name that name is, or is
// the only prefix of, as pgbench's findBuiltin does.
func resolveBuiltin(name string) (string, error) {
	var found []string
	for n := range builtins {
		if n == name {
			return n, nil
		}
		if strings.HasPrefix(n, name) {
			found = append(found, n)
		}
	}
	sort.Strings(found)
	switch len(found) {
	case 0:
		return "", fmt.Errorf("no built-in script %q: pgbench's are %s", name, strings.Join(BuiltinNames(), ", "))
	case 1:
		return found[0], nil
	default:
		return "", fmt.Errorf("built-in script %q is ambiguous: it begins %s; give more of the name", name, strings.Join(found, ", "))
	}
}

// BuiltinSource returns the full name, description and text of built-in
// script name (or an unambiguous prefix of it, as pgbench takes
// --show-script=sel), for --show-script.
func BuiltinSource(name string) (full, desc, src string, err error) {
	full, err = resolveBuiltin(name)
	if err != nil {
		return "", "", "", err
	}
	b := builtins[full]
	return full, b.desc, b.src, nil
}
