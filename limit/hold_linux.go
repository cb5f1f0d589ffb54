package limit

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// HoldDir is where the processes that hold groups keep their locks
// (Hold): on a tmpfs that starts empty with every boot, as the cgroups do.
// /run/stampede/limits, or /run/PARENT/limits under another Parent.
var HoldDir = filepath.Join("/run", Parent, "limits")

// holdSuffix ends the name of a group's lock file in HoldDir.
const holdSuffix = ".lock"

// Hold says that this process owns the group, until release is called or
// the process ends however it ends (SIGKILL too): it takes an exclusive
// lock on dir/NAME.lock, which the kernel drops with the process. A group
// whose lock no process holds was abandoned (RemoveAbandoned).
func (g *Group) Hold(dir string) (release func(), err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	path := filepath.Join(dir, g.name+holdSuffix)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		f.Close()
		return nil, fmt.Errorf("%s is held by another process: %w", path, err)
	}
	return func() {
		_ = os.Remove(path)
		f.Close()
	}, nil
}

// Abandoned is a group RemoveAbandoned found without its holder.
type Abandoned struct {
	// Name is the group's name (without the stampede/ prefix).
	Name string
	// Processes is how many processes it held when found.
	Processes int
	// Err is why it could not be removed; nil when it was.
	Err error
	// Unrestored are the processes it could not put back where they came
	// from (Group.Unrestored).
	Unrestored []string
}

// RemoveAbandoned removes the groups whose holder (Hold) ended without
// removing them, such as a run killed with SIGKILL, moving their
// processes back to the cgroups they came from (recorded in dir too), and
// returns them. Groups nobody held
// (`stampede limit --pid`, --keep) are never touched. A missing dir is
// no group.
func RemoveAbandoned(dir string, opts ...Option) ([]Abandoned, error) {
	if errParent != nil {
		return nil, errParent
	}
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []Abandoned
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), holdSuffix)
		if !ok || e.IsDir() {
			continue
		}
		path := filepath.Join(dir, e.Name())
		f, err := os.Open(path)
		if err != nil {
			continue // released meanwhile
		}
		if unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB) != nil {
			f.Close() // its holder is alive
			continue
		}
		a := Abandoned{Name: name}
		g, err := Load(name, append([]Option{WithRecordDir(dir)}, opts...)...)
		switch {
		case errors.Is(err, ErrNotExist):
			_ = os.Remove(path) // removed by hand (stampede limit --remove)
			f.Close()
			continue
		case err != nil:
			a.Err = err
		default:
			pids, _ := g.PIDs()
			a.Processes = len(pids)
			a.Err = g.Remove()
			a.Unrestored = g.Unrestored()
		}
		if a.Err == nil {
			_ = os.Remove(path)
		}
		f.Close()
		out = append(out, a)
	}
	return out, nil
}
