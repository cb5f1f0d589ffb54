//go:build unix

package localpg

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

func TestMain(m *testing.M) {
	killTimeout = time.Second // for the test with a stuck server
	os.Exit(m.Run())
}

// requireBinaries skips the test when no PostgreSQL server binaries exist.
func requireBinaries(t *testing.T) {
	t.Helper()
	if _, err := FindBinDir(); err != nil {
		t.Skipf("skipping: %v (scripts/test installs them)", err)
	}
}

// testLog sends progress messages to the test log.
type testLog struct{ t *testing.T }

func (w testLog) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// parentDir returns a new directory that the postgres OS user can traverse
// (t.TempDir's are private to root), removed at the end of the test.
func parentDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "localpg-test-")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// queryString runs a one-value query.
func queryString(t *testing.T, conn *pgx.Conn, sql string) string {
	t.Helper()
	var s string
	if err := conn.QueryRow(context.Background(), sql).Scan(&s); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return s
}

func TestLocalPGStartStop(t *testing.T) {
	requireBinaries(t)
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	// The first port picked is taken: Start must retry with another one.
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	takenPort := taken.Addr().(*net.TCPAddr).Port
	picks := 0
	pickPort := func() (int, error) {
		picks++
		if picks == 1 {
			return takenPort, nil
		}
		return freePort()
	}

	srv, err := Start(ctx, Options{Log: testLog{t}, pickPort: pickPort})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Stop() })

	if srv.Port() <= 0 || srv.Port() > 65535 || srv.Port() == takenPort || picks != 2 {
		t.Errorf("Port() = %d after %d picks (taken port: %d)", srv.Port(), picks, takenPort)
	}
	wantURL := fmt.Sprintf("postgresql://postgres@127.0.0.1:%d/postgres?sslmode=disable", srv.Port())
	if got := srv.URL("postgres"); got != wantURL {
		t.Errorf("URL(postgres) = %q, want %q", got, wantURL)
	}
	if v := srv.Version(); v == "" || v[0] < '1' || v[0] > '9' {
		t.Errorf("Version() = %q, want a version number", v)
	}

	conn, err := pgx.Connect(ctx, srv.URL("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	var one int
	if err := conn.QueryRow(ctx, "SELECT 1").Scan(&one); err != nil || one != 1 {
		t.Fatalf("SELECT 1 = %d, %v", one, err)
	}
	if v := queryString(t, conn, "SHOW server_version"); !strings.HasPrefix(v, srv.Version()) {
		t.Errorf("server_version = %q, Version() = %q", v, srv.Version())
	}
	for setting, want := range map[string]string{
		"max_connections":    "200",
		"shared_buffers":     "128MB",
		"listen_addresses":   "127.0.0.1",
		"fsync":              "on",
		"synchronous_commit": "on",
		"server_encoding":    "UTF8",
		"lc_collate":         "C",
	} {
		if got := queryString(t, conn, "SHOW "+setting); got != want {
			t.Errorf("SHOW %s = %q, want %q", setting, got, want)
		}
	}
	if got := queryString(t, conn, "SHOW unix_socket_directories"); got != srv.dir {
		t.Errorf("unix_socket_directories = %q, want %q", got, srv.dir)
	}
	// Tests create their own databases.
	if _, err := conn.Exec(ctx, "CREATE DATABASE scratch"); err != nil {
		t.Fatal(err)
	}
	conn2, err := pgx.Connect(ctx, srv.URL("scratch"))
	if err != nil {
		t.Fatal(err)
	}
	conn2.Close(ctx)
	// Leave conn open: Stop must cope with connected clients.

	pid := srv.pm.cmd.Process.Pid
	dir := srv.dir
	if _, err := os.Stat(filepath.Join(dir, "data", "PG_VERSION")); err != nil {
		t.Fatalf("data directory: %v", err)
	}

	// Stop from several goroutines at once, as a signal handler might.
	var wg sync.WaitGroup
	errs := make([]error, 3)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = srv.Stop()
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Errorf("Stop: %v", err)
		}
	}
	if err := srv.Stop(); err != nil {
		t.Errorf("second Stop: %v", err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("directory %s still exists after Stop (%v)", dir, err)
	}
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("postmaster pid %d still exists after Stop (kill -0: %v)", pid, err)
	}
	if c, err := net.DialTimeout("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(srv.Port())), time.Second); err == nil {
		c.Close()
		t.Errorf("port %d still accepts connections after Stop", srv.Port())
	}
	if err := conn.Ping(ctx); err == nil {
		t.Error("connection still alive after Stop")
	}
}

func TestLocalPGOptions(t *testing.T) {
	requireBinaries(t)
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	// A parent directory so deep that the Unix socket path would be too long:
	// the server must do without one.
	parent := filepath.Join(parentDir(t), strings.Repeat("d", 90))
	if err := os.Mkdir(parent, 0o755); err != nil {
		t.Fatal(err)
	}
	port, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	binDir, _ := FindBinDir()
	srv, err := Start(ctx, Options{
		Dir:    parent,
		Port:   port,
		BinDir: binDir,
		Settings: map[string]string{
			"max_connections":  "300",
			"Work_Mem":         "8MB",
			"application_name": `it's a \ test`,
		},
		Log: testLog{t},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Stop() })
	if srv.Port() != port {
		t.Errorf("Port() = %d, want %d", srv.Port(), port)
	}
	if filepath.Dir(srv.dir) != parent {
		t.Errorf("server directory %s is not in Options.Dir %s", srv.dir, parent)
	}

	conn, err := pgx.Connect(ctx, srv.URL("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for setting, want := range map[string]string{
		"max_connections":         "300",
		"work_mem":                "8MB",
		"shared_buffers":          "128MB",
		"unix_socket_directories": "",
	} {
		if got := queryString(t, conn, "SHOW "+setting); got != want {
			t.Errorf("SHOW %s = %q, want %q", setting, got, want)
		}
	}
	if got := queryString(t, conn, "SELECT reset_val FROM pg_settings WHERE name = 'application_name'"); got != `it's a \ test` {
		t.Errorf("application_name from the config file = %q", got)
	}

	if err := srv.Stop(); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(parent)
	if err != nil {
		t.Fatalf("Options.Dir must survive Stop: %v", err)
	}
	if len(entries) != 0 {
		t.Errorf("Options.Dir not empty after Stop: %v", entries)
	}
}

// cancelOn is a progress log that cancels a context after delay once a
// message starts with prefix.
type cancelOn struct {
	t      *testing.T
	prefix string
	delay  time.Duration
	cancel context.CancelFunc
}

func (w cancelOn) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	if strings.HasPrefix(string(p), w.prefix) {
		time.AfterFunc(w.delay, w.cancel)
	}
	return len(p), nil
}

func TestLocalPGCancelledStartLeavesNothing(t *testing.T) {
	requireBinaries(t)
	t.Parallel()
	for _, tc := range []struct {
		name   string
		phase  string
		delay  time.Duration
		server string // a fake postgres script; "" for the real one
	}{
		{"before initdb", "initializing", 0, ""},
		{"during initdb", "initializing", 300 * time.Millisecond, ""},
		{"during startup", "starting", 50 * time.Millisecond, "exec sleep 60"},
		// A server that ignores the immediate shutdown and has a child:
		// its whole process group must be killed.
		{"stuck server", "starting", 50 * time.Millisecond, "trap '' INT QUIT TERM; sleep 60 & wait"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			parent := parentDir(t)
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			opts := Options{Dir: parent, Log: cancelOn{t, tc.phase, tc.delay, cancel}}
			if tc.server != "" {
				opts.BinDir = fakeBinDir(t, tc.server)
			}
			srv, err := Start(ctx, opts)
			if err == nil {
				srv.Stop()
				t.Fatal("Start succeeded despite the cancelled context")
			}
			if !errors.Is(err, context.Canceled) {
				t.Errorf("Start error = %v, want context.Canceled", err)
			}
			entries, _ := os.ReadDir(parent)
			if len(entries) != 0 {
				t.Errorf("files left behind in %s: %v", parent, entries)
			}
			if procs := processesUnder(parent); len(procs) > 0 {
				t.Errorf("processes left behind: %v", procs)
			}
		})
	}
}

// processesUnder lists processes whose working directory or command line
// mentions dir (Linux only; nil elsewhere).
func processesUnder(dir string) []string {
	if runtime.GOOS != "linux" {
		return nil
	}
	var found []string
	pids, _ := filepath.Glob("/proc/[0-9]*")
	for _, p := range pids {
		cwd, _ := os.Readlink(filepath.Join(p, "cwd"))
		cmdline, _ := os.ReadFile(filepath.Join(p, "cmdline"))
		if strings.HasPrefix(cwd, dir) || strings.Contains(string(cmdline), dir) {
			found = append(found, fmt.Sprintf("%s (%s)", filepath.Base(p), strings.ReplaceAll(string(cmdline), "\x00", " ")))
		}
	}
	return found
}

func TestLocalPGStartErrors(t *testing.T) {
	ctx := context.Background()
	if _, err := Start(ctx, Options{Settings: map[string]string{"port": "5432"}}); err == nil || !strings.Contains(err.Error(), "Options.Port") {
		t.Errorf("port in Settings: err = %v", err)
	}
	if _, err := Start(ctx, Options{Port: 70000}); err == nil {
		t.Error("port 70000: no error")
	}
	if _, err := Start(ctx, Options{BinDir: t.TempDir()}); err == nil || !strings.Contains(err.Error(), "initdb") {
		t.Errorf("empty BinDir: err = %v", err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := Start(cancelled, Options{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: err = %v", err)
	}
}

func TestFindBinDir(t *testing.T) {
	root := t.TempDir()
	mkbin := func(dir string, names ...string) string {
		t.Helper()
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, n := range names {
			if err := os.WriteFile(filepath.Join(dir, n), []byte("#!/bin/sh\n"), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	all := []string{"initdb", "pg_ctl", "postgres"}
	mkbin(filepath.Join(root, "lib", "9.6", "bin"), all...)
	want := mkbin(filepath.Join(root, "lib", "15", "bin"), all...)
	mkbin(filepath.Join(root, "lib", "16", "bin"), "initdb", "postgres") // incomplete
	mkbin(filepath.Join(root, "lib", "devel", "bin"), all...)            // not a version: last
	partial := mkbin(filepath.Join(root, "partial"), "initdb", "pg_ctl")
	onPath := mkbin(filepath.Join(root, "onpath"), all...)
	if err := os.Chmod(filepath.Join(onPath, "pg_ctl"), 0o644); err != nil { // not executable
		t.Fatal(err)
	}

	old := packageBinGlob
	packageBinGlob = filepath.Join(root, "lib", "*", "bin")
	t.Cleanup(func() { packageBinGlob = old })

	t.Setenv("PATH", strings.Join([]string{"", "relative", partial, onPath}, string(os.PathListSeparator)))
	if got, err := FindBinDir(); err != nil || got != want {
		t.Errorf("FindBinDir() = %q, %v; want %q", got, err, want)
	}

	good := mkbin(filepath.Join(root, "good"), all...)
	t.Setenv("PATH", partial+string(os.PathListSeparator)+good)
	if got, err := FindBinDir(); err != nil || got != good {
		t.Errorf("with a complete $PATH dir: FindBinDir() = %q, %v; want %q", got, err, good)
	}

	t.Setenv("PATH", partial)
	packageBinGlob = filepath.Join(root, "nothing", "*", "bin")
	_, err := FindBinDir()
	const msg = "PostgreSQL server binaries (initdb, pg_ctl) not found: install them with `apt-get install -y postgresql`"
	if err == nil || err.Error() != msg || !errors.Is(err, ErrBinariesNotFound) {
		t.Errorf("FindBinDir() error = %v, want %q", err, msg)
	}
}

func TestMergeSettings(t *testing.T) {
	got, err := mergeSettings(map[string]string{
		"MAX_CONNECTIONS":    "300",
		"search_path":        "'$user', public",
		"log_line_prefix":    "'%m '",
		"my.custom":          `a'b\c`,
		"synchronous_commit": "off",
	})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"max_connections":    "'300'",
		"shared_buffers":     "'128MB'",
		"search_path":        `'''$user'', public'`,
		"log_line_prefix":    "'%m '",
		"my.custom":          `'a''b\\c'`,
		"synchronous_commit": "'off'",
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("mergeSettings:\n got %v\nwant %v", got, want)
	}
	for _, bad := range []map[string]string{
		{"listen_addresses": "*"},
		{"unix_socket_directories": "/tmp"},
		{"bad name": "1"},
		{"x = 1\nfsync": "off"},
		{"work_mem": "1MB\nfsync = off"},
	} {
		if _, err := mergeSettings(bad); err == nil {
			t.Errorf("mergeSettings(%q): no error", bad)
		}
	}
}

func TestParseVersion(t *testing.T) {
	for in, want := range map[string]string{
		"postgres (PostgreSQL) 15.18 (Debian 15.18-0+deb12u1)\n": "15.18",
		"postgres (PostgreSQL) 17.2\n":                           "17.2",
		"postgres (PostgreSQL) 18beta1\n":                        "18beta1",
		"something else\n":                                       "something else",
	} {
		if got := parseVersion(in); got != want {
			t.Errorf("parseVersion(%q) = %q, want %q", in, got, want)
		}
	}
}

// fakeBinDir returns a directory with stand-ins for the server binaries:
// initdb creates an empty data directory, and postgres runs serverScript
// (after answering --version).
func fakeBinDir(t *testing.T, serverScript string) string {
	t.Helper()
	dir := parentDir(t)
	scripts := map[string]string{
		"initdb": "mkdir -p \"$2\" && : > \"$2/postgresql.conf\"", // initdb -D DIR ...
		"pg_ctl": "exit 1",
		"postgres": "if [ \"$1\" = --version ]; then echo 'postgres (PostgreSQL) 15.99'; exit 0; fi\n" +
			serverScript,
	}
	for name, body := range scripts {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestLocalPGFailedStartShowsLogAndCleansUp(t *testing.T) {
	if _, err := serverUser(); err != nil {
		t.Skip(err)
	}
	t.Parallel()
	parent := parentDir(t)
	bin := fakeBinDir(t, "echo 'FATAL:  the fake server refuses to start' >&2; exit 1")
	_, err := Start(context.Background(), Options{Dir: parent, BinDir: bin, Log: testLog{t}})
	if err == nil {
		t.Fatal("Start succeeded")
	}
	t.Log(err)
	if !strings.Contains(err.Error(), "exited during startup") || !strings.Contains(err.Error(), "the fake server refuses to start") {
		t.Errorf("error does not show the server log: %v", err)
	}
	if entries, _ := os.ReadDir(parent); len(entries) != 0 {
		t.Errorf("files left behind in %s: %v", parent, entries)
	}
}

// processAlive reports whether pid runs and is not a zombie (an orphaned
// zombie waits for init to reap it).
func processAlive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	s := string(data)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	return len(f) == 0 || f[0] != "Z"
}

// TestHelperServer is not a test: run by TestLocalPGOutlivesCaller as a
// separate process, it starts a server, prints its URL, directory and pid,
// and exits without calling Stop.
func TestHelperServer(t *testing.T) {
	mode := os.Getenv("LOCALPG_TEST_HELPER")
	if mode == "" {
		t.Skip("helper process for TestLocalPGOutlivesCaller")
	}
	srv, err := Start(context.Background(), Options{Dir: os.Getenv("LOCALPG_TEST_DIR"), Detach: mode == "detach"})
	if err != nil {
		fmt.Println("ERROR", err)
		os.Exit(1)
	}
	fmt.Println("SERVER", srv.URL("postgres"), srv.Dir(), srv.pm.cmd.Process.Pid)
	os.Exit(0)
}

// TestLocalPGOutlivesCaller checks what happens to a server whose starting
// process exits without Stop: it dies with it, unless Detach was set.
func TestLocalPGOutlivesCaller(t *testing.T) {
	requireBinaries(t)
	if runtime.GOOS != "linux" {
		t.Skip("the parent-death signal is Linux-only")
	}
	t.Parallel()
	for _, mode := range []string{"attached", "detach"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			parent := parentDir(t)
			cmd := exec.Command(os.Args[0], "-test.run=^TestHelperServer$", "-test.count=1")
			cmd.Env = append(os.Environ(), "LOCALPG_TEST_HELPER="+mode, "LOCALPG_TEST_DIR="+parent)
			out, err := cmd.Output()
			var url, dir string
			var pid int
			for _, line := range strings.Split(string(out), "\n") {
				if strings.HasPrefix(line, "SERVER ") {
					fmt.Sscan(strings.TrimPrefix(line, "SERVER "), &url, &dir, &pid)
				}
			}
			if err != nil || pid == 0 {
				t.Fatalf("helper: %v\n%s", err, out)
			}
			defer func() { // stop a server that outlived the helper
				if syscall.Kill(pid, syscall.SIGINT) == nil {
					for i := 0; i < 100 && syscall.Kill(pid, 0) == nil; i++ {
						time.Sleep(50 * time.Millisecond)
					}
				}
				os.RemoveAll(dir)
			}()

			alive := false
			for i := 0; i < 40; i++ { // the attached server takes a moment to go
				if alive = processAlive(pid); !alive {
					break
				}
				if mode == "detach" {
					break
				}
				time.Sleep(50 * time.Millisecond)
			}
			if mode == "attached" {
				if alive {
					t.Errorf("server (pid %d) still runs after the process that started it exited", pid)
				}
				return
			}
			if !alive {
				t.Fatalf("detached server (pid %d) died with the process that started it", pid)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			conn, err := pgx.Connect(ctx, url)
			if err != nil {
				t.Fatalf("detached server: %v", err)
			}
			conn.Close(ctx)
		})
	}
}
