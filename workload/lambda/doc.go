// Package lambda is the data path of an IoT system in the lambda
// architecture, as a workload: sensors append readings open loop, a hot
// path aggregates a sliding window, a cold path recomputes batch views
// from the immutable raw events, and a serving query answers from both.
//
// The tables (init creates them empty) are
//
//	lambda_events     (device INT, ts TIMESTAMPTZ, temp INT, humidity INT, pressure INT)
//	                  BRIN (ts); with --device-index, a B-tree on (device, ts)
//	lambda_batch_view (device INT, hour TIMESTAMP, events BIGINT, min_temp INT, max_temp INT,
//	                   sum_temp BIGINT, avg_temp NUMERIC, newest TIMESTAMPTZ, PRIMARY KEY (device, hour))
//	lambda_batch_meta (id INT PRIMARY KEY, horizon TIMESTAMPTZ, computed_at TIMESTAMPTZ,
//	                   view_rows BIGINT, events BIGINT, recomputes BIGINT)
//
// Readings are integers (thousandths of a degree, tenths of a percent,
// pascals) so that sums and the NUMERIC averages are exact and a
// recomputation equals the view to the last digit.
//
// A run of n workers (--concurrency, at least 4) has n-3 ingest workers,
// each sending --batch events per COPY (or multi-row INSERT) at its share
// of --ingest-rate; the events of a batch are stamped evenly over the
// worker's interval before the batch's scheduled start, from devices in
// round robin, readings from the worker's stream (run seed, 1<<32|w).
// Worker n-3 runs the hot path,
//
//	SELECT device, count(*), min(temp), max(temp), sum(temp), max(ts)
//	FROM lambda_events WHERE ts > $1 GROUP BY device
//
// ($1 = now - --window; the global aggregate is the client's merge of
// the devices'), worker n-2 the serving query (one statement: the batch
// view's hours of the device since the hour 23 hours before now's, plus
// its raw events after the view's horizon), and worker n-1 the batch
// recompute, one transaction:
//
//	DELETE FROM lambda_batch_view
//	INSERT INTO lambda_batch_view SELECT device, date_trunc('hour', ts AT TIME ZONE 'UTC'),
//	  count(*), min(temp), max(temp), sum(temp), avg(temp), max(ts)
//	  FROM lambda_events WHERE ts <= $1 GROUP BY 1, 2
//	UPDATE lambda_batch_meta SET horizon = $1, ...
//
// whose horizon $1 is the earliest of the ingest workers' last committed
// timestamps: each worker commits its events in timestamp order, so no
// event at or below the horizon can commit after the recompute, and
// `stampede check lambda` recomputes exactly the same view.
//
// The workers' rates are the workload's own (workload.RunDefaults.MaxRate,
// divided by workload.QueryLoad.RateShares), so each path's lateness is
// its own schedule lag. The staleness of an answer, now minus the newest
// event it included, is recorded in the series hot/staleness and
// serve/staleness (parts: not counted in the run's total).
package lambda
