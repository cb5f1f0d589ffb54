package sysbench

import (
	"context"
	"errors"
	"io"

	"github.com/stampede-bench/stampede/run"
)

// Cleanup runs spec's cleanup as sysbench's cleanup command prints it:
// sysbench's header and its "Dropping table 'sbtestN'..." lines on
// stdout (CleanupLog), stampede's other lines on stderr. spec.Log is
// replaced.
func Cleanup(ctx context.Context, spec run.CleanupSpec, stdout, stderr io.Writer) error {
	Header(stdout, run.VersionString())
	log := &CleanupLog{Out: stdout, Err: stderr}
	spec.Log = log
	err := run.Cleanup(ctx, spec)
	return errors.Join(err, log.Close())
}
