package engine

import _ "unsafe" // for go:linkname

// yield lets the goroutine's processor run other goroutines, then resumes
// the caller, normally on the same thread. It is the Go runtime's
// goyield: runtime.Gosched without the global run queue.
//
// Why not runtime.Gosched: Gosched puts the goroutine on the global run
// queue, where any thread may take it. A worker with thread I/O yields
// every flushEvery, and the worker whose thread took another worker's
// goroutine then talks to that worker's server connection: the kernel,
// which had placed each client thread on the CPU of the server backend it
// talks to, sees the pairs change and wakes processes across CPUs until
// it has moved them back. goyield puts the goroutine on its own
// processor's queue, which no busy thread takes from.
//
// Measured with oltp_point_select at 8 threads against PostgreSQL on the
// same 2 CPUs, 20 s runs: workers found themselves on another thread
// after a yield 605-761 times a run with Gosched and 55-95 times with
// goyield (9-16 once the garbage collector stays out of the run too; see
// package gcpace), and wake-ups that crossed CPUs fell from 3-24% to
// 0-2%.
//
// goyield is internal to the runtime but kept for packages that link to
// it (its declaration says "Do not remove or change the type signature",
// go.dev/issue/67401). Should a Go release drop it, the build fails at
// link time rather than misbehaving.
//
//go:linkname yield runtime.goyield
func yield()
