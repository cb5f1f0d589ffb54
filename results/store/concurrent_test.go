package store_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/stampede-bench/stampede/results/store"
)

// TestOpenConcurrentFresh opens a fresh PostgreSQL store from 4 clients
// at once, as the clients of one benchmark started together do: each
// creates the store's tables, and PostgreSQL's CREATE TABLE IF NOT EXISTS
// is not safe against another session creating the same table (a
// duplicate key in pg_type). Every client must open the store and write a
// run into it.
func TestOpenConcurrentFresh(t *testing.T) {
	const clients = 4
	for round := range 3 {
		_, dsn, _ := pgDatabase(t, fmt.Sprintf("store31_concurrent%d", round))
		var wg sync.WaitGroup
		start := make(chan struct{})
		errs := make([]error, clients)
		for i := range clients {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				s, err := store.Open(context.Background(), dsn)
				if err != nil {
					errs[i] = err
					return
				}
				defer s.Close()
				row := synthRows(clients)[i]
				errs[i] = s.Put(context.Background(), []store.RunRow{row}, nil)
			}()
		}
		close(start)
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Errorf("round %d, client %d: %v", round, i, err)
			}
		}
		s, err := store.Open(context.Background(), dsn)
		if err != nil {
			t.Fatal(err)
		}
		rows, err := s.List(context.Background(), store.Filter{})
		s.Close()
		if err != nil || len(rows) != clients {
			t.Errorf("round %d: the store holds %d runs (%v), want %d", round, len(rows), err, clients)
		}
	}
}
