package store

import "context"

// Put exposes put to the tests, which store synthetic rows.
func (s *Store) Put(ctx context.Context, rows []RunRow, ops [][]OpRow) error {
	if ops == nil {
		ops = make([][]OpRow, len(rows))
	}
	return s.put(ctx, rows, ops)
}
