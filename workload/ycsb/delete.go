package ycsb

import (
	"context"
	"fmt"
	"strings"
)

// deleteFrom returns the DELETE of the row a read statement reads:
// "SELECT cols FROM t WHERE ..." becomes "DELETE FROM t WHERE ...", with
// the same placeholders (so the read's arguments bind it).
func deleteFrom(read string) string {
	return "DELETE " + read[strings.Index(read, "FROM "):]
}

// delete deletes the row of key, as cockroach's ycsb does under
// --workload=CUSTOM --delete-freq (YCSB's core workloads never delete):
// a key with no row is YCSB's UNEXPECTED_STATE, as an update of one.
// Deleted keys stay in the key choice: later reads of them find no row.
func (w *worker) delete(ctx context.Context, key any) error {
	w.readArgs[w.t] = key
	n, err := w.exec(ctx, w.s.del, w.readArgs)
	if err == nil && n == 0 && !w.null {
		err = fmt.Errorf("delete %s: %w", w.keyBuf, ErrNotFound)
	}
	return err
}
