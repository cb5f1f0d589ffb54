package cmdline

import (
	"testing"

	"github.com/stampede-bench/stampede/limit"
	"github.com/stampede-bench/stampede/sweep"
)

// TestFixedLimits: the sweep's first line names the limits every step
// runs under, without the swept ones (issue 34's NIT: a fixed --cpus
// beside a swept --memory was not said).
func TestFixedLimits(t *testing.T) {
	io := []limit.DeviceIO{{Major: 254, Minor: 0, ReadBPS: 1 << 20, WriteBPS: 5 << 20}}
	all := limit.Limits{CPUs: 1, MemoryBytes: 200 << 20, IO: io}
	for _, tc := range []struct {
		params []sweep.Param
		want   string
	}{
		{[]sweep.Param{"memory"}, "cpus 1, io 254:0 read 1 MiB/s write 5 MiB/s"},
		{[]sweep.Param{"cpus"}, "memory 200 MiB, io 254:0 read 1 MiB/s write 5 MiB/s"},
		{[]sweep.Param{"io-write-bps"}, "cpus 1, memory 200 MiB, io 254:0 read 1 MiB/s"},
		{[]sweep.Param{"io-write-bps", "io-read-bps"}, "cpus 1, memory 200 MiB"},
		{[]sweep.Param{"cpus", "memory"}, "io 254:0 read 1 MiB/s write 5 MiB/s"},
		{[]sweep.Param{"concurrency", ""}, "cpus 1, memory 200 MiB, io 254:0 read 1 MiB/s write 5 MiB/s"},
	} {
		got := fixedLimits(all, tc.params...).String()
		if got != tc.want {
			t.Errorf("fixedLimits(%v) = %q, want %q", tc.params, got, tc.want)
		}
	}
	if len(all.IO) != 1 || all.IO[0].WriteBPS != 5<<20 {
		t.Errorf("fixedLimits changed its argument's IO: %+v", all.IO)
	}
}
