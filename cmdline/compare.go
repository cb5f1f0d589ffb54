package cmdline

import (
	"errors"
	"strings"

	"github.com/stampede-bench/stampede/results"
	"github.com/stampede-bench/stampede/runlog"
)

// CompareSides sorts `stampede compare`'s arguments and its --a-tag and
// --b-tag selections into the two sides: a side given by tags takes the
// place of one argument, and an argument is one run or a comma-separated
// group of runs. Bad counts and empty names are usage errors.
func CompareSides(args []string, tags [2][]string) ([2][]string, error) {
	var sides [2][]string
	for i := range sides {
		if len(tags[i]) > 0 {
			if _, err := runlog.ParseTagsOf([]string{"--a-tag", "--b-tag"}[i], tags[i]); err != nil {
				return sides, usagef("%v", err)
			}
			continue
		}
		if len(args) == 0 {
			return sides, usagef("name two sides to compare: two runs (A B), two groups of runs (A1,A2,... B1,B2,...) or --a-tag/--b-tag key=value")
		}
		for _, ref := range strings.Split(args[0], ",") {
			if ref == "" && strings.Contains(args[0], ",") {
				return sides, usagef("%q holds an empty run name: separate runs with single commas, no spaces", args[0])
			}
			sides[i] = append(sides[i], ref)
		}
		args = args[1:]
	}
	if len(args) > 0 {
		return sides, usagef("too many arguments: a side given by --a-tag or --b-tag takes the place of one argument (two sides in all)")
	}
	return sides, nil
}

// CompareGroups opens the runs of both sides from src (refs and tags as
// CompareSides sorted them) and judges them over runs
// (results.CompareGroups), with each run's directory said as src says it.
// When the sides come to one run each, it returns their IDs instead, for
// the comparison of two runs. Bad input is a usage error.
func CompareGroups(src *RunSource, refs, tags [2][]string) (*results.GroupComparison, [2]string, error) {
	var groups [2][]*runlog.Run
	for i := range groups {
		var err error
		if groups[i], err = OpenRunsFrom(src, refs[i], tags[i]); err != nil {
			return nil, [2]string{}, err
		}
	}
	if len(groups[0]) == 1 && len(groups[1]) == 1 {
		return nil, [2]string{groups[0][0].Info.ID, groups[1][0].Info.ID}, nil
	}
	c, err := results.CompareGroups(groups[0], groups[1])
	var ge *results.GroupError
	if errors.As(err, &ge) {
		return nil, [2]string{}, asUsage(err)
	}
	if err != nil {
		return nil, [2]string{}, err
	}
	for _, side := range []*results.GroupSide{&c.A, &c.B} {
		for i := range side.Runs {
			side.Runs[i].Dir = src.Where(side.Runs[i].Dir)
		}
	}
	return &c, [2]string{}, nil
}
