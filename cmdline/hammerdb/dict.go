package hammerdb

import (
	"fmt"
	"slices"
	"strings"
)

// A key is one of HammerDB's PostgreSQL TPROC-C settings (its
// config/postgresql.xml): its dictionary, name and default.
type key struct {
	dict, name, def string
	// unsupported says why stampede runs only the default: a value other
	// than def is refused with this reason.
	unsupported string
}

// pgKeys are HammerDB's PostgreSQL keys of the connection and tpcc
// dictionaries, in its order (print dict prints them so).
var pgKeys = []key{
	{dict: "connection", name: "pg_host", def: "localhost"},
	{dict: "connection", name: "pg_port", def: "5432"},
	{dict: "connection", name: "pg_sslmode", def: "prefer"},
	{dict: "tpcc", name: "pg_count_ware", def: "1"},
	{dict: "tpcc", name: "pg_num_vu", def: "1"},
	{dict: "tpcc", name: "pg_superuser", def: "postgres"},
	{dict: "tpcc", name: "pg_superuserpass", def: "postgres"},
	{dict: "tpcc", name: "pg_defaultdbase", def: "postgres"},
	{dict: "tpcc", name: "pg_user", def: "tpcc"},
	{dict: "tpcc", name: "pg_pass", def: "tpcc"},
	{dict: "tpcc", name: "pg_dbase", def: "tpcc"},
	{dict: "tpcc", name: "pg_tspace", def: "pg_default", unsupported: "stampede builds the schema in the database's default tablespace"},
	{dict: "tpcc", name: "pg_vacuum", def: "false"},
	{dict: "tpcc", name: "pg_dritasnap", def: "false", unsupported: "DRITA snapshots are EDB Postgres Advanced Server's, which stampede does not take"},
	{dict: "tpcc", name: "pg_oracompat", def: "false", unsupported: "stampede builds no Oracle-compatible (EDB) schema"},
	{dict: "tpcc", name: "pg_cituscompat", def: "false", unsupported: "stampede builds no Citus-distributed schema"},
	{dict: "tpcc", name: "pg_storedprocs", def: "false"},
	{dict: "tpcc", name: "pg_partition", def: "false"},
	{dict: "tpcc", name: "pg_total_iterations", def: "10000000"},
	{dict: "tpcc", name: "pg_raiseerror", def: "false"},
	{dict: "tpcc", name: "pg_keyandthink", def: "false"},
	{dict: "tpcc", name: "pg_driver", def: "timed"},
	{dict: "tpcc", name: "pg_rampup", def: "2"},
	{dict: "tpcc", name: "pg_duration", def: "5"},
	{dict: "tpcc", name: "pg_allwarehouse", def: "false"},
	{dict: "tpcc", name: "pg_timeprofile", def: "false"},
	{dict: "tpcc", name: "pg_async_scale", def: "false", unsupported: "stampede runs no asynchronous clients (each virtual user is one connection)"},
	{dict: "tpcc", name: "pg_async_client", def: "10", unsupported: "stampede runs no asynchronous clients (each virtual user is one connection)"},
	{dict: "tpcc", name: "pg_async_verbose", def: "false", unsupported: "stampede runs no asynchronous clients (each virtual user is one connection)"},
	{dict: "tpcc", name: "pg_async_delay", def: "1000", unsupported: "stampede runs no asynchronous clients (each virtual user is one connection)"},
	{dict: "tpcc", name: "pg_connect_pool", def: "false", unsupported: "stampede connects each virtual user to the one server the script names (no HammerDB connect pool)"},
}

// tpchKeys are HammerDB's PostgreSQL TPROC-H keys (the tpch dictionary).
var tpchKeys = []string{"pg_scale_fact", "pg_tpch_superuser", "pg_tpch_superuserpass", "pg_tpch_defaultdbase",
	"pg_tpch_user", "pg_tpch_pass", "pg_tpch_dbase", "pg_tpch_tspace", "pg_tpch_gpcompat", "pg_tpch_gpcompress",
	"pg_num_tpch_threads", "pg_total_querysets", "pg_raise_query_error", "pg_verbose", "pg_refresh_on",
	"pg_degree_of_parallel", "pg_update_sets", "pg_trickle_refresh", "pg_refresh_verbose", "pg_cloud_query", "pg_rs_compat"}

// otherKeys are the other databases' TPROC-C keys (HammerDB's
// config/oracle.xml, mssqlserver.xml, db2.xml, mysql.xml, mariadb.xml),
// for the message that refuses one.
var otherKeys = map[string][]string{
	"Oracle": {"system_user", "system_password", "instance", "rac", "count_ware", "num_vu", "tpcc_user", "tpcc_pass",
		"tpcc_def_tab", "tpcc_ol_tab", "tpcc_def_temp", "partition", "hash_clusters", "tpcc_tt_compat", "total_iterations",
		"raiseerror", "keyandthink", "checkpoint", "ora_driver", "rampup", "duration", "allwarehouse", "ora_timeprofile",
		"async_scale", "async_client", "async_verbose", "async_delay", "connect_pool"},
	"MSSQLServer": {"mssqls_server", "mssqls_linux_server", "mssqls_tcp", "mssqls_port", "mssqls_azure",
		"mssqls_authentication", "mssqls_msi_object_id", "mssqls_linux_authent", "mssqls_odbc_driver", "mssqls_linux_odbc",
		"mssqls_uid", "mssqls_pass", "mssqls_encrypt_connection", "mssqls_trust_server_cert", "mssqls_count_ware",
		"mssqls_num_vu", "mssqls_dbase", "mssqls_imdb", "mssqls_bucket", "mssqls_durability", "mssqls_use_bcp",
		"mssqls_total_iterations", "mssqls_raiseerror", "mssqls_keyandthink", "mssqls_checkpoint", "mssqls_driver",
		"mssqls_rampup", "mssqls_duration", "mssqls_allwarehouse", "mssqls_timeprofile", "mssqls_async_scale",
		"mssqls_async_client", "mssqls_async_verbose", "mssqls_async_delay", "mssqls_connect_pool"},
	"Db2": {"db2_def_user", "db2_def_pass", "db2_def_dbase", "db2_count_ware", "db2_num_vu", "db2_user", "db2_pass",
		"db2_dbase", "db2_def_tab", "db2_tab_list", "db2_partition", "db2_total_iterations", "db2_raiseerror",
		"db2_keyandthink", "db2_driver", "db2_rampup", "db2_duration", "db2_monreport", "db2_allwarehouse",
		"db2_timeprofile", "db2_async_scale", "db2_async_client", "db2_async_verbose", "db2_async_delay", "db2_connect_pool"},
	"MySQL": {"mysql_host", "mysql_port", "mysql_socket", "mysql_ssl", "mysql_ssl_two_way", "mysql_ssl_linux_capath",
		"mysql_ssl_windows_capath", "mysql_ssl_ca", "mysql_ssl_cert", "mysql_ssl_key", "mysql_ssl_cipher",
		"mysql_oceanbase_port", "mysql_count_ware", "mysql_num_vu", "mysql_user", "mysql_pass", "mysql_dbase",
		"mysql_storage_engine", "mysql_partition", "mysql_prepared", "mysql_history_pk", "mysql_no_stored_procs",
		"mysql_total_iterations", "mysql_raiseerror", "mysql_keyandthink", "mysql_driver", "mysql_rampup",
		"mysql_duration", "mysql_allwarehouse", "mysql_timeprofile", "mysql_async_scale", "mysql_async_client",
		"mysql_async_verbose", "mysql_async_delay", "mysql_connect_pool"},
	"MariaDB": {"maria_host", "maria_port", "maria_socket", "maria_ssl", "maria_ssl_two_way", "maria_ssl_linux_capath",
		"maria_ssl_windows_capath", "maria_ssl_ca", "maria_ssl_cert", "maria_ssl_key", "maria_ssl_cipher",
		"maria_count_ware", "maria_num_vu", "maria_user", "maria_pass", "maria_dbase", "maria_storage_engine",
		"maria_partition", "maria_prepared", "maria_no_stored_procs", "maria_history_pk", "maria_total_iterations",
		"maria_raiseerror", "maria_keyandthink", "maria_driver", "maria_rampup", "maria_duration", "maria_allwarehouse",
		"maria_timeprofile", "maria_async_scale", "maria_async_client", "maria_async_verbose", "maria_async_delay",
		"maria_connect_pool", "maria_purge"},
}

// aliases are the PostgreSQL keys of other databases' keys whose names
// differ by more than their prefix.
var aliases = map[string]string{
	"system_user": "pg_superuser", "system_password": "pg_superuserpass", "tpcc_user": "pg_user", "tpcc_pass": "pg_pass",
	"mssqls_server": "pg_host", "mssqls_linux_server": "pg_host", "mssqls_uid": "pg_user", "db2_def_user": "pg_superuser",
	"db2_def_pass": "pg_superuserpass", "db2_def_dbase": "pg_defaultdbase", "mysql_no_stored_procs": "pg_storedprocs",
	"maria_no_stored_procs": "pg_storedprocs", "mysql_ssl": "pg_sslmode", "maria_ssl": "pg_sslmode",
}

// lookupKey returns PostgreSQL's key name.
func lookupKey(name string) (key, bool) {
	for _, k := range pgKeys {
		if k.name == name {
			return k, true
		}
	}
	return key{}, false
}

// unknownKey explains why diset dict name is refused: the key of another
// dictionary, of another database, or of none, with the key to use.
func unknownKey(dict, name string) string {
	if k, ok := lookupKey(name); ok {
		return fmt.Sprintf("diset %s %s: key %s is in the %s dictionary: diset %s %s VALUE", dict, name, name, k.dict, k.dict, name)
	}
	if slices.Contains(tpchKeys, name) {
		return fmt.Sprintf("diset %s %s: %s is a TPROC-H key (the tpch dictionary); stampede runs HammerDB's TPROC-C only", dict, name, name)
	}
	for _, db := range []string{"Oracle", "MSSQLServer", "Db2", "MySQL", "MariaDB"} {
		if !slices.Contains(otherKeys[db], name) {
			continue
		}
		if pg := pgCounterpart(name); pg != "" {
			k, _ := lookupKey(pg)
			return fmt.Sprintf("diset %s %s: %s is %s's key, not PostgreSQL's: for PostgreSQL use diset %s %s (dbset db pg)", dict, name, name, db, k.dict, pg)
		}
		return fmt.Sprintf("diset %s %s: %s is %s's key and PostgreSQL has none like it; remove the line (print dict lists PostgreSQL's keys)", dict, name, name, db)
	}
	if pg := pgCounterpart(name); pg != "" {
		k, _ := lookupKey(pg)
		return fmt.Sprintf("diset %s %s: HammerDB's PostgreSQL has no key %s: did you mean diset %s %s?", dict, name, name, k.dict, pg)
	}
	return fmt.Sprintf("diset %s %s: HammerDB's PostgreSQL has no key %s (its keys: %s)", dict, name, name, keyNames(""))
}

// pgCounterpart returns the PostgreSQL key of another database's key
// ("" when there is none).
func pgCounterpart(name string) string {
	if pg, ok := aliases[name]; ok {
		return pg
	}
	rest := name
	for _, prefix := range []string{"mssqls_", "db2_", "mysql_", "maria_", "ora_", "pg_"} {
		if r, ok := strings.CutPrefix(name, prefix); ok {
			rest = r
			break
		}
	}
	if _, ok := lookupKey("pg_" + rest); ok {
		return "pg_" + rest
	}
	return ""
}

// keyNames lists the keys of dict (every dictionary's for "").
func keyNames(dict string) string {
	var names []string
	for _, k := range pgKeys {
		if dict == "" || k.dict == dict {
			names = append(names, k.name)
		}
	}
	return strings.Join(names, " ")
}
