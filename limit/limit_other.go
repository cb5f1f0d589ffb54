//go:build !linux

package limit

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"time"

	"github.com/stampede-bench/stampede/procmatch"
)

// errNotSupported is what every call returns off Linux.
var errNotSupported = errors.New("resource limits need Linux cgroups: stampede limit runs on Linux only")

// Group is a cgroup; off Linux there are none.
type Group struct{}

// ResolveDevice is not supported off Linux.
func ResolveDevice(spec string) (major, minor int64, err error) { return 0, 0, errNotSupported }

// Create is not supported off Linux.
func Create(name string, l Limits, opts ...Option) (*Group, error) { return nil, errNotSupported }

// Load is not supported off Linux.
func Load(name string, opts ...Option) (*Group, error) { return nil, errNotSupported }

// Remove is not supported off Linux.
func Remove(name string, opts ...Option) error { return errNotSupported }

// Name returns "".
func (g *Group) Name() string { return "" }

// Mode returns Auto.
func (g *Group) Mode() Mode { return Auto }

// Limits returns no limits.
func (g *Group) Limits() Limits { return Limits{} }

// Paths returns nothing.
func (g *Group) Paths() []string { return nil }

// String returns "".
func (g *Group) String() string { return "" }

// Path is empty off Linux.
func (g *Group) Path() string { return "" }

// Add is not supported off Linux.
func (g *Group) Add(pid int) error { return errNotSupported }

// PIDs is not supported off Linux.
func (g *Group) PIDs() ([]int, error) { return nil, errNotSupported }

// Command is not supported off Linux.
func (g *Group) Command(cmd *exec.Cmd) error { return errNotSupported }

// Watch is not supported off Linux.
func (g *Group) Watch(ctx context.Context, p *procmatch.Pattern, every time.Duration, moved func(pid int, cmdline string)) error {
	return errNotSupported
}

// Stats is not supported off Linux.
func (g *Group) Stats() (Stats, error) { return Stats{}, errNotSupported }

// Remove is not supported off Linux.
func (g *Group) Remove() error { return errNotSupported }

// Unrestored returns nothing off Linux.
func (g *Group) Unrestored() []string { return nil }

// RunCommand is not supported off Linux.
func (g *Group) RunCommand(ctx context.Context, args []string, stdin io.Reader, stdout, stderr, log io.Writer) error {
	return errNotSupported
}

// Usage is not supported off Linux.
func (g *Group) Usage(prefix string) string { return "" }

// Reweigh is not supported here.
func (g *Group) Reweigh() error { return errNotSupported }

// HoldDir is where holders keep their locks (not used here).
const HoldDir = ""

// Hold is not supported here.
func (g *Group) Hold(dir string) (release func(), err error) { return nil, errNotSupported }

// Abandoned is a group found without its holder.
type Abandoned struct {
	Name       string
	Processes  int
	Err        error
	Unrestored []string
}

// RemoveAbandoned finds nothing here: there are no groups.
func RemoveAbandoned(dir string, opts ...Option) ([]Abandoned, error) { return nil, nil }

// SelfOrAncestor reports whether pid is this process; off Linux its
// ancestors are not read.
func SelfOrAncestor(pid int) bool { return pid == os.Getpid() }

// Descendants lists none: this system has no /proc to read them from.
func Descendants(pid int) []int { return nil }
