// Package ycsb is the Yahoo! Cloud Serving Benchmark's core workload
// (CoreWorkload, workloads A-F) against a SQL table laid out as YCSB's JDBC
// binding lays it out:
//
//	CREATE TABLE usertable (
//	    ycsb_key VARCHAR(255) PRIMARY KEY,
//	    field0 TEXT, ..., field9 TEXT
//	)
//
// With --json (cockroach's ycsb --json) the fields are one JSONB object
// per row instead, {"field0": "...", ...}:
//
//	CREATE TABLE usertable (ycsb_key VARCHAR(255) PRIMARY KEY, field JSONB)
//
// Reads select the row or one field (field->>'field3'), updates merge
// into the object (field = field || jsonb_build_object('field3', $1)),
// inserts build it (see config.jsonStatements); tenants keep the
// relational layout.
//
// # Properties
//
// The workload is configured by YCSB's own property names and defaults
// (recordcount, fieldcount, readproportion, requestdistribution, ...), so
// YCSB workload files run unchanged. Properties come from, lowest to
// highest precedence:
//
//  1. the built-in defaults (CoreWorkload's, except recordcount: 10000 as
//     in `cockroach workload`, where YCSB's workload files say 1000);
//  2. --workload a|b|c|d|e|f, the operation mix and request distribution of
//     YCSB's workloads/workloada..f (a when no -P file is given; with -P
//     files the letter applies only when given explicitly, so a file that
//     leaves requestdistribution unset gets CoreWorkload's uniform);
//  3. each -P FILE (Java properties format), in order;
//  4. each -p key=value, in order;
//  5. the kebab-case flags (--record-count, --request-distribution, ...),
//     when given.
//
// YCSB's client properties (threadcount, target, status, ...) and the
// JDBC binding's connection (db.url, db.user, db.passwd, db.driver,
// jdbc.*) are the command line's (package cmdline/ycsb), which the
// workload leaves alone; db.batchsize with jdbc.batchupdateapi=true
// batches inserts, as the JDBC binding does (see batch.go), and exporter
// and exportfile say how --output-style ycsb writes its report
// (YCSBExport). Other unknown properties are ignored with a warning
// ([Warnings]), as YCSB ignores properties no component reads; a -p value is checked even when
// a flag overrides it, and the override is a warning. A given
// operationcount is reported by [OperationCount] so the CLI can use it as
// --max-ops, and measurement.interval by [MeasurementInterval].
//
// # Operations
//
// The operations are, in this order (their index is Result.Op): read,
// update, insert, scan and read-modify-write, chosen per call by
// cumulative proportion (rescaled, as YCSB's DiscreteGenerator does, when
// the proportions do not sum to 1). Keys are chosen as CoreWorkload
// chooses them: uniform, zipfian (scrambled, over the loaded keys plus the
// expected new ones), latest (skewed towards the most recent insert),
// hotspot, exponential or sequential, redrawing any key beyond the last
// acknowledged insert; zipfianconstant applies to every zipfian draw.
//
// A failed operation does not end the run (unless --stop-on-error): as
// YCSB records it, its latency goes to its status's series
// (read/not_found, update/unexpected_state, insert/error, ...: YCSB's
// READ-FAILED with Return=NOT_FOUND) and it counts as an error of its
// operation. A read-modify-write's read and update are recorded as its
// parts (read-modify-write/read, read-modify-write/update), and the
// update runs whatever the read found; scan/per-record is a scan's
// latency per row (YCSB's SCAN-LATENCY-PER-RECORD). Series named
// OP/PART never count towards a run's total (see [PartSep]). The
// statuses are the workload's figures (read_return_ok, ...), and
// YCSBMeasure maps the series onto YCSB's measurements for
// --output-style ycsb.
//
// # Inserts and clients that split the table
//
// Inserts take own indexes from one counter shared by all workers (see
// config.keyNumber): a client that loads the whole table inserts
// recordcount, recordcount+1, ..., after the rows already in it, so
// repeated runs with inserts do not collide. A client that loads a share
// of it (insertstart, insertcount, YCSB's way of splitting a load among
// clients) inserts into stripes of its own range beyond recordcount and
// chooses keys among its own only, so several such clients running
// workload d at once neither collide nor read keys another has yet to
// insert; each continues after its own inserts of earlier runs.
//
// # What init loaded
//
// The generator is a [workload.DataSpecer]: init records the properties
// the rows depend on (recordcount, fieldcount, fieldnameprefix,
// fieldlength, fieldlengthdistribution, minfieldlength, insertorder,
// zeropadding) and "keys", the key numbers loaded ("all", or
// insertstart+insertcount parts); run and check adopt those not given and
// refuse those given with other values, but for a smaller recordcount
// (a subset of the keys) and a client's share of keys loaded. It is a
// [workload.PartLoader]: clients that split the load (insertstart,
// insertcount) load their parts into one table, and the record merges
// them (see loadrecord.go). It is a [workload.ShareLoader] too: init
// --clients N --client-index I loads the keys run --clients gives client
// I, and the record counts the shares in.
//
// # Determinism
//
// Initial data batch b draws from the stream (init's --seed, b); worker w
// draws its operations, keys and values from the stream (run seed, 1<<32|w).
// Inserted key numbers depend on the interleaving of workers and so are
// not deterministic when more than one worker inserts.
//
// # Tenants in shared tables
//
// After SetTenant(id) with id > 0 (`--tenant-mode column`), one usertable
// holds the rows of many tenants, each tenant's the same rows as without a
// tenant:
//
//	CREATE TABLE usertable (
//	    tenant_id INT NOT NULL,
//	    ycsb_key VARCHAR(255) NOT NULL,
//	    field0 TEXT, ..., field9 TEXT,
//	    PRIMARY KEY (tenant_id, ycsb_key)
//	)
//
// Every statement filters on the tenant (reads and scans name their
// columns, so they receive what they would without a tenant):
//
//	SELECT ycsb_key, field0, ... FROM usertable WHERE tenant_id = $1 AND ycsb_key = $2
//	UPDATE usertable SET field3 = $1 WHERE tenant_id = $2 AND ycsb_key = $3
//	INSERT INTO usertable (tenant_id, ycsb_key, field0, ...) VALUES ($1, $2, ...)
//	SELECT ycsb_key, field0, ... FROM usertable WHERE tenant_id = $1 AND ycsb_key >= $2 ORDER BY ycsb_key LIMIT $3
//
// Inserts start after the tenant's own rows (counted WHERE tenant_id =
// $1), so each tenant's key counter is what it would be in a table of its
// own; the run's check also looks for the tenant's last loaded key, and
// `stampede check` counts the tenant's rows and keys.
package ycsb
