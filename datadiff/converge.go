package datadiff

import (
	"context"
	"time"
)

// converge re-checks the first-level ranges that differed, each time in
// new snapshots, until they are equal or Options.Converge has passed since
// t0, the first check's snapshot; then it locates the rows of those that
// still differ.
func (df *differ) converge(ctx context.Context, t0 time.Time) (*Convergence, error) {
	c := &Convergence{Limit: df.opts.Converge.Seconds(), Checks: 1}
	pending := df.takeRanges()
	c.Ranges = len(pending)
	if len(pending) == 0 && !df.unequalShapes() {
		c.Converged = true
		return c, nil
	}
	deadline := t0.Add(df.opts.Converge)
	prev := t0
	for len(pending) > 0 && time.Now().Before(deadline) {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(min(convergeEvery, time.Until(deadline))):
		}
		at, err := df.check(ctx, rechecks(pending))
		if err != nil {
			return nil, err
		}
		c.Checks++
		pending = df.takeAgain()
		if len(pending) == 0 {
			c.Converged = !df.unequalShapes()
			c.After = at.Sub(t0).Seconds()
			c.Resolution = at.Sub(prev).Seconds()
			return c, nil
		}
		prev = at
	}
	// Not equal in time: find the rows, in the last snapshots.
	df.locate = true
	if _, err := df.check(ctx, rechecks(pending)); err != nil {
		return nil, err
	}
	df.takeAgain()
	return c, nil
}

// rechecks returns the tasks checking spans again.
func rechecks(spans []span) []task {
	tasks := make([]task, len(spans))
	for i, sp := range spans {
		tasks[i] = task{span: sp, depth: 1, recheck: true}
	}
	return tasks
}

// takeAgain returns and forgets the re-checked ranges that still differ.
func (df *differ) takeAgain() []span {
	var out []span
	for _, t := range df.tables {
		t.mu.Lock()
		out = append(out, t.again...)
		t.again = nil
		t.mu.Unlock()
	}
	return out
}

// takeRanges returns and forgets the first-level ranges that differed.
func (df *differ) takeRanges() []span {
	var out []span
	for _, t := range df.tables {
		t.mu.Lock()
		out = append(out, t.ranges...)
		t.mu.Unlock()
	}
	return out
}

// unequalShapes reports whether a table differs in shape or is missing,
// which no waiting repairs.
func (df *differ) unequalShapes() bool {
	for _, t := range df.tables {
		if t.res.Status == "shape" || t.res.Status == "missing" {
			return true
		}
	}
	return false
}
