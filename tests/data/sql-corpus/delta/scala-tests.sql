-- source: delta-io/delta:spark/src/test/scala/io/delta/tables/DeltaTableBuilderSuite.scala:265
CREATE TABLE testTable (c1 int) USING DELTA
;
-- source: delta-io/delta:spark/src/test/scala/io/delta/tables/DeltaTableBuilderSuite.scala:299
CREATE TABLE replace_table(c1 int) USING DELTA
;
-- source: delta-io/delta:spark/src/test/scala/io/delta/tables/DeltaTableBuilderSuite.scala:304
CREATE TABLE name (c1 int) USING DELTA LOCATION 'path'
;
-- source: delta-io/delta:spark/src/test/scala/io/delta/tables/DeltaTableBuilderSuite.scala:309
CREATE TABLE delta.`path` (c1 int) USING DELTA
;
-- source: delta-io/delta:spark/src/test/scala/io/delta/tables/DeltaTableForNameSuite.scala:53
CREATE SCHEMA nonDefaultSchema
;
-- source: delta-io/delta:spark/src/test/scala/io/delta/tables/DeltaTableForNameSuite.scala:54
CREATE SCHEMA catalogName.defaultSchema
;
-- source: delta-io/delta:spark/src/test/scala/io/delta/tables/DeltaTableForNameSuite.scala:55
CREATE SCHEMA catalogName.nonSessionCatalogNonDefaultSchema
;
-- source: delta-io/delta:spark/src/test/scala/io/delta/tables/DeltaTableForNameSuite.scala:73
DROP SCHEMA sparkCatalog.nonDefaultSchema CASCADE
;
-- source: delta-io/delta:spark/src/test/scala/io/delta/tables/DeltaTableForNameSuite.scala:74
DROP SCHEMA catalogName.defaultSchema CASCADE
;
-- source: delta-io/delta:spark/src/test/scala/io/delta/tables/DeltaTableForNameSuite.scala:75
DROP SCHEMA catalogName.nonSessionCatalogNonDefaultSchema CASCADE
;
-- source: delta-io/delta:spark/src/test/scala/io/delta/tables/DeltaTableForNameSuite.scala:91
CREATE OR REPLACE TABLE tableName (id int) USING delta LOCATION 'path'
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/CheckpointsSuite.scala:160
CREATE TABLE `tableName` (a INT) USING DELTA
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/CheckpointsSuite.scala:161
ALTER TABLE `tableName` SET TBLPROPERTIES('comment' = 'A table comment')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/CheckpointsSuite.scala:555
MERGE INTO delta.`tempDir` t USING src s ON t.id = s.id
WHEN MATCHED THEN DELETE
WHEN NOT MATCHED THEN INSERT *
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/CheckpointsSuite.scala:666
select * from delta.`tablePath`
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/CheckpointsSuite.scala:732
DELETE FROM delta.`tablePath` WHERE id < 5
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/CheckpointsSuite.scala:806
SELECT * FROM delta.`target_getAbsolutePath`
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/CheckpointsSuite.scala:872
SELECT * FROM delta.`deltaLog_dataPath` ORDER BY id
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/CheckpointsSuite.scala:1049
SELECT * FROM delta.`tablePath`
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/CheckpointsSuite.scala:1149
INSERT INTO delta.`log_dataPath` VALUES (2718)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/CheckpointsSuite.scala:1176
SELECT * FROM delta.`log_dataPath` ORDER BY ID
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/CheckpointsSuite.scala:1393
ALTER TABLE delta.`tablePath` SET TBLPROPERTIES (
  'delta.checkpoint.writeStatsAsJson' = 'jsonStats',
  'delta.checkpoint.writeStatsAsStruct' = 'structStats'
)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/CheckpointsSuite.scala:1484
DELETE FROM delta.`tablePath` WHERE i = 100
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/CheckpointsSuite.scala:1486
MERGE INTO delta.`tablePath` AS target
USING (SELECT 100 AS i, parse_json('{"merged":true}') AS v) AS source
ON target.i = source.i
WHEN MATCHED THEN UPDATE SET target.v = source.v
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/CheckpointsSuite.scala:1689
UPDATE delta.`tablePath`
SET s = named_struct('v', parse_json('{"updated":true}'))
WHERE i = 100
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/CheckpointsSuite.scala:1696
MERGE INTO delta.`tablePath` AS target
USING (SELECT 100 AS i,
  named_struct('v', parse_json('{"merged":true}')) AS s) AS source
ON target.i = source.i
WHEN MATCHED THEN UPDATE SET target.s = source.s
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/CheckpointsSuite.scala:1817
UPDATE delta.`tablePath`
SET v = parse_json('{"updated":true}')
WHERE s.i = 200
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/CheckpointsSuite.scala:1822
DELETE FROM delta.`tablePath` WHERE s.i = 200
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/CheckpointsSuite.scala:1824
MERGE INTO delta.`tablePath` AS target
USING (SELECT parse_json('{"merged":true}') AS v,
  named_struct('i', 200, 'j', 'str_200') AS s) AS source
ON target.s.i = source.s.i
WHEN MATCHED THEN UPDATE SET target.v = source.v
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/CloneTableSQLSuite.scala:88
SELECT COUNT(*) FROM conflictingTable
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/CloneTableSQLSuite.scala:114
CREATE TABLE delta.`tblExt` SHALLOW CLONE not_exists
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/CloneTableSQLSuite.scala:120
CREATE TABLE delta.`tblExt` SHALLOW CLONE not_exists VERSION AS OF 0
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/CloneTableSQLSuite.scala:128
CREATE OR REPLACE TEMP VIEW tmp AS SELECT * FROM range(10)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/CloneTableSQLSuite.scala:130
CREATE TABLE delta.`tblExt` SHALLOW CLONE tmp
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/CloneTableSQLSuite.scala:146
CREATE TABLE delta_table_shadow_clone SHALLOW CLONE delta_table LOCATION 'source'
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/CloneTableSQLSuite.scala:147
SHOW TBLPROPERTIES delta_table_shadow_clone
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/CloneTableSQLSuite.scala:180
CREATE TABLE delta_table USING delta AS SELECT * FROM range(10)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/CloneTableSQLSuite.scala:181
CREATE VIEW tmp AS SELECT * FROM delta_table
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/CloneTableSQLSuite.scala:200
CREATE TABLE target SHALLOW CLONE source
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/CloneTableSQLSuite.scala:247
CREATE TABLE target SHALLOW CLONE source tblproperties("abc" = "123")
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/CloneTableSQLSuite.scala:375
DELETE FROM delta.`source` WHERE id IN (24, 42)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/CloneTableSQLSuite.scala:392
CREATE OR REPLACE TABLE delta.`source` SHALLOW CLONE delta.`originalSource`
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/CloneTableSQLSuite.scala:412
DELETE FROM delta.`originalSource` WHERE id IN (24, 42)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/CloneTableSQLSuite.scala:446
DELETE FROM delta.`target` WHERE id IN (43, 69)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/CloneTableSuiteBase.scala:232
CREATE TABLE delta.`clone` SHALLOW CLONE delta.`source`
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/CloneTableSuiteBase.scala:482
DELETE FROM delta.`source` WHERE id = 1
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/CloneTableTestMixin.scala:158
DELETE FROM targetTbl
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/ConvertToDeltaSuiteBase.scala:331
MSCK REPAIR TABLE tableName
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/ConvertToDeltaSuiteBase.scala:511
CONVERT TO DELTA parquet.`dataLocation`
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/ConvertToDeltaSuiteBase.scala:933
SELECT * FROM delta.`tempDir`
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/ConvertToDeltaSuiteBase.scala:1011
CREATE DATABASE dbName
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/ConvertToDeltaSuiteBase.scala:1031
CREATE VIEW viewName as SELECT * from tableName
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/ConvertToDeltaSuiteBase.scala:1103
select * from delta.`path`
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/ConvertToDeltaSuiteBase.scala:1164
select id from delta.`path` where key1 = 1
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/ConvertToDeltaSuiteBase.scala:1199
select key2 from delta.`path` where key1 = 1
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/ConvertToDeltaSuiteBase.scala:1203
select key2 from externalTblName where key1 = 1
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/ConvertToDeltaSuiteBase.scala:1254
select id from format_1.`path` where key1 = 1
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/ConvertToDeltaSuiteBase.scala:1317
select id from delta.`tempDir` where key1 = 1
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/ConvertToDeltaSuiteBase.scala:1340
select id from default.tableName where key1 = 1
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/ConvertToDeltaSuiteBase.scala:1359
select id from default.tableName
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/ConvertToDeltaSuiteBase.scala:1363
select id from default.tableName where key1 = 0
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/ConvertToDeltaSuiteBase.scala:1399
SELECT id from default.tableName where key2 = '2'
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/ConvertToDeltaSuiteBase.scala:1440
SELECT DISTINCT key1 from default.tableName
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/ConvertToDeltaSuiteBase.scala:1453
CREATE TABLE externalTable USING parquet LOCATION 's3://dir' AS SELECT 1
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/ConvertToDeltaSuiteBase.scala:1480
select id from delta.`basePath` where key2 = '1'
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/ConvertToDeltaSuiteBase.scala:1493
SELECT id FROM tableName
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/ConvertToDeltaSuiteBase.scala:1505
ALTER TABLE tableName PARTITION (key1=0) SET LOCATION 'dataDir/key1=0/key2=3/'
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/ConvertToDeltaSuiteBase.scala:1506
SELECT id FROM tableName WHERE key1 = 0
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeleteMetricsSuite.scala:231
DELETE FROM t1 WHERE part=1
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeleteSQLSuite.scala:40
EXPLAIN DELETE FROM tableSQLIdentifier WHERE key = 2
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeleteSQLSuite.scala:54
DELETE FROM v WHERE key = 1
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeleteSQLSuite.scala:65
CREATE TEMP VIEW v AS SELECT * FROM tab
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeleteSQLSuite.scala:66
DELETE FROM v WHERE key = 1 AND VALUE = 5
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeleteSQLSuite.scala:84
SELECT id, _change_type FROM tab
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeleteSuiteBase.scala:633
SELECT parse_json(cast(id as string)) v, id i
      FROM range(3)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeletionVectorsTestUtils.scala:258
ALTER TABLE tableName
SET TBLPROPERTIES ('CREATION_key' = 'enable')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableReplaceTests.scala:36
ALTER TABLE tableName REPLACE COLUMNS (
  v1 int COMMENT 'a comment for v1',
  v2 string COMMENT 'a comment for v2',
  s STRUCT<
    v1:int COMMENT 'a comment for s.v1',
    v2:string COMMENT 'a comment for s.v2'> COMMENT 'a comment for s',
  a ARRAY<STRUCT<
    v1:int COMMENT 'a comment for a.v1',
    v2:string COMMENT 'a comment for a.v2'>> COMMENT 'a comment for a',
  m MAP<STRUCT<
      v1:int COMMENT 'a comment for m.key.v1',
      v2:string COMMENT 'a comment for m.key.v2'>,
    STRUCT<
      v1:int COMMENT 'a comment for m.value.v1',
      v2:string COMMENT 'a comment for m.value.v2'>> COMMENT 'a comment for m'
)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableReplaceTests.scala:84
ALTER TABLE tableName REPLACE COLUMNS (
  v1 int,
  v2 string,
  s STRUCT<v1:int, v2:string>,
  a ARRAY<STRUCT<v1:int, v2:string>>,
  m MAP<STRUCT<v1:int, v2:string>, STRUCT<v1:int, v2:string>>
)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableReplaceTests.scala:103
ALTER TABLE tableName REPLACE COLUMNS (
  m MAP<STRUCT<v2:string, v1:int>, STRUCT<v2:string, v1:int>>,
  v2 string,
  a ARRAY<STRUCT<v2:string, v1:int>>,
  v1 int,
  s STRUCT<v2:string, v1:int>
)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableReplaceTests.scala:141
ALTER TABLE tableName REPLACE COLUMNS (
  v1 int,
  v2 string,
  v3 long,
  s STRUCT<v1:int, v2:string, v3:long>,
  a ARRAY<STRUCT<v1:int, v2:string, v3:long>>,
  m MAP<STRUCT<v1:int, v2:string, v3:long>, STRUCT<v1:int, v2:string, v3:long>>
)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableReplaceTests.scala:191
ALTER TABLE tableName REPLACE COLUMNS (
  `m.m` MAP<STRUCT<`y.y`:string, `x.x`:int>, STRUCT<`y.y`:string, `x.x`:int>>,
  `y.y` string,
  `a.a` ARRAY<STRUCT<`y.y`:string, `x.x`:int>>,
  `x.x` int,
  `s.s` STRUCT<`y.y`:string, `x.x`:int>
)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableTests.scala:108
ALTER TABLE tableName
SET TBLPROPERTIES (
  'delta.logRetentionDuration' = '2 weeks',
  'delta.checkpointInterval' = '20',
  'key' = 'value'
)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableTests.scala:124
ALTER TABLE tableName UNSET TBLPROPERTIES ('delta.checkpointInterval', 'key')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableTests.scala:140
ALTER TABLE v
SET TBLPROPERTIES (
  'delta.logRetentionDuration' = '2 weeks',
  'delta.checkpointInterval' = '20',
  'key' = 'value'
)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableTests.scala:157
ALTER TABLE tableName
SET TBLPROPERTIES (
  'dEltA.lOgrEteNtiOndURaTion' = '1 weeks',
  'DelTa.ChEckPoiNtinTervAl' = '5',
  'key' = 'value1'
)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableTests.scala:173
ALTER TABLE tableName
SET TBLPROPERTIES (
  'dEltA.lOgrEteNtiOndURaTion' = '2 weeks',
  'DelTa.ChEckPoiNtinTervAl' = '20',
  'kEy' = 'value2'
)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableTests.scala:190
ALTER TABLE tableName UNSET TBLPROPERTIES ('DelTa.ChEckPoiNtinTervAl', 'kEy')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableTests.scala:204
ALTER TABLE tableName SET TBLPROPERTIES ('delta.key' = 'value')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableTests.scala:214
ALTER TABLE tableName SET TBLPROPERTIES ('delta.randomPrefixLength' = '-1')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableTests.scala:219
ALTER TABLE tableName SET TBLPROPERTIES ('delta.randomPrefixLength' = 'value')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableTests.scala:233
ALTER TABLE tableName
SET TBLPROPERTIES (
  'delta.randomizeFilePrefixes' = 'true',
  'delta.randomPrefixLength' = '5'
)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableTests.scala:253
INSERT INTO tableName VALUES (1, 'test1'), (2, 'test2'), (3, 'test3')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableTests.scala:276
ALTER TABLE tableName
SET TBLPROPERTIES (
  'delta.randomizeFilePrefixes' = 'true',
  'delta.randomPrefixLength' = '8',
  'key' = 'value'
)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableTests.scala:298
INSERT INTO tableName VALUES (1, 'test1'), (2, 'test2')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableTests.scala:312
ALTER TABLE tableName UNSET TBLPROPERTIES ('delta.randomizeFilePrefixes', 'key')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableTests.scala:325
INSERT INTO tableName VALUES (3, 'test3'), (4, 'test4')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableTests.scala:348
ALTER TABLE tableName
SET TBLPROPERTIES (
  'delta.randomizeFilePrefixes' = 'true',
  'delta.randomPrefixLength' = '7',
  'key' = 'value'
)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableTests.scala:367
INSERT INTO tableName VALUES (3, 'x', 300), (4, 'z', 400)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableTests.scala:405
INSERT INTO tableName VALUES (5, 'x', 500), (6, 'y', 600)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableTests.scala:437
ALTER TABLE tableName SET TBLPROPERTIES ('comment'='does it work?')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableTests.scala:446
ALTER TABLE tableName UNSET TBLPROPERTIES ('comment')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableTests.scala:464
CREATE TABLE tableName (id bigint) USING delta COMMENT 'x'
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableTests.scala:467
ALTER TABLE tableName SET TBLPROPERTIES ('comment'='y')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableTests.scala:477
ALTER TABLE tableName SET TBLPROPERTIES ('location'='/some/new/path')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableTests.scala:481
ALTER TABLE tableName SET TBLPROPERTIES ('provider'='json')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableTests.scala:485
ALTER TABLE tableName SET TBLPROPERTIES ('delta.constraints.c1'='age >= 25')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableTests.scala:623
ALTER TABLE t UNSET TBLPROPERTIES ('delta.deletedFileRetentionDuration')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableTests.scala:655
ALTER TABLE tableName ADD COLUMNS (v3 long, v4 double)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableTests.scala:671
ALTER TABLE tableName ADD COLUMNS (a.element.v3 long)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableTests.scala:683
ALTER TABLE tableName ADD COLUMNS (a.element.v4 struct<f1:long>)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableTests.scala:695
ALTER TABLE tableName ADD COLUMNS (a.element.v4.f2 string)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableTests.scala:715
ALTER TABLE tableName ADD COLUMNS (m.value.mvv3 long)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableTests.scala:734
ALTER TABLE tableName ADD COLUMNS (m.key.mkv3 long)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableTests.scala:770
ALTER TABLE tableName ADD COLUMNS (m.value.mkv3 long)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableTests.scala:783
ALTER TABLE tableName ADD COLUMNS (m.key.mkv3 long, m.value.mvv3 long)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableTests.scala:805
ALTER TABLE tableName ADD COLUMNS
(m.key.mkv3 long, m.value.mvv3 struct<f1: long, f2:array<struct<n:long>>>)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableTests.scala:825
ALTER TABLE tableName ADD COLUMNS
(m.value.mvv3.f2.element.p string)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableTests.scala:852
ALTER TABLE tableName ADD COLUMNS (m.mkv3 long)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableTests.scala:866
ALTER TABLE tableName ADD COLUMNS (a.v3 long)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableTests.scala:901
ALTER TABLE tableName ADD COLUMNS (v3 long COMMENT 'new column')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableTests.scala:918
ALTER TABLE tableName ADD COLUMNS (v2.x long)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableTests.scala:927
ALTER TABLE tableName ADD COLUMNS (v2 long)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableTests.scala:937
ALTER TABLE tableName ADD COLUMNS (struct.v2 long)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableTests.scala:946
ALTER TABLE tableName ADD COLUMNS (`a column name with spaces` long)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableTests.scala:964
ALTER TABLE tableName ADD COLUMNS (struct.`a column name with spaces` long)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableTests.scala:987
ALTER TABLE tableName ADD COLUMNS (`x.x` long, `z.z`.`y.y` double)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableTests.scala:1010
ALTER TABLE tableName ADD COLUMNS (v3 long FIRST, v4 long AFTER v1, v5 long)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableTests.scala:1031
ALTER TABLE delta_test ADD COLUMNS (v3 long FIRST, v4 long AFTER v3, v5 long AFTER v4)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableTests.scala:1079
ALTER TABLE tableName ADD COLUMNS (`x.x` long after v1, `z.z`.`y.y` double)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableTests.scala:1099
ALTER TABLE tableName ADD COLUMNS (v3 long AFTER unknown)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableTests.scala:1111
ALTER TABLE tableName ADD COLUMNS (v3 long AFTER V1)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableTests.scala:1139
ALTER TABLE tableName ADD COLUMNS (v4 string AFTER V3)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableTests.scala:1158
ALTER TABLE tableName CHANGE COLUMN v1 v1 integer COMMENT 'a comment'
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableTests.scala:1169
ALTER TABLE tableName CHANGE COLUMN v2 v2 string COMMENT 'a comment'
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableTests.scala:1182
ALTER TABLE tableName CHANGE COLUMN `z.z`.`x.x` `x.x` integer COMMENT 'a comment'
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableTests.scala:1183
ALTER TABLE tableName CHANGE COLUMN `x.x` `x.x` integer COMMENT 'another comment'
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableTests.scala:1202
ALTER TABLE tableName CHANGE COLUMN
a.element.col1.element.col1 col1 MAP<STRUCT<v1:int>,
STRUCT<v2:string>> COMMENT 'a comment'
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableTests.scala:1226
ALTER TABLE tableName CHANGE COLUMN
m.value.col1.element.col1.v1 v1 integer COMMENT 'a comment'
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableTests.scala:1249
ALTER TABLE tableName CHANGE COLUMN a a ARRAY<int> COMMENT 'a comment'
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableTests.scala:1262
ALTER TABLE tableName CHANGE COLUMN
a a MAP<int, string> COMMENT 'a comment'
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableTests.scala:1281
ALTER TABLE tableName CHANGE COLUMN a.key COMMENT 'a comment'
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableTests.scala:1288
ALTER TABLE tableName CHANGE COLUMN a.value COMMENT 'a comment'
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableTests.scala:1302
ALTER TABLE tableName CHANGE COLUMN a.element COMMENT 'a comment'
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableTests.scala:1316
ALTER TABLE tableName RENAME COLUMN a.key TO key2
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableTests.scala:1326
ALTER TABLE tableName RENAME COLUMN a.value TO value2
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableTests.scala:1343
ALTER TABLE tableName RENAME COLUMN a.element TO element2
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableTests.scala:1365
ALTER TABLE tableName CHANGE COLUMN v1 v1 long
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableTests.scala:1383
ALTER TABLE tableName CHANGE COLUMN struct.v1 v1 long
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableTests.scala:1401
ALTER TABLE tableName CHANGE COLUMN a.key key long
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableTests.scala:1419
ALTER TABLE tableName CHANGE COLUMN a.value value long
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableTests.scala:1437
ALTER TABLE tableName CHANGE COLUMN a.element element long
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableTests.scala:1453
ALTER TABLE tableName CHANGE COLUMN v2 v2 string FIRST
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableTests.scala:1470
ALTER TABLE tableName CHANGE COLUMN struct.v2 v2 string FIRST
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableTests.scala:1499
ALTER TABLE tableName CHANGE COLUMN v3 v3 boolean FIRST
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableTests.scala:1515
ALTER TABLE tableName CHANGE COLUMN v1 v1 integer AFTER v2
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableTests.scala:1532
ALTER TABLE tableName CHANGE COLUMN struct.v1 v1 integer AFTER v2
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableTests.scala:1563
ALTER TABLE tableName CHANGE COLUMN v1 v1 integer AFTER v1
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableTests.scala:1580
ALTER TABLE tableName CHANGE COLUMN struct.v1 v1 integer AFTER v1
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableTests.scala:1598
ALTER TABLE tableName CHANGE COLUMN v3 v3 boolean AFTER v1
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableTests.scala:1625
ALTER TABLE tableName CHANGE COLUMN `x.x` `x.x` integer AFTER `y.y`
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableTests.scala:1642
ALTER TABLE tableName CHANGE COLUMN `z.z`.`x.x` `x.x` integer AFTER `y.y`
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableTests.scala:1661
ALTER TABLE tableName CHANGE COLUMN v1 v1 integer AFTER unknown
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableTests.scala:1677
ALTER TABLE tableName CHANGE COLUMN struct.v1 v1 integer AFTER unknown
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableTests.scala:1738
ALTER TABLE tableName CHANGE COLUMN m.key SET NOT NULL
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableTests.scala:1739
ALTER TABLE tableName CHANGE COLUMN m.value DROP NOT NULL
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableTests.scala:1740
ALTER TABLE tableName CHANGE COLUMN a.element DROP NOT NULL
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableTests.scala:1778
ALTER TABLE tableName CHANGE COLUMN v COMMENT 'test comment'
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableTests.scala:1785
INSERT into tableName values ('12')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableTests.scala:1890
ALTER TABLE tableName CHANGE COLUMN v set default cast('a' as varchar(1))
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableTests.scala:1916
ALTER TABLE tableName CHANGE COLUMN struct.v1 v1 integer COMMENT 'a comment'
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableTests.scala:1967
ALTER TABLE tableName CHANGE COLUMN unknown unknown string FIRST
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableTests.scala:1983
ALTER TABLE tableName CHANGE COLUMN struct.unknown unknown string FIRST
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableTests.scala:2001
ALTER TABLE tableName CHANGE COLUMN V1 v1 integer
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableTests.scala:2007
ALTER TABLE tableName CHANGE COLUMN v1 V1 integer
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableTests.scala:2013
ALTER TABLE tableName CHANGE COLUMN v1 v1 integer AFTER V2
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableTests.scala:2023
ALTER TABLE tableName CHANGE COLUMN s s struct<v1:integer,v2:string> AFTER V2
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableTests.scala:2041
ALTER TABLE tableName CHANGE COLUMN V1 V1 integer
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableTests.scala:2065
ALTER TABLE tableName CHANGE COLUMN s s struct<V1:integer,v2:string> AFTER v2
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableTests.scala:2074
CREATE TABLE t(i STRING, c CHAR(4)) USING delta
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableTests.scala:2075
ALTER TABLE t CHANGE COLUMN c TYPE STRING
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableTests.scala:2082
CREATE TABLE t(i STRING, m map<CHAR(4), INT>) USING delta
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableTests.scala:2083
ALTER TABLE t CHANGE COLUMN m.key TYPE STRING
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableTests.scala:2090
CREATE TABLE t(i STRING, m map<INT, CHAR(4)>) USING delta
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableTests.scala:2091
ALTER TABLE t CHANGE COLUMN m.value TYPE STRING
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableTests.scala:2098
CREATE TABLE t(i STRING, a array<CHAR(4)>) USING delta
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableTests.scala:2099
ALTER TABLE t CHANGE COLUMN a.element TYPE STRING
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableTests.scala:2112
ALTER TABLE t CHANGE COLUMN c TYPE VARCHAR(4)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableTests.scala:2117
ALTER TABLE t CHANGE COLUMN c TYPE VARCHAR(5)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableTests.scala:2124
CREATE TABLE t(i STRING, c VARCHAR(4)) USING delta
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableTests.scala:2139
CREATE TABLE t(i VARCHAR(4)) USING delta
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableTests.scala:2140
ALTER TABLE t CHANGE COLUMN i TYPE STRING
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableTests.scala:2145
INSERT INTO t VALUES ('123456789')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableTests.scala:2153
INSERT INTO tableName VALUES (1, null), (2, null)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableTests.scala:2154
ALTER TABLE tableName CHANGE COLUMN v TYPE INT
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableTests.scala:2155
INSERT INTO tableName VALUES (3, 1)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableTests.scala:2187
DROP TABLE IF EXISTS identifier
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableTests.scala:2208
ALTER TABLE delta_test ADD COLUMNS (v3 long, v4 double)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableTests.scala:2236
alter table delta_table set location 'path'
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableTests.scala:2247
CREATE TABLE delta_table USING delta LOCATION 'oldDir_getCanonicalPath'
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableTests.scala:2279
alter table delta_table partition (id = 1) set location 'path'
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableTests.scala:2337
CREATE DATABASE delta
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableTests.scala:2411
alter table identifier set location 'path'
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaAlterTableTests.scala:2434
ALTER TABLE tableName UNSET TBLPROPERTIES ('delta.randomizeFilePrefixes', 'kEy')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaCDCColumnMappingSuite.scala:71
ALTER TABLE delta.`dir_getCanonicalPath` ADD COLUMN (name string)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaCDCColumnMappingSuite.scala:273
ALTER TABLE delta.`dir_getCanonicalPath` DROP COLUMN value
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaCDCColumnMappingSuite.scala:361
ALTER TABLE delta.`dir_getCanonicalPath` ADD COLUMN (value string)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaCDCColumnMappingSuite.scala:406
ALTER TABLE delta.`dir_getCanonicalPath` RENAME COLUMN id TO id2
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaCDCColumnMappingSuite.scala:480
ALTER TABLE delta.`dir_getCanonicalPath` RENAME COLUMN id2 TO id
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaCDCColumnMappingSuite.scala:723
ALTER TABLE delta.`dir_getCanonicalPath` ADD COLUMN (prop string)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaCDCSQLSuite.scala:139
SELECT id, _change_type FROM table_changes('tblName', 0, 1)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaCDCSQLSuite.scala:158
SELECT * FROM RANGE(30) WHERE id > (
              SELECT count(*) FROM table_changes('tblName', 0, 1))
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaCDCSQLSuite.scala:175
SELECT * FROM tabLe_chAnges('tblName', 0, 1)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaCDCSQLSuite.scala:176
SELECT * FROM taBle_cHanges('tblName', 0, 1)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaCDCSQLSuite.scala:187
SELECT * FROM tabLe_chaNges_By_pAth('dir_getAbsolutePath', 0, 1)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaCDCSQLSuite.scala:188
SELECT * FROM taBle_cHanges_bY_paTh('dir_getAbsolutePath', 0, 1)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaCDCSQLSuite.scala:200
SELECT * FROM table_changes('tblName', 0, 1)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaCDCSQLSuite.scala:201
SELECT * FROM table_changes('default.`tblName`', 0, 1)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaCDCSQLSuite.scala:346
SELECT * FROM table_changes('tbl', 0, now())
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaCDCSQLSuite.scala:356
SELECT * FROM table_changes('tbl', 0, now() + interval 5 seconds)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaCDCSQLSuite.scala:380
SELECT * FROM table_changes(now(), 1, 1)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaCDCSQLSuite.scala:386
SELECT * FROM table_changes('invalidtable', 1, 1)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaCDCSQLSuite.scala:393
SELECT * FROM table_changes(concat('tb', 'l'), 1, 1)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaCDCSQLSuite.scala:406
SELECT * FROM table_changes('tbl', 0, id)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaCDCSQLSuite.scala:452
SELECT * FROM table_changes('tbl', 0, 1)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaCDCSQLSuite.scala:458
SELECT * FROM table_changes_by_path('dir_getAbsolutePath', 0, 1)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaCheckpointWithStructColsSuite.scala:267
DELETE FROM delta.`dir_getCanonicalPath` WHERE CURRENT_TIMESTAMP > key
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaCheckpointWithStructColsSuite.scala:273
DELETE FROM delta.`dir_getCanonicalPath` WHERE CURRENT_TIMESTAMP < key
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaColumnMappingSuite.scala:555
ALTER TABLE delta.`tablePath` ADD COLUMN (score long)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaColumnMappingSuite.scala:603
ALTER TABLE delta.`tablePath` RENAME COLUMN score TO age
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaColumnMappingSuite.scala:614
ALTER TABLE delta.`tablePath` DROP COLUMN age
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaColumnMappingSuite.scala:898
ALTER TABLE t1 ALTER COLUMN a AFTER b
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaColumnMappingSuite.scala:920
ALTER TABLE t1 ADD COLUMNS (c STRING AFTER b)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaColumnMappingSuite.scala:936
ALTER TABLE t1 ADD COLUMNS (d STRING AFTER c)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaColumnMappingSuite.scala:987
ALTER TABLE t1 ADD COLUMNS (b.e STRING AFTER d)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaColumnMappingSuite.scala:1010
ALTER TABLE t1 ADD COLUMNS (b.f STRING AFTER e)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaColumnMappingSuite.scala:1174
convert to delta parquet.`tempDir` partitioned by (key1 String)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaColumnMappingSuite.scala:1218
drop table if exists tableName
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaColumnMappingSuite.scala:1479
ALTER TABLE t1 ADD COLUMNS (ping INT)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaColumnMappingSuite.scala:1490
ALTER TABLE t1 ADD COLUMNS (b.`foo.bar`.`my.new;col()` LONG)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaColumnMappingSuite.scala:1501
ALTER TABLE t1 DROP COLUMN (ping)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaColumnMappingSuite.scala:1512
ALTER TABLE t1 DROP COLUMN (g.`foo.bar`)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaColumnMappingSuite.scala:1523
ALTER TABLE t1 RENAME COLUMN a TO pong
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaColumnMappingSuite.scala:1534
ALTER TABLE t1 RENAME COLUMN b.c TO c2
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaColumnMappingSuite.scala:1598
SELECT * FROM t1
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaColumnMappingSuite.scala:1610
DROP TABLE IF EXISTS t2
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaColumnMappingSuite.scala:1611
CREATE TABLE t2 USING DELTA AS SELECT * FROM t1
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaColumnMappingSuite.scala:1613
SELECT * FROM t2
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaColumnMappingSuite.scala:1781
ALTER TABLE t1 DROP COLUMN e
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaColumnMappingSuite.scala:1799
ALTER TABLE t1 ADD COLUMN (b long)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaColumnMappingSuite.scala:1800
ALTER TABLE t1 DROP COLUMN a
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaColumnMappingSuite.scala:1801
ALTER TABLE t1 RENAME COLUMN b to a
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaColumnMappingSuite.scala:1805
DROP TABLE t1
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaColumnMappingSuite.scala:1811
ALTER TABLE t1 ADD COLUMN (c string)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaColumnMappingSuite.scala:1850
CREATE TABLE t1 (a long, b int)
USING DELTA
LOCATION 'dir_getCanonicalPath'
TBLPROPERTIES('delta.columnMapping.mode'='name')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaColumnMappingSuite.scala:1864
REPLACE TABLE t1 (a long, b long)
USING DELTA
LOCATION 'dir_getCanonicalPath'
TBLPROPERTIES('delta.columnMapping.mode'='name')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaColumnMappingSuite.scala:1906
REPLACE TABLE t1 (a long, b long)
USING DELTA
LOCATION 'dir_getCanonicalPath'
TBLPROPERTIES('delta.columnMapping.mode'='updatedNameMapping')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaColumnMappingSuite.scala:1932
CREATE OR REPLACE TABLE t1 (a long)
USING DELTA
LOCATION 'dir_getCanonicalPath'
TBLPROPERTIES('delta.columnMapping.mode'='name')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaColumnMappingSuite.scala:1943
RESTORE TABLE t1 TO VERSION AS OF 0
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaColumnMappingSuite.scala:2050
CREATE TABLE tableName USING DELTA AS SELECT * FROM src_data
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaColumnMappingSuite.scala:2063
REPLACE TABLE tableName USING DELTA AS SELECT * FROM overwrite_data
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaColumnMappingSuite.scala:2084
CREATE TABLE testTableName
USING DELTA
TBLPROPERTIES(
'ENABLED_key' = 'true'
)
AS SELECT * FROM RANGE(1)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaColumnMappingSuite.scala:2096
ALTER TABLE testTableName SET TBLPROPERTIES(
'columnMappingMode'='name'
)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaColumnMappingSuite.scala:2141
CREATE TABLE tableName (a INT, b INT)
USING DELTA
TBLPROPERTIES (
  'MODE_key' = 'none',
  'VERSION_key' = '2',
  'VERSION_key' = '5'
)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaColumnMappingSuite.scala:2151
INSERT INTO tableName VALUES (100, 1000)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaColumnMappingSuite.scala:2153
ALTER TABLE tableName
SET TBLPROPERTIES ('MODE_key' = 'name')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaColumnMappingSuite.scala:2165
ALTER TABLE tableName RENAME COLUMN a TO c
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaColumnMappingSuite.scala:2166
ALTER TABLE tableName RENAME COLUMN b TO a
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaColumnMappingSuite.scala:2171
SELECT * FROM tableName WHERE a = 1000
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaColumnMappingSuite.scala:2186
CREATE TABLE t1 (a INT, b STRING)
USING DELTA
PARTITIONED BY (b)
TBLPROPERTIES (
  'MODE_key' = 'mode',
  'VERSION_key' = '2',
  'VERSION_key' = '5'
)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaColumnMappingSuite.scala:2197
INSERT INTO t1 VALUES (1, 'a'), (2, 'b')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaColumnRenameSuite.scala:38
Alter table t1 RENAME COLUMN b to b1
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaColumnRenameSuite.scala:69
Alter table t1 RENAME COLUMN a to a1
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaColumnRenameSuite.scala:71
Alter table t1 RENAME COLUMN b1.c to c1
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaColumnRenameSuite.scala:74
DESCRIBE HISTORY t1
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaColumnRenameSuite.scala:86
Alter table t1 RENAME COLUMN map to map
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaColumnRenameSuite.scala:92
Alter table t1 RENAME COLUMN arr to Arr
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaColumnRenameSuite.scala:127
Alter table t1 RENAME COLUMN map to map1
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaColumnRenameSuite.scala:158
alter table t1 add columns (a string, map map<string, string>)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaColumnRenameSuite.scala:250
alter table t1 add constraint rangeABC check (concat(a, a) > 'str')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaColumnRenameSuite.scala:251
alter table t1 add constraint rangeBD check (`b`.`d` > 0)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaColumnRenameSuite.scala:253
alter table t1 add constraint arrValue check (arr[0] > 0)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaColumnRenameSuite.scala:256
alter table t1 rename column a to a1
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaColumnRenameSuite.scala:260
alter table t1 rename column arr to arr1
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaColumnRenameSuite.scala:266
alter table t1 rename column b to b1
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaColumnRenameSuite.scala:270
alter table t1 rename column b.c to c1
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaColumnRenameSuite.scala:320
alter table t1 rename column map to map1
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaColumnRenameSuite.scala:375
alter table t1 rename column b.d to d1
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaColumnRenameSuite.scala:444
DESCRIBE TABLE delta_test
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaColumnRenameSuite.scala:517
ALTER TABLE t1 RENAME COLUMN a.key.x to x1
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaColumnRenameSuite.scala:520
ALTER TABLE t1 RENAME COLUMN a.value.key.y to y1
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaColumnRenameSuite.scala:523
ALTER TABLE t1 RENAME COLUMN a.value.value.z to z1
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaColumnRenameSuite.scala:548
ALTER TABLE t1 RENAME COLUMN a.element.element.x to x1
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaColumnRenameSuite.scala:551
ALTER TABLE t1 RENAME COLUMN a.element.element.y to y1
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaColumnRenameSuite.scala:555
INSERT INTO t1 VALUES (
array(
  array(named_struct('x', 30, 'y', 31), named_struct('x', 32, 'y', 33)),
  array(named_struct('x', 34, 'y', 35), named_struct('x', 36, 'y', 37))))
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaColumnRenameSuite.scala:574
CREATE TABLE t1 (c int, d string)
USING DELTA
TBLPROPERTIES (
  'MODE_key' = 'mode',
  'COLUMNS_key' = 'c,d'
)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaColumnRenameSuite.scala:583
INSERT INTO t1 VALUES (1, 'value1'), (2, 'value2'), (3, 'value3')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaColumnRenameSuite.scala:592
ALTER TABLE t1 RENAME COLUMN c TO `c#2`
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaColumnRenameSuite.scala:601
SELECT `c#2` FROM t1 WHERE `c#2` > 1
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaColumnRenameSuite.scala:605
INSERT INTO t1 VALUES (4, 'value4'), (5, 'value5')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaColumnRenameSuite.scala:630
ALTER TABLE t1 RENAME COLUMN `c#2` TO c
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaColumnRenameSuite.scala:634
SELECT c FROM t1 WHERE c = 3
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaCreateTableLikeSuite.scala:48
SELECT * FROM tblName
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaCreateTableLikeSuite.scala:196
COMMENT ON TABLE srcTbl IS 'srcTbl'
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaCreateTableLikeSuite.scala:234
CREATE TABLE srcTbl USING DELTA
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaCreateTableLikeSuite.scala:266
CREATE TABLE targetTbl(key4 INT) USING DELTA
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaCreateTableLikeSuite.scala:362
CREATE TABLE tableName (id LONG) USING DELTA
TBLPROPERTIES ('delta.feature.catalogManaged' = 'supported')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaCreateTableLikeSuite.scala:402
CREATE TABLE tableName (id LONG NOT NULL) USING DELTA
TBLPROPERTIES ('delta.feature.catalogManaged' = 'supported')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaCreateTableLikeSuite.scala:406
INSERT INTO tableName VALUES (1)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaCreateTableLikeSuite.scala:407
CREATE TABLE source (id LONG) USING DELTA
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaCreateTableLikeSuite.scala:408
INSERT INTO source VALUES (2)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaCreateTableLikeSuite.scala:413
SELECT id FROM source
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaCreateTableLikeSuite.scala:423
SELECT * FROM tableName
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaCreateTableLikeSuite.scala:464
CREATE TABLE srcTbl (key STRING) USING DELTA LOCATION 'path/srcTbl'
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaCreateTableLikeSuite.scala:507
DROP TABLE IF EXISTS targetTbl
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaCreateTableLikeSuite.scala:508
CREATE VIEW srcView AS SELECT * FROM srcTbl
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaCreateTableLikeSuite.scala:524
CREATE TEMPORARY VIEW srcView AS SELECT * FROM srcTbl
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaCreateTableLikeSuite.scala:543
ALTER TABLE srcTbl SET TBLPROPERTIES ('delta.columnMapping.mode' = 'name')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaCreateTableLikeSuite.scala:544
ALTER TABLE srcTbl RENAME COLUMN key TO key2
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaCreateTableLikeSuite.scala:579
ALTER TABLE srcTbl SET TBLPROPERTIES('this.is.my.key3' = true)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaDDLSuite.scala:48
CREATE TABLE tableName (id INT, val STRING)
USING DELTA
LOCATION 'location'
TBLPROPERTIES (
  'delta.columnMapping.mode' = 'name',
  'delta.minReaderVersion' = '2',
  'delta.minWriterVersion' = '5'
)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaDDLSuite.scala:82
CREATE TABLE delta.`fooPath`(id LONG) USING delta LOCATION 'barPath'
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaDDLSuite.scala:104
CREATE TABLE delta.`fooPath`(id LONG) USING delta LOCATION 'fooPath'
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaDDLSuite.scala:148
CREATE TABLE t (id INT) USING delta LOCATION 'path'
TBLPROPERTIES (
  test.simulateUC=true,
  'KEY_OLD' = 'some-other-id',
  'ID_KEY' = 'correct-table-id'
)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaDDLSuite.scala:158
CREATE TABLE t (id INT) USING delta LOCATION 'path'
TBLPROPERTIES (
  test.simulateUC=true,
  'KEY_OLD' = 'correct-table-id'
)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaDDLSuite.scala:196
DESCRIBE TABLE tblName
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaDDLSuite.scala:210
CREATE TABLE delta_test(a LONG, b String NOT NULL)
USING delta
OPTIONS('path'='dir_getCanonicalPath')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaDDLSuite.scala:239
CREATE TABLE tableName(a LONG)
USING delta
OPTIONS('path'='dir_getCanonicalPath')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaDDLSuite.scala:248
ALTER TABLE tableName
ADD COLUMNS (b String NOT NULL, c Int)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaDDLSuite.scala:263
CREATE TABLE tableName(a LONG, b String)
USING delta
OPTIONS('path'='dir_getCanonicalPath')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaDDLSuite.scala:274
ALTER TABLE tableName
CHANGE COLUMN b b String NOT NULL
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaDDLSuite.scala:288
CREATE TABLE tableName(a LONG NOT NULL, b String)
USING delta
OPTIONS('path'='dir_getCanonicalPath')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaDDLSuite.scala:299
INSERT INTO tableName SELECT 1, 'a'
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaDDLSuite.scala:304
ALTER TABLE tableName
ALTER COLUMN a DROP NOT NULL
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaDDLSuite.scala:313
INSERT INTO tableName SELECT NULL, 'b'
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaDDLSuite.scala:333
INSERT INTO delta_test SELECT 1, 'a'
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaDDLSuite.scala:335
SELECT * FROM delta_test
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaDDLSuite.scala:339
INSERT INTO delta_test VALUES (2, null)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaDDLSuite.scala:351
CREATE TABLE delta_test
(x struct<a: LONG, b: String NOT NULL>, y LONG)
USING delta
OPTIONS('path'='dir_getCanonicalPath')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaDDLSuite.scala:363
INSERT INTO delta_test SELECT (1, 'a'), 1
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaDDLSuite.scala:392
CREATE TABLE tableName
(y LONG)
USING delta
OPTIONS('path'='dir_getCanonicalPath')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaDDLSuite.scala:402
ALTER TABLE tableName
ADD COLUMNS (x struct<a: LONG, b: String NOT NULL>, z INT)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaDDLSuite.scala:418
CREATE TABLE tableName
(y LONG NOT NULL)
USING delta
OPTIONS('path'='dir_getCanonicalPath')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaDDLSuite.scala:428
ALTER TABLE tableName
ADD COLUMNS (x struct<a: LONG, b: String>, z INT)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaDDLSuite.scala:471
DESCRIBE TABLE tableName
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaDDLSuite.scala:535
CREATE TABLE tableName
(x struct<a: LONG, b: String>, y LONG)
USING delta
OPTIONS('path'='dir_getCanonicalPath')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaDDLSuite.scala:548
ALTER TABLE tableName
CHANGE COLUMN x x struct<a: LONG, b: String NOT NULL>
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaDDLSuite.scala:555
ALTER TABLE tableName
CHANGE COLUMN x.b b String NOT NULL
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaDDLSuite.scala:570
CREATE TABLE tblName
(x struct<a: LONG, b: String NOT NULL> NOT NULL, y LONG)
USING delta
OPTIONS('path'='dir_getCanonicalPath')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaDDLSuite.scala:582
INSERT INTO tblName SELECT (1, 'a'), 1
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaDDLSuite.scala:587
ALTER TABLE tblName
ALTER COLUMN x.b DROP NOT NULL
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaDDLSuite.scala:591
INSERT INTO tblName SELECT (2, null), null
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaDDLSuite.scala:598
ALTER TABLE tblName
ALTER COLUMN x DROP NOT NULL
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaDDLSuite.scala:602
INSERT INTO tblName SELECT null, 3
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaDDLSuite.scala:623
CREATE TABLE tbl
USING delta
AS SELECT 1 as a, 'a' as b
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaDDLSuite.scala:628
ALTER TABLE tbl RENAME TO newTbl
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaDDLSuite.scala:629
SELECT * FROM newTbl
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaDDLSuite.scala:643
CREATE TABLE delta_test(a LONG, b String)
USING delta
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaDDLSuite.scala:650
SHOW CREATE TABLE delta_test
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaDDLSuite.scala:658
CREATE TABLE delta_test(a LONG, b String)
USING delta
LOCATION 'path'
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaDDLSuite.scala:685
CREATE TABLE delta_test USING delta LOCATION 'path'
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaDDLSuite.scala:690
DESCRIBE EXTENDED delta_test
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaDDLSuite.scala:697
CREATE TABLE delta_test USING delta AS SELECT 'foo' as a
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaDDLSuite.scala:698
DESC DETAIL delta_test
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaDDLSuite.scala:700
DROP TABLE delta_test
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaDDLSuite.scala:711
CREATE TABLE oldTableName USING delta AS SELECT 'foo' as a
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaDDLUsingPathSuite.scala:113
SELECT * FROM tableOrPath
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaDDLUsingPathSuite.scala:189
SHOW TBLPROPERTIES delta.`path`
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaDDLUsingPathSuite.scala:211
SHOW TBLPROPERTIES delta.`path`('dEltA.lOgrEteNtiOndURaTion')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaDDLUsingPathSuite.scala:217
SHOW TBLPROPERTIES delta.`path`('kEy')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaDDLUsingPathSuite.scala:222
SHOW TBLPROPERTIES delta.`/path/to/delta`
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaDDLUsingPathSuite.scala:243
SHOW COLUMNS IN `path` IN delta
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaDDLUsingPathSuite.scala:246
SHOW COLUMNS IN delta.`path` IN delta
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaDDLUsingPathSuite.scala:249
SHOW COLUMNS IN delta.`/path/to/delta`
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaDDLUsingPathSuite.scala:282
DESCRIBE delta.`/path/to/delta` v1
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaDropColumnSuite.scala:93
describe history t1
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaDropColumnSuite.scala:165
alter table t1 add column (e struct<e1 string, e2 string>)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaFastDropFeatureSuite.scala:168
CREATE TABLE delta.`deltaLog_dataPath` (id bigint) USING delta
TBLPROPERTIES (
delta.minReaderVersion=2,
delta.minWriterVersion=5
)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaFastDropFeatureSuite.scala:210
ALTER TABLE delta.`dir_getCanonicalPath` SET TBLPROPERTIES (
delta.feature.VacuumProtocolCheckTableFeature_name = 'supported'
)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaFastDropFeatureSuite.scala:543
SELECT * FROM tablePath TIMESTAMP AS OF 'tsBeforeRemoval'
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaFastDropFeatureSuite.scala:728
ALTER TABLE delta.`dir_getAbsolutePath` DROP FEATURE deletionVectors
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaFastDropFeatureSuite.scala:767
ALTER TABLE delta.`targetDir_getAbsolutePath` DROP FEATURE deletionVectors
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaFastDropFeatureSuite.scala:913
VACUUM 'dir_getAbsolutePath'
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoSchemaEvolutionSuite.scala:303
INSERT INTO target BY NAME SELECT 1 AS a, 2L AS b, 3 AS c
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:63
CREATE TABLE t (id LONG, v VARIANT) USING delta
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:64
INSERT INTO t (id, v) VALUES (1, parse_json('{"a": 1}'))
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:65
INSERT INTO t (id, v) VALUES (2, parse_json('{"b": 2}'))
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:66
INSERT INTO t SELECT id, parse_json(cast(id as string)) v FROM range(2)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:69
select * from t
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:76
CREATE TABLE t1 (a int, b int, c int) USING delta PARTITIONED BY (b, c)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:77
INSERT OVERWRITE TABLE t1 PARTITION (c=3) SELECT 1, 2
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:82
INSERT OVERWRITE TABLE t1 PARTITION (b=2, c=3) SELECT 1
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:87
INSERT OVERWRITE TABLE t1 PARTITION (b=2, c) SELECT 1, 3
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:99
CREATE TABLE t1 (id bigint, data string) USING v2Format
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:101
INSERT INTO t1(id, data) VALUES(1L, 'a')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:103
INSERT INTO t1(data, id) VALUES('b', 2L)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:105
INSERT INTO t1(data, id) VALUES('c', 3)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:110
INSERT INTO t1(data) VALUES(4)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:114
INSERT INTO t1(data) VALUES('b')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:119
INSERT INTO t1(data, data) VALUES(5)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:158
CREATE TABLE sourceTableName (a int, b int) USING format_1
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:161
INSERT INTO targetTableName BY NAME SELECT * FROM sourceTableName
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:214
CREATE TABLE t(i STRING, c string) USING v2Format PARTITIONED BY (c)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:217
INSERT OVERWRITE t PARTITION (c='1') (c) VALUES ('2')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:237
INSERT INTO targetTable VALUES (2, DATE'2022-11-02',
 array(struct('s3', 's4', DATE'2022-11-02')))
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:239
INSERT INTO targetTable VALUES (3, DATE'2022-11-03',
array(struct('s5', 's6', NULL)))
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:241
SELECT 1 as id, DATE'2022-11-01' as col2,
 array(struct('s1', 's2', DATE'2022-11-01')) as col UNION
 SELECT 2 as id, DATE'2022-11-02' as col2,
 array(struct('s3', 's4', DATE'2022-11-02')) as col UNION
 SELECT 3 as id, DATE'2022-11-03' as col2,
 array(struct('s5', 's6', NULL)) as col
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:267
INSERT INTO targetTable VALUES (2, DATE'2022-11-02',
 array(struct(2, struct('s2', DATE'2022-11-02'), struct('s2'))))
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:269
INSERT INTO targetTable VALUES (3, DATE'2022-11-03',
 array(struct(3, struct('s3', NULL), struct(NULL))))
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:271
SELECT 1 as id, DATE'2022-11-01' as col2,
 array(struct(1, struct('s1', DATE'2022-11-01'), struct('s1'))) as col UNION
 SELECT 2 as id, DATE'2022-11-02' as col2,
 array(struct(2, struct('s2', DATE'2022-11-02'), struct('s2'))) as col UNION
 SELECT 3 as id, DATE'2022-11-03' as col2,
 array(struct(3, struct('s3', NULL), struct(NULL))) as col
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:355
CREATE TABLE source (
  id INT,
  metrics MAP<STRING, STRUCT<id: INT, value: INT>>
) USING delta
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:361
CREATE TABLE target (
  id INT,
  metrics MAP<STRING, STRUCT<id: INT, value: INT, comment: STRING>>
) USING delta
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:367
INSERT INTO source VALUES (1, map('event', struct(1, 1)))
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:370
INSERT INTO target SELECT * FROM source
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:388
CREATE TABLE source (
  id INT,
  metrics MAP<STRING, STRUCT<id: INT, value: INT, comment: STRING>>
) USING delta
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:394
CREATE TABLE target (
  id INT,
  metrics MAP<STRING, STRUCT<id: INT, value: INT>>
) USING delta
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:400
INSERT INTO source VALUES (1, map('event', struct(1, 1, 'deprecated')))
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:410
SELECT * FROM source
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:420
CREATE TABLE source (
  id INT,
  metrics MAP<STRING, MAP<STRING, STRUCT<id: INT, value: INT, comment: STRING>>>
) USING delta
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:426
CREATE TABLE target (
  id INT,
  metrics MAP<STRING, MAP<STRING, STRUCT<id: INT, value: INT>>>
) USING delta
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:432
INSERT INTO source VALUES
 (1, map('event', map('subEvent', struct(1, 1, 'deprecated'))))
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:461
CREATE TABLE target (
  id INT,
  metrics MAP<INT, STRUCT<id: INT, value: INT>>
) USING delta
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:467
INSERT INTO source VALUES (1, map('1', struct(2, 3)))
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:472
SELECT * FROM target
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:481
CREATE TABLE source (
  id INT,
  metrics MAP<STRING, STRUCT<id: INT, value: LONG>>
) USING delta
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:493
INSERT INTO source VALUES (1, map('m1', struct(2, 3L)))
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:667
CREATE TABLE t1 (key int, value int) USING v2Format
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:748
insert into t1 values (1, false, default)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:749
insert into t1 values (1, default, default)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:750
alter table t1 alter column c set default 'def'
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:751
insert into t1 values (default, default, default)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:752
alter table t1 alter column c drop default
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:760
insert into t4(a, b, c) select a, b, c from t1
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:761
insert overwrite table t1 select * from t4
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:804
alter table t3 alter column i set default true
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:805
insert into t3(i, s, q) values (default, default, default)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:810
alter table t3 drop column q
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:811
alter table t3 add column q int
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:834
create table alterTableSetDefaultFeatureNotEnabled(a int) using v2Format
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:837
alter table alterTableSetDefaultFeatureNotEnabled alter column a set default 42
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:849
alter table alterTableTest add column z int default 42
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:913
insert into t4 values (default, default, default)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:921
alter table t4 add constraint smallq check (q < 10)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:970
insert into t1(j) values(1)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:971
insert into t1(j, s) values(2, default)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:972
insert into t1(j, s, x) values(3, default, default)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:973
insert into t1(j, s) values(4, 44)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:974
insert into t1(j, s, x) values(5, 44, 45)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:986
insert into t2(j) select j from t1 where j = 1
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:987
insert into t2(j, s) select j, default from t1 where j = 2
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:988
insert into t2(j, s, x) select j, default, default from t1 where j = 3
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:989
insert into t2(j, s) select j, s from t1 where j = 4
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:990
insert into t2(j, s, x) select j, s, 45L from t1 where j = 5
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:1048
DESCRIBE TABLE EXTENDED t
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:1087
SHOW CREATE TABLE T
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:1114
drop table t_name
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:1157
CREATE TABLE t1 (id bigint, data string) USING v2Format PARTITIONED BY (id)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:1218
CREATE TABLE t1 (id bigint, data string, missing string) USING v2Format
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:1270
CREATE TABLE t1 (data int, ts timestamp) USING delta PARTITIONED BY (ts)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:1271
INSERT INTO t1 VALUES (1, timestamp'2024-06-15T04:00:00UTC')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:1272
INSERT INTO t1 VALUES (2, timestamp'2024-06-15T4:00:00UTC+8')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:1273
INSERT INTO t1 VALUES (3, timestamp'2024-06-15T5:00:00 UTC+01:00')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:1274
INSERT INTO t1 VALUES (4, timestamp'2024-06-16T5:00:00.123456UTC')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:1275
INSERT INTO t1 VALUES (5, timestamp'1903-12-28T5:00:00')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:1294
SELECT data FROM t1 where ts = timestamp'2024-06-15T4:00:00UTC+8'
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:1298
SELECT data FROM t1 where ts = timestamp'2024-06-14T20:00:00UTC-08'
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:1302
SELECT data FROM t1 where ts = timestamp'1903-12-27T21:00:00UTC-08'
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:1305
SELECT count(distinct(ts)) from t1
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:1316
INSERT INTO t1 VALUES (1, timestamp'2025-11-26T12:00:00')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:1317
INSERT INTO t1 VALUES (2, timestamp'2025-11-27T4:00:00UTC+8')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:1318
INSERT INTO t1 VALUES (3, timestamp'2025-11-28T5:00:00 UTC+01:00')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:1335
SELECT data FROM t1 where ts = timestamp'2025-11-26T21:00:00' order by data
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:1339
SELECT data FROM t1 where ts = timestamp'2025-11-28T5:00:00'
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:1386
SELECT count(distinct(ts_partition)) from t1
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:1387
SELECT count(distinct(ts_value)) from t1
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:1397
INSERT INTO t1 VALUES (1, timestamp'2024-06-15T4:00:00UTC')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:1404
INSERT INTO t1 VALUES (4, timestamp'1903-12-28T5:00:00')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:1427
SELECT data FROM t1 where ts = timestamp'2024-06-14T20:00:00'
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:1431
SELECT data FROM t1 where ts = timestamp'1903-12-28T05:00:00'
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:1443
CREATE TABLE t1 (data int, ts timestamp_ntz) USING delta PARTITIONED BY (ts)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:1444
INSERT INTO t1 VALUES (1, timestamp'2024-06-15T4:00:00')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:1445
INSERT INTO t1 VALUES (2, timestamp'2024-06-16T5:00:00')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:1446
INSERT INTO t1 VALUES (3, timestamp'1903-12-28T5:00:00')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:1463
SELECT data FROM t1 where ts = timestamp'2024-06-15T4:00:00'
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:1466
SELECT data FROM t1 where ts = timestamp'2024-06-16T05:00:00'
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:1481
INSERT INTO t1 VALUES (1, timestamp'2024-06-15 04:00:00UTC')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:1497
SELECT data FROM t1 where ts = timestamp'2024-06-15T04:00:00UTC'
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:1501
SELECT data FROM t1 where ts = timestamp'2024-06-14T20:00:00UTC'
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:1514
INSERT INTO t1 VALUES (1, timestamp'2024-06-15 04:00:00UTC+08:00')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:1515
INSERT INTO t1 VALUES (2, timestamp'2024-06-15T4:00:00UTC-08:00')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:1516
INSERT INTO t1 VALUES (3, timestamp'2024-06-15T5:00:00UTC+09:00')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:1535
SELECT data FROM t1 where ts = timestamp'2024-06-15T12:00:00'
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:1547
INSERT INTO t1 VALUES (1, timestamp'2025-11-26 04:00:00.1')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:1548
INSERT INTO t1 VALUES (2, timestamp'2025-11-26 04:00:00.12')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:1549
INSERT INTO t1 VALUES (3, timestamp'2025-11-26 04:00:00.123')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:1550
INSERT INTO t1 VALUES (4, timestamp'2025-11-26 04:00:00.1234')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:1551
INSERT INTO t1 VALUES (5, timestamp'2025-11-26 04:00:00.12345')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:1552
INSERT INTO t1 VALUES (6, timestamp'2025-11-26 04:00:00.123456')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:1555
SELECT data FROM t1 where ts = timestamp'2025-11-26 04:00:00.1'
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:1557
SELECT data FROM t1 where ts = timestamp'2025-11-26 04:00:00.12'
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:1559
SELECT data FROM t1 where ts = timestamp'2025-11-26 04:00:00.123'
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:1561
SELECT data FROM t1 where ts = timestamp'2025-11-26 04:00:00.1234'
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:1563
SELECT data FROM t1 where ts = timestamp'2025-11-26 04:00:00.12345'
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:1565
SELECT data FROM t1 where ts = timestamp'2025-11-26 04:00:00.123456'
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:1575
CREATE TABLE t1 (part string, data string) USING v2Format PARTITIONED BY (part)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:1579
INSERT INTO t1 VALUES ('__HIVE_DEFAULT_PARTITION__', 'test')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:1583
SELECT part, data FROM t1
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:1644
CREATE TABLE t1 (
  id bigint,
  point struct<x: double, y: double>
)
USING delta
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:1793
SELECT 4L, 'keep'
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:1848
SELECT 1, 'a', struct('a', struct('c', 'd'), 'b')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:1851
SELECT 1 AS num, 'a' AS text, struct('a', struct('c', 'd') AS s2, 'b') AS s
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:1914
INSERT INTO t2 VALUES (2L, 'dummy')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:1927
INSERT INTO t1 PARTITION (id = 23) SELECT data FROM view_1
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:1928
SELECT 23, data FROM view_1
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:1935
CREATE TABLE t1 (id bigint, data string) USING v2Format PARTITIONED BY (data)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:1938
INSERT INTO TABLE t1 PARTITION (id=1) SELECT data FROM view_1
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:1957
INSERT INTO TABLE t1 PARTITION (data) SELECT * FROM view_1
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:1975
INSERT INTO t1 VALUES (2L, 'dummy'), (4L, 'also-deleted')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:1976
INSERT OVERWRITE TABLE t1 PARTITION (id) SELECT * FROM view_1
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:1989
INSERT INTO t1 VALUES (2L, 'dummy'), (4L, 'keep')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:2005
INSERT OVERWRITE TABLE t1 SELECT * FROM view_1
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:2033
INSERT INTO t1 VALUES (2L, 'dummy', 23), (4L, 'keep', 2)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:2037
INSERT OVERWRITE TABLE t1 PARTITION (p1 = 23) SELECT * FROM view_1
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:2052
INSERT INTO t1 VALUES (2L, 'dummy', 2), (4L, 'also-deleted', 2)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:2053
INSERT OVERWRITE TABLE t1 PARTITION (id, p = 2) SELECT * FROM view_1
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:2069
INSERT OVERWRITE TABLE t1 PARTITION (p = 2, id) SELECT * FROM view_1
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:2085
INSERT OVERWRITE TABLE t1 PARTITION (p = 2) SELECT * FROM view_1
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:2099
INSERT INTO t1 VALUES (2L, 'dummy', 2), (4L, 'keep', 2)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:2144
INSERT INTO insertNestedTest VALUES (1, 'a', struct('a', struct('c', 'd'), 'b'))
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:2154
INSERT OVERWRITE TABLE t1 PARTITION (id = 2, p = 2) SELECT data FROM view_1
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertIntoTableSuite.scala:2167
CREATE TABLE t1 (`a.b` string, `c.d` string) USING v2Format PARTITIONED BY (`a.b`)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertReplaceOnDFWriterTests.scala:654
CREATE TABLE source (id INT, data STRING) USING parquet
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertReplaceOnDFWriterTests.scala:688
INSERT INTO source VALUES (1, 'source'), (4, 'source')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertReplaceOnDFWriterV1InsertIntoSuite.scala:99
CREATE TABLE target (id INT, data STRING) USING delta
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertReplaceUsingDFWriterTests.scala:1119
SELECT id, value FROM src
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertReplaceUsingDFWriterTests.scala:1142
ALTER TABLE delta.`path` ADD CONSTRAINT positive_value CHECK (value > 0)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertReplaceUsingDFWriterTests.scala:1383
CREATE TABLE target (id INT, data STRING) USING delta
             TBLPROPERTIES ('custom.key' = 'value', 'delta.enableChangeDataFeed' = 'true')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertReplaceUsingDFWriterTests.scala:1385
INSERT INTO target VALUES (1, 'old')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertReplaceUsingDFWriterTests.scala:1396
SHOW TBLPROPERTIES target
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertReplaceUsingDFWriterTests.scala:1450
SELECT named_struct('id', 1) x, 'a' value
UNION ALL
SELECT named_struct('id', 2) x, 'b' value
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertReplaceUsingDFWriterTests.scala:1456
SELECT named_struct('id', 1) x, 'c' value
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertReplaceUsingDFWriterV1SaveAsTableSuite.scala:73
CREATE TABLE target (id INT, value STRING) USING delta
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertReplaceWhereTargetAliasSuite.scala:272
CREATE OR REPLACE TABLE testTableName
(id bigint, t struct<id: bigint, value: string>, data string)
USING delta PARTITIONED BY (id)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertReplaceWhereTargetAliasSuite.scala:276
INSERT INTO testTableName VALUES
(1, named_struct('id', 10, 'value', 'x'), 'a'),
(2, named_struct('id', 20, 'value', 'y'), 'b')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertReplaceWhereTargetAliasSuite.scala:283
SELECT 1L AS id,
  named_struct('id', 10L, 'value', 'updated_x') AS t,
  'updated_a' AS data
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertReplaceWhereTargetAliasSuite.scala:695
CREATE OR REPLACE TABLE testTableName
(id bigint, t struct<t: struct<id: bigint>>, data string)
USING delta
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertReplaceWhereTargetAliasSuite.scala:699
INSERT INTO testTableName VALUES
(1, named_struct('t', named_struct('id', 10)), 'a'),
(2, named_struct('t', named_struct('id', 20)), 'b')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertReplaceWhereTargetAliasSuite.scala:704
SELECT 1L AS id,
  named_struct('t', named_struct('id', 10L)) AS t,
  'updated_a' AS data
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaInsertReplaceWhereTargetAliasSuite.scala:877
CREATE OR REPLACE TABLE testTableName
(id bigint, t struct<id: bigint, value: string>, data string)
USING delta
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaNotSupportedDDLSuite.scala:50
CREATE TABLE nonPartitionedTableName
USING format_1
AS SELECT 1 as a, 'a' as b
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaNotSupportedDDLSuite.scala:56
CREATE TABLE partitionedTableName (a INT, b STRING, p1 INT)
USING format_1
PARTITIONED BY (p1)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaNotSupportedDDLSuite.scala:61
INSERT INTO partitionedTableName SELECT 1, 'A', 2
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaNotSupportedDDLSuite.scala:71
DROP TABLE IF EXISTS nonPartitionedTableName
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaNotSupportedDDLSuite.scala:72
DROP TABLE IF EXISTS partitionedTableName
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaSourceDeletionVectorsSuite.scala:419
CREATE TABLE delta.`path` (id INT, value STRING, opt_int INT) USING delta
TBLPROPERTIES ('delta.enableDeletionVectors' = 'true')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaSourceDeletionVectorsSuite.scala:446
CREATE TABLE delta.`path` (id INT, data VARIANT) USING delta
TBLPROPERTIES ('delta.enableDeletionVectors' = 'true')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaSourceDeletionVectorsSuite.scala:474
CREATE TABLE delta.`path` (id INT, v VARIANT) USING delta
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaSourceDeletionVectorsSuite.scala:496
CREATE TABLE delta.`path` (id INT, arr ARRAY<INT>) USING delta
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaSourceTableAPISuite.scala:137
create database db
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaSourceTableAPISuite.scala:184
create view viewName as select * from tableName
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaTableCreationTests.scala:77
CREATE TABLE delta_test
USING delta
LOCATION 'path_getCanonicalPath'
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaTableCreationTests.scala:398
CREATE TABLE tableName(`a column name with spaces` LONG, b String) USING delta
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaTableCreationTests.scala:557
CREATE TABLE delta_test
USING delta
LOCATION 'dir_getAbsolutePath'
AS SELECT 1 as a
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaTableCreationTests.scala:588
CREATE TABLE delta_test
USING delta
LOCATION 'dir_getAbsolutePath'
AS SELECT 1 as a, 2 as A
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaTableCreationTests.scala:597
CREATE TABLE delta_test(
  a string,
  A string
)
USING delta
LOCATION 'dir_getAbsolutePath'
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaTableCreationTests.scala:608
CREATE TABLE delta_test(
  a string,
  b string
)
partitioned by (a, a)
USING delta
LOCATION 'dir_getAbsolutePath'
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaTableCreationTests.scala:628
create view viewName as select * from delta.`dir_getCanonicalPath`
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaTableCreationTests.scala:653
CREATE TABLE delta_test(a LONG, b String)
USING delta
OPTIONS('path'='dir_getCanonicalPath')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaTableCreationTests.scala:686
CREATE TABLE delta_test(a LONG, b String) USING delta
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaTableCreationTests.scala:707
CREATE TABLE delta_test
USING delta
OPTIONS('path'='dir_getCanonicalPath')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaTableCreationTests.scala:720
SELECT * FROM delta_test1
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaTableCreationTests.scala:742
CREATE TABLE delta_test (col1 int, col2 string)
USING delta
LOCATION 'path'
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaTableCreationTests.scala:861
CREATE TABLE delta_test(a LONG, b String) USING delta PARTITIONED BY (a)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaTableCreationTests.scala:897
CREATE TABLE tab1 USING delta AS SELECT 2, 'b'
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaTableCreationTests.scala:911
CREATE TABLE tab1 (col1 int, col2 string) USING delta
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaTableCreationTests.scala:912
INSERT INTO tab1 VALUES (2, 'B')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaTableCreationTests.scala:948
CREATE TABLE delta_test(a LONG, b String)
USING delta
TBLPROPERTIES(
  'delta.logRetentionDuration' = '2 weeks',
  'delta.checkpointInterval' = '20',
  'key' = 'value'
)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaTableCreationTests.scala:972
CREATE TABLE delta_test(a LONG, b String)
USING delta
TBLPROPERTIES(
  'dEltA.lOgrEteNtiOndURaTion' = '2 weeks',
  'DelTa.ChEckPoiNtinTervAl' = '20'
)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaTableCreationTests.scala:1008
CREATE TABLE delta_test(a LONG, b String)
USING delta LOCATION 'path'
TBLPROPERTIES(
  'dEltA.lOgrEteNtiOndURaTion' = '2 weeks',
  'DelTa.ChEckPoiNtinTervAl' = '20',
  'key' = "value"
)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaTableCreationTests.scala:1031
CREATE TABLE delta_test(a LONG, b String)
USING delta
TBLPROPERTIES(
  'delta.randomizeFilePrefixes' = 'true',
  'delta.randomPrefixLength' = '5'
)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaTableCreationTests.scala:1050
INSERT INTO delta_test VALUES (1, 'test1'), (2, 'test2'), (3, 'test3')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaTableCreationTests.scala:1072
CREATE TABLE delta_test(id LONG, part String, value INT)
USING delta
PARTITIONED BY (part)
TBLPROPERTIES(
  'delta.randomizeFilePrefixes' = 'true',
  'delta.randomPrefixLength' = '4'
)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaTableCreationTests.scala:1102
INSERT INTO delta_test VALUES
(1, 'A', 100), (2, 'B', 200), (3, 'A', 300), (4, 'C', 400)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaTableCreationTests.scala:1217
CREATE TABLE delta_test(a LONG, b String)
USING delta LOCATION 'tempDir_getCanonicalPath'
TBLPROPERTIES('delta.key' = 'value')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaTableCreationTests.scala:1232
CREATE TABLE delta_test(a LONG, b String)
USING delta LOCATION 'tempDir_getCanonicalPath'
TBLPROPERTIES('delta.randomPrefixLength' = '-1')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaTableCreationTests.scala:1241
CREATE TABLE delta_test(a LONG, b String)
USING delta LOCATION 'tempDir_getCanonicalPath'
TBLPROPERTIES('delta.randomPrefixLength' = 'value')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaTableCreationTests.scala:1265
CREATE TABLE delta_test(a LONG, b String)
USING delta LOCATION 'tempDir_getCanonicalPath'
TBLPROPERTIES('delta.randomizeFilePrefixes' = 'true')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaTableCreationTests.scala:1319
CREATE TABLE t(a int, b int) USING delta LOCATION 'dir_getAbsolutePath'
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaTableCreationTests.scala:1324
INSERT INTO TABLE t SELECT 1, 2
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaTableCreationTests.scala:1328
SELECT * FROM t
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaTableCreationTests.scala:1336
CREATE TABLE t1(a int, b int) USING delta PARTITIONED BY(a)
LOCATION 'dir_getAbsolutePath'
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaTableCreationTests.scala:1364
CREATE TABLE t
USING delta
LOCATION 'dir_getAbsolutePath'
AS SELECT 3 as a, 4 as b, 1 as c, 2 as d
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaTableCreationTests.scala:1402
CREATE TABLE t1
USING delta
PARTITIONED BY(a, b)
LOCATION 'dir_getAbsolutePath'
AS SELECT 3 as a, 4 as b, 1 as c, 2 as d
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaTableCreationTests.scala:1444
CREATE TABLE delta_test
USING delta
TBLPROPERTIES(
  'delta.logRetentionDuration' = '2 weeks',
  'delta.checkpointInterval' = '20',
  'key' = 'value'
)
AS SELECT 3 as a, 4 as b, 1 as c, 2 as d
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaTableCreationTests.scala:1470
CREATE TABLE delta_test
USING delta
TBLPROPERTIES(
  'dEltA.lOgrEteNtiOndURaTion' = '2 weeks',
  'DelTa.ChEckPoiNtinTervAl' = '20'
)
AS SELECT 3 as a, 4 as b, 1 as c, 2 as d
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaTableCreationTests.scala:1498
CREATE TABLE t
USING delta
LOCATION 'dir_getAbsolutePath'
AS SELECT 1 as a, 2 as b
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaTableCreationTests.scala:1529
CREATE TABLE delta_test
USING delta
LOCATION 'tempDir_getCanonicalPath'
TBLPROPERTIES('delta.key' = 'value')
AS SELECT 3 as a, 4 as b, 1 as c, 2 as d
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaTableCreationTests.scala:1548
CREATE TABLE delta_test
USING delta
LOCATION 'tempDir_getCanonicalPath'
TBLPROPERTIES('delta.randomPrefixLength' = '-1')
AS SELECT 3 as a, 4 as b, 1 as c, 2 as d
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaTableCreationTests.scala:1561
CREATE TABLE delta_test
USING delta
LOCATION 'tempDir_getCanonicalPath'
TBLPROPERTIES('delta.randomPrefixLength' = 'value')
AS SELECT 3 as a, 4 as b, 1 as c, 2 as d
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaTableCreationTests.scala:1584
CREATE TABLE t(a string, `specialChars` string)
USING delta
PARTITIONED BY(`specialChars`)
LOCATION 'dir_getAbsolutePath'
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaTableCreationTests.scala:1618
CREATE TABLE t(a string)
USING delta
LOCATION 'escapedLoc'
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaTableCreationTests.scala:1630
INSERT INTO TABLE t SELECT 1
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaTableCreationTests.scala:1641
CREATE TABLE t1(a string, b string)
USING delta
PARTITIONED BY(b)
LOCATION 'escapedLoc'
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaTableCreationTests.scala:1654
INSERT INTO TABLE t1 SELECT 1, 2
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaTableCreationTests.scala:1670
INSERT INTO TABLE t1 SELECT 1, '2017-03-03 12:13%3A14'
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaTableCreationTests.scala:1701
CREATE TABLE t(a string)
USING delta
LOCATION 'escapedDir'
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaTableCreationTests.scala:1718
CREATE TABLE t1(a string, b string)
USING delta
PARTITIONED BY(b)
LOCATION 'escapedDir'
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaTableCreationTests.scala:1747
INSERT INTO src SELECT 1, 'a'
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaTableCreationTests.scala:1750
CREATE TABLE t1 USING delta LOCATION 'path_getAbsolutePath'
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaTableCreationTests.scala:1763
CREATE TABLE t3(i int, p string) USING delta LOCATION 'path_getAbsolutePath'
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaTableCreationTests.scala:1769
CREATE TABLE t4(j int, p string) USING delta LOCATION 'path_getAbsolutePath'
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaTableCreationTests.scala:1799
CREATE TABLE table USING delta LOCATION 'path'
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaTableCreationTests.scala:1844
REPLACE TABLE delta_test (col string)
USING delta
LOCATION 'dir_getAbsolutePath'
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaTableCreationTests.scala:1855
REPLACE TABLE delta_test
USING delta
LOCATION 'dir_getAbsolutePath'
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaTableCreationTests.scala:1873
CREATE OR REPLACE TABLE delta_test
USING delta
LOCATION 'dir_getAbsolutePath'
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaTableCreationTests.scala:1921
CREATE TABLE table_1 (col string) USING delta LOCATION 'dir_getAbsolutePath'
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaTableCreationTests.scala:1936
DROP TABLE IF EXISTS emptyTableName
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaTableCreationTests.scala:1944
CREATE TABLE emptyTableName USING delta
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaTableCreationTests.scala:1949
CREATE TABLE IF NOT EXISTS emptyTableName USING delta
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaTableCreationTests.scala:1977
CREATE OR REPLACE TABLE emptySchemaTableName USING delta
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaTableCreationTests.scala:2010
CREATE TABLE emptySchemaTableName USING delta LOCATION 'dir_getAbsolutePath'
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaTableCreationTests.scala:2021
CREATE TABLE emptySchemaTableName USING delta AS SELECT * FROM empty_df
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaTableCreationTests.scala:2064
SELECT * FROM emptySchemaTableName
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaTableCreationTests.scala:2068
INSERT INTO emptySchemaTableName VALUES (1,2,3)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaTableCreationTests.scala:2081
CREATE TABLE emptySchemaTableName USING delta LOCATION 'dir_getCanonicalPath'
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaTableCreationTests.scala:2088
DROP TABLE emptySchemaTableName
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaTableCreationTests.scala:2119
CREATE TABLE emptyTableName USING delta AS SELECT 1
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaTableCreationTests.scala:2127
CREATE TABLE emptyTableName USING delta LOCATION 'dir_getAbsolutePath'
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaTableCreationTests.scala:2138
INSERT INTO emptyTableName VALUES (1,2,3)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaTableCreationTests.scala:2150
CREATE TABLE source USING delta AS SELECT 1
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaTableCreationTests.scala:2151
MERGE INTO emptyTableName
USING source
ON FALSE
WHEN NOT MATCHED
  THEN INSERT *
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaTableCreationTests.scala:2175
ALTER TABLE emptyTableName SET TBLPROPERTIES ('a' = 'b')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaTableCreationTests.scala:2180
COMMENT ON TABLE emptyTableName IS 'My Empty Cool Table'
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaTableCreationTests.scala:2181
DESCRIBE TABLE emptyTableName
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaTableCreationTests.scala:2191
ALTER TABLE emptyTableName ADD COLUMN (id long COMMENT 'haha')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaTableCreationTests.scala:2196
ALTER TABLE emptyTableName ADD COLUMNS (id long, id2 long)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaTableCreationTests.scala:2249
CREATE TABLE table_1 (col string)
USING delta
COMMENT 'This is my table'
LOCATION 'dir_getAbsolutePath'
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaTableCreationTests.scala:2269
CREATE TABLE table_1 (col string) USING delta COMMENT 'Table' LOCATION 'location'
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaTableCreationTests.scala:2270
REPLACE TABLE table_1 (col string) USING delta LOCATION 'location'
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaTableCreationTests.scala:2284
CREATE TABLE table_1 (col string) USING delta LOCATION 'location'
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaTableCreationTests.scala:2285
REPLACE TABLE table_1 (col string)
USING delta
COMMENT 'This is my table'
LOCATION 'location'
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaTableCreationTests.scala:2303
CREATE TABLE table_1 USING delta AS SELECT * FROM range(10)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaTableCreationTests.scala:2314
CREATE TABLE table_1
USING delta
COMMENT 'This table is created with existing data'
AS SELECT * FROM range(10)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaTableCreationTests.scala:2336
REPLACE TABLE table_1 USING delta AS SELECT * FROM range(10)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaTableCreationTests.scala:2347
CREATE TABLE table_1 USING delta COMMENT 'a' AS SELECT * FROM range(10)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaTableCreationTests.scala:2348
REPLACE TABLE table_1
USING delta
COMMENT 'This table is created with existing data'
AS SELECT * FROM range(10)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaTableCreationTests.scala:2465
create table t1
(colourID string, colourName varchar(128), colourGroupID string)
USING delta LOCATION 'location'
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaTableCreationTests.scala:2469
insert into t1 (colourID, colourName, colourGroupID)
values ('1', 'RED', 'a'), ('2', 'BLUE', 'b')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaTableCreationTests.scala:2474
create table t2
(colourID string, colourName varchar(128), colourGroupID string)
USING delta LOCATION 'location'
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaTableCreationTests.scala:2479
select * from t2 order by colourID
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaTableCreationTests.scala:2504
INSERT INTO tbl VALUES ('1')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaTableCreationTests.scala:2524
INSERT INTO tbl VALUES ('21')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaTableCreationTests.scala:2525
SELECT * FROM tbl
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaTableCreationTests.scala:2541
CREATE TABLE testTableName (id INT, column_with_default INT DEFAULT 1)
USING DELTA
TBLPROPERTIES('delta.feature.allowColumnDefaults' = 'supported')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaTableCreationTests.scala:2560
ALTER TABLE testTableName ALTER COLUMN id SET DEFAULT 2
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaTableCreationTests.scala:2561
ALTER TABLE testTableName CLUSTER BY (id)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaTableCreationTests.scala:2562
COMMENT ON TABLE testTableName IS 'test comment'
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaTableCreationTests.scala:2563
INSERT INTO testTableName VALUES (1, 1)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaTableCreationTests.scala:2584
CREATE TABLE test_table(int_with_default INT DEFAULT 2)
USING DELTA
TBLPROPERTIES('delta.feature.allowColumnDefaults' = 'supported')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaTableCreationTests.scala:2589
CREATE OR REPLACE TABLE test_table(int_with_default INT DEFAULT 2)
USING DELTA
TBLPROPERTIES('delta.feature.allowColumnDefaults' = 'supported')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaTableCreationTests.scala:2595
CREATE TABLE test_table(id INT) USING DELTA
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaTableCreationTests.scala:2597
REPLACE TABLE test_table(int_with_default INT DEFAULT 2)
USING DELTA
TBLPROPERTIES ('delta.feature.allowColumnDefaults'= 'supported')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaTableCreationTests.scala:2628
CREATE TABLE targetTableName SHALLOW CLONE testTableName
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaTableCreationTests.scala:2640
ALTER TABLE test_table ADD COLUMN new_column_with_a_default INT DEFAULT 1
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaTableCreationTests.scala:2642
CONVERT TO DELTA test_table
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaTableCreationTests.scala:2656
CREATE TABLE test_table(int_col INT DEFAULT 2)
USING DELTA
TBLPROPERTIES ('delta.feature.allowColumnDefaults' = 'supported')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaTableCreationTests.scala:2689
ALTER TABLE test_table ADD COLUMN new_column_with_a_default INT DEFAULT 0
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaTableCreationTests.scala:2695
CREATE TABLE test_table_2 USING DELTA AS SELECT * FROM test_table
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaTableCreationTests.scala:2701
CREATE TABLE test_table_3
USING DELTA
TBLPROPERTIES ('delta.feature.allowColumnDefaults' = 'supported')
AS SELECT * FROM test_table
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaTableCreationTests.scala:2710
ALTER TABLE test_table ALTER COLUMN int_col DROP DEFAULT
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaTableCreationTests.scala:2711
CREATE TABLE test_table_4 USING DELTA AS SELECT * FROM test_table
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaTableCreationTests.scala:2722
CREATE TABLE tbl (
  id INT,
  str_col STRING DEFAULT 'hello',
  int_col INT DEFAULT 42,
  long_col BIGINT DEFAULT 1234567890123,
  bool_col BOOLEAN DEFAULT true,
  double_col DOUBLE DEFAULT 3.14,
  decimal_col DECIMAL(5, 2) DEFAULT 9.99,
  date_col DATE DEFAULT DATE'2024-01-01',
  arr_col ARRAY<INT> DEFAULT ARRAY(1, 2, 3),
  map_col MAP<STRING, INT> DEFAULT MAP('a', 1, 'b', 2),
  struct_col STRUCT<x: INT, y: STRING> DEFAULT NAMED_STRUCT('x', 7, 'y', 'foo')
)
USING DELTA
TBLPROPERTIES ('delta.feature.allowColumnDefaults' = 'supported')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaTableCreationTests.scala:2740
INSERT INTO tbl (id) VALUES (1)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaTableUtilsSuite.scala:41
CREATE TABLE myTable (id INT) USING DELTA LOCATION 'dir_getAbsolutePath'
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaUpdateCatalogSuite.scala:274
ALTER TABLE tbl ADD COLUMNS (id3 bigint)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaUpdateCatalogSuite.scala:536
ALTER TABLE tbl SET TBLPROPERTIES(some.key = 1, another.key = 2)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaUpdateCatalogSuite.scala:552
ALTER TABLE tbl UNSET TBLPROPERTIES(another.key)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaUpdateCatalogSuite.scala:565
ALTER TABLE tbl SET TBLPROPERTIES(a.third.key = 3)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaUpdateCatalogSuiteBase.scala:47
DROP TABLE IF EXISTS tbl
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaUpdateCatalogSuiteBase.scala:167
MERGE INTO tbl t
USING tmp s
ON t.id = s.id
WHEN NOT MATCHED THEN INSERT *
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaUpdateCatalogSuiteBase.scala:216
CREATE TABLE tbl USING delta LOCATION 'dir_getCanonicalPath'
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaUpdateCatalogSuiteBase.scala:242
ALTER TABLE tbl ADD COLUMNS (id2 bigint)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaUpdateCatalogSuiteBase.scala:255
ALTER TABLE tbl SET TBLPROPERTIES ('some' = 'thing', 'other' = 'thing')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaUpdateCatalogSuiteBase.scala:256
ALTER TABLE tbl UNSET TBLPROPERTIES ('other')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaUpdateCatalogSuiteBase.scala:257
ALTER TABLE tbl ADD COLUMNS (id2 bigint, id3 bigint)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaUpdateCatalogSuiteBase.scala:258
ALTER TABLE tbl CHANGE COLUMN id2 id2 bigint FIRST
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaUpdateCatalogSuiteBase.scala:259
ALTER TABLE tbl REPLACE COLUMNS (id3 bigint, id2 bigint, id bigint)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaUpdateCatalogSuiteBase.scala:260
ALTER TABLE tbl ADD CONSTRAINT id_3 CHECK (id3 > 10)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaUpdateCatalogSuiteBase.scala:261
ALTER TABLE tbl DROP CONSTRAINT id_3
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaUpdateCatalogSuiteBase.scala:283
CREATE TABLE tbl (id bigint) USING delta
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaUpdateCatalogSuiteBase.scala:297
ALTER TABLE tbl SET TBLPROPERTIES(some.key = 1)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaUpdateCatalogSuiteBase.scala:309
REORG TABLE tbl APPLY (PURGE)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaVacuumSuite.scala:410
SELECT * FROM delta.`dir_getAbsolutePath`
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaVacuumSuite.scala:415
VACUUM 'dir_getAbsolutePath' RETAIN 100 HOURS
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaVacuumSuite.scala:421
VACUUM 'dir_getAbsolutePath' RETAIN 0 HOURS
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaVacuumSuite.scala:752
vacuum delta.`path` using inventory delta.`inventoryPath` retain 0 hours
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaVacuumSuite.scala:802
vacuum delta.`path`
using inventory (select * from delta.`reservoirPath`)
retain 0 hours
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaVacuumSuite.scala:1033
vacuum 'path/v2=a' retain 0 hours
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaVacuumSuite.scala:1049
VACUUM delta.`targetLog_dataPath` RETAIN 0 HOURS
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaVacuumSuite.scala:1066
DELETE from tableName WHERE ID % 2 = 0 and ID < 40
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaVacuumSuite.scala:1124
REORG TABLE tableName APPLY (PURGE)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaVacuumSuite.scala:1174
DELETE FROM tableName WHERE id < 10
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaVacuumSuite.scala:1238
SELECT * FROM tableName VERSION AS OF 2
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaVacuumSuite.scala:1247
SELECT * FROM tableName VERSION AS OF 3
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaVacuumSuite.scala:1256
SELECT * FROM tableName VERSION AS OF 4
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DeltaVacuumSuite.scala:1293
select count(*) from delta.`targetDir`
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DescribeDeltaDetailSuite.scala:100
CREATE TABLE describe_detail(column1 INT, column2 INT)
USING parquet
PARTITIONED BY (column1)
COMMENT "this is a table comment"
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DescribeDeltaDetailSuite.scala:107
INSERT INTO describe_detail VALUES(1, 1)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DescribeDeltaDetailSuite.scala:113
DESCRIBE DETAIL describe_detail
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DescribeDeltaDetailSuite.scala:128
DESCRIBE DETAIL 'tempDir'
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DescribeDeltaDetailSuite.scala:144
CREATE TABLE describe_detail(column1 INT, column2 INT)
USING delta
PARTITIONED BY (column1)
COMMENT "describe a non delta table"
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DescribeDeltaDetailSuite.scala:174
CREATE TABLE tblName1 USING DELTA LOCATION 'tempDir'
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DescribeDeltaDetailSuite.scala:175
CREATE TABLE tblName2 USING DELTA LOCATION 'tempDir'
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DescribeDeltaDetailSuite.scala:185
DESCRIBE DETAIL delta.`tempDir`
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DescribeDeltaDetailSuite.scala:210
CREATE VIEW view_1 AS SELECT 1
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DescribeDeltaDetailSuite.scala:220
CREATE TABLE tableName USING DELTA LOCATION 'tempDir'
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DescribeDeltaDetailSuite.scala:258
DESCRIBE DETAIL t1
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DescribeDeltaDetailSuite.scala:285
CREATE TABLE tblName(id INT) USING delta
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DescribeDeltaDetailSuite.scala:339
ALTER TABLE testTable CLUSTER BY NONE
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DescribeDeltaDetailSuite.scala:347
CREATE TABLE testTable (col1 STRING, col2 INT) USING delta CLUSTER BY (col1, col2)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DescribeDeltaDetailSuite.scala:351
ALTER TABLE testTable RENAME COLUMN col2 TO new_col_name
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DescribeDeltaHistorySuite.scala:96
DESCRIBE HISTORY delta.`basePath` LIMIT 1
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DescribeDeltaHistorySuite.scala:259
DESCRIBE HISTORY delta.`tempDir`
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DescribeDeltaHistorySuite.scala:263
DESCRIBE HISTORY delta.`tempDir` LIMIT 1
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DescribeDeltaHistorySuite.scala:269
DESCRIBE HISTORY 'tempDir'
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DescribeDeltaHistorySuite.scala:273
DESCRIBE HISTORY 'tempDir' LIMIT 1
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DescribeDeltaHistorySuite.scala:284
DESCRIBE HISTORY delta_test
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DescribeDeltaHistorySuite.scala:288
DESCRIBE HISTORY delta_test LIMIT 1
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DescribeDeltaHistorySuite.scala:340
create view viewName as select * from delta.`tempDir`
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DescribeDeltaHistorySuite.scala:370
create table delta_test (
  a int,
  b string
)
using delta
partitioned by (b)
comment 'this is my table'
tblproperties (delta.appendOnly=true)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DescribeDeltaHistorySuite.scala:413
create table delta_test
using delta
location 'tempDir'
tblproperties (delta.appendOnly=true)
partitioned by (b)
as select 1 as a, 'x' as b
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DescribeDeltaHistorySuite.scala:433
create table delta_test
using delta
location 'tempDir2'
comment 'this is my table'
as select 1 as a, 'x' as b
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DescribeDeltaHistorySuite.scala:456
CREATE TABLE delta_test (v1 int, v2 string) USING delta
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DescribeDeltaHistorySuite.scala:458
ALTER TABLE delta_test
SET TBLPROPERTIES (
  'delta.checkpointInterval' = '20',
  'key' = 'value'
)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DescribeDeltaHistorySuite.scala:471
ALTER TABLE delta_test UNSET TBLPROPERTIES ('key')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DescribeDeltaHistorySuite.scala:485
ALTER TABLE delta_test ADD COLUMNS (v3 long, v4 int AFTER v1)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DescribeDeltaHistorySuite.scala:501
ALTER TABLE delta_test CHANGE COLUMN v1 v1 integer AFTER v2
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DescribeDeltaHistorySuite.scala:729
describe history 'basePath'
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DescribeDeltaHistorySuite.scala:1157
DESCRIBE HISTORY delta.`path`
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DescribeDeltaHistorySuite.scala:1195
CREATE TABLE tblName(id bigint) USING DELTA
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DescribeDeltaHistorySuite.scala:1795
RESTORE TABLE delta.`dir_getAbsolutePath` VERSION AS OF 0
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DescribeDeltaHistorySuite.scala:1822
DELETE FROM delta.`dir_getAbsolutePath`
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DescribeDeltaHistorySuite.scala:1828
RESTORE TABLE delta.`dir_getAbsolutePath` VERSION AS OF 3
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DescribeDeltaHistorySuite.scala:1996
CREATE OR REPLACE TABLE tbl USING delta AS SELECT id FROM range(3)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/DescribeDeltaHistorySuite.scala:2273
CREATE OR REPLACE TABLE delta.`path`
        USING delta
        PARTITIONED BY (part)
        AS SELECT 7 as id, 1 as part, 'event7' as event_name
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/FeatureEnablementConcurrencySuite.scala:72
DROP TABLE IF EXISTS testTableName
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/FeatureEnablementConcurrencySuite.scala:609
DELETE FROM testTableName WHERE idCol = 90
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/FeatureEnablementConcurrencySuite.scala:945
ALTER TABLE testTableName SET TBLPROPERTIES (
  'ENABLED_key' = 'true',
  'INTERVAL_key' = '20'
)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/GeneratedColumnCompatibilitySuite.scala:87
CREATE TABLE generated_columns_table(
c1 INT,
c2 INT
) USING DELTA
LOCATION 'normalTablePath'
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/GeneratedColumnCompatibilitySuite.scala:112
INSERT INTO delta.`tablePath`VALUES(1, 10)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/GeneratedColumnCompatibilitySuite.scala:115
INSERT INTO delta.`tablePath`(c2, c1) VALUES(11, 1)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/GeneratedColumnCompatibilitySuite.scala:118
INSERT OVERWRITE delta.`tablePath`VALUES(1, 13)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/GeneratedColumnCompatibilitySuite.scala:121
INSERT OVERWRITE delta.`tablePath`(c2, c1) VALUES(14, 1)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/GeneratedColumnCompatibilitySuite.scala:142
ALTER TABLE delta.`path` ADD COLUMNS (c3 INT)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/GeneratedColumnCompatibilitySuite.scala:154
ALTER TABLE delta.`path` SET TBLPROPERTIES ('delta.minWriterVersion'='4')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/GeneratedColumnSuite.scala:115
ALTER TABLE table_1 SET TBLPROPERTIES ('delta.columnMapping.mode' = 'name')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/GeneratedColumnSuite.scala:116
ALTER TABLE table_1 DROP COLUMN c0_g
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/GeneratedColumnSuite.scala:122
select * from table_1
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/GeneratedColumnSuite.scala:357
DELETE FROM table_1 WHERE c1 = 2
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/GeneratedColumnSuite.scala:365
UPDATE table_1 SET c2_g = 11 WHERE c1 = 1
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/GeneratedColumnSuite.scala:375
UPDATE table_1 SET c2_g = 12 WHERE c1 = 1
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/GeneratedColumnSuite.scala:387
UPDATE table_1 SET c1 = 2 WHERE c1 = 1
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/GeneratedColumnSuite.scala:395
UPDATE table_1 SET c2_g = 12, c1 = 2 WHERE c1 = 1
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/GeneratedColumnSuite.scala:405
UPDATE table_1 SET c2_g = 12, c1 = 3 WHERE c1 = 1
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/GeneratedColumnSuite.scala:419
INSERT INTO table_1 VALUES(10, 20)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/GeneratedColumnSuite.scala:420
UPDATE table_1 SET c = 20
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/GeneratedColumnSuite.scala:422
UPDATE delta.`path` SET c = 30
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/GeneratedColumnSuite.scala:435
INSERT INTO table_1 VALUES(10, 50, 20)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/GeneratedColumnSuite.scala:436
UPDATE table_1 SET c1 = 20
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/GeneratedColumnSuite.scala:438
UPDATE table_1 SET c1 = c2 + 100, c2 = 1000
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/GeneratedColumnSuite.scala:440
UPDATE table_1 SET c1 = c2 + g
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/GeneratedColumnSuite.scala:442
UPDATE table_1 SET c1 = g
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/GeneratedColumnSuite.scala:454
INSERT INTO table_1 VALUES(struct(10, 'foo'), 20)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/GeneratedColumnSuite.scala:455
UPDATE table_1 SET s.s1 = 20 WHERE s.s1 = 10
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/GeneratedColumnSuite.scala:464
CREATE TEMP VIEW test_view AS SELECT * FROM table_1
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/GeneratedColumnSuite.scala:466
UPDATE test_view SET c1 = 2 WHERE c1 = 1
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/GeneratedColumnSuite.scala:546
INSERT INTO table_1 VALUES(1, 12)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/GeneratedColumnSuite.scala:556
INSERT INTO table_1 VALUES(1, 11)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/GeneratedColumnSuite.scala:557
INSERT INTO table_1 VALUES(2, 12)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/GeneratedColumnSuite.scala:558
SELECT * FROM table_1
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/GeneratedColumnSuite.scala:632
INSERT INTO table_1 (`current_date`) VALUES (10)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/GeneratedColumnSuite.scala:808
SELECT * from table_1
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/GeneratedColumnSuite.scala:818
INSERT INTO table_1 VALUES('x', 'xy')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/GeneratedColumnSuite.scala:819
INSERT INTO table_1 VALUES(null, null)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/GeneratedColumnSuite.scala:826
INSERT INTO table_1 VALUES('foo', null)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/GeneratedColumnSuite.scala:833
INSERT INTO table_1 VALUES(null, 'foo')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/GeneratedColumnSuite.scala:973
INSERT INTO table_1 VALUES(2, 1)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/GeneratedColumnSuite.scala:1300
INSERT INTO src values (1, 3, 4)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/GeneratedColumnSuite.scala:1302
INSERT INTO tgt values (1, 2, 3)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/GeneratedColumnSuite.scala:1303
MERGE INTO tgt
USING src
on tgt.c1 = src.c1
WHEN MATCHED THEN UPDATE SET tgt.c2 = src.c2
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/GeneratedColumnSuite.scala:1310
SELECT * FROM tgt
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/GeneratedColumnSuite.scala:1324
MERGE INTO tgt
USING src
on tgt.c1 = src.c1
WHEN MATCHED THEN UPDATE SET tgt.c2 = src.c2, tgt.c3 = src.c3
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/GeneratedColumnSuite.scala:1342
INSERT INTO src values (1, 4, 5)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/GeneratedColumnSuite.scala:1345
MERGE INTO tgt
USING src
on tgt.c1 = src.c1
WHEN MATCHED THEN UPDATE SET *
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/GeneratedColumnSuite.scala:1364
INSERT INTO src values (1, 20, 40)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/GeneratedColumnSuite.scala:1390
MERGE INTO tgt
USING src
on tgt.c1 = src.c1
WHEN MATCHED THEN UPDATE SET tgt.c2 = tgt.c3
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/GeneratedColumnSuite.scala:1411
MERGE INTO tgt
USING src
on tgt.c1 = src.c1
WHEN MATCHED THEN UPDATE SET tgt.c2 = tgt.c3 + src.c3
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/GeneratedColumnSuite.scala:1432
MERGE INTO tgt
USING src
on tgt.c1 = src.c1
WHEN MATCHED THEN UPDATE SET tgt.c2 = null
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/GeneratedColumnSuite.scala:1453
MERGE INTO tgt
USING src
on tgt.c1 = src.c1
WHEN MATCHED THEN UPDATE
  SET tgt.c2 = src.c1 * 10, tgt.c1 = tgt.c1 * 100
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/GeneratedColumnSuite.scala:1475
MERGE INTO tgt
USING (SELECT c1, max(c3) + min(c2) AS m FROM src GROUP BY c1) source
on tgt.c1 = source.c1
WHEN MATCHED THEN UPDATE SET tgt.c2 = source.m
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/GeneratedColumnSuite.scala:1497
CREATE TEMP VIEW test_temp_view AS SELECT c1 as c2, c2 as c1, c3 FROM tgt
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/GeneratedColumnSuite.scala:1499
MERGE INTO test_temp_view
USING src
on test_temp_view.c2 = src.c1
WHEN MATCHED THEN UPDATE SET test_temp_view.c1 = src.c2
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/GeneratedColumnSuite.scala:1516
INSERT INTO src values (2, 3, 4)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/GeneratedColumnSuite.scala:1519
MERGE INTO tgt
USING src
on tgt.c1 = src.c1
WHEN NOT MATCHED THEN INSERT *
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/GeneratedColumnSuite.scala:1537
INSERT INTO src values (2, 3, 5)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/GeneratedColumnSuite.scala:1628
MERGE INTO tgt
USING src
on tgt.c1 = src.c1
WHEN NOT MATCHED THEN INSERT (c1) VALUES (src.c1)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/GeneratedColumnSuite.scala:1649
MERGE INTO tgt
USING src
on tgt.c1 = src.c1
WHEN NOT MATCHED THEN INSERT (c1) VALUES (3)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/GeneratedColumnSuite.scala:1670
MERGE INTO tgt
USING src
on tgt.c1 = src.c1
WHEN NOT MATCHED THEN INSERT (c2) VALUES (10)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/GeneratedColumnSuite.scala:1691
MERGE INTO tgt
USING src
on tgt.c1 = src.c1
WHEN NOT MATCHED THEN INSERT (c2) VALUES (null)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/GeneratedColumnSuite.scala:1712
MERGE INTO tgt
USING src
on tgt.c1 = src.c1
WHEN NOT MATCHED THEN INSERT (c2) VALUES (5)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/GeneratedColumnSuite.scala:1734
MERGE INTO tgt
USING src
on tgt.c1 = src.c1
WHEN NOT MATCHED THEN INSERT (c3) VALUES (10)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/GeneratedColumnSuite.scala:1753
MERGE INTO tgt
USING src
on tgt.c1 = src.c1
WHEN NOT MATCHED THEN INSERT (c2, c3) VALUES (src.c2, src.c3)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/GeneratedColumnSuite.scala:1791
INSERT INTO src values (1, 11, 12), (2, 3, 4), (3, 20, 21), (4, 5, 6), (5, 6, 7)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/GeneratedColumnSuite.scala:1793
INSERT INTO tgt values (1, 2, 3), (2, 100, 101)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/GeneratedColumnSuite.scala:1794
MERGE INTO tgt
USING src
on tgt.c1 = src.c1
WHEN MATCHED AND src.c1 = 1 THEN UPDATE SET tgt.c2 = 100
WHEN MATCHED THEN UPDATE SET *
WHEN NOT MATCHED AND src.c1 = 4 THEN INSERT (c1, c2) values (src.c1, 22)
WHEN NOT MATCHED AND src.c1 = 5 THEN INSERT (c1, c2) values (5, src.c3)
WHEN NOT MATCHED THEN INSERT *
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/GeneratedColumnSuite.scala:1821
MERGE INTO tgt
USING src
on tgt.c1 = src.c1
WHEN MATCHED AND src.c1 = 1 THEN UPDATE SET tgt.c2 = 100
WHEN MATCHED THEN UPDATE SET *
WHEN NOT MATCHED AND src.c1 = 4 THEN INSERT (c1, c2) values (src.c1, 22)
WHEN NOT MATCHED AND src.c1 = 5 THEN INSERT (c1, c2) values (5, src.c4)
WHEN NOT MATCHED THEN INSERT *
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/GeneratedColumnSuite.scala:1856
INSERT INTO tgt values (1, 2, 1), (2, 100, 2)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/GeneratedColumnSuite.scala:1857
MERGE INTO tgt
USING src
on tgt.c1 = src.c1
WHEN MATCHED AND src.c1 = 1 THEN UPDATE SET tgt.c2 = 100
WHEN MATCHED THEN UPDATE SET *
WHEN NOT MATCHED AND src.c1 = 4 THEN INSERT (c1, c2) values (src.c1, 22)
WHEN NOT MATCHED AND src.c1 = 5 THEN INSERT (c1) values (5)
WHEN NOT MATCHED THEN INSERT *
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/GeneratedColumnSuite.scala:1893
INSERT INTO src values (2, 4)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/GeneratedColumnSuite.scala:1901
INSERT INTO tgt values (1, 2)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/GeneratedColumnSuite.scala:1904
MERGE INTO tgt
USING src
on tgt.c1 = src.c1
WHEN NOT MATCHED THEN INSERT (c1, C2) VALUES (src.c1, src.c2)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/GeneratedColumnSuite.scala:1933
INSERT INTO src VALUES (2, 4)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/GeneratedColumnSuite.scala:1941
INSERT INTO tgt VALUES (1, 2, 3)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/GeneratedColumnSuite.scala:1944
MERGE INTO tgt
USING src
ON tgt.c1 = src.c1
WHEN NOT MATCHED THEN INSERT (c1, c2, C2)
VALUES (src.c1, src.c2, src.c2)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/GeneratedColumnSuite.scala:2023
INSERT INTO tgt VALUES (1, 2)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/GeneratedColumnSuite.scala:2071
DELETE FROM tableName1 WHERE id < 3
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/GeneratedColumnSuite.scala:2220
MERGE INTO tableName AS TARGET
USING (SELECT id as c1, cast(id AS CHAR(5)) as c2 FROM RANGE(10)) AS SOURCE
ON TARGET.c1 = SOURCE.c1
WHEN MATCHED THEN UPDATE SET c1 = SOURCE.c1, c2 = SOURCE.c2
WHEN NOT MATCHED THEN INSERT (c1, c2) VALUES (SOURCE.c1, SOURCE.c2)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/GeneratedColumnSuite.scala:2228
UPDATE tableName SET c2 = 'upd' WHERE c1 = 1
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/HiveConvertToDeltaSuite.scala:56
CREATE TABLE tbl (id int, str string)
PARTITIONED BY (part string)
STORED AS PARQUET
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/HiveConvertToDeltaSuite.scala:63
insert into tbl VALUES (1, 'a', 1)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/HiveConvertToDeltaSuite.scala:122
select * from delta.`getPathForTableName_tbl`
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/HiveConvertToDeltaSuite.scala:135
CREATE EXTERNAL TABLE tbl (id int, str string)
PARTITIONED BY (part string)
STORED AS PARQUET
LOCATION 'dir_getCanonicalPath'
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/HiveConvertToDeltaSuite.scala:151
select * from delta.`dir_getCanonicalPath`
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/IdentityColumnAdmissionSuite.scala:94
ALTER TABLE tblName SET TBLPROPERTIES ('delta.columnMapping.mode' = 'name')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/IdentityColumnAdmissionSuite.scala:95
INSERT INTO tblName (value) VALUES (1)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/IdentityColumnAdmissionSuite.scala:96
INSERT INTO tblName (value) VALUES (2)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/IdentityColumnAdmissionSuite.scala:97
SELECT id, value FROM tblName
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/IdentityColumnAdmissionSuite.scala:99
ALTER TABLE tblName RENAME COLUMN id TO id2
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/IdentityColumnAdmissionSuite.scala:100
INSERT INTO tblName (value) VALUES (0)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/IdentityColumnAdmissionSuite.scala:101
SELECT id2, value FROM tblName
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/IdentityColumnAdmissionSuite.scala:111
ALTER TABLE tblName ALTER COLUMN id SET DEFAULT 1
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/IdentityColumnAdmissionSuite.scala:122
ALTER TABLE tblName ALTER COLUMN id AFTER value
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/IdentityColumnAdmissionSuite.scala:127
ALTER TABLE tblName ALTER COLUMN id FIRST
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/IdentityColumnAdmissionSuite.scala:128
INSERT INTO tblName (value) VALUES (3)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/IdentityColumnAdmissionSuite.scala:139
ALTER TABLE tblName REPLACE COLUMNS (id BIGINT, value INT)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/IdentityColumnAdmissionSuite.scala:227
INSERT INTO tblName (value) VALUES (1), (2)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/IdentityColumnAdmissionSuite.scala:228
CREATE TABLE ctasTblName USING delta AS SELECT * FROM tblName
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/IdentityColumnAdmissionSuite.scala:322
CREATE TABLE source (
  value INT,
  id BIGINT
) USING delta
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/IdentityColumnAdmissionSuite.scala:329
INSERT INTO source VALUES (1, 100), (2, 200), (3, 300)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/IdentityColumnAdmissionSuite.scala:333
INSERT INTO target(value) VALUES (2), (3), (4)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/IdentityColumnDMLSuite.scala:46
SELECT MAX(id) FROM tblName
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/IdentityColumnDMLSuite.scala:47
DELETE FROM tblName WHERE value = 1
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/IdentityColumnDMLSuite.scala:49
SELECT COUNT(*) FROM tblName
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/IdentityColumnDMLSuite.scala:52
DELETE FROM tblName
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/IdentityColumnDMLSuite.scala:93
SELECT id FROM target WHERE value in (2, 3)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/IdentityColumnDMLSuite.scala:95
MERGE INTO target
  USING source on target.value = source.value
  WHEN MATCHED THEN UPDATE SET target.value = source.value2
  WHEN NOT MATCHED THEN INSERT (value) VALUES (source.value2)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/IdentityColumnDMLSuite.scala:105
SELECT id FROM target WHERE value in (200, 300)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/IdentityColumnDMLSuite.scala:109
SELECT id FROM target WHERE value in (100, 300, 4)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/IdentityColumnDMLSuite.scala:112
MERGE INTO target
  USING source on target.value = source.value
  WHEN MATCHED AND source.value = 200 THEN DELETE
  WHEN MATCHED THEN UPDATE SET target.value = source.value2
  WHEN NOT MATCHED THEN INSERT (value) VALUES (source.value2)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/IdentityColumnDMLSuite.scala:123
SELECT id FROM target WHERE value in (100, 300, 400)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/IdentityColumnDMLSuite.scala:148
INSERT INTO source VALUES (4, 44), (9, 99)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/IdentityColumnDMLSuite.scala:162
INSERT INTO target (id2, value) VALUES(1, 1), (4, 4), (7, 7), (10, 10)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/IdentityColumnDMLSuite.scala:165
SELECT id FROM target WHERE id2 in (1, 4, 7, 10)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/IdentityColumnDMLSuite.scala:166
MERGE INTO target
  USING source on target.id2 = source.id2
  WHEN NOT MATCHED THEN INSERT *
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/IdentityColumnDMLSuite.scala:177
SELECT COUNT(DISTINCT id) == COUNT(*) FROM target
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/IdentityColumnDMLSuite.scala:181
SELECT id FROM target WHERE id2 in (1, 4, 7, 9, 10)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/IdentityColumnDMLSuite.scala:184
MERGE INTO target
  USING source on target.id2 = source.id2
  WHEN MATCHED THEN UPDATE SET target.value = source.value2
  WHEN NOT MATCHED THEN INSERT *
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/IdentityColumnDMLSuite.scala:219
DROP TABLE IF EXISTS tgt
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/IdentityColumnDMLSuite.scala:246
MERGE INTO tgt tgt USING src src
 ON src.col1 = tgt.col1
 WHEN MATCHED
   THEN UPDATE SET tgt.col1 = 100
 WHEN NOT MATCHED THEN INSERT (tgt.col1) VALUES (src.col1)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/IdentityColumnDMLSuite.scala:265
SELECT COUNT(DISTINCT id) == COUNT(*) FROM tgt
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/IdentityColumnDMLSuite.scala:315
INSERT INTO tgt (col1, col2) VALUES (5, 100), (6, 101)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/IdentityColumnDMLSuite.scala:317
MERGE INTO tgt tgt USING src src
 ON src.col1 = tgt.col1
 WHEN MATCHED AND tgt.col1 == 5
   THEN UPDATE SET tgt.col2 = src.col2
 WHEN NOT MATCHED AND src.col1 % 3 != 0
   THEN INSERT (tgt.col1, tgt.col2) VALUES (src.col1, src.col2)
 WHEN NOT MATCHED AND src.col1 % 3 == 0
   THEN INSERT (tgt.col1, tgt.col2) VALUES (src.col1, src.col2)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/IdentityColumnDMLSuite.scala:334
SELECT * FROM tgt WHERE id1 % 5 != 0
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/IdentityColumnDMLSuite.scala:335
SELECT * FROM tgt WHERE id2 % 3 != 0
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/IdentityColumnDMLSuite.scala:338
SELECT col1, col2 FROM tgt
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/IdentityColumnDMLSuite.scala:401
SELECT id FROM table_1 WHERE is_even = true
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/IdentityColumnDMLSuite.scala:433
SELECT id FROM table_1 WHERE is_odd = true
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/IdentityColumnDMLSuite.scala:503
MERGE INTO tgt target
USING src src ON target.value = src.value
WHEN MATCHED THEN UPDATE SET target.value = src.value
WHEN NOT MATCHED THEN INSERT (target.value) VALUES (src.value)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/IdentityColumnDMLSuite.scala:510
SELECT id, value
FROM tgt
ORDER BY id
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/IdentityColumnDMLSuite.scala:554
UPDATE tgt
SET value = value + 100
WHERE id < 3
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/IdentityColumnDMLSuite.scala:559
SELECT *
FROM tgt
ORDER BY id, value
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/IdentityColumnDMLSuite.scala:601
INSERT INTO tblName(id, value) VALUES (-5, -5), (-3, -3), (-1, -1)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/IdentityColumnDMLSuite.scala:604
INSERT INTO tblName(id, value) VALUES (-1, -1)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/IdentityColumnDMLSuite.scala:618
UPDATE tblName SET value = -3 WHERE id = -1
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/IdentityColumnIngestionSuite.scala:129
INSERT INTO tblName(value) SELECT value FROM tempTblName
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/IdentityColumnIngestionSuite.scala:167
MERGE INTO tblName
  USING tempTblName ON tblName.value = tempTblName.value
  WHEN NOT MATCHED THEN INSERT (value) VALUES (tempTblName.value)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/IdentityColumnIngestionSuite.scala:276
INSERT INTO tblName values(1,1)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/IdentityColumnIngestionSuite.scala:288
INSERT INTO tblName(value) VALUES (1)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/IdentityColumnIngestionSuite.scala:296
INSERT INTO tblName VALUES (1,1)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/IdentityColumnIngestionSuite.scala:319
MERGE INTO target
  USING source ON target.value = source.value2 + rand()
  WHEN NOT MATCHED THEN INSERT (value) VALUES (source.value2)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/IdentityColumnIngestionSuite.scala:328
MERGE INTO target
  USING source ON target.value = source.value2
  WHEN NOT MATCHED AND source.value2 = rand()
    THEN INSERT (value) VALUES (source.value2)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/IdentityColumnIngestionSuite.scala:392
INSERT INTO tgtTblName(id, value) SELECT * FROM srcTblName
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/IdentityColumnIngestionSuite.scala:396
INSERT INTO tgtTblName(id, value) VALUES (1, 100), (2, 101)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/IdentityColumnIngestionSuite.scala:398
INSERT INTO tgtTblName(id, value) VALUES (-1, 100), (-2, 101)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/IdentityColumnIngestionSuite.scala:405
SELECT max(id) FROM tgtTblName
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/IdentityColumnIngestionSuite.scala:407
SELECT min(id) FROM tgtTblName
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/IdentityColumnIngestionSuite.scala:444
INSERT INTO tgtTblName SELECT * FROM srcTblName
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/IdentityColumnIngestionSuite.scala:448
INSERT INTO tgtTblName BY NAME SELECT * FROM srcTblName
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/IdentityColumnIngestionSuite.scala:452
INSERT INTO tgtTblName(id, value) SELECT id, value FROM srcTblName
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/IdentityColumnIngestionSuite.scala:474
ALTER TABLE tgtTblName SET TBLPROPERTIES('cdfPropKey' = 'true')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/IdentityColumnIngestionSuite.scala:480
MERGE INTO tgtTblName tgt
USING srcTblName src ON tgt.id = src.id
WHEN MATCHED THEN UPDATE SET tgt.value = src.value
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/IdentityColumnIngestionSuite.scala:487
MERGE INTO tgtTblName tgt
USING srcTblName src ON tgt.id = src.id
WHEN MATCHED THEN UPDATE SET tgt.value = src.value
WHEN NOT MATCHED THEN INSERT (value) VALUES (src.value)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/IdentityColumnSuite.scala:172
INSERT INTO tblName (id1, value) VALUES (1, 10), (2, 20)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/IdentityColumnSuite.scala:203
INSERT INTO tblName (part, value) VALUES
  (1, "one"),
  (2, "two"),
  (3, "three")
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/IdentityColumnSuite.scala:215
SELECT * FROM delta.`path`
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/IdentityColumnSuite.scala:287
SELECT * FROM delta.`v5TablePath`
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/IdentityColumnSuite.scala:291
INSERT INTO delta.`v5TablePath` VALUES (5, 5, "five")
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/IdentityColumnSuite.scala:293
SELECT COUNT(DISTINCT id) FROM delta.`v5TablePath`
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/IdentityColumnSuite.scala:301
ALTER TABLE delta.`v5TablePath` ADD COLUMNS (value2 DOUBLE)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/IdentityColumnSuite.scala:307
ALTER TABLE delta.`v5TablePath` SET TBLPROPERTIES ('delta.minWriterVersion'='4')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/IdentityColumnSuite.scala:375
CREATE TABLE ctasTblName
USING DELTA
AS SELECT * FROM tblName
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/IdentityColumnSuite.scala:382
CREATE OR REPLACE TABLE ctasTblName
USING DELTA
AS SELECT * FROM tblName
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/IdentityColumnSuite.scala:446
INSERT INTO tblName (value) VALUES (-1)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/IdentityColumnSuite.scala:472
INSERT INTO tblName(value) SELECT 1 UNION ALL SELECT 2
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/IdentityColumnSuite.scala:477
SELECT COUNT(DISTINCT id) == COUNT(*) FROM tblName
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/IdentityColumnSuite.scala:491
RESTORE TABLE tblName TO VERSION AS OF 3
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/IdentityColumnSuite.scala:492
INSERT INTO tblName (value) VALUES (6)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/IdentityColumnSuite.scala:494
SELECT id, value FROM tblName ORDER BY value ASC
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/IdentityColumnSuite.scala:530
INSERT INTO tblName (value) VALUES (3), (4)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/IdentityColumnSuite.scala:532
RESTORE TABLE tblName TO VERSION AS OF 1
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/IdentityColumnSuite.scala:534
SELECT COUNT(DISTINCT id) FROM tblName
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/IdentityColumnSuite.scala:542
INSERT INTO tblName (value) VALUES (5), (6)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/IdentityColumnSuite.scala:559
INSERT INTO oldTbl (value) VALUES (1), (2)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/IdentityColumnSuite.scala:561
CREATE TABLE newTbl
  SHALLOW CLONE oldTbl
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/IdentityColumnSuite.scala:572
INSERT INTO newTbl (value) VALUES (1), (2)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/IdentityColumnSuite.scala:574
SELECT COUNT(DISTINCT id) FROM newTbl
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/IdentityColumnSuite.scala:600
SELECT id, value, generated FROM tblName
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/IdentityColumnSyncSuite.scala:90
INSERT INTO tblName (id, value) VALUES (1, 'a'), (2, 'b'), (99, 'c')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/IdentityColumnSyncSuite.scala:94
ALTER TABLE tblName ALTER COLUMN id SYNC IDENTITY
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/IdentityColumnSyncSuite.scala:99
INSERT INTO tblName (value) VALUES ('d'), ('e'), ('f')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/IdentityColumnSyncSuite.scala:123
INSERT INTO tblName (id, value) VALUES (1, 'a'), (2, 'b'), (100, 'c')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/IdentityColumnSyncSuite.scala:149
INSERT INTO tblName (id, value) VALUES (1, 'a'), (2, 'b'), (101, 'c')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/IdentityColumnSyncSuite.scala:179
INSERT INTO tblName (id, value) VALUES (1, 'a'), (2, 'b'), (-9, 'c')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/IdentityColumnSyncSuite.scala:220
SELECT max(id) FROM tblName
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/IdentityColumnSyncSuite.scala:221
DELETE FROM tblName WHERE value IN (0, 3, 4)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/IdentityColumnSyncSuite.scala:239
INSERT INTO tblName(value) VALUES (8)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/IdentityColumnSyncSuite.scala:259
CREATE TABLE tblName (
  id BIGINT,
  value INT
) USING parquet
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/IdentityColumnSyncSuite.scala:307
INSERT INTO tblName(id, value) VALUES (4, 4)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/IdentityColumnSyncSuite.scala:309
INSERT INTO tblName(id, value) VALUES (196, 196)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/IdentityColumnTestUtils.scala:99
SELECT * FROM tableName ORDER BY value ASC
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/IdentityColumnTestUtils.scala:139
SELECT COUNT(*) FROM tableName
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/IdentityColumnTestUtils.scala:144
SELECT COUNT(DISTINCT id) FROM tableName
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/MaterializePartitionColumnsFeatureSuite.scala:80
CREATE TABLE tbl (id LONG, partCol INT)
USING DELTA
PARTITIONED BY (partCol)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/MaterializePartitionColumnsFeatureSuite.scala:114
INSERT INTO tbl VALUES (1, 100), (2, 200)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/MaterializePartitionColumnsFeatureSuite.scala:119
ALTER TABLE tbl DROP FEATURE materializePartitionColumns
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/MaterializePartitionColumnsFeatureSuite.scala:125
INSERT INTO tbl VALUES (3, 300), (4, 400)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/MaterializePartitionColumnsFeatureSuite.scala:136
INSERT INTO tbl VALUES (5, 500), (6, 600)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/MergeIntoAccumulatorSuite.scala:49
MERGE INTO delta.`tempPath` target
USING source src
ON src.key = target.key
WHEN MATCHED THEN UPDATE SET *
WHEN NOT MATCHED THEN INSERT *
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/MergeIntoEmptySchemaTargetSuite.scala:37
CREATE TABLE target USING delta
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/MergeIntoEmptySchemaTargetSuite.scala:38
CREATE TABLE source (id INT, name STRING) USING delta
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/MergeIntoEmptySchemaTargetSuite.scala:39
INSERT INTO source VALUES (1, 'a'), (2, 'b')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/MergeIntoEmptySchemaTargetSuite.scala:48
MERGE INTO target USING source AS s ON false
WHEN NOT MATCHED THEN INSERT *
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/MergeIntoEmptySchemaTargetSuite.scala:61
MERGE WITH SCHEMA EVOLUTION INTO target USING source AS s ON false
WHEN NOT MATCHED THEN INSERT *
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/MergeIntoMaterializeSourceSuite.scala:167
select * from range(10)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/MergeIntoMaterializeSourceSuite.scala:276
select * from tblName order by id
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/MergeIntoMaterializeSourceSuite.scala:354
select id, id as v from range(50000)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/MergeIntoMaterializeSourceSuite.scala:355
select id, id+2 as v from range(10000)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/MergeIntoMaterializeSourceSuite.scala:356
select id, id*2 as v from range(1000)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/MergeIntoMaterializeSourceSuite.scala:518
SELECT
  CASE WHEN id IN
    (SELECT id kk FROM projectSub WHERE id IN (SELECT * FROM nestedFilterSub))
  THEN id ELSE -1 END AS id,
  0.5 AS value
FROM delta
WHERE id IN
  (SELECT CASE WHEN id IN (SELECT * FROM nestedProjectSub) THEN id ELSE -1 END kk
   FROM filterSub)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/MergeIntoSQLSuite.scala:54
CREATE TABLE target(`trgKey` INT, `trgValue` INT) using delta
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/MergeIntoSQLSuite.scala:55
INSERT INTO target VALUES (1,2), (3,4)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/MergeIntoSQLSuite.scala:66
MERGE INTO target
USING sourceSql
ON srcKey = trgKey
WHEN NOT MATCHED THEN
  INSERT (trgValue, trgKey) VALUES (srcValue, srcKey)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/MergeIntoSQLSuite.scala:74
MERGE INTO target
USING sourceSql
ON srcKey = trgKey
WHEN MATCHED THEN
  UPDATE SET trgValue = srcValue
WHEN NOT MATCHED THEN
  INSERT (trgValue, trgKey) VALUES (srcValue, srcKey)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/MergeIntoSQLSuite.scala:260
MERGE INTO tableSQLIdentifier
USING source
ON srcKey = trgKey
WHEN NOT MATCHED THEN
  INSERT (trgValue, trgKey) VALUES (srcValue, srcKey + 1)
WHEN NOT MATCHED THEN
  INSERT (trgValue, trgKey) VALUES (srcValue, srcKey)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/MergeIntoSQLSuite.scala:444
CREATE TEMP VIEW src AS SELECT * FROM VALUES (10, 1), (20, 2) AS t(value, key)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/MergeIntoSQLSuite.scala:445
MERGE INTO v
USING src
ON src.key = v.key
WHEN MATCHED THEN
  UPDATE SET *
WHEN NOT MATCHED THEN
  INSERT *
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/MergeIntoSQLSuite.scala:455
select * from v
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/MergeIntoSQLSuite.scala:499
CREATE TABLE source(`smtUidNr` STRING,`evt` ARRAY<STRUCT<`busLinCd`: STRING, `cmyHdrOidNr`: STRING, `cmyLinNr`: STRING, `coeOidNr`: STRING, `dclOidNr`: STRING, `evtCd`: STRING, `evtDclUidNr`: STRING, `evtDscTe`: STRING, `evtDt`: STRING, `evtLclTmZnNa`: STRING, `evtLclTs`: STRING, `evtOidNr`: STRING, `evtRef`: ARRAY<STRUCT<`refDt`: STRING, `refNr`: STRING, `refTypCd`: STRING, `refTypDscTe`: STRING>>, `evtShu`: ARRAY<STRUCT<`ledPkgIr`: STRING, `shuNr`: STRING, `shuRef`: ARRAY<STRUCT<`shuRefDscTe`: STRING, `shuRefDt`: STRING, `shuRefEffDt`: STRING, `shuRefNr`: STRING, `shuRefTe`: STRING, `shuRefTypCd`: STRING>>>>, `evtTypCd`: STRING, `evtUsrNr`: STRING, `evtUtcTcfQy`: STRING, `evtUtcTs`: STRING, `evtWstNa`: STRING, `loc`: ARRAY<STRUCT<`adCnySdvCd`: STRING, `adMunNa`: STRING, `adPslCd`: STRING, `al1Te`: STRING, `al2Te`: STRING, `al3Te`: STRING, `locAdCnyCd`: STRING, `locOgzNr`: STRING, `locXcpDclPorCd`: STRING, `upsDisNr`: STRING, `upsRegNr`: STRING>>, `mltDelOdrNr`: STRING, `mltPrfOfDelNa`: STRING, `mltSmtConNr`: STRING, `mnfOidNr`: STRING, `rpnEntLinNr`: STRING, `rpnEntLvlStsCd`: STRING, `rpnGovAcoTe`: STRING, `rpnInfSrcCrtLclTmZnNa`: STRING, `rpnInfSrcCrtLclTs`: STRING, `rpnInfSrcCrtUtcTcfQy`: STRING, `rpnInfSrcCrtUtcTs`: STRING, `rpnLinLvlStsCd`: STRING, `rpnPgaLinNr`: STRING, `smtDcvDt`: STRING, `smtNr`: STRING, `smtUidNr`: STRING, `xcpCtmDspCd`: STRING, `xcpGovAcoTe`: STRING, `xcpPgmCd`: STRING, `xcpRlvCd`: STRING, `xcpRlvDscTe`: STRING, `xcpRlvLclTmZnNa`: STRING, `xcpRlvLclTs`: STRING, `xcpRlvUtcTcfQy`: STRING, `xcpRlvUtcTs`: STRING, `xcpRsnCd`: STRING, `xcpRsnDscTe`: STRING, `xcpStsCd`: STRING, `xcpStsDscTe`: STRING>>,`msgTs` TIMESTAMP) using delta
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/MergeIntoSQLSuite.scala:500
CREATE TABLE target(`smtUidNr` STRING,`evt` ARRAY<STRUCT<`busLinCd`: STRING, `dclOidNr`: STRING, `evtCd`: STRING, `evtDclUidNr`: STRING, `evtDscTe`: STRING, `evtDt`: STRING, `evtLclTmZnNa`: STRING, `evtLclTs`: STRING, `evtOidNr`: STRING, `evtRef`: ARRAY<STRUCT<`refDt`: STRING, `refNr`: STRING, `refTypCd`: STRING, `refTypDscTe`: STRING>>, `evtShu`: ARRAY<STRUCT<`ledPkgIr`: STRING, `shuNr`: STRING, `shuRef`: ARRAY<STRUCT<`shuRefDscTe`: STRING, `shuRefDt`: STRING, `shuRefEffDt`: STRING, `shuRefNr`: STRING, `shuRefTe`: STRING, `shuRefTypCd`: STRING>>>>, `evtTypCd`: STRING, `evtUsrNr`: STRING, `evtUtcTcfQy`: STRING, `evtUtcTs`: STRING, `evtWstNa`: STRING, `loc`: ARRAY<STRUCT<`adCnySdvCd`: STRING, `adMunNa`: STRING, `adPslCd`: STRING, `al1Te`: STRING, `al2Te`: STRING, `al3Te`: STRING, `locAdCnyCd`: STRING, `locOgzNr`: STRING, `locXcpDclPorCd`: STRING, `upsDisNr`: STRING, `upsRegNr`: STRING>>, `mltDelOdrNr`: STRING, `mltPrfOfDelNa`: STRING, `mltSmtConNr`: STRING, `mnfOidNr`: STRING, `rpnEntLinNr`: STRING, `rpnEntLvlStsCd`: STRING, `rpnGovAcoTe`: STRING, `rpnInfSrcCrtLclTmZnNa`: STRING, `rpnInfSrcCrtLclTs`: STRING, `rpnInfSrcCrtUtcTcfQy`: STRING, `rpnInfSrcCrtUtcTs`: STRING, `rpnLinLvlStsCd`: STRING, `smtDcvDt`: STRING, `smtNr`: STRING, `smtUidNr`: STRING, `xcpCtmDspCd`: STRING, `xcpRlvCd`: STRING, `xcpRlvDscTe`: STRING, `xcpRlvLclTmZnNa`: STRING, `xcpRlvLclTs`: STRING, `xcpRlvUtcTcfQy`: STRING, `xcpRlvUtcTs`: STRING, `xcpRsnCd`: STRING, `xcpRsnDscTe`: STRING, `xcpStsCd`: STRING, `xcpStsDscTe`: STRING, `cmyHdrOidNr`: STRING, `cmyLinNr`: STRING, `coeOidNr`: STRING, `rpnPgaLinNr`: STRING, `xcpGovAcoTe`: STRING, `xcpPgmCd`: STRING>>,`msgTs` TIMESTAMP) using delta
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/MergeIntoSQLSuite.scala:502
MERGE INTO target as r
USING source as u
ON u.smtUidNr = r.smtUidNr
WHEN MATCHED and u.msgTs > r.msgTs THEN
  UPDATE SET *
WHEN NOT MATCHED THEN
  INSERT *
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/MergeIntoSQLSuite.scala:536
SELECT id, _change_type FROM target
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/MergeIntoSQLSuite.scala:548
create table tgt(id int, delicious string, dummy_col string) using delta
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/MergeIntoSQLSuite.scala:549
create table src(id int, delicious string) using parquet
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/MergeIntoSQLSuite.scala:551
merge into tgt as target
using (select * from src) as source on target.id=source.id
when matched then update set *
when not matched then insert *
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/MergeIntoScalaSuite.scala:665
select * from target
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/MergeIntoSuiteBase.scala:170
SELECT key, value FROM targetName
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/MergeIntoSuiteBase.scala:414
update source set a = 2
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/MergeIntoSuiteBase.scala:1002
SELECT key2, value FROM delta_target
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/MergeIntoSuiteBase.scala:1062
CREATE TEMP VIEW src AS SELECT * FROM VALUES (1, 2), (3, 4) AS t(a, b)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/MergeIntoSuiteBase.scala:2700
SELECT parse_json(cast(id as string)) v, id i
        FROM range(2)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/MergeIntoSuiteBase.scala:2706
SELECT parse_json(cast(id as string)) v, id + 1 i
              FROM range(1, 3)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/MergeIntoSuiteBase.scala:3199
CREATE TABLE source (id string, new string, old string, date DATE) USING delta
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/MergeIntoSuiteBase.scala:3200
CREATE TABLE target (id string, old string, date DATE) USING delta
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/MergeIntoSuiteBase.scala:3240
CREATE TABLE target(
  key int not null COMMENT 'data column',
  value int not null,
  cstruct struct<foo int COMMENT 'foo field'>)
USING DELTA
TBLPROPERTIES (
  'delta.minReaderVersion' = '2',
  'delta.minWriterVersion' = '5',
  'delta.columnMapping.mode' = 'name')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/MergeIntoSuiteBase.scala:3253
INSERT INTO target VALUES (0, 0, null)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/MergeIntoSuiteBase.scala:3255
CREATE TABLE source (key int not null, value int not null) USING DELTA
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/MergeIntoSuiteBase.scala:3256
INSERT INTO source VALUES (1, 1)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/MergeIntoSuiteBase.scala:3297
MERGE INTO target as t
USING source as s
ON t.id = s.id
WHEN MATCHED THEN
  UPDATE SET *
WHEN NOT MATCHED THEN
  INSERT *
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/MergeIntoTimestampConsistencySuite.scala:61
DROP VIEW IF EXISTS source
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/MergeIntoTimestampConsistencySuite.scala:62
DROP TABLE IF EXISTS target
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/MergeIntoTimestampConsistencySuite.scala:68
MERGE INTO target t
 USING source s
 ON s.id = t.id AND s.timestampOne = now()
 WHEN MATCHED THEN UPDATE SET *
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/MergeIntoTimestampConsistencySuite.scala:79
MERGE INTO target t
 USING source s
 ON s.id = t.id
 WHEN MATCHED AND s.timestampOne = now() AND s.timestampTwo = now()
   THEN UPDATE SET *
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/MergeIntoTimestampConsistencySuite.scala:91
MERGE INTO target t
 USING source s
 ON s.id = t.id
 WHEN MATCHED THEN UPDATE
   SET updated = s.updated, t.timestampOne = s.timestampOne, t.timestampTwo = now()
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/MergeIntoTimestampConsistencySuite.scala:105
MERGE INTO target t
 USING source s
 ON s.id = t.id
 WHEN NOT MATCHED AND s.timestampOne = now() AND s.timestampTwo = now()
   THEN INSERT *
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/MergeIntoTimestampConsistencySuite.scala:118
MERGE INTO target t
 USING source s
 ON s.id = t.id
 WHEN NOT MATCHED THEN INSERT (id, updated, timestampOne, timestampTwo)
   VALUES (s.id, s.updated, s.timestampOne, now())
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/MergeIntoTimestampConsistencySuite.scala:134
CREATE OR REPLACE TEMPORARY VIEW sourceWithSubqueryTable
 AS SELECT * FROM source WHERE timestampOne IN (SELECT now())
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/MergeIntoTimestampConsistencySuite.scala:139
MERGE INTO target t
 USING sourceWithSubqueryTable s
 ON s.id = t.id
 WHEN MATCHED THEN UPDATE SET *
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/MergeIntoTimestampConsistencySuite.scala:151
SELECT * FROM target WHERE updated = FALSE
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/MergeIntoTimestampConsistencySuite.scala:157
SELECT * FROM source s LEFT ANTI JOIN target t ON s.id = t.id
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/MergeIntoTimestampConsistencySuite.scala:165
SELECT timestampOne, timestampTwo
 FROM target WHERE updated = TRUE GROUP BY timestampOne, timestampTwo
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/RestoreTableSQLSuite.scala:53
RESTORE TABLE not_exists VERSION AS OF 0
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/RestoreTableSQLSuite.scala:63
RESTORE tmp TO VERSION AS OF 0
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/RestoreTableSQLSuite.scala:75
RESTORE TABLE tmp VERSION AS OF 0
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/SchemaValidationSuite.scala:270
SELECT * FROM delta.`tblPath`
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/SchemaValidationSuite.scala:402
ALTER TABLE `tblName` ADD COLUMNS (col2 string)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/ShowDeltaTableColumnsSuite.scala:80
CREATE TABLE show_columns(column1 INT, column2 INT)
USING parquet
COMMENT "describe a non delta table"
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/ShowDeltaTableColumnsSuite.scala:85
SHOW COLUMNS IN show_columns
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/ShowDeltaTableColumnsSuite.scala:107
CREATE TABLE tableName(column1 INT, column2 INT)
USING delta
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/ShowDeltaTableColumnsSuite.scala:118
SHOW COLUMNS IN schemaName.tableName
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/ShowDeltaTableColumnsSuite.scala:169
SHOW COLUMNS IN delta.`tempDir_toString`
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/TableRedirectSuite.scala:105
CREATE external TABLE t1(c0 long) USING delta LOCATION 'sourceTablePath'
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/TableRedirectSuite.scala:175
insert into delta.`source` values(1),(2),(3),(4),(5),(6)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/TableRedirectSuite.scala:182
alter table delta.`source` add column c3 long
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/TableRedirectSuite.scala:252
update delta.`source` set c0 = 100
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/TableRedirectSuite.scala:253
delete from delta.`source` where c0 = 1
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/TableRedirectSuite.scala:343
alter table table_1 set TBLPROPERTIES('featureName' = 'enableConfigJson')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/TableRedirectSuite.scala:355
CREATE external TABLE t2(c0 long) USING delta LOCATION 'dest'
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/TableRedirectSuite.scala:356
insert into t2 values(1),(2),(3),(4),(5)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/TableRedirectSuite.scala:366
insert into srcTable values(1), (2), (3)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/TableRedirectSuite.scala:367
insert into destTable values(1), (2), (3)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/TableRedirectSuite.scala:368
insert into t1 values(1), (2), (3)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/TableRedirectSuite.scala:369
insert into t2 values(1), (2), (3)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/TableRedirectSuite.scala:371
select * from t1
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/TableRedirectSuite.scala:373
select * from t2
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/TableRedirectSuite.scala:375
select * from srcTable
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/TableRedirectSuite.scala:377
select * from destTable
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/TableRedirectSuite.scala:392
alter table srcTable unset TBLPROPERTIES('featureName')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/TableRedirectSuite.scala:395
insert into t1 values(1), (2), (3), (4)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/TruncateTableMetricsSuite.scala:53
TRUNCATE TABLE truncateTarget
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/TruncateTableSuite.scala:33
INSERT into t1 VALUES (3)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/TruncateTableSuite.scala:34
INSERT into t1 VALUES (4)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/TruncateTableSuite.scala:36
TRUNCATE table t1
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/TruncateTableSuite.scala:40
TRUNCATE table t1 partition (a = 3)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/TruncateTableSuite.scala:49
INSERT into t1 VALUES (1, 1)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/TruncateTableSuite.scala:50
INSERT into t1 VALUES (2, 2)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/TruncateTableSuite.scala:56
TRUNCATE table t1 partition (b = 1)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/TruncateTableSuite.scala:68
TRUNCATE TABLE delta.`path`
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/TruncateTableSuite.scala:71
TRUNCATE TABLE delta.`path` partition (key = 1)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/TruncateTableSuite.scala:112
TRUNCATE table v
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/UpdateSQLSuite.scala:49
EXPLAIN UPDATE tableSQLIdentifier SET key = 1, value = 2 WHERE key = 2
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/UpdateSQLSuite.scala:80
UPDATE v SET key = 1 WHERE key = 0 AND value = 3
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/V2DmlInMemoryTableSuite.scala:41
CREATE TABLE tableName (id LONG, value STRING) USING delta
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/V2DmlInMemoryTableSuite.scala:56
INSERT INTO tableName VALUES (1, 'a'), (2, 'b')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/V2DmlInMemoryTableSuite.scala:58
SELECT id, value FROM tableName ORDER BY id
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/V2DmlInMemoryTableSuite.scala:108
CREATE TABLE tableName (pk INT NOT NULL, value STRING) USING delta
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/V2DmlInMemoryTableSuite.scala:109
INSERT INTO tableName VALUES (1, 'a'), (2, 'b'), (3, 'c')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/V2DmlInMemoryTableSuite.scala:111
DELETE FROM tableName WHERE pk = 2
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/V2DmlInMemoryTableSuite.scala:113
SELECT pk, value FROM tableName ORDER BY pk
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/V2DmlInMemoryTableSuite.scala:124
UPDATE tableName SET value = 'updated' WHERE pk >= 2
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/V2DmlInMemoryTableSuite.scala:134
CREATE TABLE targetTable (pk INT NOT NULL, value STRING) USING delta
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/V2DmlInMemoryTableSuite.scala:135
INSERT INTO targetTable VALUES (1, 'a'), (2, 'b')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/V2DmlInMemoryTableSuite.scala:141
MERGE INTO targetTable t
USING source s
ON t.pk = s.pk
WHEN MATCHED THEN UPDATE SET t.value = s.value
WHEN NOT MATCHED THEN INSERT (pk, value) VALUES (s.pk, s.value)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/V2DmlInMemoryTableSuite.scala:150
SELECT pk, value FROM targetTable ORDER BY pk
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/amt/AMTCheckpointPolicySuite.scala:131
INSERT INTO name VALUES (1)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/amt/AMTCheckpointPolicySuite.scala:146
INSERT INTO name VALUES (2)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/amt/AMTCheckpointPolicySuite.scala:284
INSERT INTO name VALUES (3)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/amt/AMTCheckpointPolicySuite.scala:375
INSERT INTO name SELECT * FROM range(8)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/amt/AMTCheckpointPolicySuite.scala:383
INSERT INTO name VALUES (0)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/amt/AMTCheckpointWriteSuite.scala:349
CREATE TABLE name (id INT) USING DELTA
TBLPROPERTIES ('delta.checkpointInterval' = '2')
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/amt/AMTCheckpointWriteSuite.scala:553
INSERT INTO name VALUES (4)
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/amt/AdaptiveMetadataTableFeatureSuite.scala:171
CREATE TABLE amt_upgrade (id INT) USING DELTA
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/catalog/DeltaTableV2Suite.scala:293
EXPLAIN EXTENDED SELECT * FROM t
;
-- source: delta-io/delta:spark/src/test/scala/org/apache/spark/sql/delta/catalog/DeltaTableV2Suite.scala:317
CREATE TABLE t (id LONG) USING delta LOCATION 'path_getCanonicalPath'
;
