package sqlx

import (
	"fmt"
	"net/url"
	"strings"
	"sync/atomic"
	"unicode"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stampede-bench/stampede/redact"
)

// Endpoint describes one endpoint of a DB: a server, or a proxy in front
// of one.
type Endpoint struct {
	// Slot is the endpoint's number: its place in the order the DB added
	// endpoints (those of Options.URLs first), never reused, so that a
	// worker's cell (see DB.WorkerCell) names it even after it is removed.
	Slot int
	// Name is host:port (or the Unix socket's path), safe to print.
	Name string
	// Locality is the endpoint's locality, as given with ?locality= in its
	// URL or --locality after it ("region=east", "region=us,zone=a"); ""
	// when none was given.
	Locality string
}

// endpoint is an Endpoint with its pool and what the workers share about
// it.
type endpoint struct {
	Endpoint
	// key identifies the endpoint in an endpoints file: its connection
	// string without the locality.
	key string
	// pool is nil with the null driver.
	pool   *pgxpool.Pool
	health endpointHealth
	// reconnects counts the workers' connections to it that were lost
	// and made again (on it or on another endpoint).
	reconnects atomic.Int64
	// removed is set when the endpoints file no longer lists it: workers
	// leave it at their next call and its pool closes once they have.
	removed atomic.Bool
	// fromFile says the endpoints file listed it (only those are removed
	// when the file stops listing them).
	fromFile bool
}

// endpointSet is the DB's endpoints at one moment. It is never changed
// once published: a change publishes a new set, and workers notice it by
// comparing pointers.
type endpointSet struct {
	// all holds every endpoint ever added, by slot.
	all []*endpoint
	// live holds those not removed, by slot.
	live []*endpoint
}

// with returns a copy of s with e added.
func (s *endpointSet) with(e *endpoint) *endpointSet {
	return &endpointSet{all: append(s.all[:len(s.all):len(s.all)], e), live: append(s.live[:len(s.live):len(s.live)], e)}
}

// without returns a copy of s without the live endpoint e.
func (s *endpointSet) without(e *endpoint) *endpointSet {
	n := &endpointSet{all: s.all}
	for _, x := range s.live {
		if x != e {
			n.live = append(n.live, x)
		}
	}
	return n
}

// LocalityParam is the query parameter of a connection URL that gives the
// endpoint's locality (postgresql://host/db?locality=region%3Deast); it is
// taken out of the URL before connecting.
const LocalityParam = "locality"

// SplitLocality takes the locality out of a connection string: the
// ?locality= parameter of a URL, or the locality=... pair of a key=value
// DSN. It returns the connection string without it and the locality ("" if
// none), or an error naming a malformed locality.
func SplitLocality(conn string) (string, string, error) {
	var loc string
	if strings.Contains(conn, "://") {
		base, query, ok := strings.Cut(conn, "?")
		if !ok {
			return conn, "", nil
		}
		var keep []string
		for _, kv := range strings.Split(query, "&") {
			k, v, _ := strings.Cut(kv, "=")
			if k != LocalityParam {
				keep = append(keep, kv)
				continue
			}
			u, err := url.QueryUnescape(v)
			if err != nil {
				return "", "", fmt.Errorf("malformed ?locality= in %s: %v", redact.Conn(conn), err)
			}
			loc = u
		}
		conn = base
		if len(keep) > 0 {
			conn += "?" + strings.Join(keep, "&")
		}
	} else if strings.Contains(conn, LocalityParam+"=") {
		var keep []string
		for _, f := range strings.Fields(conn) {
			if v, ok := strings.CutPrefix(f, LocalityParam+"="); ok {
				loc = strings.Trim(v, "'")
				continue
			}
			keep = append(keep, f)
		}
		conn = strings.Join(keep, " ")
	}
	if loc != "" {
		if err := CheckLocality(loc); err != nil {
			return "", "", err
		}
	}
	return conn, loc, nil
}

// CheckLocality checks a locality's form, CockroachDB's: tiers
// KEY=VALUE separated by commas ("region=us-east1,zone=a"), without white
// space.
func CheckLocality(loc string) error {
	for _, tier := range strings.Split(loc, ",") {
		k, v, ok := strings.Cut(tier, "=")
		if !ok || k == "" || v == "" || strings.ContainsFunc(tier, unicode.IsSpace) || strings.Contains(v, "=") {
			return fmt.Errorf("malformed locality %q: use KEY=VALUE tiers separated by commas, as region=east or region=us-east1,zone=a", loc)
		}
	}
	return nil
}
