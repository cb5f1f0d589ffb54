package cli_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// The stampede binary, built once for the tests that run it as separate
// processes (buildStampede); TestMain removes its directory.
var (
	binOnce sync.Once
	binDir  string
	binPath string
	binErr  error
	binOut  []byte
)

// TestMain runs the package's tests, then removes the binary buildStampede
// built, if any.
func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// buildStampede returns the path of the stampede binary, built with go
// build the first time a test asks (about 30 s on a loaded machine, which
// ten tests paid each before) and shared by every test after: they only
// run it. scripts/test, which runs each test in a process of its own,
// builds it once for all of them and names it in STAMPEDE_TEST_BINARY.
// Safe for concurrent use (parallel tests).
func buildStampede(t *testing.T) string {
	t.Helper()
	if bin := os.Getenv("STAMPEDE_TEST_BINARY"); bin != "" {
		return bin
	}
	binOnce.Do(func() {
		binDir, binErr = os.MkdirTemp("", "stampede-clitest-bin-")
		if binErr != nil {
			return
		}
		binPath = filepath.Join(binDir, "stampede")
		binOut, binErr = exec.Command("go", "build", "-o", binPath, "github.com/stampede-bench/stampede/cmd/stampede").CombinedOutput()
	})
	if binErr != nil {
		t.Fatalf("build: %v\n%s", binErr, binOut)
	}
	return binPath
}
