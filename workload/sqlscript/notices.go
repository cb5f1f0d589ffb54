package sqlscript

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/stampede-bench/stampede/sqlx"
)

// notices prints the server's notices on a run's connections (its
// add is the DB's sqlx.NoticeFunc) on w, as libpq's default notice
// processor prints them ("NOTICE:  ..." and its DETAIL and HINT lines).
// Under every (the pgbench form) each is printed as it comes, as pgbench
// prints it; otherwise each distinct notice is printed once per client,
// so that a notice in a hot loop does not flood the terminal, and summary
// says how many times those that came again came. It is safe for
// concurrent use: each client's notices have their own lock.
type notices struct {
	w     io.Writer
	every bool
	// clients holds each worker's notices, and in its last entry those of
	// connections no worker held.
	clients []clientNotices
}

// clientNotices counts one client's notices by their text.
type clientNotices struct {
	mu   sync.Mutex
	seen map[string]int64
}

// newNotices returns the notices of a run of workers.
func newNotices(w io.Writer, every bool, workers int) *notices {
	return &notices{w: w, every: every, clients: make([]clientNotices, workers+1)}
}

// add prints worker's notice n, unless the worker had it already (see
// notices); worker -1 is a connection no worker held.
func (ns *notices) add(worker int, n *pgconn.Notice) {
	text := sqlx.LibpqNotice(n)
	if ns.every {
		_, _ = io.WriteString(ns.w, text)
		return
	}
	if worker < 0 || worker >= len(ns.clients)-1 {
		worker = len(ns.clients) - 1
	}
	c := &ns.clients[worker]
	c.mu.Lock()
	if c.seen == nil {
		c.seen = make(map[string]int64)
	}
	c.seen[text]++
	first := c.seen[text] == 1
	c.mu.Unlock()
	if first {
		_, _ = io.WriteString(ns.w, text)
	}
}

// summary prints, for each notice that some client got more than once
// (and so printed once only), how many times it came in all and from how
// many clients, one line each, ordered by the notice's text.
func (ns *notices) summary() {
	if ns.every {
		return
	}
	type total struct {
		times   int64
		clients int
		again   bool
	}
	totals := map[string]*total{}
	for i := range ns.clients {
		c := &ns.clients[i]
		c.mu.Lock()
		for text, k := range c.seen {
			t := totals[text]
			if t == nil {
				t = &total{}
				totals[text] = t
			}
			t.times += k
			t.clients++
			t.again = t.again || k > 1
		}
		c.mu.Unlock()
	}
	texts := make([]string, 0, len(totals))
	for text, t := range totals {
		if t.again {
			texts = append(texts, text)
		}
	}
	sort.Strings(texts)
	for _, text := range texts {
		t := totals[text]
		first, _, _ := strings.Cut(text, "\n")
		fmt.Fprintf(ns.w, "the server sent this notice %d times, to %s (printed above once for each): %s\n", t.times, plural(t.clients, "client"), first)
	}
}
