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

// TestUserScriptRefused checks that stampede refuses, in one line,
// whenever sysbench 1.0.20 would run Lua that is not its own bundled
// file, and finds that file as sysbench does: the script argument when
// it is a file, else the bare name in package.path, which begins with the
// current directory (./?.lua, ./?/init.lua), goes on to $HOME's luarocks
// tree and ends with /usr/share/sysbench, and LUA_PATH replaces; the
// script's own directory is never searched. Each case was checked with
// the real sysbench: a print line in the user's file shows that it runs.
func TestUserScriptRefused(t *testing.T) {
	orig := map[string][]byte{}
	for _, f := range []string{"oltp_read_only", "oltp_read_write", "oltp_common"} {
		b, err := os.ReadFile(filepath.Join("/usr/share/sysbench", f+".lua"))
		if err != nil {
			t.Skipf("sysbench 1.0.20's scripts are not in /usr/share/sysbench: %v", err)
		}
		orig[f] = b
	}
	changed := func(f string) []byte { return append([]byte("print(\"USER FILE\")\n"), orig[f]...) }
	own := []byte("#!/usr/bin/env sysbench\nrequire(\"oltp_common\")\nfunction event()\n   execute_point_selects()\nend\n")
	for _, tc := range []struct {
		name  string
		files map[string][]byte // under the case's directory; "dir/" makes a directory
		cwd   string            // the current directory, under the case's directory
		env   map[string]string // "@" stands for the case's directory
		args  []string          // "@" stands for the case's directory
		want  string            // "" for accepted; "@" stands for the case's directory
	}{
		{name: "modified ./oltp_common.lua, the bundled script's path",
			files: map[string][]byte{"oltp_common.lua": changed("oltp_common")},
			args:  []string{"/usr/share/sysbench/oltp_read_only.lua", "run"},
			want:  "/usr/share/sysbench/oltp_read_only.lua requires oltp_common, and sysbench 1.0.20 would load @/oltp_common.lua (Lua's package.path looks in the current directory first), which is not its bundled oltp_common.lua (its contents differ)"},
		{name: "modified ./oltp_common.lua, the bare name",
			files: map[string][]byte{"oltp_common.lua": changed("oltp_common")},
			args:  []string{"oltp_read_only", "run"},
			want:  "oltp_read_only requires oltp_common, and sysbench 1.0.20 would load @/oltp_common.lua"},
		{name: "modified ./oltp_common.lua, by --test",
			files: map[string][]byte{"oltp_common.lua": changed("oltp_common")},
			args:  []string{"--test=oltp_read_write", "prepare"},
			want:  "would load @/oltp_common.lua"},
		{name: "modified ./oltp_read_only.lua, the bare name",
			files: map[string][]byte{"oltp_read_only.lua": changed("oltp_read_only")},
			args:  []string{"oltp_read_only", "run"},
			want:  "for oltp_read_only, sysbench 1.0.20 would run @/oltp_read_only.lua (it looks in the current directory first), which is not its bundled oltp_read_only.lua (its contents differ)"},
		{name: "modified ./oltp_read_only/init.lua, the bare name",
			files: map[string][]byte{"oltp_read_only/init.lua": changed("oltp_read_only")},
			args:  []string{"oltp_read_only", "help"},
			want:  "sysbench 1.0.20 would run @/oltp_read_only/init.lua"},
		{name: "a file of the bare name itself",
			files: map[string][]byte{"oltp_read_only": changed("oltp_read_only")},
			args:  []string{"oltp_read_only", "run"},
			want:  "oltp_read_only is not sysbench 1.0.20's oltp_read_only.lua (its contents differ)"},
		{name: "modified oltp_common.lua beside the script, run from elsewhere",
			files: map[string][]byte{"sb/oltp_read_write.lua": orig["oltp_read_write"], "sb/oltp_common.lua": changed("oltp_common"), "elsewhere/": nil},
			cwd:   "elsewhere", args: []string{"@/sb/oltp_read_write.lua", "run"}},
		{name: "modified oltp_common.lua beside the script, run from there",
			files: map[string][]byte{"sb/oltp_read_write.lua": orig["oltp_read_write"], "sb/oltp_common.lua": changed("oltp_common")},
			cwd:   "sb", args: []string{"oltp_read_write.lua", "run"},
			want: "oltp_read_write.lua requires oltp_common, and sysbench 1.0.20 would load @/sb/oltp_common.lua"},
		{name: "a copy of sysbench's directory, run from there",
			files: map[string][]byte{"oltp_read_write.lua": orig["oltp_read_write"], "oltp_common.lua": orig["oltp_common"]},
			args:  []string{"oltp_read_write", "run"}},
		{name: "modified oltp_common.lua in luarocks' tree under $HOME",
			files: map[string][]byte{"home/.luarocks/share/lua/5.1/oltp_common.lua": changed("oltp_common"), "work/": nil},
			cwd:   "work", env: map[string]string{"HOME": "@/home"}, args: []string{"oltp_read_only", "run"},
			want: "would load @/home/.luarocks/share/lua/5.1/oltp_common.lua"},
		{name: "modified oltp_common.lua in LUA_PATH",
			files: map[string][]byte{"lib/oltp_common.lua": changed("oltp_common"), "work/": nil},
			cwd:   "work", env: map[string]string{"LUA_PATH": "@/lib/?.lua;;"}, args: []string{"oltp_read_only", "run"},
			want: "would load @/lib/oltp_common.lua"},
		{name: "own script by its path",
			files: map[string][]byte{"mine/oltp_read_write.lua": own},
			args:  []string{"@/mine/oltp_read_write.lua", "run"},
			want:  "@/mine/oltp_read_write.lua is not sysbench 1.0.20's oltp_read_write.lua (its contents differ): stampede runs its own implementation of sysbench's bundled scripts and cannot run a script's Lua, so it will not run yours in its place; give the bundled script's name, oltp_read_write, or run your script with sysbench"},
		{name: "own script by --test",
			files: map[string][]byte{"mine/oltp_read_write.lua": own},
			args:  []string{"--test=@/mine/oltp_read_write.lua", "prepare"},
			want:  "@/mine/oltp_read_write.lua is not sysbench 1.0.20's oltp_read_write.lua"},
		{name: "own script, help",
			files: map[string][]byte{"oltp_read_write.lua": own},
			args:  []string{"oltp_read_write.lua", "help"},
			want:  "oltp_read_write.lua is not sysbench 1.0.20's oltp_read_write.lua"},
		{name: "a script of the user's own name",
			files: map[string][]byte{"mybench.lua": own},
			args:  []string{"mybench.lua", "run"},
			want:  "stampede runs only its own implementation of sysbench 1.0.20's bundled scripts"},
		{name: "not a file",
			files: map[string][]byte{"oltp_insert.lua/": nil},
			args:  []string{"@/oltp_insert.lua", "run"},
			want:  "cannot read @/oltp_insert.lua: is a directory: give a readable copy of sysbench 1.0.20's oltp_insert.lua, or the script's bare name, oltp_insert"},
		{name: "path that does not exist", args: []string{"@/none/oltp_read_write.lua", "run"}},
		{name: "bare name", args: []string{"oltp_read_write", "run"}},
		{name: "bare name with .lua, not here", args: []string{"oltp_point_select.lua", "run"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			at := func(s string) string { return strings.ReplaceAll(s, "@", dir) }
			for f, b := range tc.files {
				p := filepath.Join(dir, f)
				if strings.HasSuffix(f, "/") {
					if err := os.MkdirAll(p, 0o755); err != nil {
						t.Fatal(err)
					}
					continue
				}
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, b, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			t.Setenv("HOME", filepath.Join(dir, "nohome"))
			os.Unsetenv("LUA_PATH")
			for k, v := range tc.env {
				t.Setenv(k, at(v))
			}
			t.Chdir(filepath.Join(dir, tc.cwd))
			var args []string
			for _, a := range tc.args {
				args = append(args, at(a))
			}
			_, err := sysbench.Parse(args, flags)
			want := at(tc.want)
			switch {
			case want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case want == "":
			case err == nil:
				t.Fatalf("accepted, want %q", want)
			case !errors.Is(err, run.ErrInput) || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), want):
				t.Fatalf("error %q, want one input error line with %q", err, want)
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
