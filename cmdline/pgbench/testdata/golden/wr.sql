\set aid random(1, :maxid)
SELECT abalance FROM pgbench_accounts WHERE aid = :aid \gset
SELECT 1 AS one,  
  2 AS two
\aset
SELECT 3;
