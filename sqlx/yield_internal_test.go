package sqlx

import (
	"context"
	"net"
	"os"
	"testing"
)

func TestIsLocal(t *testing.T) {
	for _, tc := range []struct {
		addr net.Addr
		want bool
	}{
		{&net.TCPAddr{IP: net.ParseIP("127.0.0.1"), Port: 5432}, true},
		{&net.TCPAddr{IP: net.ParseIP("::1"), Port: 5432}, true},
		{&net.TCPAddr{IP: net.ParseIP("10.1.2.3"), Port: 5432}, false},
		{&net.UnixAddr{Name: "/var/run/postgresql/.s.PGSQL.5432", Net: "unix"}, true},
	} {
		if got := isLocal(tc.addr); got != tc.want {
			t.Errorf("isLocal(%v) = %v, want %v", tc.addr, got, tc.want)
		}
	}
}

// TestRawStmtSmall checks that the fast path learns which statements
// answer in one piece (after which it yields the CPU to a local server)
// and which do not.
func TestRawStmtSmall(t *testing.T) {
	u := os.Getenv("STAMPEDE_TEST_DATABASE")
	if u == "" {
		t.Skip("Skipping due to missing environment variable STAMPEDE_TEST_DATABASE")
	}
	ctx := context.Background()
	db, err := Open(ctx, Options{URLs: []string{u}, MaxConns: 1, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	conn := db.Conn(0, true)
	defer conn.Release()
	w := conn.(*workerConn)
	const small = "SELECT $1::text"
	const large = "SELECT repeat('x', 100) FROM generate_series(1, $1::int)"
	for _, q := range []struct {
		sql   string
		param string
		want  bool
	}{{small, "a", true}, {large, "1000", false}, {large, "1", true}} {
		if _, err := w.QueryRaw(ctx, q.sql, [][]byte{[]byte(q.param)}, nil); err != nil {
			t.Fatal(err)
		}
		if got := w.raw.descs[q.sql].small; got != q.want {
			t.Errorf("%s (%s): small %v, want %v", q.sql, q.param, got, q.want)
		}
	}
	c, err := w.conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	cc, ok := c.PgConn().Conn().(*countingConn)
	if !ok || !cc.local || cc.yieldNext.Load() {
		t.Errorf("connection %T: local %v, yield pending %v", c.PgConn().Conn(), ok && cc.local, ok && cc.yieldNext.Load())
	}
}
