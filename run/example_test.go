package run_test

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/stampede-bench/stampede/run"
	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
	_ "github.com/stampede-bench/stampede/workload/all" // register the workloads
)

// Example loads YCSB's usertable, runs workload A for two seconds with
// four workers and reads the p99 latency from the result, as a Go program
// or test would drive stampede. It runs against the server in
// $STAMPEDE_TEST_DATABASE (scripts/test starts one), and without one on
// the null driver.
func Example() {
	ctx := context.Background()
	conn := run.Conn{Database: "stampede_example"}
	if url := os.Getenv("STAMPEDE_TEST_DATABASE"); url != "" {
		conn.URLs = []string{url}
	} else {
		conn.Driver = sqlx.DriverNull
	}
	meta, _ := workload.Get("ycsb")
	gen, err := workload.FromFlags(meta, "--workload=a", "-p", "recordcount=1000")
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := run.Load(ctx, run.LoadSpec{Workload: gen, Conn: conn, Drop: true}); err != nil {
		fmt.Println(err)
		return
	}
	results, _ := os.MkdirTemp("", "stampede-example")
	defer os.RemoveAll(results)
	r, err := run.Start(ctx, run.Spec{
		Workload:    gen,
		Conn:        conn,
		Concurrency: 4,
		Duration:    2 * time.Second,
		Telemetry:   run.Telemetry{Off: true},
		ResultsDir:  results,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := r.Wait()
	if err != nil {
		fmt.Println(err)
		return
	}
	p99 := res.Summary.Total.P99 // milliseconds, over the whole run
	fmt.Println("operations:", res.Summary.Total.Count > 0, "p99 measured:", p99 > 0)
	// Output: operations: true p99 measured: true
}
