package sqlx

import (
	"fmt"
	"testing"
)

func TestEndpointOrder(t *testing.T) {
	for _, tc := range []struct {
		endpoints, worker int
		want              string
	}{
		{1, 0, "[0]"},
		{1, 5, "[0]"},
		{2, 0, "[0 1]"},
		{2, 1, "[1 0]"},
		{2, 2, "[0 1]"},
		{3, 0, "[0 1 2]"},
		{3, 3, "[0 2 1]"}, // the second worker of endpoint 0 fails over to 2 first
		{3, 6, "[0 1 2]"},
		{3, 4, "[1 0 2]"},
		{3, 2, "[2 0 1]"},
		{3, 5, "[2 1 0]"},
	} {
		db := &DB{}
		set := &endpointSet{}
		for i := range tc.endpoints {
			set = set.with(&endpoint{Endpoint: Endpoint{Slot: i}})
		}
		db.set.Store(set)
		w := newWorkerConn(db, tc.worker)
		if got := fmt.Sprint(w.order); got != tc.want {
			t.Errorf("%d endpoints, worker %d: order %s, want %s", tc.endpoints, tc.worker, got, tc.want)
		}
		if w.home != tc.worker%tc.endpoints || w.cur != nil {
			t.Errorf("%d endpoints, worker %d: home %d, cur %v", tc.endpoints, tc.worker, w.home, w.cur)
		}
	}
}
