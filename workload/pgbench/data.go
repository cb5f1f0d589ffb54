package pgbench

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/stampede-bench/stampede/sqlx"
)

// accountsPerRead is how many accounts accountText writes at a time: a
// tenth of a scale unit, so that a progress line falls on every 100,000th.
const accountsPerRead = 10000

// valuesPerInsert is how many rows of branches or tellers one INSERT
// sends.
const valuesPerInsert = 10000

// accountText reads pgbench_accounts' rows in COPY's text format, as
// pgbench sends them: aid, bid = (aid-1)/100,000+1, abalance 0 and an
// empty filler (which char(84) pads with blanks), "1\t1\t0\t\n".
type accountText struct {
	next, last int64 // the next aid to write, and the last
	buf        []byte
	off        int
	log        *InitLog
}

func (a *accountText) Read(p []byte) (int, error) {
	for a.off >= len(a.buf) {
		if a.next > a.last {
			return 0, io.EOF
		}
		a.buf, a.off = a.buf[:0], 0
		hi := min(a.next+accountsPerRead-1, a.last)
		for aid := a.next; aid <= hi; aid++ {
			a.buf = strconv.AppendInt(a.buf, aid, 10)
			a.buf = append(a.buf, '\t')
			a.buf = strconv.AppendInt(a.buf, (aid-1)/accountsPerScale+1, 10)
			a.buf = append(a.buf, "\t0\t\n"...)
		}
		a.log.tuples(hi - a.next + 1)
		a.next = hi + 1
	}
	n := copy(p, a.buf[a.off:])
	a.off += n
	return n, nil
}

// valuesInserts returns INSERT statements of rows first..n of table's
// columns, valuesPerInsert rows a statement, each row's values row(i).
func valuesInserts(table, columns string, n int64, row func(i int64) string) []string {
	var out []string
	for lo := int64(1); lo <= n; lo += valuesPerInsert {
		var b strings.Builder
		b.WriteString("insert into " + table + "(" + columns + ") values ")
		for i := lo; i <= min(lo+valuesPerInsert-1, n); i++ {
			if i > lo {
				b.WriteByte(',')
			}
			b.WriteString("(" + row(i) + ")")
		}
		out = append(out, b.String())
	}
	return out
}

// clientSide is step g: in one transaction, as pgbench, the tables are
// truncated, the branches and tellers inserted (filler NULL), and the
// accounts copied in pgbench's text rows, with FREEZE on an ordinary
// table of PostgreSQL 14 or later (the rows are written frozen and the
// pages all-visible, so that the vacuum after has little to do).
func (g *generator) clientSide(ctx context.Context, db *sqlx.DB) error {
	before := []string{"truncate table " + Accounts + ", " + Branches + ", " + History + ", " + Tellers}
	before = append(before, valuesInserts(Branches, "bid,bbalance", int64(g.scale)*branchesPerScale, func(i int64) string {
		return strconv.FormatInt(i, 10) + ",0"
	})...)
	before = append(before, valuesInserts(Tellers, "tid,bid,tbalance", int64(g.scale)*tellersPerScale, func(i int64) string {
		return strconv.FormatInt(i, 10) + "," + strconv.FormatInt((i-1)/tellersPerScale+1, 10) + ",0"
	})...)
	copy := "copy " + Accounts + " from stdin"
	if g.partitionMethod() == "" {
		var version int
		if err := db.QueryRow(ctx, "SELECT current_setting('server_version_num')::int").Scan(&version); err != nil {
			return fmt.Errorf("step g: reading the server's version: %w", err)
		}
		if version >= 140000 {
			copy += " with (freeze on)"
		}
	}
	n, err := db.CopyInTx(ctx, 0, before, copy, &accountText{next: 1, last: g.accounts(), log: g.log})
	if err != nil {
		return fmt.Errorf("step g: %w", err)
	}
	if !db.Null() && n != g.accounts() {
		return fmt.Errorf("step g: the server copied %d accounts, not %d", n, g.accounts())
	}
	return nil
}
