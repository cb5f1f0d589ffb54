package workload

// bookkeepingDefaults are the column defaults stampede's own DDL gives its
// bookkeeping tables (IsBookkeeping), by column, as pg_get_expr prints
// them: init's record's (RecordLoad) and a fleet's marker's
// (fleet.markerDDL, its column mode's). Any other default on them is a
// user's.
var bookkeepingDefaults = map[string]string{
	"loaded_at":       "now()",
	adoptedColumn:     "''::text",
	markedColumn:      "false",
	databaseOIDColumn: "''::text",
	clusterColumn:     "''::text",
}

// userDefault reports whether the default expr of column on table is a
// user's: on a bookkeeping table, one stampede's DDL does not give it
// (bookkeepingDefaults); on any other, one gen's DDL does not give it
// (ddlText.ownsDefault) on a column stampede did not mark (colMark: fleet
// exec's mark on a column it added, which has its default).
func userDefault(ddl ddlText, table, column, expr, colMark string) bool {
	if IsMark(colMark) {
		return false
	}
	if IsBookkeeping(table) {
		own, ok := bookkeepingDefaults[column]
		return !ok || own != expr
	}
	return !ddl.ownsDefault(table, column)
}
