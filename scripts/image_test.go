//go:build linux

package scripts_test

import (
	"archive/tar"
	"bytes"
	"debug/elf"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/stampede-bench/stampede/run"
)

// imageUID is the image's user and group (the Containerfile's USER).
const imageUID = 65532

// containerEnv writes a containers.conf and a storage.conf into dir and
// returns the environment that makes buildah and podman use them: images,
// containers, volumes and temporary files all under dir, nothing in
// /etc/containers changed. podman runs the image with runc and cgroupfs
// (crun refuses the hybrid cgroup layout of these machines) and without
// default ulimits (Debian's nofile=1048576 is above the hard limit here).
// The containers have no network (--network none), and the CNI backend
// is named because netavark, as root, keeps its state in
// /run/containers/networks whatever the configuration says. Only
// buildah's blob-info cache (/var/lib/containers/cache as root) is
// written outside dir.
func containerEnv(t *testing.T, dir string) []string {
	t.Helper()
	for _, d := range []string{"storage", "run", "tmp", "libpod", "volumes", "networks"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	write(t, dir, "storage.conf", fmt.Sprintf(`[storage]
driver = "vfs"
graphroot = %q
runroot = %q
`, filepath.Join(dir, "storage"), filepath.Join(dir, "run")))
	write(t, dir, "containers.conf", fmt.Sprintf(`[containers]
default_ulimits = []

[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "none"
tmp_dir = %q
volume_path = %q

[network]
network_backend = "cni"
network_config_dir = %q
`, filepath.Join(dir, "libpod"), filepath.Join(dir, "volumes"), filepath.Join(dir, "networks")))
	return append(os.Environ(),
		"CONTAINERS_CONF="+filepath.Join(dir, "containers.conf"),
		"CONTAINERS_STORAGE_CONF="+filepath.Join(dir, "storage.conf"),
		"TMPDIR="+filepath.Join(dir, "tmp"))
}

// kernelRefusals are what podman and runc say when the kernel does not
// let them make a container (no namespaces, no mounts): the only reason
// TestImage skips once the tools are installed.
var kernelRefusals = regexp.MustCompile(`(?i)(unshare|clone|namespace|mount).*operation not permitted|operation not permitted.*(unshare|clone|namespace)|user namespaces are not enabled|cannot set up namespace`)

// TestImage builds the image with scripts/image (buildah, FROM scratch)
// and runs it with podman: `stampede version` prints this build's
// version; the image holds the static binary, the host's CA bundle, a
// passwd entry for the non-root user and nothing else of size; a
// null-driver run writes its run directory into the image's results
// directory, which (mounted from the host) then holds exactly one run,
// owned by the non-root UID (or by the UID given with --user), with every
// operation asked for. It is
// skipped without buildah and podman (scripts/test installs them), or
// where the kernel refuses containers.
func TestImage(t *testing.T) {
	for _, tool := range []string{"buildah", "podman"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("STAMPEDE_TEST_DATABASE") != "" {
				t.Fatalf("%s is not installed, though scripts/test installs it (scripts/lib.sh ensure_container_tools)", tool)
			}
			t.Skipf("%s is not installed: run through scripts/test, which installs buildah, podman and runc", tool)
		}
	}
	dir := t.TempDir()
	env := containerEnv(t, dir)
	cmd := func(name string, args ...string) (string, string, error) {
		t.Helper()
		c := exec.Command(name, args...)
		c.Env = env
		var out, errb bytes.Buffer
		c.Stdout, c.Stderr = &out, &errb
		err := c.Run()
		return out.String(), errb.String(), err
	}
	t.Cleanup(func() {
		// Containers made by podman create, and buildah's working
		// containers, if a step failed before removing them.
		cmd("podman", "rm", "--all", "--force")
		cmd("buildah", "rm", "--all")
	})

	name := "localhost/stampede-imagetest:latest"
	out, errOut, err := cmd("./image", name)
	if err != nil {
		t.Fatalf("scripts/image %s: %v\n%s%s", name, err, out, errOut)
	}
	fields := strings.Fields(lastLine(out))
	if len(fields) != 3 || fields[0] != name {
		t.Fatalf("scripts/image printed %q, want NAME ID SIZE", out)
	}
	id := fields[1]
	size, err := strconv.ParseInt(fields[2], 10, 64)
	if err != nil {
		t.Fatalf("scripts/image printed size %q: %v", fields[2], err)
	}
	t.Logf("image %s: %.1f MB", id[:12], float64(size)/1e6)
	checkREADMEImage(t, size)

	podmanRun := func(args ...string) (string, string) {
		t.Helper()
		all := append([]string{"run", "--rm", "--pull", "never", "--network", "none"}, args...)
		out, errOut, err := cmd("podman", all...)
		if err != nil {
			if line := kernelRefusals.FindString(errOut); line != "" {
				t.Skipf("the kernel refuses containers here (podman: %s)", line)
			}
			t.Fatalf("podman %s: %v\n%s%s", strings.Join(all, " "), err, out, errOut)
		}
		return out, errOut
	}

	t.Run("version", func(t *testing.T) {
		out, _ := podmanRun(id, "version")
		// This test binary was built by the same Go as the image's binary.
		want := fmt.Sprintf("stampede %s", run.Version)
		suffix := fmt.Sprintf(" (%s, linux/%s)\n", runtime.Version(), runtime.GOARCH)
		if !strings.HasPrefix(out, want) || !strings.HasSuffix(out, suffix) || strings.Count(out, "\n") != 1 {
			t.Errorf("podman run IMAGE version printed %q, want %q...%q", out, want, suffix)
		}
	})

	t.Run("files", func(t *testing.T) {
		ctr, errOut, err := cmd("podman", "create", "--pull", "never", id)
		if err != nil {
			t.Fatalf("podman create: %v\n%s", err, errOut)
		}
		ctr = strings.TrimSpace(ctr)
		defer cmd("podman", "rm", ctr)
		tarball := filepath.Join(dir, "fs.tar")
		if _, errOut, err := cmd("podman", "export", "-o", tarball, ctr); err != nil {
			t.Fatalf("podman export: %v\n%s", err, errOut)
		}
		files := readTar(t, tarball)
		certs, err := os.ReadFile("/etc/ssl/certs/ca-certificates.crt")
		if err != nil {
			t.Fatal(err)
		}
		checkFile := func(path string, uid int, mode os.FileMode) *tarFile {
			t.Helper()
			f, ok := files[path]
			if !ok {
				t.Errorf("%s is not in the image", path)
				return nil
			}
			if f.uid != uid || f.mode != mode {
				t.Errorf("%s: owner %d, mode %v; want %d, %v", path, f.uid, f.mode, uid, mode)
			}
			return f
		}
		if f := checkFile("etc/ssl/certs/ca-certificates.crt", 0, 0o644); f != nil && !bytes.Equal(f.data, certs) {
			t.Errorf("the image's CA bundle (%d bytes) is not the host's (%d bytes)", len(f.data), len(certs))
		}
		if f := checkFile("etc/passwd", 0, 0o644); f != nil {
			want := fmt.Sprintf("stampede:x:%d:%d:stampede:/var/lib/stampede:/sbin/nologin", imageUID, imageUID)
			if !strings.Contains(string(f.data), want+"\n") {
				t.Errorf("/etc/passwd has no line %q:\n%s", want, f.data)
			}
		}
		if f := checkFile("etc/group", 0, 0o644); f != nil && !strings.Contains(string(f.data), fmt.Sprintf("stampede:x:%d:\n", imageUID)) {
			t.Errorf("/etc/group has no group %d:\n%s", imageUID, f.data)
		}
		checkFile("var/lib/stampede/", imageUID, os.ModeDir|0o700)
		checkFile("tmp/", 0, os.ModeDir|os.ModeSticky|0o777)
		bin := checkFile("usr/local/bin/stampede", 0, 0o755)
		if bin == nil {
			return
		}
		// Static: no program interpreter and no shared library.
		exe, err := elf.NewFile(bytes.NewReader(bin.data))
		if err != nil {
			t.Fatalf("the image's stampede is not an ELF file: %v", err)
		}
		for _, p := range exe.Progs {
			if p.Type == elf.PT_INTERP {
				t.Errorf("the image's stampede has a program interpreter: it is not static")
			}
		}
		if libs, err := exe.ImportedLibraries(); err != nil || len(libs) > 0 {
			t.Errorf("the image's stampede needs shared libraries %v (%v): it is not static", libs, err)
		}
		// Small: the binary and the CA bundle, and under 64 KiB besides
		// (passwd, group, directories, tar headers of the layers).
		var total int64
		for path, f := range files {
			total += int64(len(f.data))
			if f.typ == tar.TypeReg && len(f.data) > 4096 && path != "usr/local/bin/stampede" && path != "etc/ssl/certs/ca-certificates.crt" {
				t.Errorf("unexpected file %s (%d bytes) in the image", path, len(f.data))
			}
		}
		if extra := size - int64(len(bin.data)) - int64(len(certs)); extra < 0 || extra > 64<<10 {
			t.Errorf("image size %d = binary %d + CA bundle %d + %d bytes besides: want 0..64 KiB besides",
				size, len(bin.data), len(certs), extra)
		}
	})

	t.Run("null run", func(t *testing.T) {
		for i, tc := range []struct {
			name  string
			mount bool // a host directory mounted on the results directory
			user  int  // podman run --user, when not 0
		}{
			{"host directory", true, 0},
			{"host directory, --user of its owner", true, 1234},
			{"the image's volume", false, 0},
		} {
			t.Run(tc.name, func(t *testing.T) {
				const ops = 20000
				owner := imageUID
				if tc.user != 0 {
					owner = tc.user
				}
				results := filepath.Join(dir, "results-"+strconv.Itoa(i))
				if err := os.Mkdir(results, 0o755); err != nil {
					t.Fatal(err)
				}
				// Owned by the user the run is to run as, not made
				// writable by podman (no :U): a run directory owned by
				// that UID shows the run wrote as it.
				if err := os.Chown(results, owner, owner); err != nil {
					t.Fatal(err)
				}
				var args []string
				if tc.mount {
					args = append(args, "-v", results+":/var/lib/stampede")
				}
				if tc.user != 0 {
					args = append(args, "--user", fmt.Sprintf("%d:%d", tc.user, tc.user))
				}
				args = append(args, id, "run", "ycsb", "--driver", "null", "--max-ops", strconv.Itoa(ops), "--concurrency", "2")
				out, errOut := podmanRun(args...)
				m := regexp.MustCompile(`(?m)^results saved in /var/lib/stampede/([^/\s]+)$`).FindStringSubmatch(out + errOut)
				if m == nil {
					t.Fatalf("no 'results saved in /var/lib/stampede/RUN' line:\n%s%s", out, errOut)
				}
				if !tc.mount {
					return
				}
				entries, err := os.ReadDir(results)
				if err != nil {
					t.Fatal(err)
				}
				var runs []string
				for _, e := range entries {
					if e.IsDir() {
						runs = append(runs, e.Name())
					}
				}
				if len(runs) != 1 || runs[0] != m[1] {
					t.Fatalf("the mounted results directory holds run directories %v, want [%s]", runs, m[1])
				}
				runDir := filepath.Join(results, m[1])
				for _, p := range []string{runDir, filepath.Join(runDir, "run.json"), filepath.Join(results, "index.sqlite")} {
					if uid := ownerOf(t, p); uid != owner {
						t.Errorf("%s is owned by UID %d, want %d", p, uid, owner)
					}
				}
				var meta struct {
					Status string `json:"status"`
				}
				readJSON(t, filepath.Join(runDir, "run.json"), &meta)
				var sum struct {
					Total struct {
						Count  int64 `json:"count"`
						Errors int64 `json:"errors"`
					} `json:"total"`
				}
				readJSON(t, filepath.Join(runDir, "summary.json"), &sum)
				if meta.Status != "completed" || sum.Total.Count != ops || sum.Total.Errors != 0 {
					t.Errorf("run %s: status %q, %d operations, %d errors; want completed, %d, 0",
						m[1], meta.Status, sum.Total.Count, sum.Total.Errors, ops)
				}
			})
		}
	})
}

// TestImageUsage runs scripts/image with bad arguments: each is refused
// in one line naming the problem, exit 2, before anything is built.
func TestImageUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"a", "b"}, "2 arguments"},
		{[]string{""}, "empty image name"},
		{[]string{"--tag"}, "unknown flag --tag"},
		{[]string{"Stampede:1"}, "image name 'Stampede:1' has other characters"},
		{[]string{"stampede 1"}, "image name 'stampede 1' has other characters"},
		{[]string{"Registry.example.com/Stampede"}, "image name 'Registry.example.com/Stampede' has other characters"},
		{[]string{"Team/stampede"}, "image name 'Team/stampede' has other characters"},
	} {
		t.Run(strings.Join(tc.args, ","), func(t *testing.T) {
			c := exec.Command("./image", tc.args...)
			var out, errb bytes.Buffer
			c.Stdout, c.Stderr = &out, &errb
			err := c.Run()
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != 2 {
				t.Fatalf("scripts/image %q: %v, want exit status 2\n%s%s", tc.args, err, out.String(), errb.String())
			}
			msg := errb.String()
			if out.Len() != 0 || strings.Count(msg, "\n") != 1 || !strings.HasPrefix(msg, "error: "+tc.want) || !strings.Contains(msg, "usage: scripts/image [NAME]") {
				t.Errorf("scripts/image %q printed %q on stdout and %q on stderr, want one line 'error: %s...usage: scripts/image [NAME]...'", tc.args, out.String(), msg, tc.want)
			}
		})
	}
}

// tarFile is one entry of a container's exported file system.
type tarFile struct {
	typ  byte
	uid  int
	mode os.FileMode
	data []byte
}

// readTar reads a tar file into its entries by path (directories end in /).
func readTar(t *testing.T, path string) map[string]*tarFile {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	files := map[string]*tarFile{}
	tr := tar.NewReader(f)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return files
		}
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			t.Fatalf("%s: %s: %v", path, h.Name, err)
		}
		name := strings.TrimPrefix(h.Name, "./")
		if h.Typeflag == tar.TypeDir && !strings.HasSuffix(name, "/") {
			name += "/"
		}
		files[name] = &tarFile{typ: h.Typeflag, uid: h.Uid, mode: h.FileInfo().Mode(), data: data}
	}
}

func ownerOf(t *testing.T, path string) int {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return int(fi.Sys().(*syscall.Stat_t).Uid)
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return lines[len(lines)-1]
}

// readmeImageSize finds the README's figure of the image's size; readmeImageLine
// its example of what scripts/image prints.
var (
	readmeImageSize = regexp.MustCompile(`It is ([0-9.]+) MB, the\s+binary's size`)
	readmeImageLine = regexp.MustCompile(`(?m)^#   (\S+) (\S+) (\S+)$`)
)

// checkREADMEImage checks the README's section "The image" against the
// image just built: its size in MB within 2 MB of the image's (the binary
// grows a little with each change; chk31 R1 found 38.6 MB against 49.8),
// and its example output of scripts/image in the form scripts/image
// prints, a name, a 64-digit ID and a size in bytes that is the figure's.
func checkREADMEImage(t *testing.T, size int64) {
	t.Helper()
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	i := strings.Index(readme, "### The image")
	if i < 0 {
		t.Fatal("README.md has no section \"### The image\"")
	}
	section := readme[i:]
	if j := strings.Index(section[1:], "\n## "); j >= 0 {
		section = section[:j+1]
	}
	m := readmeImageSize.FindStringSubmatch(section)
	if m == nil {
		t.Fatal("README's \"The image\" gives no size as \"It is N MB, the binary's size\"")
	}
	mb, _ := strconv.ParseFloat(m[1], 64)
	if got := float64(size) / 1e6; math.Abs(got-mb) > 2 {
		t.Errorf("README says the image is %s MB; scripts/image built %.1f MB: correct the figure", m[1], got)
	}
	ex := readmeImageLine.FindStringSubmatch(section[strings.Index(section, "scripts/image stampede:0.1"):])
	if ex == nil || !regexp.MustCompile(`^[0-9a-f]{64}$`).MatchString(ex[2]) {
		t.Fatalf("README's example output of scripts/image is not NAME ID SIZE with a 64-digit ID: %q", ex)
	}
	if n, err := strconv.ParseInt(ex[3], 10, 64); err != nil || math.Abs(float64(n)/1e6-mb) > 0.05 {
		t.Errorf("README's example output of scripts/image gives size %s, not its figure of %s MB", ex[3], m[1])
	}
}
