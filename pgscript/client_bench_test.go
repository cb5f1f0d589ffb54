package pgscript

import (
	"context"
	"io"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/pgscript/prng"
	"github.com/stampede-bench/stampede/sqlx"
)

// nopConn answers every statement at once with no row: what the client
// costs by itself per script.
type nopConn struct{}

func (nopConn) QueryScript(context.Context, sqlx.Protocol, string, [][]byte, sqlx.ScriptRow) (int64, error) {
	return 1, nil
}
func (nopConn) TxStatus() byte                                           { return 'I' }
func (nopConn) CopyIn(context.Context, string, io.Reader) (int64, error) { return 0, nil }
func (nopConn) Describe(context.Context, string) ([]string, error)       { return nil, nil }

func (nopConn) Connect(context.Context) error { return nil }

func (nopConn) Disconnect(context.Context) {}

type nopRecorder struct{}

func (nopRecorder) Record(int, time.Duration) {}

// BenchmarkClientPointSelect runs sysbench's point select as a script:
// one \set and one prepared statement, the per-operation path of run sql.
func BenchmarkClientPointSelect(b *testing.B) {
	s, err := Parse("point.sql", 1, "\\set id random(1, :table_size)\nSELECT c FROM sbtest1 WHERE id = :id;\n")
	if err != nil {
		b.Fatal(err)
	}
	p, err := Compile([]*Script{s}, Options{Protocol: sqlx.Prepared, Defines: map[string]string{"table_size": "100000"}}, nil)
	if err != nil {
		b.Fatal(err)
	}
	st := prng.PgbenchStreams(1, 1, 1)
	c := p.NewClient(0, nopConn{}, nopRecorder{}, st.Clients[0], st.Choose[0], st.DefaultSeed, 1)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if err := c.Run(ctx, c.Choose()); err != nil {
			b.Fatal(err)
		}
	}
}
