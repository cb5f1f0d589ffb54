package runlog_test

import (
	"maps"
	"testing"

	"github.com/stampede-bench/stampede/runlog"
)

func TestParseTags(t *testing.T) {
	for _, tc := range []struct {
		name    string
		args    []string
		want    map[string]string
		wantErr string
	}{
		{"none", nil, nil, ""},
		{"one", []string{"job=mix"}, map[string]string{"job": "mix"}, ""},
		{"two keys", []string{"job=mix", "db=pg17"}, map[string]string{"job": "mix", "db": "pg17"}, ""},
		{"value with =", []string{"dsn=host=h port=1"}, map[string]string{"dsn": "host=h port=1"}, ""},
		{"empty value", []string{"job="}, map[string]string{"job": ""}, ""},
		{"same pair twice", []string{"job=mix", "job=mix"}, map[string]string{"job": "mix"}, ""},
		{"key twice", []string{"job=mix", "job=pair"}, nil,
			"--tag job=mix and --tag job=pair give the key job two values, and a run has one value per key: give job once"},
		{"key twice, one empty", []string{"job=", "job=mix"}, nil, "--tag job= and --tag job=mix give the key job two values"},
		{"no =", []string{"novalue"}, nil, `malformed --tag "novalue": use key=value`},
		{"no key", []string{"=v"}, nil, `malformed --tag "=v": use key=value`},
	} {
		got, err := runlog.ParseTags(tc.args)
		switch {
		case tc.wantErr != "":
			if err == nil || len(err.Error()) < len(tc.wantErr) || err.Error()[:len(tc.wantErr)] != tc.wantErr {
				t.Errorf("%s: error %v, want %q", tc.name, err, tc.wantErr)
			}
		case err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case !maps.Equal(got, tc.want):
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestMatchTags(t *testing.T) {
	for _, tc := range []struct {
		name       string
		have, want map[string]string
		match      bool
	}{
		{"no filter", map[string]string{"job": "mix"}, nil, true},
		{"no filter, no tags", nil, nil, true},
		{"equal", map[string]string{"job": "mix", "db": "pg"}, map[string]string{"job": "mix"}, true},
		{"other value", map[string]string{"job": "pair"}, map[string]string{"job": "mix"}, false},
		{"all must match", map[string]string{"job": "mix", "db": "pg"}, map[string]string{"job": "mix", "db": "my"}, false},
		{"both match", map[string]string{"job": "mix", "db": "pg"}, map[string]string{"job": "mix", "db": "pg"}, true},
		{"empty value, tagged empty", map[string]string{"job": ""}, map[string]string{"job": ""}, true},
		{"empty value, no such key", map[string]string{"db": "pg"}, map[string]string{"job": ""}, false},
		{"empty value, no tags", nil, map[string]string{"job": ""}, false},
		{"empty value, other value", map[string]string{"job": "mix"}, map[string]string{"job": ""}, false},
	} {
		if got := runlog.MatchTags(tc.have, tc.want); got != tc.match {
			t.Errorf("%s: MatchTags(%v, %v) = %v, want %v", tc.name, tc.have, tc.want, got, tc.match)
		}
	}
}
