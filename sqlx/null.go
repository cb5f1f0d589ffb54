package sqlx

import "context"

// nullConn is the "null" driver: every statement succeeds at once, returns
// no rows and affects one row. It lets the engine and a workload's
// operation choice and key generation run at full speed with no server.
type nullConn struct{}

type nullRow struct{}

type nullRows struct{}

var (
	_ Conn = nullConn{}
	_ Tx   = nullConn{}
)

func (nullConn) Exec(context.Context, string, ...any) (int64, error) { return 1, nil }
func (nullConn) Query(context.Context, string, ...any) (Rows, error) { return nullRows{}, nil }
func (nullConn) QueryRow(context.Context, string, ...any) Row        { return nullRow{} }
func (nullConn) Begin(context.Context, TxOptions) (Tx, error)        { return nullConn{}, nil }
func (nullConn) Commit(context.Context) error                        { return nil }
func (nullConn) Rollback(context.Context) error                      { return nil }
func (nullConn) Release()                                            {}

func (nullRow) Scan(...any) error { return nil }

func (nullRows) Next() bool          { return false }
func (nullRows) Scan(...any) error   { return nil }
func (nullRows) RawValues() [][]byte { return nil }
func (nullRows) Err() error          { return nil }
func (nullRows) Close()              {}

// IsNullConn reports whether c belongs to the null driver, whose queries
// return no rows: workloads that treat a missing row as an error skip
// that check for it.
func IsNullConn(c Conn) bool {
	_, ok := c.(nullConn)
	return ok
}
