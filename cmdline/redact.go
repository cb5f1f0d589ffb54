package cmdline

import (
	"strings"

	"github.com/stampede-bench/stampede/internal/lazyre"
	"github.com/stampede-bench/stampede/redact"
)

// urlInWord finds the URLs of a command-line word: a scheme, "://", and
// everything up to the next white space or quote (as redact.Text).
var urlInWord = lazyre.New(`[A-Za-z][A-Za-z0-9+.-]*://[^\s"'<>]*`)

// dsnPair finds the pairs of a key=value DSN whose keys never hold a
// secret (libpq's names), each with its value up to the next space.
var dsnPair = lazyre.New(`(?i)(^|\s)(host|hostaddr|port|dbname|user|sslmode|sslrootcert|sslcert|sslkey|sslcrl|application_name|connect_timeout|target_session_attrs|options|search_path|client_encoding)\s*=\s*\S*`)

// dsnKey finds the keys of a key=value DSN's pairs.
var dsnKey = lazyre.New(`(^|\s)[A-Za-z_]+\s*=`)

// redactWord returns a command-line word with connection secrets replaced.
// The passwords of its URLs (user info and parameters) and of its
// password=... pairs are replaced by redact.Text, which keeps every
// other part of a URL as written. Then the secrets of the command's
// connection strings (and PGPASSWORD) are scrubbed wherever else they
// appear (a tag, a note), but not from a URL's other parts or from the
// pairs that never hold one of a DSN (a word of two pairs or more): a password that is also the user's name
// ("postgresql://postgres:postgres@h") must not turn the user, or the
// scheme, into "xxxxx", or the command would no longer run as the user's.
func redactWord(w string, secrets []string) string {
	w = redact.Text(w)
	keep := urlInWord().FindAllStringIndex(w, -1)
	if len(dsnKey().FindAllStringIndex(w, 2)) == 2 { // a DSN, not a tag's "user=x"
		keep = append(keep, dsnPair().FindAllStringIndex(w, -1)...)
	}
	var b strings.Builder
	for i := 0; i < len(w); {
		// The next kept span starting at or after i.
		next, end := len(w), len(w)
		for _, k := range keep {
			if k[1] > i && k[0] < next {
				next, end = max(k[0], i), k[1]
			}
		}
		b.WriteString(redact.ScrubText(w[i:next], secrets))
		b.WriteString(w[next:end])
		i = end
	}
	return b.String()
}

// ScrubMessage returns a message to print (an error, with the commands it
// suggests completed from the command line) without any of the given
// secrets or any URL's password, as redactWord does: the URLs of the
// commands it suggests keep their user and parameters, even when the
// password is also the user's name.
func ScrubMessage(msg string, secrets []string) string { return redactWord(msg, secrets) }
