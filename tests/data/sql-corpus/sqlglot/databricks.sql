-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:18
CREATE TABLE t (ts TIMESTAMP(9))
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:38
SELECT CAST('2024-01-01 00:00:00' AS TIMESTAMP)
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:42
SELECT CAST(x AS TIMESTAMP)
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:49
SELECT CAST(x AS TIMESTAMP(6))
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:82
INSERT INTO target REPLACE USING (c1, c2) SELECT c1, c2 FROM source
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:87
CREATE TABLE foo (my_arr ARRAY<STRING COLLATE UTF8_BINARY>)
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:88
CREATE TABLE foo (m MAP<STRING, STRING COLLATE UTF8_BINARY>)
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:89
SELECT CAST('a' AS STRING COLLATE UTF8_BINARY)
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:90
SELECT COSH(1.5)
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:95
DESCRIBE EXTENDED staging.onetrade_startb AS JSON
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:96
SELECT BITMAP_BIT_POSITION(10)
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:97
SELECT BITMAP_BUCKET_NUMBER(32769)
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:98
SELECT BITMAP_CONSTRUCT_AGG(value)
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:99
SELECT EXP(1)
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:100
SELECT MODE(category)
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:101
SELECT MODE(price, TRUE) AS deterministic_mode FROM products
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:102
REGEXP_LIKE(x, y)
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:103
SELECT CAST(NULL AS VOID)
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:104
SELECT void FROM t
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:105
SELECT * FROM stream
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:106
SELECT * FROM STREAM t
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:107
SELECT t.current_time FROM t
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:108
ALTER TABLE labels ADD COLUMN label_score FLOAT
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:109
DESCRIBE HISTORY a.b
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:110
DESCRIBE history.tbl
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:111
CREATE TABLE t (a STRUCT<c: MAP<STRING, STRING>>)
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:112
CREATE TABLE t (c STRUCT<interval: DOUBLE COMMENT 'aaa'>)
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:113
CREATE TABLE t (c STRING COMMENT 'Hello World')
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:114
CREATE TABLE my_table TBLPROPERTIES (a.b=15)
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:115
CREATE TABLE my_table TBLPROPERTIES ('a.b'=15)
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:116
CREATE TABLE table1 CLUSTER BY AUTO
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:117
CREATE TABLE t (customer_id INT NOT NULL, ts TIMESTAMP NOT NULL, CONSTRAINT customer_features_pk PRIMARY KEY (customer_id, ts TIMESERIES))
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:120
CREATE TABLE t (a INT, b TIMESTAMP, PRIMARY KEY (a, b TIMESERIES))
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:127
ALTER TABLE t CLUSTER BY NONE
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:128
CREATE TABLE t CLUSTER BY (col1)
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:129
CREATE TABLE t CLUSTER BY (col1, col2)
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:130
SELECT col1 FROM t CLUSTER BY col1
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:131
SELECT col1, col2 FROM t CLUSTER BY col1, col2
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:132
SELECT CAST('11 23:4:0' AS INTERVAL DAY TO HOUR)
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:133
SELECT CAST('11 23:4:0' AS INTERVAL DAY TO MINUTE)
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:134
SELECT CAST('11 23:4:0' AS INTERVAL DAY TO SECOND)
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:135
SELECT CAST('23:00:00' AS INTERVAL HOUR TO MINUTE)
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:136
SELECT CAST('23:00:00' AS INTERVAL HOUR TO SECOND)
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:137
SELECT CAST('23:00:00' AS INTERVAL MINUTE TO SECOND)
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:138
CREATE TABLE target SHALLOW CLONE source
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:139
INSERT INTO a REPLACE WHERE cond VALUES (1), (2)
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:140
CREATE FUNCTION a.b(x INT) RETURNS INT RETURN x + 1
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:141
CREATE FUNCTION f(col STRING) RETURNS STRING DETERMINISTIC RETURN col
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:144
CREATE FUNCTION f(col STRING) RETURNS STRING NOT DETERMINISTIC RETURN col
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:147
CREATE FUNCTION a AS b
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:148
SELECT ${x} FROM ${y} WHERE ${z} > 1
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:149
CREATE TABLE foo (x DATE GENERATED ALWAYS AS (CAST(y AS DATE)))
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:150
TRUNCATE TABLE t1 PARTITION(age = 10, name = 'test', address)
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:151
SELECT PARSE_JSON('{}')
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:152
SELECT RANDSTR(123)
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:153
SELECT RANDSTR(123, 456)
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:155
PARSE_URL('https://example.com/path')
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:156
PARSE_URL('https://example.com/path', 'HOST')
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:157
PARSE_URL('https://example.com/path', 'QUERY', 'param')
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:158
CREATE TABLE IF NOT EXISTS db.table (a TIMESTAMP, b BOOLEAN GENERATED ALWAYS AS (NOT a IS NULL)) USING DELTA
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:161
SELECT * FROM sales UNPIVOT INCLUDE NULLS (sales FOR quarter IN (q1 AS `Jan-Mar`))
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:164
SELECT * FROM sales UNPIVOT EXCLUDE NULLS (sales FOR quarter IN (q1 AS `Jan-Mar`))
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:167
CREATE FUNCTION add_one(x INT) RETURNS INT LANGUAGE PYTHON AS $$def add_one(x):
  return x+1$$
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:170
CREATE FUNCTION add_one(x INT) RETURNS INT LANGUAGE PYTHON AS $FOO$def add_one(x):
  return x+1$FOO$
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:173
TRUNCATE TABLE t1 PARTITION(age = 10, name = 'test', city LIKE 'LA')
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:176
COPY INTO target FROM `s3://link` FILEFORMAT = AVRO VALIDATE = ALL FILES = ('file1', 'file2') FORMAT_OPTIONS ('opt1'='true', 'opt2'='test') COPY_OPTIONS ('mergeSchema'='true')
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:179
SELECT * FROM t1, t2
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:183
SELECT TIMESTAMP '2025-04-29 18.47.18'::DATE
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:187
SELECT DATE_FORMAT(CAST(FROM_UTC_TIMESTAMP(foo, 'America/Los_Angeles') AS TIMESTAMP), 'yyyy-MM-dd HH:mm:ss') AS foo FROM t
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:195
SELECT r"\\foo.bar\"
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:199
FROM_UTC_TIMESTAMP(x::TIMESTAMP, tz)
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:204
SELECT SUBSTRING_INDEX(str, delim, count)
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:205
BITMAP_OR_AGG(x)
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:207
SELECT SUBSTRING_INDEX('a.b.c.d', '.', 2)
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:215
SELECT SUBSTR('Spark' FROM 5 FOR 1)
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:218
SELECT SUBSTR('Spark SQL', 5)
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:219
SELECT SUBSTR(ENCODE('Spark SQL', 'utf-8'), 5)
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:223
SELECT TYPEOF(1)
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:236
SELECT c1:item[1].price
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:244
SELECT GET_JSON_OBJECT(c1, '$.item[1].price')
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:254
CREATE TABLE foo (x INT GENERATED ALWAYS AS (YEAR(y)))
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:261
CREATE TABLE t1 AS (SELECT c FROM t2)
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:267
SELECT X'1A2B'
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:267
SELECT x'1A2B'
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:293
CREATE OR REPLACE FUNCTION func(a BIGINT, b BIGINT) RETURNS TABLE (a INT) RETURN SELECT a
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:301
CREATE OR REPLACE FUNCTION func(a BIGINT, b BIGINT) RETURNS BIGINT RETURN a
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:309
SELECT ANY(col) FROM VALUES (TRUE), (FALSE) AS tab(col)
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:325
SELECT test, LISTAGG(email, '') AS Email FROM organizations GROUP BY test
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:329
WITH t AS (VALUES ('foo_val') AS t(foo1)) SELECT foo1 FROM t
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:333
NTILE() OVER (ORDER BY 1)
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:334
CURRENT_VERSION()
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:335
UNIFORM(1, 10, 5)
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:343
UNIFORM(1, 10)
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:351
SELECT ELT(2, 'foo', 'bar', 'baz') AS Result
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:352
GETDATE()
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:353
NOW()
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:354
CURRENT_TIMEZONE()
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:355
CURDATE()
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:356
CURDATE
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:357
SELECT MAKE_INTERVAL(100, 11, 12, 13, 14, 14, 15)
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:358
SELECT name, GROUPING_ID() FROM customer GROUP BY ROLLUP (name)
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:359
BIT_GET(11, 0)
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:360
SELECT CURDATE()
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:361
CREATE TABLE tbl (id BIGINT NOT NULL GENERATED BY DEFAULT AS IDENTITY (START WITH 1 INCREMENT BY 1))
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:364
CREATE TABLE tbl (id BIGINT NOT NULL GENERATED ALWAYS AS IDENTITY (START WITH 1 INCREMENT BY 1))
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:373
INSERT INTO t REPLACE WHERE a = 1 SELECT * FROM src
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:374
INSERT INTO t REPLACE WHERE a = 2 (SELECT * FROM src)
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:375
WITH s AS (SELECT * FROM src) INSERT INTO t REPLACE WHERE a = 1 SELECT * FROM s
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:378
WITH s AS (SELECT * FROM src) INSERT INTO t REPLACE USING (a) SELECT * FROM s
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:384
SELECT c1:price, c1:price.foo, c1:price.bar[1]
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:385
SELECT TRY_CAST(c1:price AS ARRAY<VARIANT>)
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:386
SELECT TRY_CAST(c1:["foo bar"]["baz qux"] AS ARRAY<VARIANT>)
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:387
SELECT c1:item[1].price FROM VALUES ('{ "item": [ { "model" : "basic", "price" : 6.12 }, { "model" : "medium", "price" : 9.24 } ] }') AS T(c1)
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:390
SELECT c1:item[*].price FROM VALUES ('{ "item": [ { "model" : "basic", "price" : 6.12 }, { "model" : "medium", "price" : 9.24 } ] }') AS T(c1)
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:393
SELECT FROM_JSON(c1:item[*].price, 'ARRAY<DOUBLE>')[0] FROM VALUES ('{ "item": [ { "model" : "basic", "price" : 6.12 }, { "model" : "medium", "price" : 9.24 } ] }') AS T(c1)
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:396
SELECT INLINE(FROM_JSON(c1:item[*], 'ARRAY<STRUCT<model STRING, price DOUBLE>>')) FROM VALUES ('{ "item": [ { "model" : "basic", "price" : 6.12 }, { "model" : "medium", "price" : 9.24 } ] }') AS T(c1)
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:399
SELECT c1:['price'] FROM VALUES ('{ "price": 5 }') AS T(c1)
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:403
SELECT GET_JSON_OBJECT(c1, '$.price') FROM VALUES ('{ "price": 5 }') AS T(c1)
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:406
SELECT GET_JSON_OBJECT(col, path_col)
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:407
SELECT GET_JSON_OBJECT(col, CONCAT('$.', field_name))
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:408
SELECT GET_JSON_OBJECT(GET_JSON_OBJECT(col, '$[0]'), '$.a')
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:409
SELECT raw:`zip code`, raw:`fb:testid`, raw:store['bicycle'], raw:store["zip code"]
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:413
SELECT col:`fr'uit`
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:422
SELECT DATEDIFF(year, 'start', 'end')
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:429
SELECT DATEDIFF(microsecond, 'start', 'end')
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:436
SELECT DATEDIFF(millisecond, 'start', 'end')
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:443
SELECT DATEDIFF(second, 'start', 'end')
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:450
SELECT DATEDIFF(minute, 'start', 'end')
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:457
SELECT DATEDIFF(hour, 'start', 'end')
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:464
SELECT DATEDIFF(day, 'start', 'end')
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:471
SELECT DATEDIFF(week, 'start', 'end')
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:478
SELECT DATEDIFF(month, 'start', 'end')
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:485
SELECT DATEDIFF(quarter, 'start', 'end')
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:501
SELECT DATEADD(year, 1, '2020-01-01')
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:508
SELECT DATEDIFF('end', 'start')
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:512
SELECT DATE_ADD('2020-01-01', 1)
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:519
SELECT DATE_ADD(MONTH, 1, '2020-01-01')
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:520
SELECT DATEADD(e, 24) FROM t
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:526
CREATE TABLE x (SELECT 1)
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:533
WITH x (select 1) SELECT * FROM x
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:541
CREATE STREAMING TABLE raw_data AS SELECT * FROM STREAM READ_FILES('abfss://container@storageAccount.dfs.core.windows.net/base/path')
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:544
CREATE OR REFRESH STREAMING TABLE csv_data (id INT, ts TIMESTAMP, event STRING) AS SELECT * FROM STREAM READ_FILES('s3://bucket/path', format => 'csv', schema => 'id int, ts timestamp, event string')
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:549
GRANT CREATE ON SCHEMA my_schema TO `alf@melmak.et`
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:550
GRANT SELECT ON TABLE sample_data TO `alf@melmak.et`
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:551
GRANT ALL PRIVILEGES ON TABLE forecasts TO finance
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:552
GRANT SELECT ON TABLE t TO `fab9e00e-ca35-11ec-9d64-0242ac120002`
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:555
REVOKE CREATE ON SCHEMA my_schema FROM `alf@melmak.et`
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:556
REVOKE SELECT ON TABLE sample_data FROM `alf@melmak.et`
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:557
REVOKE ALL PRIVILEGES ON TABLE forecasts FROM finance
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:558
REVOKE SELECT ON TABLE t FROM `fab9e00e-ca35-11ec-9d64-0242ac120002`
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:563
ANALYZE TABLE tbl COMPUTE DELTA STATISTICS NOSCAN
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:564
ANALYZE TABLE tbl COMPUTE DELTA STATISTICS FOR ALL COLUMNS
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:565
ANALYZE TABLE tbl COMPUTE DELTA STATISTICS FOR COLUMNS foo, bar
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:566
ANALYZE TABLE ctlg.db.tbl COMPUTE DELTA STATISTICS NOSCAN
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:567
ANALYZE TABLES COMPUTE STATISTICS NOSCAN
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:568
ANALYZE TABLES FROM db COMPUTE STATISTICS
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:569
ANALYZE TABLES IN db COMPUTE STATISTICS
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:570
ANALYZE TABLE ctlg.db.tbl PARTITION(foo = 'foo', bar = 'bar') COMPUTE STATISTICS NOSCAN
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:575
CREATE FUNCTION a() ENVIRONMENT (dependencies = '["foo1==1", "foo2==2"]', environment_version = 'None')
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:580
CREATE FUNCTION a() HANDLER 'handler_function'
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:583
CREATE FUNCTION a() PARAMETER STYLE PANDAS
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:598
SELECT '20'?::INTEGER
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:601
SELECT OVERLAY('Spark SQL', 'ANSI ', 7, 0)
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:605
SELECT OVERLAY('Spark SQL' PLACING 'CORE' FROM 7)
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:608
SELECT OVERLAY(ENCODE('Spark SQL', 'utf-8') PLACING ENCODE('_', 'utf-8') FROM 6)
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:611
SELECT OVERLAY('Spark SQL' PLACING 'ANSI ' FROM 7 FOR 0)
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:616
SET VAR v = 5
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:617
SET VARIABLE v = 5
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:618
SET VARIABLE v1 = 1, v2 = '2'
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:619
SET VARIABLE (v1, v2) = (SELECT 1, 2)
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:620
SET VARIABLE v = (SELECT MAX(c1) FROM VALUES (1), (2) AS T(c1))
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:621
SET VARIABLE v = DEFAULT
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:625
SELECT IF(x > 0, 'positive', 'non-positive')
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:625
SELECT IFF(x > 0, 'positive', 'non-positive')
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:635
SELECT TRY_DIVIDE(a, b)
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:647
DECLARE VAR x INT
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:648
DECLARE x INT
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:649
DECLARE VARIABLE myvar INT DEFAULT 1
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:650
DECLARE x, y, z INT DEFAULT 1
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:651
DECLARE x INT = 1
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:652
DECLARE OR REPLACE x INT = 1
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:191
DATE_DIFF(day, created_at, current_date())
;
-- source: tobymao/sqlglot:tests/dialects/test_databricks.py:368
WITH t AS (SELECT '{"x-y": "z"}' AS c) SELECT get_json_object(c, '$.x-y') FROM t
;
