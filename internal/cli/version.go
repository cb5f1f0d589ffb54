package cli

import (
	"fmt"
	"runtime"

	"github.com/spf13/cobra"

	"github.com/stampede-bench/stampede/cmdline"
	"github.com/stampede-bench/stampede/run"
)

// versionString returns stampede's version (see run.Version) with the
// VCS revision when known.
func versionString() string { return run.VersionString() }

func (a *app) versionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print stampede's version",
		Example: `  stampede version
  stampede --version`,
		Args: cmdline.Positional(0, 0),
		RunE: func(cmd *cobra.Command, args []string) error {
			fmt.Fprint(a.stdout, versionLine())
			return nil
		},
	}
}

// versionLine is what `stampede version` and `stampede --version` print:
// the version, Go's and the platform.
func versionLine() string {
	return fmt.Sprintf("stampede %s (%s, %s/%s)\n", versionString(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
}
