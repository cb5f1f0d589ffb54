package sysbench

import (
	"context"
	"testing"

	"github.com/stampede-bench/stampede/workload"
	"github.com/stampede-bench/stampede/sqlx"
	"strings"
)

var logc *fakeConn

func TestDebugScans(t *testing.T) {
	ctx := context.Background()
	db := freshDB(t, 1)
	g := newGen(t, "oltp_read_write", "--skip_trx", "--delete_inserts=3", "--secondary", "--rand-type=uniform")
	if err := workload.Setup(ctx, db, g, workload.LoadOptions{Concurrency: 1}); err != nil {
		t.Fatal(err)
	}
	show := func() {
		readStats(t, db)
		rows, _ := db.Query(ctx, "SELECT relname, seq_scan, coalesce(idx_scan,0) FROM pg_stat_user_tables")
		for rows.Next() {
			var n string
			var a, b int64
			rows.Scan(&n, &a, &b)
			t.Logf("%s seq %d idx %d", n, a, b)
		}
		rows.Close()
	}
	show()
	ql, _ := g.Ops(ctx, db, workload.OpsConfig{Concurrency: 1, Seed: 3})
	for i := 0; i < 40; i++ {
		conn := &fakeConn{t: t}
		_ = conn
		ql.Workers[0](ctx)
	}
	ql.Close(ctx)
	show()
	_, ws := g.workers(db.Dialect(), workload.OpsConfig{Concurrency: 1, Seed: 3}, func(int) sqlx.Conn { c := &fakeConn{t: t}; logc = c; return c })
	for i := 0; i < 40; i++ {
		ws[0].run(ctx)
	}
	for _, l := range logc.log {
		if strings.Contains(l, "BETWEEN") {
			t.Log(l)
		}
	}
}
