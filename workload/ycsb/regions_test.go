package ycsb

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

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

// TestLocalityKeysLateLocality adds, through an endpoints file, an
// endpoint of a locality the keys were not split among: the run says so
// once, and the workers keep their keys.
func TestLocalityKeysLateLocality(t *testing.T) {
	defer func(d time.Duration) { sqlx.EndpointsFileEvery = d }(sqlx.EndpointsFileEvery)
	sqlx.EndpointsFileEvery = 10 * time.Millisecond
	file := filepath.Join(t.TempDir(), "nodes")
	write := func(s string) {
		t.Helper()
		if err := os.WriteFile(file+".tmp", []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(file+".tmp", file); err != nil {
			t.Fatal(err)
		}
	}
	write("postgresql://a:1/ycsb region=east\npostgresql://b:2/ycsb region=west\n")
	gen, err := workload.FromFlags(ycsbMeta, "--locality-keys=own", "--record-count=100")
	if err != nil {
		t.Fatal(err)
	}
	db, err := sqlx.Open(context.Background(), sqlx.Options{Driver: sqlx.DriverNull, EndpointsFile: file})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var mu sync.Mutex
	var warnings []string
	warn := func(f string, a ...any) { mu.Lock(); warnings = append(warnings, fmt.Sprintf(f, a...)); mu.Unlock() }
	if _, err := gen.(workload.Opser).Ops(context.Background(), db, workload.OpsConfig{Concurrency: 4, Seed: 1, Warn: warn}); err != nil {
		t.Fatal(err)
	}
	write("postgresql://a:1/ycsb region=east\npostgresql://b:2/ycsb region=west\npostgresql://c:3/ycsb region=central\npostgresql://d:4/ycsb region=central\npostgresql://e:5/ycsb region=east\n")
	deadline := time.Now().Add(5 * time.Second)
	for len(db.AllEndpoints()) < 5 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	time.Sleep(50 * time.Millisecond)
	mu.Lock()
	defer mu.Unlock()
	want := "--locality-keys own: endpoint c:3, with locality region=central, came after the keys were split among region=east, region=west: the workers moving to it keep the keys they started with"
	if len(warnings) != 1 || warnings[0] != want {
		t.Errorf("warnings %q, want once %q", warnings, want)
	}
}
