package store

import (
	"context"
	"database/sql"
	"fmt"
	"hash/fnv"
	"strings"
)

// schemaStamp is the SQLite user_version a store file carries once Open
// has checked its tables and created the missing ones: a hash of the
// schema's text, so that a new schema is checked again on its first open.
// A file that carries it (and still holds every table of the schema) is
// opened without reading each table's columns and running the CREATE
// statements, two thirds of the index's cost at a short run's end.
var schemaStamp = func() int64 {
	h := fnv.New32a()
	for _, stmt := range schema {
		h.Write([]byte(stmt))
	}
	return int64(h.Sum32() & 0x7fffffff) // user_version is a signed 32-bit integer
}()

// stamped reports whether the SQLite store db carries schemaStamp and
// holds every table of the schema, in one query.
func stamped(ctx context.Context, db *sql.DB) bool {
	names := make([]string, 0, len(schema))
	for t := range storeTables() {
		names = append(names, "'"+t+"'")
	}
	q := `SELECT (SELECT user_version FROM pragma_user_version),
		(SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN (` + strings.Join(names, ", ") + `))`
	var version, tables int64
	if err := db.QueryRowContext(ctx, q).Scan(&version, &tables); err != nil {
		return false
	}
	return version == schemaStamp && tables == int64(len(names))
}

// stamp marks the SQLite store db as checked and complete (see
// schemaStamp); a failure only costs the next Open the full check.
func stamp(ctx context.Context, db *sql.DB) {
	_, _ = db.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", schemaStamp))
}
