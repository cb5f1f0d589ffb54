package datadiff

import "sync"

// queue is the tasks of one check: connections take them and add more;
// pop waits while tasks are running that may add some.
type queue struct {
	mu      sync.Mutex
	cond    *sync.Cond
	items   []task
	running int
	closed  bool
}

func newQueue(items []task) *queue {
	q := &queue{items: items}
	q.cond = sync.NewCond(&q.mu)
	return q
}

// pop takes a task; false when there is none left or the queue is closed.
func (q *queue) pop() (task, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.items) == 0 && q.running > 0 && !q.closed {
		q.cond.Wait()
	}
	if q.closed || len(q.items) == 0 {
		return task{}, false
	}
	// Last in, first out: a differing range's parts are searched before
	// other ranges, so its rows are found with few ranges open.
	t := q.items[len(q.items)-1]
	q.items = q.items[:len(q.items)-1]
	q.running++
	return t, true
}

// push adds tasks.
func (q *queue) push(ts ...task) {
	if len(ts) == 0 {
		return
	}
	q.mu.Lock()
	q.items = append(q.items, ts...)
	q.mu.Unlock()
	q.cond.Broadcast()
}

// done marks a popped task finished.
func (q *queue) done() {
	q.mu.Lock()
	q.running--
	q.mu.Unlock()
	q.cond.Broadcast()
}

// close stops the queue.
func (q *queue) close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	q.cond.Broadcast()
}
