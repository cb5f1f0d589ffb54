package report

import (
	"slices"
	"strings"
)

// ycsbStatusDescriptions are the descriptions of YCSB 0.17.0's statuses
// (site.ycsb.Status), which their hash codes, hence the order of the
// Return= lines, depend on.
var ycsbStatusDescriptions = map[string]string{
	"OK":                  "The operation completed successfully.",
	"ERROR":               "The operation failed.",
	"NOT_FOUND":           "The requested record was not found.",
	"NOT_IMPLEMENTED":     "The operation is not implemented for the current binding.",
	"UNEXPECTED_STATE":    "The operation reported success, but the result was not as expected.",
	"BAD_REQUEST":         "The request was not valid.",
	"FORBIDDEN":           "The operation is forbidden.",
	"SERVICE_UNAVAILABLE": "Dependant service for the current binding is not available.",
	"BATCHED_OK":          "The operation has been batched by the binding to be executed later.",
}

// YCSBOrder puts measurements, and each one's Return= lines, in the order
// YCSB 0.17.0's report lists them: its Measurements keep the
// measurements in a java.util.concurrent.ConcurrentHashMap by name (the
// Intended- ones in a second map, listed after the first, by the name of
// their operation), and each measurement its counts in one by status, and
// the report iterates over the maps, whose order is that of their hash
// tables' buckets. ms are given in the order YCSB would have created them
// (which orders two names of one bucket); the result is a new slice.
func YCSBOrder(ms []YCSBMeasurement) []YCSBMeasurement {
	var op, intended []YCSBMeasurement
	var opKeys, intendedKeys []string
	for _, m := range ms {
		m.Returns = slices.Clone(m.Returns)
		keys := make([]string, len(m.Returns))
		for i, r := range m.Returns {
			keys[i] = r.Status
		}
		m.Returns = javaHashOrder(m.Returns, keys, javaStatusHash)
		if key, ok := strings.CutPrefix(m.Name, "Intended-"); ok {
			intended, intendedKeys = append(intended, m), append(intendedKeys, key)
			continue
		}
		op, opKeys = append(op, m), append(opKeys, m.Name)
	}
	out := javaHashOrder(op, opKeys, javaStringHash)
	return append(out, javaHashOrder(intended, intendedKeys, javaStringHash)...)
}

// javaHashOrder orders items, keyed by keys, as a ConcurrentHashMap into
// which they were put in this order iterates over them: by bucket (the
// hash spread over a table of 16 buckets, doubled whenever the map
// reaches three quarters of it), items of one bucket in the order they
// were put (a table that grew may hold them otherwise: YCSB's reports
// have fewer than 12 measurements, and a measurement fewer than 12
// statuses).
func javaHashOrder[T any](items []T, keys []string, hash func(string) int32) []T {
	n := 16
	for len(items) >= n*3/4 {
		n *= 2
	}
	bucket := make(map[string]int, len(keys))
	for _, k := range keys {
		h := uint32(hash(k))
		bucket[k] = int((h^h>>16)&0x7fffffff) & (n - 1)
	}
	idx := make([]int, len(items))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return bucket[keys[a]] - bucket[keys[b]] })
	out := make([]T, len(items))
	for i, j := range idx {
		out[i] = items[j]
	}
	return out
}

// javaStringHash is Java's String.hashCode (of s's UTF-16 code units).
func javaStringHash(s string) int32 {
	var h int32
	for _, r := range s {
		if r >= 0x10000 {
			r -= 0x10000
			h = 31*h + int32(0xD800+(r>>10))
			h = 31*h + int32(0xDC00+(r&0x3FF))
			continue
		}
		h = 31*h + int32(r)
	}
	return h
}

// javaStatusHash is site.ycsb.Status's hashCode for the status named
// name: from its description (YCSB's, "" for a status YCSB does not
// have) and its name.
func javaStatusHash(name string) int32 {
	h := int32(31 + 0)
	if d, ok := ycsbStatusDescriptions[name]; ok {
		h = 31 + javaStringHash(d)
	}
	return 31*h + javaStringHash(name)
}
