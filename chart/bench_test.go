package chart_test

import (
	"bytes"
	"fmt"
	"math"
	"testing"

	"github.com/stampede-bench/stampede/chart"
	"github.com/stampede-bench/stampede/results"
)

// oneHour returns a run of an hour in 1 s intervals with 10 operations,
// host CPU, two disks and a process group: the size the figures
// are measured at.
func oneHour() chart.Input {
	const n, ops = 3600, 10
	s := results.Series{ID: "20261122-103512-ycsb-hour", Workload: "ycsb", Start: t0, RampEnd: 60}
	tel := &results.Telemetry{
		Disks: []results.DiskSeries{{Name: "vda"}, {Name: "vdb"}},
		Procs: []results.ProcSeries{{Name: "postgres"}},
	}
	for k := range ops {
		op := results.OpSeries{Name: fmt.Sprintf("op%02d", k)}
		for i := range n {
			f := float64(i)
			w := 1 + 0.3*math.Sin(f/100+float64(k))
			p := results.OpPoint{Span: results.Span{From: f, To: f + 1}, Count: int64(1000 * w), Rate: 1000 * w,
				P50: 0.5 * w, P95: 2 * w, P99: 5 * w, Max: 20 * w}
			if i%500 == 7 {
				p.Errors = 3
			}
			op.Points = append(op.Points, p)
		}
		s.Ops = append(s.Ops, op)
	}
	for i := range n {
		f := float64(i)
		sp := results.Span{From: f, To: f + 1}
		tel.CPU = append(tel.CPU, results.CPUPoint{Span: sp, Busy: 60 + 10*math.Sin(f/50), IOWait: 3})
		for d := range tel.Disks {
			tel.Disks[d].Points = append(tel.Disks[d].Points, results.DiskPoint{Span: sp, ReadKBPerSec: 100 * float64(d), WriteKBPerSec: 5000})
		}
		tel.Procs[0].Points = append(tel.Procs[0].Points, results.ProcPoint{Span: sp, CPUCores: 1.2, WriteBytesPerSec: 4e6})
	}
	s.Telemetry = tel
	return chart.Input{Runs: []chart.Run{{Series: s}}}
}

// BenchmarkOneHour renders the chart of a one-hour run with 10 operations
// in each format.
func BenchmarkOneHour(b *testing.B) {
	in := oneHour()
	for _, f := range []chart.Format{chart.SVG, chart.PNG} {
		b.Run(f.String(), func(b *testing.B) {
			b.ReportAllocs()
			var size int
			for b.Loop() {
				var buf bytes.Buffer
				if err := chart.Write(&buf, f, in); err != nil {
					b.Fatal(err)
				}
				size = buf.Len()
			}
			b.ReportMetric(float64(size), "bytes")
		})
	}
}
