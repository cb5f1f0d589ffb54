package ycsb

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/stampede-bench/stampede/dialect"
)

// TestJSONStatements checks the SQL text of --json's layout, without and
// with a tenant: cockroach's statements, binding the relational ones'
// arguments in the same places.
func TestJSONStatements(t *testing.T) {
	for _, tc := range []struct {
		tenant int
		want   statements
	}{
		{0, statements{
			readAll:     "SELECT * FROM usertable WHERE ycsb_key = $1",
			readField:   []string{"SELECT field->>'field0' FROM usertable WHERE ycsb_key = $1", "SELECT field->>'field1' FROM usertable WHERE ycsb_key = $1"},
			updateAll:   "UPDATE usertable SET field = jsonb_build_object('field0', $1::text, 'field1', $2::text) WHERE ycsb_key = $3",
			updateField: []string{"UPDATE usertable SET field = field || jsonb_build_object('field0', $1::text) WHERE ycsb_key = $2", "UPDATE usertable SET field = field || jsonb_build_object('field1', $1::text) WHERE ycsb_key = $2"},
			insert:      "INSERT INTO usertable (ycsb_key, field) VALUES ($1, jsonb_build_object('field0', $2::text, 'field1', $3::text))",
			scan:        "SELECT * FROM usertable WHERE ycsb_key >= $1 ORDER BY ycsb_key LIMIT $2",
			del:         "DELETE FROM usertable WHERE ycsb_key = $1",
		}},
		{7, statements{
			readAll:     "SELECT ycsb_key, field FROM usertable WHERE tenant_id = $1 AND ycsb_key = $2",
			readField:   []string{"SELECT field->>'field0' FROM usertable WHERE tenant_id = $1 AND ycsb_key = $2", "SELECT field->>'field1' FROM usertable WHERE tenant_id = $1 AND ycsb_key = $2"},
			updateAll:   "UPDATE usertable SET field = jsonb_build_object('field0', $1::text, 'field1', $2::text) WHERE tenant_id = $3 AND ycsb_key = $4",
			updateField: []string{"UPDATE usertable SET field = field || jsonb_build_object('field0', $1::text) WHERE tenant_id = $2 AND ycsb_key = $3", "UPDATE usertable SET field = field || jsonb_build_object('field1', $1::text) WHERE tenant_id = $2 AND ycsb_key = $3"},
			insert:      "INSERT INTO usertable (tenant_id, ycsb_key, field) VALUES ($1, $2, jsonb_build_object('field0', $3::text, 'field1', $4::text))",
			scan:        "SELECT ycsb_key, field FROM usertable WHERE tenant_id = $1 AND ycsb_key >= $2 ORDER BY ycsb_key LIMIT $3",
			del:         "DELETE FROM usertable WHERE tenant_id = $1 AND ycsb_key = $2",
		}},
	} {
		t.Run(fmt.Sprintf("tenant=%d", tc.tenant), func(t *testing.T) {
			g, c := newConfig(t, "--json", "--field-count", "2")
			g.SetTenant(tc.tenant)
			if got := c.statements(dialect.Postgres{}); !reflect.DeepEqual(*got, tc.want) {
				t.Errorf("statements\n%+v\nwant\n%+v", *got, tc.want)
			}
			schema := "(ycsb_key VARCHAR(255) PRIMARY KEY, field JSONB)"
			if tc.tenant != 0 {
				schema = "(tenant_id INT NOT NULL, ycsb_key VARCHAR(255) NOT NULL, field JSONB, PRIMARY KEY (tenant_id, ycsb_key))"
			}
			if tab := g.Tables()[0]; tab.Schema != schema {
				t.Errorf("schema %s, want %s", tab.Schema, schema)
			}
		})
	}
}

// TestJSONRows checks --json's initial rows: one object per row holding
// exactly the values the relational layout loads, as valid JSON (values
// with backslashes included).
func TestJSONRows(t *testing.T) {
	args := []string{"--record-count", "1500", "--field-count", "3", "--field-length", "40"}
	plain, _ := newConfig(t, args...)
	js, _ := newConfig(t, append(args, "--json")...)
	pt, jt := plain.Tables()[0], js.Tables()[0]
	if !reflect.DeepEqual(jt.Columns, []string{"ycsb_key", "field"}) || jt.InitialRows.EncodeBatch != nil ||
		jt.InitialRows.NumBatches != 2 || jt.InitialRows.NumRows != 1500 {
		t.Fatalf("table %q, %d batches of %d rows", jt.Columns, jt.InitialRows.NumBatches, jt.InitialRows.NumRows)
	}
	backslashes := 0
	for b := 0; b < jt.InitialRows.NumBatches; b++ {
		want := pt.InitialRows.FillBatch(b, nil)
		got := jt.InitialRows.FillBatch(b, nil)
		if len(got) != len(want) {
			t.Fatalf("batch %d: %d rows, want %d", b, len(got), len(want))
		}
		for i, row := range got {
			if row[0] != want[i][0] {
				t.Fatalf("batch %d row %d: key %v, want %v", b, i, row[0], want[i][0])
			}
			var obj map[string]string
			if err := json.Unmarshal([]byte(row[1].(string)), &obj); err != nil {
				t.Fatalf("batch %d row %d: %v in %s", b, i, err, row[1])
			}
			for f := 0; f < 3; f++ {
				if v := obj[fmt.Sprintf("field%d", f)]; v != want[i][1+f] {
					t.Fatalf("batch %d row %d: field%d %q, want %q", b, i, f, v, want[i][1+f])
				}
			}
			if len(obj) != 3 {
				t.Fatalf("batch %d row %d: %d fields", b, i, len(obj))
			}
			backslashes += strings.Count(row[1].(string), `\\`)
		}
	}
	if backslashes == 0 {
		t.Errorf("no value held a backslash: the escaping went untested")
	}
}

// TestColumnFamilies checks the schema with column families, cockroach's
// usertableSchemaRelationalWithFamilies, and that the JSONB layout and
// tenants get none.
func TestColumnFamilies(t *testing.T) {
	g, _ := newConfig(t, "--field-count", "2")
	g.SetColumnFamilies(true)
	want := "(ycsb_key VARCHAR(255) PRIMARY KEY, field0 TEXT, field1 TEXT, FAMILY (ycsb_key), FAMILY (field0), FAMILY (field1))"
	if got := g.Tables()[0].Schema; got != want {
		t.Errorf("schema %s, want %s", got, want)
	}
	j, _ := newConfig(t, "--field-count", "2", "--json")
	j.SetColumnFamilies(true)
	if got := j.Tables()[0].Schema; strings.Contains(got, "FAMILY") {
		t.Errorf("--json schema %s has families", got)
	}
	g.SetTenant(3)
	if got := g.Tables()[0].Schema; strings.Contains(got, "FAMILY") {
		t.Errorf("tenant schema %s has families", got)
	}
	g.SetTenant(0)
	g.SetColumnFamilies(false)
	if got := g.Tables()[0].Schema; strings.Contains(got, "FAMILY") {
		t.Errorf("schema %s has families after SetColumnFamilies(false)", got)
	}
}
