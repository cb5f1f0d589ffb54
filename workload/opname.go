package workload

import (
	"errors"
	"fmt"
	"strings"
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

// Names the run log and its readers keep for their own series and rows:
// under a rate, every operation's OP.service and OP.lag and the pacer's
// pacer.lag (engine.Series), and compare's and the CockroachDB output's
// total rows, __result and __total.
const (
	reservedPacer  = "pacer"
	reservedPrefix = "__"
)

// reservedSuffixes are the suffixes of an operation's derived series
// (engine.ServiceSuffix, engine.LagSuffix): a name that ends in one is
// read as a derived series, not an operation (results.IsOp).
var reservedSuffixes = []string{".service", ".lag"}

// ReservedOpNames says, for a refusal, which names CheckReservedOpName
// refuses.
const ReservedOpNames = "pacer, NAME.service, NAME.lag and names starting with __ (the run log's and compare's own series)"

// CheckReservedOpName refuses an operation name that the run log or its
// readers keep for their own series (ReservedOpNames): a user's script or
// statement named so would clash with them or be read as one of them.
func CheckReservedOpName(name string) error {
	reserved := name == reservedPacer || strings.HasPrefix(name, reservedPrefix)
	for _, s := range reservedSuffixes {
		reserved = reserved || strings.HasSuffix(name, s)
	}
	if reserved {
		return fmt.Errorf("%q is a name stampede keeps for its own series: %s", name, ReservedOpNames)
	}
	return nil
}
