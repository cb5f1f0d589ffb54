//go:build race

package store_test

// raceEnabled is set when the race detector, which slows the store by an
// order of magnitude, is on.
const raceEnabled = true
