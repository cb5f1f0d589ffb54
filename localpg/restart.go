package localpg

import (
	"context"
	"fmt"
	"os"
	"sync"
	"syscall"
	"time"
)

// restartMu serializes Restart calls (of all servers: restarts are rare),
// so that two of them never launch two postmasters for one data directory.
var restartMu sync.Mutex

// Restart stops the server and starts it again with the same data
// directory, configuration and port, waiting (at most 30 s) until it
// accepts connections again. Unlike Stop it keeps every file, so the data
// survives. It is meant for fault tests.
//
// With immediate set, the postmaster gets SIGQUIT, the immediate shutdown
// of `pg_ctl stop -m immediate`: every backend exits at once without a
// shutdown checkpoint, as in a crash, and the server goes through crash
// recovery (WAL replay) when it starts again. Otherwise it gets SIGINT, the
// fast shutdown of `pg_ctl stop -m fast` (open transactions are rolled back
// and a checkpoint is written). Either way, a server that does not exit in
// time is killed, as Stop does. Clients lose their connections.
//
// ctx bounds only the startup. If Restart fails, the server may be down;
// Stop still stops whatever runs and removes the files. Restart must not be
// called after Stop, nor concurrently with it; concurrent Restarts are
// serialized.
func (s *Server) Restart(ctx context.Context, immediate bool) error {
	restartMu.Lock()
	defer restartMu.Unlock()
	if err := ctx.Err(); err != nil {
		return err
	}
	if _, err := os.Stat(s.dataDir); err != nil {
		return fmt.Errorf("localpg: cannot restart PostgreSQL on 127.0.0.1:%d: its data directory is gone (was Stop called?): %w", s.port, err)
	}
	mode := "fast"
	if immediate {
		mode = "immediate"
	}
	s.logf("restarting PostgreSQL on 127.0.0.1:%d (%s shutdown) ...", s.port, mode)
	if err := s.stopServer(!immediate); err != nil {
		return err
	}
	if pm := s.pm; pm != nil {
		// The postmaster waits for its backends before it exits, but the
		// new one must not find any still attached to shared memory.
		killGroupRemains(pm.cmd.Process.Pid)
	}
	return s.launch(ctx)
}

// killGroupRemains kills whatever is left of the process group pgid once
// its leader has exited, waiting at most killTimeout for it to be gone.
func killGroupRemains(pgid int) {
	deadline := time.Now().Add(killTimeout)
	for groupAlive(pgid) && time.Now().Before(deadline) {
		signalGroup(pgid, syscall.SIGKILL)
		time.Sleep(10 * time.Millisecond)
	}
}
