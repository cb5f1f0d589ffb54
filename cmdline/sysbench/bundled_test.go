package sysbench_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stampede-bench/stampede/cmdline/sysbench"
	"github.com/stampede-bench/stampede/run"
)

// TestUserScriptRefused checks that a .lua path whose file is not
// sysbench 1.0.20's bundled script of that name is refused in one line
// (stampede would run its own script in its place), while a path that
// does not exist and a bare name still name the bundled script.
func TestUserScriptRefused(t *testing.T) {
	dir := t.TempDir()
	mine := filepath.Join(dir, "oltp_read_write.lua")
	if err := os.WriteFile(mine, []byte("#!/usr/bin/env sysbench\nrequire(\"oltp_common\")\nfunction event()\n   execute_point_selects()\nend\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	unreadable := filepath.Join(dir, "oltp_insert.lua")
	if err := os.Mkdir(unreadable, 0o755); err != nil {
		t.Fatal(err)
	}
	// A copy of sysbench's directory whose oltp_common.lua is modified
	// (UNLOGGED tables), beside bundled-identical scripts: sysbench runs
	// the modified module, so stampede must refuse as for a modified
	// script. A copy with the module unchanged is accepted.
	copied, changed := filepath.Join(dir, "sb"), filepath.Join(dir, "sbmod")
	for _, d := range []string{copied, changed} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, f := range []string{"oltp_read_write.lua", "oltp_common.lua"} {
			b, err := os.ReadFile(filepath.Join("/usr/share/sysbench", f))
			if err != nil {
				t.Skipf("sysbench 1.0.20's scripts are not in /usr/share/sysbench: %v", err)
			}
			if d == changed && f == "oltp_common.lua" {
				b = []byte(strings.Replace(string(b), "CREATE TABLE", "CREATE UNLOGGED TABLE", 1))
			}
			if err := os.WriteFile(filepath.Join(d, f), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	ownName := filepath.Join(dir, "mybench.lua")
	for _, tc := range []struct {
		name string
		args []string
		want string // "" for accepted
	}{
		{"modified oltp_common.lua beside the script", []string{filepath.Join(changed, "oltp_read_write.lua"), "prepare"},
			filepath.Join(changed, "oltp_common.lua") + ", which " + filepath.Join(changed, "oltp_read_write.lua") + " requires from its directory, is not sysbench 1.0.20's oltp_common.lua (its contents differ)"},
		{"modified oltp_common.lua, by --test", []string{"--test=" + filepath.Join(changed, "oltp_read_write.lua"), "run"}, "is not sysbench 1.0.20's oltp_common.lua"},
		{"a copy of sysbench's directory", []string{filepath.Join(copied, "oltp_read_write.lua"), "run"}, ""},
		{"a script of the user's own name", []string{ownName, "run"}, "stampede runs only its own implementation of sysbench 1.0.20's bundled scripts"},
		{"own script", []string{mine, "run"}, mine + " is not sysbench 1.0.20's oltp_read_write.lua (its contents differ): stampede runs its own implementation of sysbench's bundled scripts and cannot run a script's Lua, so it will not run yours in its place; give the bundled script's name, oltp_read_write, or run your script with sysbench"},
		{"own script by --test", []string{"--test=" + mine, "prepare"}, mine + " is not sysbench 1.0.20's oltp_read_write.lua"},
		{"own script, help", []string{mine, "help"}, mine + " is not sysbench 1.0.20's oltp_read_write.lua"},
		{"not a file", []string{unreadable, "run"}, "cannot read " + unreadable + ": is a directory: give a readable copy of sysbench 1.0.20's oltp_insert.lua, or the script's bare name, oltp_insert"},
		{"path that does not exist", []string{filepath.Join(dir, "none", "oltp_read_write.lua"), "run"}, ""},
		{"bare name", []string{"oltp_read_write", "run"}, ""},
		{"bare name with .lua, not here", []string{"oltp_point_select.lua", "run"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := sysbench.Parse(tc.args, flags)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.want == "":
			case err == nil:
				t.Fatalf("accepted, want %q", tc.want)
			case !errors.Is(err, run.ErrInput) || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), tc.want):
				t.Fatalf("error %q, want one input error line with %q", err, tc.want)
			}
		})
	}
}

// TestBundledScriptsAccepted checks that sysbench 1.0.20's own scripts,
// where sysbench is installed (/usr/share/sysbench, or the directory
// SYSBENCH_SCRIPTS names), are accepted by their path, with Debian's #!
// line and with sysbench's source's.
func TestBundledScriptsAccepted(t *testing.T) {
	src := os.Getenv("SYSBENCH_SCRIPTS")
	if src == "" {
		src = "/usr/share/sysbench"
	}
	paths, _ := filepath.Glob(filepath.Join(src, "*.lua"))
	if len(paths) == 0 {
		t.Skipf("no sysbench scripts in %s (install sysbench 1.0.20, or set SYSBENCH_SCRIPTS)", src)
	}
	n := 0
	for _, p := range paths {
		name := strings.TrimSuffix(filepath.Base(p), ".lua")
		if name == "oltp_common" {
			continue
		}
		n++
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := sysbench.Parse([]string{p, "run"}, flags); err != nil {
			t.Errorf("%s: %v", p, err)
		}
		// The same script with sysbench's source's #! line.
		_, rest, _ := strings.Cut(string(b), "\n")
		other := filepath.Join(t.TempDir(), filepath.Base(p))
		if err := os.WriteFile(other, []byte("#!/usr/bin/env sysbench\n"+rest), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := sysbench.Parse([]string{other, "run"}, flags); err != nil {
			t.Errorf("%s with #!/usr/bin/env sysbench: %v", p, err)
		}
		// One changed byte is another script.
		if err := os.WriteFile(other, append(b, ' '), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := sysbench.Parse([]string{other, "run"}, flags); err == nil {
			t.Errorf("%s with a byte added: accepted", p)
		}
	}
	if n != len(sysbench.Scripts) {
		t.Errorf("%d scripts in %s, want sysbench 1.0.20's %d", n, src, len(sysbench.Scripts))
	}
}
