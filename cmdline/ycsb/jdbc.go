package ycsb

import (
	"fmt"
	"net"
	"net/url"
	"strings"
)

// jdbcPrefix starts the JDBC URLs of PostgreSQL's driver (pgjdbc).
const jdbcPrefix = "jdbc:postgresql:"

// pgjdbcParams maps pgjdbc's URL parameters onto libpq's, "" for those
// taken as they are.
var pgjdbcParams = map[string]string{
	"sslmode":         "",
	"sslcert":         "",
	"sslkey":          "",
	"sslrootcert":     "",
	"sslpassword":     "",
	"options":         "",
	"ApplicationName": "application_name",
	"connectTimeout":  "connect_timeout",
}

// sslModes are the values of sslmode that pgjdbc and libpq share.
var sslModes = map[string]bool{"disable": true, "allow": true, "prefer": true, "require": true, "verify-ca": true, "verify-full": true}

// jdbcURLs turns a JDBC URL of PostgreSQL's driver (the JDBC binding's
// db.url) into one libpq URL per host: jdbc:postgresql://h1:26257,h2/db?p
// becomes postgresql://h1:26257/db?p and postgresql://h2:5432/db?p, over
// which stampede spreads its connections round-robin (pgjdbc's
// loadBalanceHosts=true). user and passwd (db.user, db.passwd) go in the
// URLs' user info. The parameters are mapped one by one: libpq's own
// (sslmode, sslcert, ...) are kept, ssl=true is sslmode=verify-full (as
// pgjdbc takes it), currentSchema sets search_path, user and password
// join the user info, and the rest are returned in ignored, as k=v.
func jdbcURLs(raw, user, passwd string) (urls, ignored []string, err error) {
	rest, ok := cutPrefixFold(raw, jdbcPrefix)
	switch {
	case !ok && (strings.HasPrefix(raw, "postgresql://") || strings.HasPrefix(raw, "postgres://")):
		if userInfoEnd(raw) >= 0 { // pgjdbc reads no user information
			return nil, nil, fmt.Errorf("db.url %q is a libpq URL, not a JDBC one: give it as the URL argument", redactURL(raw))
		}
		return nil, nil, fmt.Errorf("db.url %q is a libpq URL, not a JDBC one: give it as the URL argument (or as jdbc:postgresql://%s)",
			redactURL(raw), strings.SplitN(redactURL(raw), "://", 2)[1])
	case !ok && strings.HasPrefix(strings.ToLower(raw), "jdbc:"):
		driver, _, _ := strings.Cut(strings.TrimPrefix(strings.ToLower(raw), "jdbc:"), ":")
		return nil, nil, fmt.Errorf("db.url %q is for JDBC's %s driver: stampede speaks PostgreSQL's wire protocol only (jdbc:postgresql://HOST:PORT/DB)", redactURL(raw), driver)
	case !ok:
		return nil, nil, fmt.Errorf("db.url %q is not a JDBC URL: use jdbc:postgresql://HOST:PORT/DB", redactURL(raw))
	case strings.Contains(raw, ";"):
		return nil, nil, fmt.Errorf("db.url names shards separated by ';': YCSB's JDBC binding sends each key to one of them, and stampede does not shard keys; " +
			"for the nodes of one cluster, give them in one URL (jdbc:postgresql://h1:26257,h2:26257/ycsb)")
	case userInfoEnd(raw) >= 0:
		// pgjdbc reads no user information: "u:pw@host" would be its
		// host name, and YCSB's binding would fail to connect.
		return nil, nil, fmt.Errorf("db.url %q holds a user or password before '@', which PostgreSQL's JDBC driver (and so YCSB's JDBC binding) does not read: "+
			"give them as -p db.user=USER -p db.passwd=PASSWORD, or as the URL's parameters (jdbc:postgresql://HOST:PORT/DB?user=USER&password=PASSWORD)", redactURL(raw))
	}
	hostPart, dbAndQuery := "", rest
	if after, ok := strings.CutPrefix(rest, "//"); ok {
		end := strings.IndexAny(after, "/?")
		if end < 0 {
			end = len(after)
		}
		hostPart, dbAndQuery = after[:end], after[end:]
	}
	db, query, _ := strings.Cut(strings.TrimPrefix(dbAndQuery, "/"), "?")
	if db, err = url.PathUnescape(db); err != nil {
		return nil, nil, fmt.Errorf("db.url %q: malformed database name: %v", redactURL(raw), err)
	}

	params := url.Values{}
	var order []string
	set := func(k, v string) {
		if _, ok := params[k]; !ok {
			order = append(order, k)
		}
		params.Set(k, v)
	}
	for _, kv := range strings.Split(query, "&") {
		if kv == "" {
			continue
		}
		k, v, _ := strings.Cut(kv, "=")
		if uk, err := url.QueryUnescape(k); err == nil {
			k = uk
		}
		if uv, err := url.QueryUnescape(v); err == nil {
			v = uv
		}
		switch lib, known := pgjdbcParams[k]; {
		case k == "sslmode" && !sslModes[v]:
			return nil, nil, fmt.Errorf("db.url: unknown sslmode %q: use disable, allow, prefer, require, verify-ca or verify-full", v)
		case known && lib == "":
			set(k, v)
		case known:
			set(lib, v)
		case k == "ssl":
			if params.Get("sslmode") == "" && strings.EqualFold(v, "true") {
				set("sslmode", "verify-full")
			} else if strings.EqualFold(v, "false") && params.Get("sslmode") == "" {
				set("sslmode", "disable")
			}
		case k == "user" || k == "password":
			given := user
			if k == "password" {
				given = passwd
			}
			if given != "" && given != v {
				return nil, nil, fmt.Errorf("db.url's %s and db.%s disagree: give one of them", k, map[string]string{"user": "user", "password": "passwd"}[k])
			}
			if k == "user" {
				user = v
			} else {
				passwd = v
			}
		case k == "currentSchema":
			set("options", "-c search_path="+v)
		case k == "loadBalanceHosts" && strings.EqualFold(v, "true"):
			// What stampede does with several hosts.
		case k == "reWriteBatchedInserts":
			// stampede sends a batch as one multi-row INSERT (see db.batchsize).
		default:
			ignored = append(ignored, k+"="+v)
		}
	}
	var rawQuery strings.Builder
	for _, k := range order {
		if rawQuery.Len() > 0 {
			rawQuery.WriteByte('&')
		}
		rawQuery.WriteString(queryEscape(k) + "=" + queryEscape(params.Get(k)))
	}

	hosts := []string{"localhost:5432"}
	if hostPart != "" {
		hosts = strings.Split(hostPart, ",")
	}
	for _, h := range hosts {
		hp, err := hostPort(h)
		if err != nil {
			return nil, nil, fmt.Errorf("db.url %q: %v", redactURL(raw), err)
		}
		u := url.URL{Scheme: "postgresql", Host: hp, Path: "/" + db, RawQuery: rawQuery.String()}
		switch {
		case user != "" && passwd != "":
			u.User = url.UserPassword(user, passwd)
		case user != "":
			u.User = url.User(user)
		case passwd != "":
			return nil, nil, fmt.Errorf("db.passwd is given without db.user: give the user too")
		}
		if db == "" {
			u.Path = ""
		}
		urls = append(urls, u.String())
	}
	return urls, ignored, nil
}

// queryEscape escapes s for a URL's parameters as url.QueryEscape does,
// but with a space as %20: libpq reads '+' as itself, so the space of
// options=-c search_path=s written '+' reached the server as "-c" and
// "+search_path=s".
func queryEscape(s string) string {
	return strings.ReplaceAll(url.QueryEscape(s), "+", "%20")
}

// hostPort checks a host of a JDBC URL and adds PostgreSQL's port when it
// has none.
func hostPort(h string) (string, error) {
	if h == "" {
		return "", fmt.Errorf("empty host")
	}
	if strings.HasPrefix(h, "[") { // [::1]:5432
		if strings.HasSuffix(h, "]") {
			return h + ":5432", nil
		}
		if _, _, err := net.SplitHostPort(h); err != nil {
			return "", fmt.Errorf("malformed host %q", h)
		}
		return h, nil
	}
	if strings.Count(h, ":") > 1 {
		return "", fmt.Errorf("malformed host %q: write IPv6 addresses in brackets, [::1]:5432", h)
	}
	host, port, ok := strings.Cut(h, ":")
	if !ok {
		return h + ":5432", nil
	}
	if host == "" || port == "" || strings.Trim(port, "0123456789") != "" {
		return "", fmt.Errorf("malformed host %q: use HOST or HOST:PORT", h)
	}
	return h, nil
}

// userInfoEnd returns the index in a URL (JDBC's or another) of the '@'
// that ends its user information, or -1 when it has none: the last '@'
// after "//" and before the parameters, so that a password holding an
// unescaped '@' or '/' ("u:p@ss@host", "u:p/ss@host") is taken whole.
func userInfoEnd(s string) int {
	start := strings.Index(s, "//")
	if start < 0 {
		return -1
	}
	rest := s[start+2:]
	if q := strings.IndexAny(rest, "?;"); q >= 0 {
		rest = rest[:q]
	}
	at := strings.LastIndex(rest, "@")
	if at < 0 {
		return -1
	}
	return start + 2 + at
}

// urlSecrets returns the secrets a db.url may hold: its whole user
// information, the password in it, and its password parameters' values.
func urlSecrets(raw string) []string {
	var out []string
	if at := userInfoEnd(raw); at >= 0 {
		info := raw[strings.Index(raw, "//")+2 : at]
		out = append(out, info)
		if _, pw, ok := strings.Cut(info, ":"); ok && pw != "" {
			out = append(out, pw)
		}
	}
	_, query, _ := strings.Cut(raw, "?")
	for _, kv := range strings.FieldsFunc(query, func(r rune) bool { return r == '&' || r == ';' }) {
		if k, v, _ := strings.Cut(kv, "="); strings.Contains(strings.ToLower(k), "password") && v != "" {
			out = append(out, v)
			if u, err := url.QueryUnescape(v); err == nil && u != v {
				out = append(out, u)
			}
		}
	}
	return out
}

// redactURL hides the user information of a URL (all of it: which part
// is the user cannot be told when it holds an unescaped '@') and the
// values of its password parameters (password=, sslpassword=).
func redactURL(s string) string {
	if at := userInfoEnd(s); at >= 0 {
		start := strings.Index(s, "//") + 2
		s = s[:start] + "xxxxx" + s[at:]
	}
	var b strings.Builder
	for {
		i := strings.Index(strings.ToLower(s), "password=")
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		end := strings.IndexAny(s[i:], "&;")
		if end < 0 {
			end = len(s) - i
		}
		b.WriteString(s[:i] + "password=xxxxx")
		s = s[i+end:]
	}
}

// cutPrefixFold is strings.CutPrefix, ignoring case.
func cutPrefixFold(s, prefix string) (string, bool) {
	if len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix) {
		return s[len(prefix):], true
	}
	return s, false
}
