package report_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/stampede-bench/stampede/report"
)

// TestYCSBOrder checks the order of measurements and of their Return=
// lines against Java 17's: each want is the order in which a
// java.util.concurrent.ConcurrentHashMap iterated over the keys put into
// it in the given order (measurement names as Strings; statuses as YCSB
// 0.17.0's site.ycsb.Status objects, from its core jar), printed by a
// program run once with `java`.
func TestYCSBOrder(t *testing.T) {
	for _, tc := range []struct {
		put, want string
	}{
		{"READ UPDATE CLEANUP", "READ CLEANUP UPDATE"},
		{"READ READ-MODIFY-WRITE UPDATE CLEANUP", "READ READ-MODIFY-WRITE CLEANUP UPDATE"},
		// INSERT, UPDATE and READ-FAILED share a bucket, CLEANUP and
		// DELETE-FAILED another: in the order they were put.
		{"INSERT UPDATE READ-FAILED CLEANUP DELETE-FAILED", "CLEANUP DELETE-FAILED INSERT UPDATE READ-FAILED"},
		{"Ünïcode-😀 READ", "READ Ünïcode-😀"},
		// 13 keys: the table grew from 16 buckets to 32.
		{"UPDATE INSERT READ UPDATE-FAILED SCAN DELETE READ-MODIFY-WRITE CLEANUP READ-NOT_FOUND SCAN-LATENCY-PER-RECORD SCAN-FAILED INSERT-FAILED DELETE-FAILED",
			"READ-MODIFY-WRITE READ-NOT_FOUND SCAN-LATENCY-PER-RECORD INSERT-FAILED READ UPDATE-FAILED SCAN-FAILED DELETE CLEANUP DELETE-FAILED UPDATE INSERT SCAN"},
		// The Intended- measurements come after the others, ordered by
		// their operation's name.
		{"READ UPDATE CLEANUP Intended-READ Intended-UPDATE Intended-CLEANUP",
			"READ CLEANUP UPDATE Intended-READ Intended-CLEANUP Intended-UPDATE"},
	} {
		var ms []report.YCSBMeasurement
		for _, name := range strings.Fields(tc.put) {
			ms = append(ms, report.YCSBMeasurement{Name: name})
		}
		var got []string
		for _, m := range report.YCSBOrder(ms) {
			got = append(got, m.Name)
		}
		if !slices.Equal(got, strings.Fields(tc.want)) {
			t.Errorf("YCSBOrder(%s) = %v, Java's order %s", tc.put, got, tc.want)
		}
	}
	for _, tc := range []struct {
		put, want string
	}{
		{"OK NOT_FOUND", "OK NOT_FOUND"},
		{"NOT_FOUND OK", "OK NOT_FOUND"},
		{"BATCHED_OK OK", "OK BATCHED_OK"},
		{"ERROR UNEXPECTED_STATE OK NOT_FOUND BATCHED_OK", "OK UNEXPECTED_STATE BATCHED_OK NOT_FOUND ERROR"},
	} {
		m := report.YCSBMeasurement{Name: "READ"}
		for i, st := range strings.Fields(tc.put) {
			m.Returns = append(m.Returns, report.YCSBReturn{Status: st, Count: int64(i + 1)})
		}
		out := report.YCSBOrder([]report.YCSBMeasurement{m})
		var got []string
		for _, r := range out[0].Returns {
			got = append(got, r.Status)
		}
		if !slices.Equal(got, strings.Fields(tc.want)) {
			t.Errorf("Return= lines put as %s ordered %v, Java's order %s", tc.put, got, tc.want)
		}
		if m.Returns[0].Status != strings.Fields(tc.put)[0] {
			t.Errorf("YCSBOrder reordered its argument's Return= lines")
		}
	}
}
