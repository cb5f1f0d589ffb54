package runlog

import (
	"path/filepath"
	"testing"
)

func TestMemTotal(t *testing.T) {
	tests := []struct {
		path string
		want uint64
	}{
		{filepath.Join("testdata", "meminfo"), 65831840 * 1024},
		{filepath.Join("testdata", "missing"), 0},
	}
	for _, tt := range tests {
		if got := memTotal(tt.path); got != tt.want {
			t.Errorf("memTotal(%s) = %d, want %d", tt.path, got, tt.want)
		}
	}
}
