package run

import (
	"context"
	"fmt"

	"github.com/stampede-bench/stampede/dialect"
	"github.com/stampede-bench/stampede/sqlx"
)

// CheckpointStatement is the statement that makes d's server write a
// checkpoint, or an input error naming the server when it has none (a
// sweep's --checkpoint).
func CheckpointStatement(d dialect.Dialect) (string, error) {
	c, ok := d.(dialect.Checkpointer)
	if !ok || c.Checkpoint() == "" {
		return "", inputf("--checkpoint: the server (%s) has no CHECKPOINT statement; drop --checkpoint (or give --pause to let it write in the background)", d.Name())
	}
	return c.Checkpoint(), nil
}

// Checkpointer connects to s's server (one connection, to the workload's
// database) and returns a function that makes the server write a
// checkpoint, through its dialect (CheckpointStatement), and the
// function that closes the connection. A server without a checkpoint
// statement, and the null driver, are refused with an input error before
// anything runs.
func Checkpointer(ctx context.Context, s Spec) (checkpoint func(context.Context) error, closeFn func(), err error) {
	if s.Conn.Driver == sqlx.DriverNull {
		return nil, nil, inputf("--checkpoint: the null driver has no server to checkpoint; drop --checkpoint or --driver null")
	}
	c := s.Conn
	c.Conns = 1
	opts, err := c.Options(s.Workload.Meta().DatabaseName(), 1)
	if err != nil {
		return nil, nil, err
	}
	db, err := sqlx.Open(ctx, opts)
	if err != nil {
		return nil, nil, configInput(err)
	}
	stmt, err := CheckpointStatement(db.Dialect())
	if err != nil {
		db.Close()
		return nil, nil, err
	}
	return func(ctx context.Context) error {
		if _, err := db.Exec(ctx, stmt); err != nil {
			return fmt.Errorf("--checkpoint: %s: %w", stmt, err)
		}
		return nil
	}, db.Close, nil
}
