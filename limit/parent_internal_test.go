package limit

import (
	"strings"
	"testing"
)

// TestParentFromEnv: $STAMPEDE_CGROUP_PARENT names the parent group when
// it is a group name; unset, the parent is "stampede"; any other value
// leaves "stampede" and an error that every group operation returns,
// naming the variable.
func TestParentFromEnv(t *testing.T) {
	defer func() { errParent = nil }()
	for _, c := range []struct {
		value, want, err string
	}{
		{"stampede-test-2", "stampede-test-2", ""},
		{"a/b", "stampede", `STAMPEDE_CGROUP_PARENT="a/b" is no cgroup name`},
		{"", "stampede", `STAMPEDE_CGROUP_PARENT="" is no cgroup name`},
		{"..", "stampede", "is no cgroup name"},
	} {
		errParent = nil
		t.Setenv(ParentEnv, c.value)
		if got := parentFromEnv(); got != c.want {
			t.Errorf("%q: parent %q, want %q", c.value, got, c.want)
		}
		switch {
		case c.err == "" && errParent != nil:
			t.Errorf("%q: %v", c.value, errParent)
		case c.err != "" && (errParent == nil || !strings.Contains(errParent.Error(), c.err)):
			t.Errorf("%q: error %v, want %q", c.value, errParent, c.err)
		case c.err != "" && checkName("x") == nil:
			t.Errorf("%q: checkName accepted a group under a refused parent", c.value)
		}
	}
}
