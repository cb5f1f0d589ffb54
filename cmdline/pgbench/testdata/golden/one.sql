\set aid random(1, 100000 * :scale)
-- a comment
SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
