-- source: tobymao/sqlglot:tests/dialects/test_spark.py:35
CREATE TABLE t (a INT) USING CSV OPTIONS (header = TRUE, maxColumns = 10, sep = '|') TBLPROPERTIES ('purpose' = 'test')
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:43
CREATE TABLE t USING PARQUET OPTIONS ('parquet.bloom.filter.enabled'='true') AS SELECT 1 AS a
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:47
CREATE TABLE t (a INT) USING CSV OPTIONS ('header'=TRUE, 'maxColumns'=10, 'sep'='|') TBLPROPERTIES ('options'='v')
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:58
CREATE TABLE t (a INT) USING PARQUET TBLPROPERTIES ('options'='v')
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:67
'\U0001F600'
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:68
r'\u0041\101\z'
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:69
'U0001F600'
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:72
DAYOFWEEK(TO_DATE(x))
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:73
DAYOFMONTH(TO_DATE(x))
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:74
DAYOFYEAR(TO_DATE(x))
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:75
WEEKOFYEAR(TO_DATE(x))
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:76
SELECT MODE(category)
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:77
SELECT MODE(price, TRUE) AS deterministic_mode FROM products
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:78
SELECT MODE() WITHIN GROUP (ORDER BY status) FROM orders
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:79
DROP NAMESPACE my_catalog.my_namespace
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:80
CREATE NAMESPACE my_catalog.my_namespace
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:81
INSERT OVERWRITE TABLE db1.tb1 TABLE db2.tb2
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:82
CREATE TABLE foo AS WITH t AS (SELECT 1 AS col) SELECT col FROM t
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:83
CREATE TEMPORARY VIEW test AS SELECT 1
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:84
CREATE TABLE foo (col VARCHAR(50))
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:85
CREATE TABLE foo (col STRUCT<struct_col_a: VARCHAR((50))>)
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:86
CREATE TABLE foo (col STRING) CLUSTERED BY (col) INTO 10 BUCKETS
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:87
CREATE TABLE foo (col STRING) CLUSTERED BY (col) SORTED BY (col) INTO 10 BUCKETS
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:90
TRUNCATE TABLE t1 PARTITION(age = 10, name = 'test', address)
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:91
CREATE FUNCTION f(col STRING) RETURNS STRING DETERMINISTIC RETURN col
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:94
CREATE FUNCTION f(col STRING) RETURNS STRING NOT DETERMINISTIC RETURN col
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:98
CREATE TABLE t (a INT, b STRING, UNIQUE (a))
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:109
CREATE TABLE db.example_table (col_a struct<struct_col_a:int, struct_col_b:string>)
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:118
CREATE TABLE db.example_table (col_a struct<struct_col_a:int, struct_col_b:struct<nested_col_a:string, nested_col_b:string>>)
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:128
CREATE TABLE db.example_table (col_a array<int>, col_b array<array<int>>)
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:139
CREATE TABLE x USING ICEBERG PARTITIONED BY (MONTHS(y)) LOCATION 's3://z'
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:148
CREATE TABLE test STORED AS PARQUET AS SELECT 1
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:159
CREATE TABLE blah (col_a INT) COMMENT "Test comment: blah" PARTITIONED BY (date STRING) USING ICEBERG TBLPROPERTIES('x' = '1')
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:202
CACHE TABLE testCache OPTIONS ('storageLevel' 'DISK_ONLY') SELECT * FROM testData
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:208
ALTER TABLE StudentInfo ADD COLUMNS (LastName STRING, DOB TIMESTAMP)
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:214
ALTER TABLE t ADD COLUMNS (a.b INT COMMENT 'x' AFTER c, d.e.f STRING)
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:250
ALTER TABLE db.example ALTER COLUMN col_a TYPE BIGINT
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:257
ALTER TABLE db.example CHANGE COLUMN col_a col_a BIGINT
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:264
ALTER TABLE db.example RENAME COLUMN col_a TO col_b
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:271
ALTER TABLE StudentInfo DROP COLUMNS (LastName, DOB)
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:277
ALTER VIEW StudentInfoView AS SELECT * FROM StudentInfo
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:278
ALTER VIEW StudentInfoView AS SELECT LastName FROM StudentInfo
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:279
ALTER VIEW StudentInfoView RENAME TO StudentInfoViewRenamed
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:280
ALTER VIEW StudentInfoView SET TBLPROPERTIES ('key1'='val1', 'key2'='val2')
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:283
ALTER VIEW StudentInfoView UNSET TBLPROPERTIES ('key1', 'key2')
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:289
TO_DATE(x, 'yyyy-MM-dd')
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:300
TO_DATE(x, 'yyyy')
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:314
SELECT /*+ COALESCE(3) */ * FROM x
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:321
SELECT /*+ COALESCE(3), REPARTITION(1) */ * FROM x
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:328
SELECT /*+ BROADCAST(table) */ cola FROM table
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:335
SELECT /*+ BROADCASTJOIN(table) */ cola FROM table
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:342
SELECT /*+ MAPJOIN(table) */ cola FROM table
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:349
SELECT /*+ MERGE(table) */ cola FROM table
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:356
SELECT /*+ SHUFFLEMERGE(table) */ cola FROM table
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:363
SELECT /*+ MERGEJOIN(table) */ cola FROM table
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:370
SELECT /*+ SHUFFLE_HASH(table) */ cola FROM table
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:377
SELECT /*+ SHUFFLE_REPLICATE_NL(table) */ cola FROM table
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:387
SELECT CAST('a' AS CHAR(10) COLLATE UTF8_BINARY)
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:391
SELECT CAST('a' AS VARCHAR(10) COLLATE UTF8_BINARY)
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:395
SELECT CAST('a' AS STRING COLLATE foo)
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:405
CONCAT_WS(' ', NULL, 'Smith')
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:418
CAST(3.14159 AS BIGINT)
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:423
SELECT APPROX_TOP_K_ACCUMULATE(col, 10)
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:424
SELECT APPROX_TOP_K_ACCUMULATE(col)
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:425
SELECT BITMAP_BIT_POSITION(10)
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:426
SELECT BITMAP_CONSTRUCT_AGG(value)
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:427
ALTER TABLE foo ADD PARTITION(event = 'click')
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:428
ALTER TABLE foo ADD IF NOT EXISTS PARTITION(event = 'click')
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:429
IF(cond, foo AS bar, bla AS baz)
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:430
any_value(col, true)
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:431
first(col, true)
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:432
first_value(col, true)
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:433
last(col, true)
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:434
last_value(col, true)
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:435
DESCRIBE EXTENDED db.tbl
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:436
SELECT * FROM test TABLESAMPLE (50 PERCENT)
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:437
SELECT * FROM test TABLESAMPLE (5 ROWS)
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:438
SELECT * FROM test TABLESAMPLE (BUCKET 4 OUT OF 10)
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:439
REFRESH 'hdfs://path/to/table'
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:440
REFRESH TABLE tempDB.view1
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:441
SELECT CASE WHEN a = NULL THEN 1 ELSE 2 END
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:442
SELECT * FROM t1 SEMI JOIN t2 ON t1.x = t2.x
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:443
SELECT TRANSFORM(ARRAY(1, 2, 3), x -> x + 1)
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:444
SELECT TRANSFORM(ARRAY(1, 2, 3), (x, i) -> x + i)
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:445
REFRESH TABLE a.b.c
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:446
REFRESH FUNCTION db.func1
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:447
INTERVAL '-86' DAYS
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:448
TRIM('    SparkSQL   ')
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:449
TRIM(BOTH 'SL' FROM 'SSparkSQLS')
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:450
TRIM(LEADING 'SL' FROM 'SSparkSQLS')
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:451
TRIM(TRAILING 'SL' FROM 'SSparkSQLS')
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:452
SPLIT(str, pattern, lim)
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:453
SELECT * FROM t1, t2
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:457
SELECT 1 limit
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:461
SELECT 1 offset
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:465
SELECT UNIX_TIMESTAMP()
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:469
SELECT CAST('2023-01-01' AS TIMESTAMP) + INTERVAL 23 HOUR + 59 MINUTE + 59 SECONDS
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:473
SELECT CAST('2023-01-01' AS TIMESTAMP) + INTERVAL '23' HOUR + '59' MINUTE + '59' SECONDS
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:477
SELECT INTERVAL '5' HOURS '30' MINUTES '5' SECONDS '6' MILLISECONDS '7' MICROSECONDS
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:481
SELECT INTERVAL 5 HOURS 30 MINUTES 5 SECONDS 6 MILLISECONDS 7 MICROSECONDS
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:485
SELECT REGEXP_REPLACE('100-200', r'([^0-9])', '')
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:489
SELECT REGEXP_REPLACE('100-200', R'([^0-9])', '')
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:493
SELECT STR_TO_MAP('a:1,b:2,c:3')
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:498
SELECT * FROM parquet.`name.parquet`
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:505
SELECT TO_JSON(STRUCT('blah' AS x)) AS y
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:513
SELECT TRY_ELEMENT_AT(ARRAY(1, 2, 3), 2)
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:528
SELECT ELEMENT_AT(ARRAY(1, 2, 3), 1)
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:541
SELECT h.id, amount FROM hourlycostagg h LATERAL VIEW inline(h.costs) c
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:547
SELECT h.id, amount FROM hourlycostagg h LATERAL VIEW inline(h.adjustments) as type, val, curr
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:553
WITH hourlycostagg AS (
                SELECT
                    101 AS id,
                    ARRAY(
                        STRUCT(10.0 AS amount, 'USD' AS currency),
                        STRUCT(20.0 AS amount, 'EUR' AS currency)
                    ) AS costs,
                    ARRAY(
                        STRUCT('tax' AS type, 0.15 AS val, 'EUR' AS currency),
                        STRUCT('fee' AS type, 5.00 AS val, 'EUR' AS currency)
                    ) AS adjustments,
                    ARRAY(
                        STRUCT(
                            12.0 AS length,
                            STRUCT('A' AS tag, 98.5 AS score) AS details
                        ),
                        STRUCT(
                            23.0 AS length,
                            STRUCT('B' AS tag, 99.5 AS score) AS details
                        )
                    ) AS info
            )
            SELECT
                h.id,
                amount,
                currency,
                type,
                val,
                leng
            FROM hourlycostagg h
            LATERAL VIEW inline(h.costs) c
            LATERAL VIEW inline(h.adjustments) as type, val, curr
            LATERAL VIEW inline(h.info) exploded as leng, det
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:593
SELECT id_column, name, age FROM test_table LATERAL VIEW INLINE(struc_column) explode_view AS name, age
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:601
SELECT ARRAY_AGG(x) FILTER (WHERE x = 5) FROM (SELECT 1 UNION ALL SELECT NULL) AS t(x)
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:608
SELECT ARRAY_AGG(1)
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:615
SELECT ARRAY_AGG(DISTINCT STRUCT('a'))
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:622
SELECT DATE_FORMAT(DATE '2020-01-01', 'EEEE') AS weekday
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:629
SELECT TRY_ELEMENT_AT(MAP(1, 'a', 2, 'b'), 2)
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:641
SELECT SPLIT('123|789', '\\|')
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:653
WITH tbl AS (SELECT 1 AS id, 'eggy' AS name UNION ALL SELECT NULL AS id, 'jake' AS name) SELECT COUNT(DISTINCT id, name) AS cnt FROM tbl
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:668
SELECT TO_UTC_TIMESTAMP('2016-08-31', 'Asia/Seoul')
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:680
SELECT FROM_UTC_TIMESTAMP('2016-08-31', 'Asia/Seoul')
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:687
foo.bar
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:693
MAP(1, 2, 3, 4)
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:700
MAP()
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:710
SELECT STR_TO_MAP('a:1,b:2,c:3', ',', ':')
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:721
SELECT DATEDIFF(MONTH, CAST('1996-10-30' AS TIMESTAMP), CAST('1997-02-28 10:30:00' AS TIMESTAMP))
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:731
SELECT DATEDIFF(week, '2020-01-01', '2020-12-31')
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:743
SELECT MONTHS_BETWEEN('1997-02-28 10:30:00', '1996-10-30')
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:751
SELECT MONTHS_BETWEEN('1997-02-28 10:30:00', '1996-10-30', FALSE)
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:759
SELECT TO_TIMESTAMP('2016-12-31 00:12:00')
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:767
SELECT TO_TIMESTAMP(x, 'zZ')
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:774
SELECT TO_TIMESTAMP('2016-1-1', 'yyyy-M-d')
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:786
SELECT TO_DATE(x, 'yyyy-M-d')
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:788
SELECT TO_TIMESTAMP('2016-12-31', 'yyyy-MM-dd')
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:798
SELECT TO_TIMESTAMP('20161231', 'yyyyMMdd')
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:809
SELECT DATE_FORMAT(x, 'yyyy-MM-dd')
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:811
SELECT TO_DATE(x, 'MM/dd/yyyy')
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:822
SELECT UNIX_TIMESTAMP('2016-1-1', 'yyyy-M-d')
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:832
SELECT UNIX_TIMESTAMP('2016-12-31', 'yyyy-MM-dd')
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:841
SELECT TO_TIMESTAMP('2016-1-1 3:4:5', 'yyyy-M-d H:m:s')
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:853
SELECT TO_TIMESTAMP('2016-12-31 03:04:05', 'yyyy-MM-dd HH:mm:ss')
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:863
SELECT TO_TIMESTAMP('20161231030405', 'yyyyMMddHHmmss')
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:874
SELECT TO_TIMESTAMP('3:4:5 PM', 'h:m:s a')
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:883
SELECT DATE_FORMAT(x, 'yyyy-MM-dd HH:mm:ss')
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:884
SELECT RLIKE('John Doe', 'John.*')
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:894
UNHEX(MD5(x))
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:901
SELECT * FROM ((VALUES 1))
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:904
SELECT CAST(STRUCT('fooo') AS STRUCT<a: VARCHAR(2)>)
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:908
SELECT CAST(123456 AS VARCHAR(3))
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:917
SELECT TRY_CAST('a' AS INT)
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:926
SELECT piv.Q1 FROM (SELECT * FROM produce PIVOT(SUM(sales) FOR quarter IN ('Q1' AS `'Q1'`, 'Q2' AS `'Q2'`))) AS piv
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:932
SELECT piv.Q1 FROM (SELECT * FROM (SELECT * FROM produce) PIVOT(SUM(sales) FOR quarter IN ('Q1' AS `'Q1'`, 'Q2' AS `'Q2'`))) AS piv
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:938
SELECT * FROM produce PIVOT(SUM(produce.sales) FOR quarter IN ('Q1' AS `'Q1'`, 'Q2' AS `'Q2'`))
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:944
SELECT * FROM produce AS p PIVOT(SUM(p.sales) AS sales FOR quarter IN ('Q1' AS Q1, 'Q2' AS Q1))
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:950
SELECT DATEDIFF(MONTH, '2020-01-01', '2020-03-05')
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:962
SELECT * FROM quarterly_sales PIVOT(SUM(amount) AS amount, 'dummy' AS bar FOR quarter IN ('2023_Q1'))
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:962
SELECT * FROM quarterly_sales PIVOT(SUM(amount) amount, 'dummy' bar FOR quarter IN ('2023_Q1'))
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:998
STRING(x)
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:1006
CAST(x AS TIMESTAMP)
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:1012
SELECT DATE_ADD(my_date_column, 1)
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:1020
AGGREGATE(my_arr, 0, (acc, x) -> acc + x, s -> s * 2)
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:1029
TRIM('SL', 'SSparkSQLS')
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:1032
ARRAY_SORT(x, (left, right) -> -1)
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:1039
ARRAY(0, 1, 2)
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:1050
SELECT fname, lname, age FROM person ORDER BY age DESC NULLS FIRST, fname ASC NULLS LAST, lname
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:1062
SELECT APPROX_COUNT_DISTINCT(a) FROM foo
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:1071
MONTH('2021-03-01')
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:1080
YEAR('2021-03-01')
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:1089
'毛'
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:1098
SELECT LEFT(x, 2), RIGHT(x, 2)
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:1107
SELECT SUBSTR('Spark' FROM 5 FOR 1)
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:1110
SELECT SUBSTR('Spark SQL', 5)
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:1111
SELECT SUBSTR(ENCODE('Spark SQL', 'utf-8'), 5)
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:1115
MAP_FROM_ARRAYS(ARRAY(1), c)
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:1125
SELECT DATE_ADD(MONTH, 20, col)
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:1125
SELECT TIMESTAMPADD(MONTH, 20, col)
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:1137
DESCRIBE schema.test PARTITION(ds = '2024-01-01')
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:1139
SELECT ANY_VALUE(col, true), FIRST(col, true), FIRST_VALUE(col, true) OVER ()
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:1146
SELECT STRUCT(1, 2)
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:1154
SELECT STRUCT(x, 1, y AS col3, STRUCT(5)) FROM t
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:1162
SELECT TIMESTAMPDIFF(MONTH, foo, bar)
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:1173
SELECT CAST(col AS TIMESTAMP)
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:1182
SELECT * FROM {df}
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:1192
SELECT * FROM {df} WHERE id > :foo
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:1202
STRING_AGG(x, ', ')
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:1210
LISTAGG(x, ', ')
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:1210
LISTAGG(ALL x, ', ')
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:1222
LISTAGG(x, '-') WITHIN GROUP (ORDER BY x DESC)
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:1222
LISTAGG(ALL x, '-') WITHIN GROUP (ORDER BY x DESC)
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:1229
LISTAGG(DISTINCT x, '-')
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:1236
LISTAGG(DISTINCT x, '-') WITHIN GROUP (ORDER BY x DESC)
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:1243
LIKE(foo, 'pattern')
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:1250
LIKE(foo, 'pattern', '!')
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:1257
ILIKE(foo, 'pattern')
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:1264
ILIKE(foo, 'pattern', '!')
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:1271
BIT_GET(11, 0)
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:1272
BITMAP_OR_AGG(x)
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:1273
SELECT ELT(2, 'foo', 'bar', 'baz') AS Result
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:1274
SELECT MAKE_INTERVAL(100, 11, 12, 13, 14, 14, 15)
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:1275
SELECT name, GROUPING_ID() FROM customer GROUP BY ROLLUP (name)
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:1276
SELECT MAKE_TIMESTAMP(2014, 12, 28, 6, 30, 45.887)
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:1277
SELECT CURDATE()
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:1279
SELECT BIT_COUNT(0)
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:1288
SELECT * FROM foo TIMESTAMP AS OF '2020-01-01 00:00:00' AS bar
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:1298
SELECT timestamp AS of FROM t
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:1299
SELECT version AS of FROM t
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:1301
WITH RECURSIVE t(n) AS (SELECT * FROM VALUES (1) AS _values) SELECT n FROM t
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:1311
SELECT 1 AS a UNION ALL (VALUES (2), (3) AS v(a) ORDER BY 1 DESC LIMIT 1)
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:1317
SELECT named_struct('a', 1, 'b', 'x')
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:1326
SELECT a, LOGICAL_OR(b) FROM table GROUP BY a
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:1349
SELECT c1, c2, c3, c4 FROM t GROUP BY CUBE (c1, c2), c3, c4
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:1350
SELECT c1, c2, c3, c4 FROM t GROUP BY c3, CUBE (c1, c2), c4
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:1351
SELECT a, b, c FROM t GROUP BY ROLLUP (a), b, CUBE (c)
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:1352
SELECT a, b, c FROM t GROUP BY a, GROUPING SETS ((a), (b)), c
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:1373
CURRENT_USER
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:1377
CURRENT_USER()
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:1383
SELECT TRANSFORM(x) USING 'x' AS (x INT) FROM t
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:1384
SELECT TRANSFORM(zip_code, name, age) USING 'cat' AS (a, b, c) FROM person WHERE zip_code > 94511
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:1387
SELECT TRANSFORM(zip_code, name, age) USING 'cat' AS (a STRING, b STRING, c STRING) FROM person WHERE zip_code > 94511
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:1390
SELECT TRANSFORM(name, age) ROW FORMAT DELIMITED FIELDS TERMINATED BY ',' LINES TERMINATED BY '\n' NULL DEFINED AS 'NULL' USING 'cat' AS (name_age STRING) ROW FORMAT DELIMITED FIELDS TERMINATED BY '@' LINES TERMINATED BY '\n' NULL DEFINED AS 'NULL' FROM person
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:1393
SELECT TRANSFORM(zip_code, name, age) ROW FORMAT SERDE 'org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe' WITH SERDEPROPERTIES ('field.delim'='\t') USING 'cat' AS (a STRING, b STRING, c STRING) ROW FORMAT SERDE 'org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe' WITH SERDEPROPERTIES ('field.delim'='\t') FROM person WHERE zip_code > 94511
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:1396
SELECT TRANSFORM(zip_code, name, age) USING 'cat' FROM person WHERE zip_code > 94500
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:1401
FROM x INSERT OVERWRITE TABLE a PARTITION(ds = '1') SELECT k WHERE v > 0 INSERT INTO b SELECT k, v
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:1404
FROM (SELECT k, v FROM x QUALIFY ROW_NUMBER() OVER (PARTITION BY k ORDER BY v) = 1) AS s INSERT INTO t SELECT s.v INSERT INTO u SELECT s.k
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:1410
INSERT OVERWRITE TABLE table WITH cte AS (SELECT cola FROM other_table) SELECT cola FROM cte
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:1421
SELECT EXPLODE(x) FROM tbl
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:1429
SELECT EXPLODE(col) FROM _u
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:1437
SELECT EXPLODE(col) AS exploded FROM schema.tbl
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:1443
SELECT EXPLODE(ARRAY(1, 2))
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:1450
SELECT POSEXPLODE(ARRAY(2, 3)) AS x
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:1457
SELECT POSEXPLODE(ARRAY('a'))
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:1464
SELECT POSEXPLODE(x) AS (a, b)
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:1472
SELECT * FROM POSEXPLODE(ARRAY('a'))
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:1479
SELECT * FROM POSEXPLODE(ARRAY('a')) AS (a, b)
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:1486
SELECT POSEXPLODE(ARRAY(2, 3)), EXPLODE(ARRAY(4, 5, 6)) FROM tbl
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:1493
SELECT col, pos, POSEXPLODE(ARRAY(2, 3)) FROM _u
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:1499
SELECT EXPLODE(x) AS a, (SELECT MAX(b) FROM (SELECT EXPLODE(ARRAY(1, 2)) AS b)) AS m FROM tbl
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:1566
SELECT * FROM db.table1 MINUS SELECT * FROM db.table2
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:1591
ANALYZE TABLE tbl COMPUTE STATISTICS NOSCAN
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:1592
ANALYZE TABLE tbl COMPUTE STATISTICS FOR ALL COLUMNS
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:1593
ANALYZE TABLE tbl COMPUTE STATISTICS FOR COLUMNS foo, bar
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:1594
ANALYZE TABLE ctlg.db.tbl COMPUTE STATISTICS NOSCAN
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:1595
ANALYZE TABLES COMPUTE STATISTICS NOSCAN
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:1596
ANALYZE TABLES FROM db COMPUTE STATISTICS
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:1597
ANALYZE TABLES IN db COMPUTE STATISTICS
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:1598
ANALYZE TABLE ctlg.db.tbl PARTITION(foo = 'foo', bar = 'bar') COMPUTE STATISTICS NOSCAN
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:1642
PERCENTILE_APPROX(DISTINCT col, 0.3)
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:1642
APPROX_PERCENTILE(DISTINCT col, 0.3)
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:1649
PERCENTILE_APPROX(DISTINCT col, 0.3, 200)
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:1649
APPROX_PERCENTILE(DISTINCT col, 0.3, 200)
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:1669
SELECT ARRAY_INSERT(ARRAY('a', 'b', 'c'), 1, 'z')
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:1680
SELECT ARRAY_INSERT(ARRAY('a', 'b', 'c'), -2, 'z')
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:1689
SELECT ARRAY_INSERT(ARRAY('a', 'b', 'c'), -1, 'z')
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:1695
SELECT ARRAY_INSERT(ARRAY('a', 'b', 'c'), 3, 'z')
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:1703
SLICE(x, 2, 3)
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:1713
DECLARE VAR x INT
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:1714
DECLARE x INT
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:1715
DECLARE VARIABLE myvar INT DEFAULT 5
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:1716
DECLARE x, y, z INT DEFAULT 1
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:1717
DECLARE x INT = 5
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:1718
DECLARE five = 5
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:1719
DECLARE OR REPLACE five = 55
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:1720
DECLARE VARIABLE size DEFAULT 6
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:1721
DECLARE some_var STRING
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:1724
SET VAR v = 5
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:1731
SET VARIABLE v = 5
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:1739
SET VARIABLE v = (SELECT MAX(c1) FROM VALUES (1), (2) AS T(c1))
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:1747
SET VARIABLE v = DEFAULT
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:1755
SET VARIABLE v1 = 1, v2 = '2'
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:1763
SET VARIABLE (v1, v2) = (SELECT 1, 2)
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:1772
SELECT TRY_DIVIDE(a, b)
;
-- source: tobymao/sqlglot:tests/dialects/test_spark.py:415
TRUNC(date_col, 'MM')
;
