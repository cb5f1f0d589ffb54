package workload

import "math"

// WorkerSizer is a Generator whose workers each allocate client memory in
// proportion to its flags (a YCSB worker holds fieldcount buffers of
// fieldlength bytes). The runner multiplies it by the number of workers
// and refuses, before any worker is made, a run that would not fit.
type WorkerSizer interface {
	Generator
	// WorkerBytes returns the client memory one worker allocates for the
	// parsed flags, and the flags that make it so, as the user gave them
	// ("fieldcount 10 × fieldlength 100000000"), for the refusal's
	// message. It is called after Validate.
	WorkerBytes() (int64, string)
}

// sampledTables is how many tables EstimateBytes draws a batch of; the
// rest (sysbench's identical sbtestN) are taken at the sampled rows'
// mean size.
const sampledTables = 16

// EstimateBytes estimates the bytes of the rows tables load: each of the
// first tables' first batch is drawn and measured (strings and byte
// slices by their length, numbers and times at 8 bytes), and scaled to
// the table's NumRows. It is an estimate of the data sent, not of the
// server's storage (indexes, row headers, compression).
func EstimateBytes(tables []Table) int64 {
	var total, sampledBytes, sampledRows float64
	var rest int64 // rows of the tables not sampled
	n := 0
	for _, t := range tables {
		b := t.InitialRows
		if b.NumBatches == 0 || b.NumRows == 0 || b.FillBatch == nil {
			continue
		}
		if n == sampledTables {
			rest += b.NumRows
			continue
		}
		n++
		rows := b.FillBatch(0, nil)
		if len(rows) == 0 {
			continue
		}
		var size float64
		for _, r := range rows {
			for _, v := range r {
				size += float64(valueBytes(v))
			}
		}
		total += size / float64(len(rows)) * float64(b.NumRows)
		sampledBytes += size
		sampledRows += float64(len(rows))
	}
	if sampledRows > 0 {
		total += sampledBytes / sampledRows * float64(rest)
	}
	return int64(min(total, math.MaxInt64))
}

// valueBytes is a value's size as EstimateBytes counts it.
func valueBytes(v any) int {
	switch v := v.(type) {
	case string:
		return len(v)
	case []byte:
		return len(v)
	case nil:
		return 1
	}
	return 8
}
