package limit

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
)

// shimEnv names the environment variable that turns any binary linking
// this package into the shim that Group.Command starts: it joins a group,
// then execs the real program.
const shimEnv = "STAMPEDE_LIMIT_CGEXEC"

// shimSpec is what the shim needs, passed as JSON in shimEnv.
type shimSpec struct {
	Mode Mode   `json:"mode"`
	Root string `json:"root"`
	Name string `json:"name"`
	// Records is the group's record directory (WithRecordDir).
	Records string `json:"records,omitempty"`
	// Path is the program to exec; its arguments are the shim's own.
	Path string `json:"path"`
}

// Exit codes of the shim when it fails, as a shell uses them.
const (
	shimCannotJoin = 126
	shimCannotExec = 127
)

func init() {
	if v, ok := os.LookupEnv(shimEnv); ok {
		os.Exit(runShim(v))
	}
}

// runShim joins the group spec names and execs the program. It returns
// only on failure, with an exit code, after saying why on stderr.
func runShim(spec string) int {
	var s shimSpec
	if err := json.Unmarshal([]byte(spec), &s); err != nil {
		fmt.Fprintf(os.Stderr, "stampede: malformed %s=%q: %v\n", shimEnv, spec, err)
		return shimCannotJoin
	}
	env := slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, shimEnv+"=") })
	opts := []Option{WithMode(s.Mode), WithRoot(s.Root)}
	if s.Records != "" {
		opts = append(opts, WithRecordDir(s.Records))
	}
	g, err := Load(s.Name, opts...)
	if err == nil {
		err = g.Add(os.Getpid())
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "stampede: cannot start %s in cgroup %s/%s: %v\n", s.Path, Parent, s.Name, err)
		return shimCannotJoin
	}
	err = syscall.Exec(s.Path, os.Args, env)
	fmt.Fprintf(os.Stderr, "stampede: cannot run %s: %v\n", s.Path, err)
	return shimCannotExec
}

// Command prepares cmd, not yet started, to run inside the group, as
// cgexec does: the process cmd starts is in the group before the program
// runs its first instruction, so its children are born in the group too.
// Start, Wait and Process work as usual afterwards; the PID is the
// program's. Right after Start the process may not have joined the group
// yet: it does so before it execs the program.
//
// It does so by starting the current executable (os.Executable) with
// cmd's arguments and an environment variable that makes this package's
// init function join the group and exec cmd.Path. If joining fails the
// process exits with status 126 and says why on stderr; if the exec fails,
// with 127.
func (g *Group) Command(cmd *exec.Cmd) error {
	if cmd.Process != nil {
		return errors.New("Command: the command has already started")
	}
	if cmd.Err != nil {
		return cmd.Err
	}
	if cmd.Path == "" {
		return errors.New("Command: the command has no program")
	}
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("cannot find stampede's own executable, needed to start commands in a cgroup: %w", err)
	}
	spec, err := json.Marshal(shimSpec{Mode: g.mode, Root: g.root, Name: g.name, Records: g.records, Path: cmd.Path})
	if err != nil {
		return err
	}
	env := cmd.Env
	if env == nil {
		env = os.Environ()
	}
	cmd.Env = append(slices.Clone(env), shimEnv+"="+string(spec))
	cmd.Path = self
	return nil
}
