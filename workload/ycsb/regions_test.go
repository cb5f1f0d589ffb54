package ycsb

import (
	"context"
	"strings"
	"testing"

	"github.com/stampede-bench/stampede/randgen"
	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// TestLocalityKeys splits the keys among the localities of three
// endpoints (two in east): each worker draws its keys from its home
// endpoint's locality's range, and the ranges cover the keys once.
func TestLocalityKeys(t *testing.T) {
	gen, err := workload.FromFlags(ycsbMeta, "--locality-keys=own", "--record-count=900", "--insert-start=100", "--insert-count=800", "--request-distribution=uniform")
	if err != nil {
		t.Fatal(err)
	}
	g := gen.(*ycsb)
	db, err := sqlx.Open(context.Background(), sqlx.Options{Driver: sqlx.DriverNull, URLs: []string{
		"postgresql://a:1/ycsb?locality=region%3Deast", "postgresql://b:2/ycsb?locality=region%3Dwest", "postgresql://c:3/ycsb",
	}, Localities: []string{"", "", "region=east"}})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ql, err := g.Ops(context.Background(), db, workload.OpsConfig{Concurrency: 6, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(ql.Header) != 1 || ql.Header[0] != "keys by locality (--locality-keys own): region=east: key numbers 100-499; region=west: key numbers 500-899" {
		t.Errorf("header %q", ql.Header)
	}
	c, _ := g.config()
	lk, err := g.ownKeys(context.Background(), db, c, nil)
	if err != nil {
		t.Fatal(err)
	}
	for w := range 6 {
		wc, _ := lk.of(w)
		lo, hi := int64(100), int64(499)
		if w%3 == 1 {
			lo, hi = 500, 899
		}
		if wc.insertStart != lo || wc.insertStart+wc.insertCount-1 != hi {
			t.Errorf("worker %d: keys %d-%d, want %d-%d", w, wc.insertStart, wc.insertStart+wc.insertCount-1, lo, hi)
		}
		wi, ins := lk.of(w)
		wk := newWorker(wi, c.statements(db.Dialect()), db.Conn(w, true), randgen.New(1, uint64(w)), ins, nil)
		for range 1000 {
			if k := wk.nextKeynum(); k < lo || k > hi {
				t.Fatalf("worker %d drew key number %d, outside %d-%d", w, k, lo, hi)
			}
		}
	}

	// An endpoint without a locality is named in one line.
	db2, err := sqlx.Open(context.Background(), sqlx.Options{Driver: sqlx.DriverNull, URLs: []string{"postgresql://a:1/ycsb?locality=region%3Deast", "postgresql://b:2/ycsb"}})
	if err != nil {
		t.Fatal(err)
	}
	defer db2.Close()
	if _, err := g.Ops(context.Background(), db2, workload.OpsConfig{Concurrency: 2, Seed: 1}); err == nil || !strings.Contains(err.Error(), "b:2 has no locality") {
		t.Errorf("endpoint without a locality: %v", err)
	}
	if _, err := workload.FromFlags(ycsbMeta, "--locality-keys=mine"); err == nil {
		t.Error("--locality-keys=mine accepted")
	}
}
