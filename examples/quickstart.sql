-- acidsql quickstart: run with
--   acidsql run examples/quickstart.sql --warehouse warehouse
-- Every write below is one transaction on one table; the output shows the version each
-- statement committed, rows and files it changed, and deletion vectors it wrote.

-- A table partitioned by date: concurrent jobs on different dates never conflict.
CREATE TABLE events (id BIGINT, date DATE, country STRING, amount DOUBLE)
USING DELTA
PARTITIONED BY (date);

INSERT INTO events VALUES
  (1, DATE'2024-01-01', 'US', 10.0),
  (2, DATE'2024-01-01', 'FR', 20.0),
  (3, DATE'2024-01-02', 'DE', 30.0);

INSERT INTO events VALUES (4, DATE'2024-01-02', 'US', 40.0);

-- Literal predicates on the partition column: reads (and rewrites) one partition only.
UPDATE events SET amount = amount * 2 WHERE date = DATE'2024-01-01' AND country = 'US';

DELETE FROM events WHERE date = DATE'2024-01-02' AND id = 3;

MERGE INTO events AS t
USING (SELECT 2 AS id, DATE'2024-01-01' AS date, 'FR' AS country, 25.0 AS amount
       UNION ALL
       SELECT 5, DATE'2024-01-03', 'IT', 50.0) AS s
ON t.id = s.id AND t.date = s.date
WHEN MATCHED THEN UPDATE SET *
WHEN NOT MATCHED THEN INSERT *;

INSERT INTO events VALUES (6, DATE'2024-01-02', 'FR', 60.0);

-- Compacts the two small files of 2024-01-02 into one.
OPTIMIZE events WHERE date = DATE'2024-01-02';

SELECT date, country, amount FROM events ORDER BY id;

-- An unpartitioned table with deletion vectors: row-level concurrency, and DELETE/UPDATE
-- mark rows deleted instead of rewriting files.
CREATE TABLE accounts (id BIGINT, owner STRING, balance DOUBLE)
USING DELTA
TBLPROPERTIES ('delta.enableDeletionVectors' = true);

INSERT INTO accounts VALUES (1, 'ana', 100.0), (2, 'bo', 50.0), (3, 'cy', 0.0), (4, 'di', 75.0);

UPDATE accounts SET balance = balance + 10 WHERE id = 2;

DELETE FROM accounts WHERE balance = 0;

MERGE INTO accounts AS a
USING (SELECT 4 AS id, 'di' AS owner, 80.0 AS balance UNION ALL SELECT 6, 'ed', 5.0) AS s
ON a.id = s.id
WHEN MATCHED THEN UPDATE SET balance = s.balance
WHEN NOT MATCHED THEN INSERT (id, owner, balance) VALUES (s.id, s.owner, s.balance);

-- Rewrites the files that carry deletion vectors without the deleted rows.
REORG TABLE accounts APPLY (PURGE);

SELECT * FROM accounts ORDER BY id;

-- Time travel: the table as the first INSERT left it.
SELECT * FROM accounts VERSION AS OF 1 ORDER BY id;

DESCRIBE HISTORY accounts;
