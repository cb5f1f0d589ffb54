package limit

import (
	"os"
	"path/filepath"
	"testing"
)

// TestWholeDisk checks that a partition maps to its disk, on a fake
// /sys/dev/block (this machine may have no partitions).
func TestWholeDisk(t *testing.T) {
	sys := t.TempDir()
	disk := filepath.Join(sys, "devices", "pci0000:00", "block", "sda")
	part := filepath.Join(disk, "sda1")
	if err := os.MkdirAll(part, 0o755); err != nil {
		t.Fatal(err)
	}
	for file, content := range map[string]string{
		filepath.Join(disk, "dev"):       "8:0\n",
		filepath.Join(part, "dev"):       "8:1\n",
		filepath.Join(part, "partition"): "1\n",
	} {
		if err := os.WriteFile(file, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	block := filepath.Join(sys, "dev", "block")
	if err := os.MkdirAll(block, 0o755); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{"8:0": disk, "8:1": part} {
		if err := os.Symlink(target, filepath.Join(block, link)); err != nil {
			t.Skipf("cannot make a fake /sys/dev/block: %v", err)
		}
	}
	old := sysBlock
	sysBlock = block
	t.Cleanup(func() { sysBlock = old })
	for spec, want := range map[string][2]int64{"8:1": {8, 0}, "8:0": {8, 0}} {
		major, minor, err := ResolveDevice(spec)
		if err != nil || major != want[0] || minor != want[1] {
			t.Errorf("ResolveDevice(%q) = %d:%d, %v; want %d:%d", spec, major, minor, err, want[0], want[1])
		}
	}
}
