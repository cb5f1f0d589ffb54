package cmdline

import (
	"fmt"

	"github.com/spf13/pflag"

	"github.com/stampede-bench/stampede/redact"
	"github.com/stampede-bench/stampede/run"
	"github.com/stampede-bench/stampede/sqlx"
)

// clusterConn holds the connection flags for clusters: --locality after a
// URL and --endpoints-file.
type clusterConn struct {
	localities    localityFlag
	endpointsFile string
}

// localityFlag is --locality: each value applies to the URL given before
// it on the command line, found by counting the positional arguments the
// flag set has parsed when the value is set.
type localityFlag struct {
	fs     *pflag.FlagSet
	values []string // given, in order
	after  []int    // for each, the number of URLs before it
}

func (l *localityFlag) String() string {
	if len(l.values) == 0 {
		return ""
	}
	return fmt.Sprint(l.values)
}

func (l *localityFlag) Type() string { return "locality" }

func (l *localityFlag) Set(v string) error {
	if err := sqlx.CheckLocality(v); err != nil {
		return err
	}
	n := 0
	if l.fs != nil {
		n = len(l.fs.Args())
	}
	l.values = append(l.values, v)
	l.after = append(l.after, n)
	return nil
}

func (c *clusterConn) register(fs *pflag.FlagSet) {
	c.localities.fs = fs
	fs.Var(&c.localities, "locality", "locality of the URL just before it, such as region=east (or ?locality=region%3Deast in the URL); --by-locality reports per locality")
	fs.StringVar(&c.endpointsFile, "endpoints-file", "", "file of more endpoints, one URL per line with an optional locality after it (region=east); read again every second, so that nodes added or removed during a run get or lose workers")
}

// spec sets the localities and endpoints file of rc, whose URLs are
// urls.
func (c *clusterConn) spec(rc *run.Conn, urls []string) error {
	if len(c.localities.values) == 0 {
		rc.EndpointsFile = c.endpointsFile
		return nil
	}
	locs := make([]string, len(urls))
	for k, v := range c.localities.values {
		n := c.localities.after[k]
		switch {
		case n == 0 || n > len(urls):
			return usagef("--locality %s follows no URL: put it right after the URL of the endpoint it describes (postgresql://host:26257/db --locality %s)", v, v)
		case locs[n-1] != "":
			return usagef("two localities (%s and %s) for %s: give one --locality per URL", locs[n-1], v, redact.Conn(urls[n-1]))
		}
		locs[n-1] = v
	}
	rc.Localities = locs
	rc.EndpointsFile = c.endpointsFile
	return nil
}

// SplitFlags are --by-endpoint and --by-locality, of run and report.
type SplitFlags struct {
	byEndpoint, byLocality bool
}

// Register defines the flags on fs.
func (s *SplitFlags) Register(fs *pflag.FlagSet) {
	fs.BoolVar(&s.byEndpoint, "by-endpoint", false, "with several URLs, break the figures down by endpoint: interval lines, final block, run log (series OP@HOST:PORT)")
	fs.BoolVar(&s.byLocality, "by-locality", false, "break the figures down by the endpoints' localities (--locality, ?locality=)")
}

// By returns run.Spec.SplitBy: run.ByEndpoint, run.ByLocality or "".
func (s *SplitFlags) By() (string, error) {
	switch {
	case s.byEndpoint && s.byLocality:
		return "", usagef("--by-endpoint and --by-locality: give one of them (the run log keeps the endpoints' figures either way; `stampede report --by-locality` or --by-endpoint shows the other)")
	case s.byEndpoint:
		return run.ByEndpoint, nil
	case s.byLocality:
		return run.ByLocality, nil
	}
	return "", nil
}
