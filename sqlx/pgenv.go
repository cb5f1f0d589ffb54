package sqlx

import (
	"fmt"
	"net/url"
	"os"
	"strings"
)

// pgEnv are the PG* environment variables that pgx reads as libpq does
// (pgconn's parseEnvSettings) and may refuse while it parses a connection
// string, each with its connection parameter, the words of pgx's error
// that name it, and what libpq takes. A variable pgx reads and never
// refuses (PGAPPNAME, PGPASSFILE, PGHOST...) works as libpq's does.
var pgEnv = []struct {
	name, key, match, want string
}{
	{"PGSSLMODE", "sslmode", "sslmode", "libpq's sslmodes are disable, allow, prefer, require, verify-ca and verify-full"},
	{"PGCONNECT_TIMEOUT", "connect_timeout", "connect_timeout", "give a whole number of seconds, 0 or more"},
	{"PGSERVICE", "service", "service", "name a [section] of the service file (PGSERVICEFILE, else ~/.pg_service.conf)"},
	{"PGSERVICEFILE", "servicefile", "service file", "give a file of [service] sections"},
	{"PGTARGETSESSIONATTRS", "target_session_attrs", "target_session_attrs", "give any, read-write, read-only, primary, standby or prefer-standby"},
	{"PGCHANNELBINDING", "channel_binding", "channel_binding", "give disable, prefer or require"},
	{"PGSSLNEGOTIATION", "sslnegotiation", "sslnegotiation", "give postgres or direct"},
	{"PGSSLCERTMODE", "sslcertmode", "sslcertmode", "give disable, allow or require"},
	{"PGREQUIREAUTH", "require_auth", "require_auth", "give a list of password, md5, scram-sha-256, gss, sspi or none"},
	{"PGMINPROTOCOLVERSION", "min_protocol_version", "protocol version", "give 3.0 or 3.2"},
	{"PGMAXPROTOCOLVERSION", "max_protocol_version", "protocol version", "give 3.0 or 3.2"},
	{"PGSSLROOTCERT", "sslrootcert", "CA", "give the file of the CA that signed the server's certificate"},
	{"PGSSLCERT", "sslcert", "cert", "give the client certificate's file, with PGSSLKEY"},
	{"PGSSLKEY", "sslkey", "sslkey", "give the client key's file, with PGSSLCERT"},
	{"PGPORT", "port", "port", "give a port number (1-65535)"},
}

// envDetail names the PG* environment variable behind pgx's error err
// for connection string conn, when the parameter it refused came from the
// environment (libpq's variables, which pgx reads too) and not from conn;
// "" when no variable is to blame. getenv looks variables up.
func envDetail(err error, conn string, getenv func(string) string) string {
	detail := parseDetail(err, conn)
	for _, v := range pgEnv {
		val := getenv(v.name)
		if val == "" || !strings.Contains(detail, v.match) || connSets(conn, v.key) {
			continue
		}
		// pgx's words may quote the value elided (as a possible
		// secret) or hold Go's strconv text: the value is said already.
		if strings.Contains(detail, "…") || strings.Contains(detail, "strconv.") {
			detail = "not a valid " + v.key
		}
		return fmt.Sprintf("%s=%q in the environment (libpq's %s, which stampede reads as libpq does) is refused: %s; %s, or unset %s",
			v.name, val, v.key, oneLine(detail), v.want, v.name)
	}
	return ""
}

// envUnread checks the PG* variables libpq reads and pgx does not, for
// connection string conn: one that asks for what stampede cannot do is
// refused naming it (libpq would refuse a bad value, or honour it), not
// ignored. PGGSSENCMODE: pgx has no GSSAPI encryption, so disable and
// prefer (which falls back to none) are taken, require refused.
// PGCLIENTENCODING: pgx speaks UTF8 only.
func envUnread(conn string, getenv func(string) string) string {
	if v := getenv("PGGSSENCMODE"); v != "" && !connSets(conn, "gssencmode") {
		switch v {
		case "disable", "prefer":
		case "require":
			return fmt.Sprintf("PGGSSENCMODE=%q in the environment (libpq's gssencmode) asks for GSSAPI encryption, which stampede does not do: unset PGGSSENCMODE or set it to disable or prefer", v)
		default:
			return fmt.Sprintf("PGGSSENCMODE=%q in the environment (libpq's gssencmode) is refused: invalid gssencmode value; give disable, prefer or require, or unset PGGSSENCMODE", v)
		}
	}
	if v := getenv("PGCLIENTENCODING"); v != "" && !connSets(conn, "client_encoding") {
		switch strings.ToLower(strings.NewReplacer("-", "", "_", "").Replace(v)) {
		case "utf8", "unicode", "auto":
		default:
			return fmt.Sprintf("PGCLIENTENCODING=%q in the environment (libpq's client_encoding) asks for an encoding stampede does not speak: its driver (pgx) speaks UTF8 only; unset PGCLIENTENCODING or set it to UTF8", v)
		}
	}
	return ""
}

// connSets reports whether connection string conn gives parameter key
// itself (then the environment's is not used).
func connSets(conn, key string) bool {
	if isURL(conn) {
		u, err := url.Parse(conn)
		return err == nil && u.Query().Has(key)
	}
	for _, f := range strings.Fields(conn) {
		if k, _, ok := strings.Cut(f, "="); ok && strings.TrimSpace(k) == key {
			return true
		}
	}
	return false
}

// envSettingHint says which PG* environment variable sent the setting a
// server refused at connection time (PGOPTIONS's -c settings, PGTZ's
// TimeZone), as libpq would send it; "" when none is set.
func envSettingHint(msg string) string {
	if tz := os.Getenv("PGTZ"); tz != "" && strings.Contains(msg, `"TimeZone"`) {
		return fmt.Sprintf("PGTZ=%q in the environment sets the session's TimeZone, and the server has no such time zone: fix or unset PGTZ", tz)
	}
	if opts := os.Getenv("PGOPTIONS"); opts != "" {
		return fmt.Sprintf("PGOPTIONS=%q in the environment sends these settings at connection time, as libpq does, and the server refused them: fix or unset PGOPTIONS", opts)
	}
	return ""
}
