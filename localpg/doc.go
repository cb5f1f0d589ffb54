// Package localpg runs a throwaway PostgreSQL server on 127.0.0.1 for
// `stampede demo` and for tests.
//
// Start creates a fresh data directory with initdb (trust authentication for
// the "postgres" role, UTF8, C locale), writes a small configuration that
// binds the server to 127.0.0.1 only, starts the postgres binary as a child
// process and waits until it accepts connections. Stop shuts it down and
// removes every file Start created:
//
//	srv, err := localpg.Start(ctx, localpg.Options{Log: os.Stderr})
//	if err != nil {
//		return err
//	}
//	defer srv.Stop()
//	db, err := pgx.Connect(ctx, srv.URL("postgres"))
//
// The server binaries (initdb, pg_ctl, postgres) are looked up with
// FindBinDir: first in $PATH, then in the Debian/Ubuntu package location
// /usr/lib/postgresql/VERSION/bin (highest version first). On Debian they come
// with `apt-get install -y postgresql`.
//
// PostgreSQL refuses to run as root. When the calling process is root, the
// data directory is handed to the "postgres" OS user (created by Debian's
// postgresql package) and initdb and postgres run as that user; otherwise they
// run as the current user.
//
// Durability settings are left at PostgreSQL's defaults (fsync and
// synchronous_commit on), so that numbers measured against the server are
// honest; only shared_buffers (128MB) and max_connections (200) are set, and
// Options.Settings can override or add settings.
//
// The server runs in its own process group, so a Ctrl-C in the terminal
// reaches only the calling program, which decides when to call Stop (or
// cancel the context given to Start). On Linux the server also gets SIGQUIT
// (immediate shutdown) if the calling process dies without calling Stop
// (unless Options.Detach is set); its files are then left behind in the
// temporary directory.
//
// The package is meant for Linux and other Unix systems; elsewhere Start
// returns an error.
package localpg
