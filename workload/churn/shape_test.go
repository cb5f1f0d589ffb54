package churn

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stampede-bench/stampede/dialect"
	"github.com/stampede-bench/stampede/randgen"
)

// TestGreenplumCreateSQL checks, as text (no Greenplum server here), the
// CREATE TABLE of 500 shapes on Greenplum under each mode: the storage
// option and distribution clause follow the CREATE TABLE's column list,
// the distribution key is part of the primary key (Greenplum refuses a
// primary key that does not hold it), DISTRIBUTED RANDOMLY comes without
// a primary key, and auto and random draw both storage kinds. On
// PostgreSQL the same shapes have no clause.
func TestGreenplumCreateSQL(t *testing.T) {
	sz := sizes{cols: [2]int{2, 30}, rows: [2]int{1, 10}, indexes: [2]int{0, 3}}
	clause := regexp.MustCompile(`^CREATE TABLE "churn_0_\d+" \(.*?\)(?: WITH \(appendoptimized=(true|false)\))?(?: DISTRIBUTED (?:BY \(([^)]*)\)|(RANDOMLY)))?$`)
	pkRe := regexp.MustCompile(`PRIMARY KEY \(([^)]*)\)`)
	for _, tc := range []struct {
		ao, dist string
		wantAO   []string // the storage kinds drawn
		randomly bool
	}{
		{"auto", "auto", []string{"false", "true"}, false},
		{"random", "random", []string{"false", "true"}, false},
		{"true", "key", []string{"true"}, false},
		{"false", "randomly", []string{"false"}, true},
	} {
		sz := sz
		sz.greenplum, sz.appendOpt, sz.distrib = true, tc.ao, tc.dist
		r := randgen.New(1, shapeStream)
		seenAO := map[string]bool{}
		for i := range 500 {
			s := newShape(r, tableName("churn_", 0, i), sz)
			stmts, err := s.createSQL(dialect.Greenplum{})
			if err != nil {
				t.Fatal(err)
			}
			m := clause.FindStringSubmatch(stmts[0])
			if m == nil {
				t.Fatalf("%s/%s: %s", tc.ao, tc.dist, stmts[0])
			}
			seenAO[m[1]] = true
			pk := pkRe.FindStringSubmatch(stmts[0])
			switch {
			case tc.randomly && (m[3] != "RANDOMLY" || pk != nil):
				t.Errorf("%s/%s: want DISTRIBUTED RANDOMLY without a primary key: %s", tc.ao, tc.dist, stmts[0])
			case !tc.randomly && (m[2] == "" || pk == nil):
				t.Errorf("%s/%s: want DISTRIBUTED BY part of a primary key: %s", tc.ao, tc.dist, stmts[0])
			case !tc.randomly:
				keys := strings.Split(pk[1], ", ")
				dist := strings.Split(m[2], ", ")
				for _, c := range dist {
					if !slices.Contains(keys, c) {
						t.Errorf("%s/%s: distribution column %s is not in the primary key (%s): %s", tc.ao, tc.dist, c, pk[1], stmts[0])
					}
				}
				if tc.dist == "key" && m[2] != pk[1] {
					t.Errorf("--distributed-by key: DISTRIBUTED BY (%s), primary key (%s)", m[2], pk[1])
				}
			}
			for _, ix := range stmts[1:] {
				if !strings.HasPrefix(ix, `CREATE INDEX "`+s.name+`_i`) {
					t.Errorf("index statement %q", ix)
				}
			}
		}
		var ao []string
		for k := range seenAO {
			ao = append(ao, k)
		}
		slices.Sort(ao)
		if !slices.Equal(ao, tc.wantAO) {
			t.Errorf("%s/%s: appendoptimized drawn %v, want %v", tc.ao, tc.dist, ao, tc.wantAO)
		}
	}
	// PostgreSQL: the same streams, no clause.
	r := randgen.New(1, shapeStream)
	sz.appendOpt, sz.distrib = "auto", "auto"
	for i := range 100 {
		s := newShape(r, tableName("churn_", 0, i), sz)
		stmts, err := s.createSQL(dialect.Postgres{})
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(stmts[0], "appendoptimized") || strings.Contains(stmts[0], "DISTRIBUTED") || !strings.HasSuffix(stmts[0], ")") {
			t.Errorf("PostgreSQL: %s", stmts[0])
		}
	}
}

// TestShapesInRange draws 2,000 shapes: their columns within --columns,
// indexes within --indexes, a primary key on a counter or a UUID, the
// same shapes from the same stream.
func TestShapesInRange(t *testing.T) {
	for _, sz := range []sizes{
		{cols: [2]int{2, 30}, indexes: [2]int{0, 3}},
		{cols: [2]int{1, 1}, indexes: [2]int{0, 0}},
		{cols: [2]int{200, 200}, indexes: [2]int{20, 20}},
	} {
		a, b := randgen.New(9, shapeStream|3), randgen.New(9, shapeStream|3)
		for i := range 2000 / 3 {
			s, s2 := newShape(a, "t", sz), newShape(b, "t", sz)
			if s.String() != s2.String() {
				t.Fatalf("one stream, two shapes: %s, %s", s, s2)
			}
			n, ix := len(s.columns), len(s.indexes)
			if n < sz.cols[0] || n > sz.cols[1] || ix > sz.indexes[1] {
				t.Errorf("shape %d: %d columns, %d indexes, want %v and at most %d: %s", i, n, ix, sz.cols, sz.indexes[1], s)
			}
			if k := s.columns[s.pk[0]].kind; k != kSeq && k != kUUIDKey {
				t.Errorf("shape %d: primary key leads with %s: %s", i, kindInfo[k].label, s)
			}
		}
	}
}
