package bank

import (
	"github.com/stampede-bench/stampede/randgen"
)

// defaultBatchSize is the number of accounts per initial-data batch
// (--batch-size's default, cockroach's).
const defaultBatchSize = 1000

// fillBatch appends batch batchIdx's accounts: ids [batchIdx*batch-size,
// min((batchIdx+1)*batch-size, rows)), each with the initial balance and
// a printable-ASCII payload drawn from the stream (seed, batchIdx), led by
// the tenant id when there is one. It is safe for concurrent use.
func (g *bank) fillBatch(batchIdx int, rows [][]any) [][]any {
	r := randgen.New(g.seed, uint64(batchIdx))
	lo := batchIdx * g.batchSize
	hi := min(lo+g.batchSize, g.rows)
	if lo >= hi {
		return rows
	}
	// One allocation for the batch's payloads.
	buf := make([]byte, (hi-lo)*g.payloadBytes)
	randgen.RandASCII(r, buf)
	payloads := string(buf)
	for id := lo; id < hi; id++ {
		off := (id - lo) * g.payloadBytes
		payload := payloads[off : off+g.payloadBytes]
		if g.tenant != 0 {
			rows = append(rows, []any{g.tenantArg, int64(id), g.initialBalance, payload})
		} else {
			rows = append(rows, []any{int64(id), g.initialBalance, payload})
		}
	}
	return rows
}
