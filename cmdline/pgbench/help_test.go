package pgbench

import (
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// optionLine is an option's line in a --help: "  -c, --client=NUM  ...".
var optionLine = regexp.MustCompile(`^  (?:-(.), )?--([a-z-]+)`)

// helpOptions returns the long options a --help lists, those under "Not
// taken yet" apart.
func helpOptions(help string) (taken, notTaken []string) {
	section := ""
	for _, l := range strings.Split(help, "\n") {
		if l != "" && !strings.HasPrefix(l, " ") {
			section = l
		}
		m := optionLine.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		if strings.HasPrefix(section, "Not taken yet") {
			notTaken = append(notTaken, m[2])
		} else {
			taken = append(taken, m[2])
		}
	}
	return taken, notTaken
}

// TestHelpSaysWhatIsTaken: stampede pgbench --help lists every option the
// real pgbench's --help lists; those it lists as not taken are exactly
// those Parse refuses as not taken, and each of the others is not
// refused so (--verbose-errors was listed as not taken, and works).
func TestHelpSaysWhatIsTaken(t *testing.T) {
	taken, notTaken := helpOptions(usage)
	if out, err := exec.Command("pgbench", "--help").Output(); err == nil {
		real, _ := helpOptions(string(out))
		for _, o := range real {
			if !slices.Contains(taken, o) && !slices.Contains(notTaken, o) {
				t.Errorf("pgbench --help lists --%s, stampede pgbench --help does not", o)
			}
		}
	} else {
		t.Logf("no pgbench to compare with: %v", err)
	}
	var refused []string
	for name := range notYet {
		refused = append(refused, name)
	}
	slices.Sort(refused)
	slices.Sort(notTaken)
	if !slices.Equal(refused, notTaken) {
		t.Errorf("--help lists %v as not taken, Parse refuses %v", notTaken, refused)
	}
	for _, o := range taken {
		if _, err := Parse([]string{"--" + o + "=1", "db"}, env(nil)); err != nil && strings.Contains(err.Error(), "not taken") {
			t.Errorf("--help lists --%s as taken, and Parse refuses it: %v", o, err)
		}
	}
	for _, l := range strings.Split(usage, "\n") {
		if strings.HasPrefix(l, "  -l, --log") && strings.Contains(l, "-R") {
			t.Errorf("--help says -l does not go with -R, and it does (TestTransactionLogAsPgbench): %q", l)
		}
	}
}
