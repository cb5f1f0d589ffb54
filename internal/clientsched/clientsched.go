package clientsched

import "fmt"

// Policy is a client scheduling policy, as given to --client-sched.
type Policy string

// The policies.
const (
	// Batch runs the client's threads under SCHED_BATCH: they never
	// preempt a running task when they wake.
	Batch Policy = "batch"
	// Normal leaves the threads under the kernel's default policy.
	Normal Policy = "normal"
)

// Parse returns the policy named s.
func Parse(s string) (Policy, error) {
	switch p := Policy(s); p {
	case Batch, Normal:
		return p, nil
	}
	return "", fmt.Errorf("unknown client scheduling policy %q: use batch or normal", s)
}

// Applied is the outcome of Apply.
type Applied struct {
	// Policy is the policy of the calling thread afterwards: Batch or
	// Normal, or the name of a policy the user gave (idle, fifo, rr).
	Policy Policy
	// Threads is the number of threads whose policy Apply changed.
	Threads int
}
