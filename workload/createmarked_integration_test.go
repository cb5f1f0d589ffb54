package workload_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/dialect"
	"github.com/stampede-bench/stampede/internal/testdb"
	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// TestCreateMarkedTableIsAtomic fails CreateMarkedTable between its CREATE
// and its mark: no table is left (a killed init leaves no unmarked table
// of stampede's). Then it creates the table whole: it carries the mark,
// bound to its own OID.
func TestCreateMarkedTableIsAtomic(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	db := testdb.Fresh(t, "stampede_createmarked_test", sqlx.Options{MaxConns: 2, Workers: 1})
	create := db.Dialect().CreateTable("t1", "(id INT PRIMARY KEY)")
	mark := workload.Mark + " init of test"

	boom := errors.New("killed between CREATE and COMMENT")
	workload.FailBeforeMark(t, boom)
	if err := workload.CreateMarkedTable(ctx, db, create, "t1", mark); !errors.Is(err, boom) {
		t.Fatalf("CreateMarkedTable with a failing hook = %v, want %v", err, boom)
	}
	if exists, err := workload.TableExists(ctx, db, "t1"); err != nil || exists {
		t.Fatalf("after a failure before the mark, t1 exists = %v (%v), want no table", exists, err)
	}

	workload.FailBeforeMark(t, nil)
	if err := workload.CreateMarkedTable(ctx, db, create, "t1", mark); err != nil {
		t.Fatal(err)
	}
	var oid, comment string
	if err := db.QueryRow(ctx, "SELECT 't1'::regclass::oid::text, obj_description('t1'::regclass, 'pg_class')").Scan(&oid, &comment); err != nil {
		t.Fatal(err)
	}
	if want := mark + dialect.MarkOIDSep + oid; comment != want {
		t.Errorf("t1's comment = %q, want %q", comment, want)
	}
	if got, err := workload.TableComment(ctx, db, "t1"); err != nil || got != mark {
		t.Errorf("TableComment(t1) = %q (%v), want %q", got, err, mark)
	}
}
