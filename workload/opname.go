package workload

import (
	"errors"
	"unicode"
	"unicode/utf8"
)

// CheckOpName says whether name can name an operation. The run log keeps
// every operation as a series, whose name holds no white space, comma,
// '=', control character or invalid UTF-8 (the run log's own check,
// runlog.ValidSeriesName, applies the same rule when a run is written; a
// workload checks here, before the run, where it can say which file or
// flag gave the name).
func CheckOpName(name string) error {
	if name == "" {
		return errors.New("an operation's name is empty")
	}
	for _, r := range name {
		if r == ',' || r == '=' || unicode.IsSpace(r) || unicode.IsControl(r) || r == utf8.RuneError {
			return errors.New("an operation's name holds no white space, comma, '=' or control character")
		}
	}
	return nil
}
