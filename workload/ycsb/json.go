package ycsb

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/spf13/pflag"

	"github.com/stampede-bench/stampede/dialect"
	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// jsonColumn is the JSONB column of --json's layout.
const jsonColumn = "field"

// registerJSONFlag defines --json: cockroach's ycsb layout with the
// fields in one JSONB column.
func (g *ycsb) registerJSONFlag(fs *pflag.FlagSet) {
	fs.BoolVar(&g.json, "json", false,
		"keep the fields in one JSONB column, field (cockroach's ycsb --json): usertable (ycsb_key VARCHAR(255) PRIMARY KEY, field JSONB), "+
			`each row {"field0": "...", ...}; reads select the row or field->>'fieldN', updates merge into it (field || ...)`)
}

// jsonColumns are the columns of --json's layout: tenant_id (with a
// tenant), ycsb_key and field.
func (c *config) jsonColumns() []string {
	if c.tenant != 0 {
		return []string{workload.TenantColumn, keyColumn, jsonColumn}
	}
	return []string{keyColumn, jsonColumn}
}

// jsonSchema is the column list of --json's layout, cockroach's
// (ycsb_key VARCHAR(255) PRIMARY KEY, field JSONB), or with a tenant
// (tenant_id INT NOT NULL, ycsb_key VARCHAR(255) NOT NULL, field JSONB,
// PRIMARY KEY (tenant_id, ycsb_key)).
func (c *config) jsonSchema() string {
	if c.tenant != 0 {
		return "(" + workload.TenantColumn + " INT NOT NULL, " + keyColumn + " VARCHAR(255) NOT NULL, " + jsonColumn + " JSONB, " +
			"PRIMARY KEY (" + workload.TenantColumn + ", " + keyColumn + "))"
	}
	return "(" + keyColumn + " VARCHAR(255) PRIMARY KEY, " + jsonColumn + " JSONB)"
}

// jsonTable is the usertable of --json: the relational rows' values as
// one JSON object per row, {"field0": "...", ...} in field order (the same
// values the relational layout loads), led by the tenant id when there is
// one. cockroach's init loads empty objects, {}, so that its reads of one
// field find NULL until an update writes it; stampede's reads find the
// values, as in the relational layout. The rows go through FillBatch
// (COPY of text into JSONB), not the binary fast path.
func (c *config) jsonTable() workload.Table {
	t := c.table()
	t.Schema = c.jsonSchema()
	t.Columns = c.jsonColumns()
	t.InitialRows.EncodeBatch = nil
	names := make([][]byte, c.fieldCount)
	for i := range names {
		names[i], _ = json.Marshal(c.fieldName(i))
	}
	t.InitialRows.FillBatch = func(batchIdx int, rows [][]any) [][]any {
		var b []byte
		c.eachRow(batchIdx, func(key, vals []byte, lens []int64) {
			b = append(b[:0], '{')
			var off int64
			for i, n := range lens {
				if i > 0 {
					b = append(b, ", "...)
				}
				b = append(b, names[i]...)
				b = append(b, ": "...)
				v, _ := json.Marshal(string(vals[off : off+n]))
				b = append(b, v...)
				off += n
			}
			b = append(b, '}')
			if c.tenant != 0 {
				rows = append(rows, []any{c.tenantArg, string(key), string(b)})
			} else {
				rows = append(rows, []any{string(key), string(b)})
			}
		})
		return rows
	}
	return t
}

// jsonStatements are the statements of --json's layout, binding the same
// arguments as the relational ones (so the worker runs either), with the
// tenant filter of tenantStatements when there is a tenant:
//
//	SELECT * FROM t WHERE ycsb_key = $1
//	SELECT field->>'fieldI' FROM t WHERE ycsb_key = $1
//	UPDATE t SET field = jsonb_build_object('field0', $1::text, ...) WHERE ycsb_key = $N+1
//	UPDATE t SET field = field || jsonb_build_object('fieldI', $1::text) WHERE ycsb_key = $2
//	INSERT INTO t (ycsb_key, field) VALUES ($1, jsonb_build_object('field0', $2::text, ...))
//	SELECT * FROM t WHERE ycsb_key >= $1 ORDER BY ycsb_key LIMIT $2
//	DELETE FROM t WHERE ycsb_key = $1
//
// These are cockroach's (its update binds {"fieldI": "..."} to field ||
// $2, and its insert calls json_build_object), written so that the
// parameters are text on both servers.
func (c *config) jsonStatements(d dialect.Dialect) *statements {
	t := c.tableName
	p := d.Placeholder
	lead := 0 // the number of tenant parameters
	cols := "*"
	if c.tenant != 0 {
		lead, cols = 1, keyColumn+", "+jsonColumn
	}
	// where(i) binds the tenant id (if any) to $i and the key after it.
	where := func(i int) string { return " WHERE " + c.tenantAnd(d, i) + keyColumn + " = " + p(i+lead) }
	object := func(first int) string {
		var b strings.Builder
		b.WriteString("jsonb_build_object(")
		for i := 0; i < c.fieldCount; i++ {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(dialect.QuoteLiteral(c.fieldName(i)) + ", " + p(first+i) + "::text")
		}
		b.WriteString(")")
		return b.String()
	}
	s := &statements{
		readAll:   "SELECT " + cols + " FROM " + t + where(1),
		updateAll: "UPDATE " + t + " SET " + jsonColumn + " = " + object(1) + where(c.fieldCount+1),
		insert: "INSERT INTO " + t + " (" + strings.Join(c.jsonColumns(), ", ") + ") VALUES (" +
			dialect.Placeholders(d, 1, 1+lead) + ", " + object(2+lead) + ")",
		scan: "SELECT " + cols + " FROM " + t + " WHERE " + c.tenantAnd(d, 1) + keyColumn + " >= " + p(1+lead) +
			" ORDER BY " + keyColumn + " LIMIT " + p(2+lead),
	}
	for i := 0; i < c.fieldCount; i++ {
		f := dialect.QuoteLiteral(c.fieldName(i))
		s.readField = append(s.readField, "SELECT "+jsonColumn+"->>"+f+" FROM "+t+where(1))
		s.updateField = append(s.updateField, "UPDATE "+t+" SET "+jsonColumn+" = "+jsonColumn+" || jsonb_build_object("+f+", "+p(1)+"::text)"+where(2))
	}
	s.del = deleteFrom(s.readAll)
	return s
}

// layoutError explains a table of the other layout: one loaded with
// --json run without it, or the reverse (have holds the table's columns,
// in lower case). It returns nil when the layout is the configured one.
func (c *config) layoutError(have map[string]bool, db *sqlx.DB) error {
	relational := have[strings.ToLower(c.fieldName(0))]
	switch {
	case c.json && !have[jsonColumn] && relational:
		return fmt.Errorf("table %s in database %s holds a column per field (it was loaded without --json): run without --json, or init it again with --json",
			c.tableName, db.Database())
	case !c.json && have[jsonColumn] && !relational:
		return fmt.Errorf("table %s in database %s holds the fields in one JSONB column, %s (it was loaded with --json): run with --json, or init it again without",
			c.tableName, db.Database(), jsonColumn)
	}
	return nil
}
