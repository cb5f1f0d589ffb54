package limit

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// TestReadRecord reads records as a killed process or two writers leave
// them: a later line of a process adds to and overrides an earlier one,
// a line cut short by SIGKILL is skipped, and another process with the
// same PID (another start time) is another process.
func TestReadRecord(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       []origin
	}{
		{"none", "", nil},
		{"one", `{"pid":7,"start":100,"cgroups":{"cpu":"/a","memory":"/m"}}` + "\n",
			[]origin{{7, 100, map[string]string{"cpu": "/a", "memory": "/m"}}}},
		{"later line overrides", `{"pid":7,"start":100,"cgroups":{"cpu":"/a","memory":"/m"}}` + "\n" + `{"pid":7,"start":100,"cgroups":{"cpu":"/b"}}` + "\n",
			[]origin{{7, 100, map[string]string{"cpu": "/b", "memory": "/m"}}}},
		{"cut short by SIGKILL", `{"pid":7,"start":100,"cgroups":{"cpu":"/a"}}` + "\n" + `{"pid":8,"start":1`,
			[]origin{{7, 100, map[string]string{"cpu": "/a"}}}},
		{"PID reused", `{"pid":7,"start":100,"cgroups":{"cpu":"/a"}}` + "\n" + `{"pid":7,"start":900,"cgroups":{"cpu":"/b"}}` + "\n",
			[]origin{{7, 100, map[string]string{"cpu": "/a"}}, {7, 900, map[string]string{"cpu": "/b"}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := &Group{name: "g", records: t.TempDir()}
			if tc.text != "" {
				if err := os.WriteFile(filepath.Join(g.records, "g"+recordSuffix), []byte(tc.text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			got, err := g.readRecord()
			if err != nil || !reflect.DeepEqual(got, tc.want) {
				t.Errorf("readRecord() = %v, %v; want %v", got, err, tc.want)
			}
		})
	}
}
