package dialect

import (
	"errors"
	"fmt"
	"strings"
)

// ErrNeedsCockroach marks a request for a feature only CockroachDB has
// (multi-region databases): the caller's error says what needs it.
var ErrNeedsCockroach = errors.New("needs CockroachDB")

// MultiRegioner is implemented by dialects with multi-region databases
// (CockroachDB's): a database's regions, and where a table's rows live.
// Region names are the cluster's (the region tier of its nodes'
// --locality); the statements quote them as identifiers.
type MultiRegioner interface {
	// PrimaryRegion returns the statement that makes database db
	// multi-region with region as its primary region:
	// ALTER DATABASE "ycsb" PRIMARY REGION "east".
	PrimaryRegion(db, region string) string
	// AddRegion returns the statement that adds region to database db:
	// ALTER DATABASE "ycsb" ADD REGION "central".
	AddRegion(db, region string) string
	// RegionalByRow returns the statement that homes each row of table
	// name in the region of its hidden crdb_region column (by default the
	// region of the node that inserted it):
	// ALTER TABLE "usertable" SET LOCALITY REGIONAL BY ROW.
	RegionalByRow(name string) string
	// GlobalTable returns the statement that makes table name readable
	// fast from every region (TPC-C's item table):
	// ALTER TABLE "item" SET LOCALITY GLOBAL.
	GlobalTable(name string) string
}

var _ MultiRegioner = Cockroach{}

// PrimaryRegion implements MultiRegioner.
func (c Cockroach) PrimaryRegion(db, region string) string {
	return "ALTER DATABASE " + c.QuoteIdent(db) + " PRIMARY REGION " + c.QuoteIdent(region)
}

// AddRegion implements MultiRegioner.
func (c Cockroach) AddRegion(db, region string) string {
	return "ALTER DATABASE " + c.QuoteIdent(db) + " ADD REGION " + c.QuoteIdent(region)
}

// RegionalByRow implements MultiRegioner.
func (c Cockroach) RegionalByRow(name string) string {
	return "ALTER TABLE " + c.QuoteIdent(name) + " SET LOCALITY REGIONAL BY ROW"
}

// GlobalTable implements MultiRegioner.
func (c Cockroach) GlobalTable(name string) string {
	return "ALTER TABLE " + c.QuoteIdent(name) + " SET LOCALITY GLOBAL"
}

// MultiRegionDDL returns the statements that make database db
// multi-region over regions (the first is the primary region) and home
// the rows of regionalByRow's tables by row and global's everywhere, as
// the field report's multi-region YCSB set its database up:
//
//	ALTER DATABASE "ycsb" PRIMARY REGION "east"
//	ALTER DATABASE "ycsb" ADD REGION "central"
//	ALTER DATABASE "ycsb" ADD REGION "west"
//	ALTER TABLE "usertable" SET LOCALITY REGIONAL BY ROW
//
// For a dialect without multi-region databases it returns an error
// matching ErrNeedsCockroach, in one line that says so.
func MultiRegionDDL(d Dialect, db string, regions, regionalByRow, global []string) ([]string, error) {
	mr, ok := d.(MultiRegioner)
	if !ok {
		return nil, fmt.Errorf("--regions %s: multi-region databases (ALTER DATABASE ... PRIMARY REGION) are CockroachDB's, and this server is %s: %w",
			strings.Join(regions, ","), d.Name(), ErrNeedsCockroach)
	}
	if len(regions) == 0 {
		return nil, errors.New("no region given: name the primary region first, as in --regions east,central,west")
	}
	seen := map[string]bool{}
	for _, r := range regions {
		if r == "" || seen[r] {
			return nil, fmt.Errorf("--regions %s: each region once, none empty", strings.Join(regions, ","))
		}
		seen[r] = true
	}
	stmts := []string{mr.PrimaryRegion(db, regions[0])}
	for _, r := range regions[1:] {
		stmts = append(stmts, mr.AddRegion(db, r))
	}
	for _, t := range regionalByRow {
		stmts = append(stmts, mr.RegionalByRow(t))
	}
	for _, t := range global {
		stmts = append(stmts, mr.GlobalTable(t))
	}
	return stmts, nil
}
