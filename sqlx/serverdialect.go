package sqlx

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/stampede-bench/stampede/dialect"
)

// ServerDialect returns the dialect of the server at opts' first endpoint
// (opts.Dialect when set), from its version() as Open tells it, without
// creating anything: it connects to opts.Database, or to the endpoint's
// maintenance database ("postgres") when that does not exist yet. A
// command asks it to refuse what the server cannot do before
// EnsureDatabase creates the database. With the null driver it is
// dialect.Postgres, as Open's.
func ServerDialect(ctx context.Context, opts Options) (dialect.Dialect, error) {
	if opts.Dialect != nil {
		return opts.Dialect, nil
	}
	if opts.Driver == DriverNull {
		return dialect.Postgres{}, nil
	}
	cfgs, err := ParseConfigs(opts)
	if err != nil {
		return nil, err
	}
	cfg := cfgs[0].ConnConfig.Copy()
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if IsMissingDatabase(err) {
		cfg.Database = "postgres"
		conn, err = pgx.ConnectConfig(ctx, cfg)
	}
	if err != nil {
		return nil, describeConnectError(cfgs[0], err)
	}
	defer conn.Close(ctx)
	var v string
	if err := conn.QueryRow(ctx, "SELECT version()", pgx.QueryExecModeSimpleProtocol).Scan(&v); err != nil {
		return nil, err
	}
	return dialectOf(v), nil
}
