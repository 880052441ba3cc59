-- source: delta-io/delta:docs/src/content/docs/best-practices.mdx:153
REPLACE TABLE <your-table> USING DELTA PARTITIONED BY (<your-partition-columns>) AS SELECT ... -- Managed table
    REPLACE TABLE <your-table> USING DELTA PARTITIONED BY (<your-partition-columns>) LOCATION "<your-table-path>" AS SELECT ... -- External table
;
-- source: delta-io/delta:docs/src/content/docs/delta-batch.mdx:26
CREATE TABLE IF NOT EXISTS default.people10m (
          id INT,
          firstName STRING,
          middleName STRING,
          lastName STRING,
          gender STRING,
          birthDate TIMESTAMP,
          ssn STRING,
          salary INT
        ) USING DELTA
;
-- source: delta-io/delta:docs/src/content/docs/delta-batch.mdx:37
CREATE OR REPLACE TABLE default.people10m (
          id INT,
          firstName STRING,
          middleName STRING,
          lastName STRING,
          gender STRING,
          birthDate TIMESTAMP,
          ssn STRING,
          salary INT
        ) USING DELTA
;
-- source: delta-io/delta:docs/src/content/docs/delta-batch.mdx:58
-- Create or replace table with path
        CREATE OR REPLACE TABLE delta.`/tmp/delta/people10m` (
          id INT,
          firstName STRING,
          middleName STRING,
          lastName STRING,
          gender STRING,
          birthDate TIMESTAMP,
          ssn STRING,
          salary INT
        ) USING DELTA
;
-- source: delta-io/delta:docs/src/content/docs/delta-batch.mdx:197
-- Create table in the metastore
    CREATE TABLE default.people10m (
      id INT,
      firstName STRING,
      middleName STRING,
      lastName STRING,
      gender STRING,
      birthDate TIMESTAMP,
      ssn STRING,
      salary INT
    )
    USING DELTA
    PARTITIONED BY (gender)
;
-- source: delta-io/delta:docs/src/content/docs/delta-batch.mdx:266
SELECT COUNT(*) > 0 AS `Partition exists` FROM default.people10m WHERE gender = "M"
;
-- source: delta-io/delta:docs/src/content/docs/delta-batch.mdx:298
CREATE TABLE default.people10m
      USING DELTA
      LOCATION '/tmp/delta/people10m'
;
-- source: delta-io/delta:docs/src/content/docs/delta-batch.mdx:687
SET spark.databricks.delta.properties.defaults.appendOnly = true
;
-- source: delta-io/delta:docs/src/content/docs/delta-batch.mdx:698
SELECT * FROM default.people10m -- query table in the metastore
;
-- source: delta-io/delta:docs/src/content/docs/delta-batch.mdx:700
SELECT * FROM delta.`/tmp/delta/people10m` -- query table by path
;
-- source: delta-io/delta:docs/src/content/docs/delta-batch.mdx:757
SELECT * FROM table_name TIMESTAMP AS OF timestamp_expression
    SELECT * FROM table_name VERSION AS OF version
;
-- source: delta-io/delta:docs/src/content/docs/delta-batch.mdx:783
SELECT * FROM default.people10m TIMESTAMP AS OF '2018-10-18T22:15:12.013Z'
    SELECT * FROM delta.`/tmp/delta/people10m` VERSION AS OF 123
;
-- source: delta-io/delta:docs/src/content/docs/delta-batch.mdx:918
INSERT INTO default.people10m SELECT * FROM morePeople
;
-- source: delta-io/delta:docs/src/content/docs/delta-batch.mdx:954
INSERT OVERWRITE TABLE default.people10m SELECT * FROM morePeople
;
-- source: delta-io/delta:docs/src/content/docs/delta-batch.mdx:998
INSERT INTO TABLE events REPLACE WHERE start_data >= '2017-01-01' AND end_date <= '2017-01-31' SELECT * FROM replace_data
;
-- source: delta-io/delta:docs/src/content/docs/delta-batch.mdx:1032
SET spark.databricks.delta.replaceWhere.constraintCheck.enabled=false
;
-- source: delta-io/delta:docs/src/content/docs/delta-batch.mdx:1085
SET spark.databricks.delta.replaceWhere.dataColumns.enabled=false
;
-- source: delta-io/delta:docs/src/content/docs/delta-batch.mdx:1314
SET spark.sql.sources.partitionOverwriteMode=dynamic;
    INSERT OVERWRITE TABLE default.people10m SELECT * FROM morePeople
;
-- source: delta-io/delta:docs/src/content/docs/delta-batch.mdx:1420
SET spark.databricks.delta.write.txnAppId = ...;
    SET spark.databricks.delta.write.txnVersion = ...;
    SET spark.databricks.delta.write.txnVersion.autoReset.enabled = true; -- if set to true, this will reset txnVersion after every write
;
-- source: delta-io/delta:docs/src/content/docs/delta-batch.mdx:1459
SET spark.databricks.delta.commitInfo.userMetadata=overwritten-for-fixing-incorrect-data
  INSERT OVERWRITE default.people10m SELECT * FROM morePeople
;
-- source: delta-io/delta:docs/src/content/docs/delta-batch.mdx:1522
ALTER TABLE table_name ADD COLUMNS (col_name data_type [COMMENT col_comment] [FIRST|AFTER colA_name], ...)
;
-- source: delta-io/delta:docs/src/content/docs/delta-batch.mdx:1536
ALTER TABLE table_name ADD COLUMNS (col_name.nested_col_name data_type [COMMENT col_comment] [FIRST|AFTER colA_name], ...)
;
-- source: delta-io/delta:docs/src/content/docs/delta-batch.mdx:1576
ALTER TABLE table_name ALTER [COLUMN] col_name col_name data_type [COMMENT col_comment] [FIRST|AFTER colA_name]
;
-- source: delta-io/delta:docs/src/content/docs/delta-batch.mdx:1588
ALTER TABLE table_name ALTER [COLUMN] col_name.nested_col_name nested_col_name data_type [COMMENT col_comment] [FIRST|AFTER colA_name]
;
-- source: delta-io/delta:docs/src/content/docs/delta-batch.mdx:1622
ALTER TABLE table_name REPLACE COLUMNS (col_name1 col_type1 [COMMENT col_comment1], ...)
;
-- source: delta-io/delta:docs/src/content/docs/delta-batch.mdx:1636
ALTER TABLE boxes REPLACE COLUMNS (colC STRING, colB STRUCT<field2:STRING, nested:STRING, field1:STRING>, colA STRING)
;
-- source: delta-io/delta:docs/src/content/docs/delta-batch.mdx:1679
ALTER TABLE table_name RENAME COLUMN old_col_name TO new_col_name
;
-- source: delta-io/delta:docs/src/content/docs/delta-batch.mdx:1691
ALTER TABLE table_name RENAME COLUMN col_name.old_nested_field TO new_nested_field
;
-- source: delta-io/delta:docs/src/content/docs/delta-batch.mdx:1702
ALTER TABLE boxes RENAME COLUMN colB.field1 TO field001
;
-- source: delta-io/delta:docs/src/content/docs/delta-batch.mdx:1748
ALTER TABLE table_name DROP COLUMN col_name
;
-- source: delta-io/delta:docs/src/content/docs/delta-batch.mdx:1760
ALTER TABLE table_name DROP COLUMNS (col_name_1, col_name_2)
;
-- source: delta-io/delta:docs/src/content/docs/delta-batch.mdx:1822
INSERT WITH SCHEMA EVOLUTION INTO target_table
    SELECT * FROM source_table
;
-- source: delta-io/delta:docs/src/content/docs/delta-batch.mdx:1910
SET spark.databricks.delta.schema.autoMerge.enabled=true
;
-- source: delta-io/delta:docs/src/content/docs/delta-batch.mdx:1956
ALTER TABLE default.people10m SET TBLPROPERTIES ('department' = 'accounting', 'delta.appendOnly' = 'true');

  -- Show the table's properties.
;
-- source: delta-io/delta:docs/src/content/docs/delta-batch.mdx:1959
SHOW TBLPROPERTIES default.people10m;

  -- Show just the 'department' table property.
;
-- source: delta-io/delta:docs/src/content/docs/delta-batch.mdx:1962
SHOW TBLPROPERTIES default.people10m ('department')
;
-- source: delta-io/delta:docs/src/content/docs/delta-batch.mdx:1990
spark.sql("SET spark.databricks.delta.properties.defaults.appendOnly = true")
;
-- source: delta-io/delta:docs/src/content/docs/delta-catalog-managed-tables.mdx:41
CREATE TABLE sales_data (
      sale_id BIGINT,
      amount DECIMAL(10,2),
      sale_date DATE
    )
    TBLPROPERTIES ('delta.feature.catalogManaged' = 'supported')
;
-- source: delta-io/delta:docs/src/content/docs/delta-catalog-managed-tables.mdx:62
DESCRIBE DETAIL sales_data
;
-- source: delta-io/delta:docs/src/content/docs/delta-change-data-feed.mdx:30
CREATE TABLE student (id INT, name STRING, age INT) TBLPROPERTIES (delta.enableChangeDataFeed = true)
;
-- source: delta-io/delta:docs/src/content/docs/delta-change-data-feed.mdx:42
ALTER TABLE myDeltaTable SET TBLPROPERTIES (delta.enableChangeDataFeed = true)
;
-- source: delta-io/delta:docs/src/content/docs/delta-change-data-feed.mdx:54
set spark.databricks.delta.properties.defaults.enableChangeDataFeed = true
;
-- source: delta-io/delta:docs/src/content/docs/delta-change-data-feed.mdx:84
-- version as ints or longs e.g. changes from version 0 to 10
    SELECT * FROM table_changes('tableName', 0, 10)

    -- timestamp as string formatted timestamps
;
-- source: delta-io/delta:docs/src/content/docs/delta-change-data-feed.mdx:88
SELECT * FROM table_changes('tableName', '2021-04-21 05:45:46', '2021-05-21 12:00:00')

    -- providing only the startingVersion/timestamp
;
-- source: delta-io/delta:docs/src/content/docs/delta-change-data-feed.mdx:91
SELECT * FROM table_changes('tableName', 0)

    -- database/schema names inside the string for table name, with backticks for escaping dots and special characters
;
-- source: delta-io/delta:docs/src/content/docs/delta-change-data-feed.mdx:94
SELECT * FROM table_changes('dbName.`dotted.tableName`', '2021-04-21 06:45:46' , '2021-05-21 12:00:00')

    -- path based tables
;
-- source: delta-io/delta:docs/src/content/docs/delta-change-data-feed.mdx:97
SELECT * FROM table_changes_by_path('\path', '2021-04-21 05:45:46')
;
-- source: delta-io/delta:docs/src/content/docs/delta-change-data-feed.mdx:229
set spark.databricks.delta.changeDataFeed.timestampOutOfRange.enabled = true
;
-- source: delta-io/delta:docs/src/content/docs/delta-clustering.mdx:39
-- Create an empty table
    CREATE TABLE table1(col0 int, col1 string) USING DELTA CLUSTER BY (col0);

    -- Using a CTAS statement (Delta 3.3+)
;
-- source: delta-io/delta:docs/src/content/docs/delta-clustering.mdx:43
CREATE EXTERNAL TABLE table2 CLUSTER BY (col0)  -- specify clustering after table name, not in subquery
    LOCATION 'table_location'
    AS SELECT * FROM table1
;
-- source: delta-io/delta:docs/src/content/docs/delta-clustering.mdx:88
ALTER TABLE <table_name>
    CLUSTER BY (<clustering_columns>)
;
-- source: delta-io/delta:docs/src/content/docs/delta-clustering.mdx:126
</Tabs>

Liquid clustering is incremental, meaning that data is only rewritten as necessary to accommodate data that needs to be clustered. Already clustered data files with different clustering columns are not rewritten.

### Recluster entire table

In Delta Lake 3.3 and above, you can force reclustering of all records in a table with the following syntax:

<Tabs>
  <TabItem label="SQL">
;
-- source: delta-io/delta:docs/src/content/docs/delta-clustering.mdx:167
</TabItem>
</Tabs>

When you change clustering columns, subsequent `OPTIMIZE` and write operations use the new clustering approach, but existing data is not rewritten.

You can also turn off clustering by setting the columns to `NONE`, as in the following example:

<Tabs>
  <TabItem label="SQL">
;
-- source: delta-io/delta:docs/src/content/docs/delta-column-mapping.mdx:39
ALTER TABLE <table_name> SET TBLPROPERTIES (
      'delta.minReaderVersion' = '2',
      'delta.minWriterVersion' = '5',
      'delta.columnMapping.mode' = 'name'
    )
;
-- source: delta-io/delta:docs/src/content/docs/delta-column-mapping.mdx:60
ALTER TABLE <table_name> RENAME COLUMN old_col_name TO new_col_name
;
-- source: delta-io/delta:docs/src/content/docs/delta-column-mapping.mdx:76
ALTER TABLE table_name DROP COLUMNS (col_name_1, col_name_2, ...)
;
-- source: delta-io/delta:docs/src/content/docs/delta-constraints.mdx:33
CREATE TABLE default.people10m (
        id INT NOT NULL,
        firstName STRING,
        middleName STRING NOT NULL,
        lastName STRING,
        gender STRING,
        birthDate TIMESTAMP,
        ssn STRING,
        salary INT
    ) USING DELTA
;
-- source: delta-io/delta:docs/src/content/docs/delta-constraints.mdx:44
ALTER TABLE default.people10m CHANGE COLUMN middleName DROP NOT NULL
;
-- source: delta-io/delta:docs/src/content/docs/delta-constraints.mdx:60
CREATE TABLE default.people10m (
       id INT,
       firstName STRING,
       middleName STRING,
       lastName STRING,
       gender STRING,
       birthDate TIMESTAMP,
       ssn STRING,
       salary INT
    ) USING DELTA
;
-- source: delta-io/delta:docs/src/content/docs/delta-constraints.mdx:71
ALTER TABLE default.people10m ADD CONSTRAINT dateWithinRange CHECK (birthDate > '1900-01-01');
    ALTER TABLE default.people10m DROP CONSTRAINT dateWithinRange
;
-- source: delta-io/delta:docs/src/content/docs/delta-constraints.mdx:84
ALTER TABLE default.people10m ADD CONSTRAINT validIds CHECK (id > 1 and id < 99999999)
;
-- source: delta-io/delta:docs/src/content/docs/delta-constraints.mdx:86
DESCRIBE DETAIL default.people10m
;
-- source: delta-io/delta:docs/src/content/docs/delta-constraints.mdx:88
SHOW TBLPROPERTIES default.people10m
;
-- source: delta-io/delta:docs/src/content/docs/delta-default-columns.mdx:36
ALTER TABLE <table_name> SET TBLPROPERTIES (
      'delta.feature.allowColumnDefaults' = 'enabled'
    )
;
-- source: delta-io/delta:docs/src/content/docs/delta-deletion-vectors.mdx:31
ALTER TABLE <table_name> SET TBLPROPERTIES('delta.enableDeletionVectors' = true)
;
-- source: delta-io/delta:docs/src/content/docs/delta-deletion-vectors.mdx:68
REORG TABLE events APPLY (PURGE);

    -- If you have a large amount of data and only want to purge a subset of it, you can specify an optional partition predicate using `WHERE`:
;
-- source: delta-io/delta:docs/src/content/docs/delta-deletion-vectors.mdx:71
REORG TABLE events WHERE date >= '2022-01-01' APPLY (PURGE)
;
-- source: delta-io/delta:docs/src/content/docs/delta-deletion-vectors.mdx:73
REORG TABLE events
      WHERE date >= current_timestamp() - INTERVAL '1' DAY
      APPLY (PURGE)
;
-- source: delta-io/delta:docs/src/content/docs/delta-row-tracking.mdx:37
-- Create an empty table
    CREATE TABLE student (id INT, name STRING, age INT)
    TBLPROPERTIES ('delta.enableRowTracking' = 'true');

    -- Using a CTAS statement
;
-- source: delta-io/delta:docs/src/content/docs/delta-row-tracking.mdx:42
CREATE TABLE course_new
    TBLPROPERTIES ('delta.enableRowTracking' = 'true')
    AS SELECT * FROM course_old;

    -- Using a LIKE statement to copy configuration
;
-- source: delta-io/delta:docs/src/content/docs/delta-row-tracking.mdx:47
CREATE TABLE graduate LIKE student;

    -- Using a CLONE statement to copy configuration
;
-- source: delta-io/delta:docs/src/content/docs/delta-row-tracking.mdx:50
CREATE TABLE graduate CLONE student
;
-- source: delta-io/delta:docs/src/content/docs/delta-row-tracking.mdx:62
ALTER TABLE grade SET TBLPROPERTIES ('delta.enableRowTracking' = 'true')
;
-- source: delta-io/delta:docs/src/content/docs/delta-row-tracking.mdx:74
SET spark.databricks.delta.properties.defaults.enableRowTracking = true
;
-- source: delta-io/delta:docs/src/content/docs/delta-row-tracking.mdx:124
SELECT _metadata.row_id, _metadata.row_commit_version, * FROM table_name
;
-- source: delta-io/delta:docs/src/content/docs/delta-row-tracking.mdx:154
ALTER TABLE table_name SET TBLPROPERTIES (delta.enableRowTracking = false)
;
-- source: delta-io/delta:docs/src/content/docs/delta-sharing.mdx:23
-- A table path is the profile file path followed by `#` and the fully qualified name
    -- of a table (`<share-name>.<schema-name>.<table-name>`).
    CREATE TABLE mytable USING deltaSharing LOCATION '<profile-file-path>#<share-name>.<schema-name>.<table-name>';
    SELECT * FROM mytable
;
-- source: delta-io/delta:docs/src/content/docs/delta-sharing.mdx:66
SELECT * FROM mytable TIMESTAMP AS OF timestamp_expression
    SELECT * FROM mytable VERSION AS OF version
;
-- source: delta-io/delta:docs/src/content/docs/delta-sharing.mdx:93
CREATE TABLE mytable USING deltaSharing LOCATION '<profile-file-path>#<share-name>.<schema-name>.<table-name>';
    
    -- version as ints or longs e.g. changes from version 0 to 10
;
-- source: delta-io/delta:docs/src/content/docs/delta-sharing.mdx:96
SELECT * FROM table_changes('mytable', 0, 10)
    
    -- timestamp as string formatted timestamps
;
-- source: delta-io/delta:docs/src/content/docs/delta-sharing.mdx:99
SELECT * FROM table_changes('mytable', '2021-04-21 05:45:46', '2021-05-21 12:00:00')
    
    -- providing only the startingVersion/timestamp
;
-- source: delta-io/delta:docs/src/content/docs/delta-sharing.mdx:102
SELECT * FROM table_changes('mytable', 0)
;
-- source: delta-io/delta:docs/src/content/docs/delta-type-widening.mdx:57
ALTER TABLE <table_name> SET TBLPROPERTIES ('delta.enableTypeWidening' = 'true')
;
-- source: delta-io/delta:docs/src/content/docs/delta-type-widening.mdx:67
CREATE TABLE <table_name> USING DELTA TBLPROPERTIES('delta.enableTypeWidening' = 'true')
;
-- source: delta-io/delta:docs/src/content/docs/delta-type-widening.mdx:77
ALTER TABLE <table_name> SET TBLPROPERTIES ('delta.enableTypeWidening' = 'false')
;
-- source: delta-io/delta:docs/src/content/docs/delta-type-widening.mdx:93
ALTER TABLE <table_name> ALTER COLUMN <col_name> TYPE <new_type>
;
-- source: delta-io/delta:docs/src/content/docs/delta-type-widening.mdx:126
ALTER TABLE <table_name> DROP FEATURE 'typeWidening' [TRUNCATE HISTORY]
;
-- source: delta-io/delta:docs/src/content/docs/delta-uniform.mdx:74
CREATE TABLE T(c1 INT) USING DELTA TBLPROPERTIES(
  'delta.enableIcebergCompatV2' = 'true',
  'delta.universalFormat.enabledFormats' = 'iceberg')
;
-- source: delta-io/delta:docs/src/content/docs/delta-uniform.mdx:88
ALTER TABLE table_name SET TBLPROPERTIES(
  'delta.enableIcebergCompatV2' = 'true',
  'delta.universalFormat.enabledFormats' = 'iceberg')
;
-- source: delta-io/delta:docs/src/content/docs/delta-uniform.mdx:102
REORG TABLE table_name APPLY (UPGRADE UNIFORM(ICEBERG_COMPAT_VERSION=2))
;
-- source: delta-io/delta:docs/src/content/docs/delta-uniform.mdx:120
ALTER TABLE table_name SET TBLPROPERTIES ('delta.universalFormat.enabledFormats' = 'hudi')
;
-- source: delta-io/delta:docs/src/content/docs/delta-uniform.mdx:176
SHOW TBLPROPERTIES <table-name>
;
-- source: delta-io/delta:docs/src/content/docs/delta-update.mdx:18
DELETE FROM people10m WHERE birthDate < '1955-01-01'
;
-- source: delta-io/delta:docs/src/content/docs/delta-update.mdx:20
DELETE FROM delta.`/tmp/delta/people-10m` WHERE birthDate < '1955-01-01'
;
-- source: delta-io/delta:docs/src/content/docs/delta-update.mdx:109
UPDATE people10m SET gender = 'Female' WHERE gender = 'F';
    UPDATE people10m SET gender = 'Male' WHERE gender = 'M'
;
-- source: delta-io/delta:docs/src/content/docs/delta-update.mdx:112
UPDATE delta.`/tmp/delta/people-10m` SET gender = 'Female' WHERE gender = 'F';
    UPDATE delta.`/tmp/delta/people-10m` SET gender = 'Male' WHERE gender = 'M'
;
-- source: delta-io/delta:docs/src/content/docs/delta-update.mdx:214
MERGE INTO people10m
    USING people10mupdates
    ON people10m.id = people10mupdates.id
    WHEN MATCHED THEN
      UPDATE SET
        id = people10mupdates.id,
        firstName = people10mupdates.firstName,
        middleName = people10mupdates.middleName,
        lastName = people10mupdates.lastName,
        gender = people10mupdates.gender,
        birthDate = people10mupdates.birthDate,
        ssn = people10mupdates.ssn,
        salary = people10mupdates.salary
    WHEN NOT MATCHED
      THEN INSERT (
        id,
        firstName,
        middleName,
        lastName,
        gender,
        birthDate,
        ssn,
        salary
      )
      VALUES (
        people10mupdates.id,
        people10mupdates.firstName,
        people10mupdates.middleName,
        people10mupdates.lastName,
        people10mupdates.gender,
        people10mupdates.birthDate,
        people10mupdates.ssn,
        people10mupdates.salary
      )
;
-- source: delta-io/delta:docs/src/content/docs/delta-update.mdx:424
MERGE INTO target
    USING source
    ON source.key = target.key
    WHEN MATCHED
      UPDATE SET *
    WHEN NOT MATCHED
      INSERT *
    WHEN NOT MATCHED BY SOURCE
      DELETE
;
-- source: delta-io/delta:docs/src/content/docs/delta-update.mdx:472
MERGE INTO target
    USING source
    ON source.key = target.key
    WHEN MATCHED THEN
      UPDATE SET target.lastSeen = source.timestamp
    WHEN NOT MATCHED THEN
      INSERT (key, lastSeen, status) VALUES (source.key,  source.timestamp, 'active')
    WHEN NOT MATCHED BY SOURCE AND target.lastSeen >= (current_date() - INTERVAL '5' DAY) THEN
      UPDATE SET target.status = 'inactive'
;
-- source: delta-io/delta:docs/src/content/docs/delta-update.mdx:669
events.date = current_date() AND events.country = 'USA'
;
-- source: delta-io/delta:docs/src/content/docs/delta-update.mdx:693
MERGE INTO logs
    USING newDedupedLogs
    ON logs.uniqueId = newDedupedLogs.uniqueId AND logs.date > current_date() - INTERVAL 7 DAYS
    WHEN NOT MATCHED AND newDedupedLogs.date > current_date() - INTERVAL 7 DAYS
      THEN INSERT *
;
-- source: delta-io/delta:docs/src/content/docs/delta-utility/index.mdx:38
VACUUM eventsTable   -- This runs VACUUM in ‘FULL’ mode and deletes data files outside of the retention duration and all files in the table directory not referenced by the table.
;
-- source: delta-io/delta:docs/src/content/docs/delta-utility/index.mdx:40
VACUUM eventsTable LITE   -- This VACUUM in ‘LITE’ mode runs faster.
                              -- Instead of finding all files in the table directory, `VACUUM LITE` uses the Delta transaction log to identify and remove files no longer referenced by any table versions within the retention duration.
                              -- If `VACUUM LITE` cannot be completed because the Delta log has been pruned a `DELTA_CANNOT_VACUUM_LITE` exception is raised.
                              -- This mode is available only in Delta 3.3 and above.
;
-- source: delta-io/delta:docs/src/content/docs/delta-utility/index.mdx:45
VACUUM '/data/events' -- vacuum files in path-based table
;
-- source: delta-io/delta:docs/src/content/docs/delta-utility/index.mdx:47
VACUUM delta.`/data/events/`
;
-- source: delta-io/delta:docs/src/content/docs/delta-utility/index.mdx:49
VACUUM delta.`/data/events/` RETAIN 100 HOURS  -- vacuum files not required by versions more than 100 hours old
;
-- source: delta-io/delta:docs/src/content/docs/delta-utility/index.mdx:51
VACUUM eventsTable DRY RUN    -- do dry run to get the list of files to be deleted
;
-- source: delta-io/delta:docs/src/content/docs/delta-utility/index.mdx:53
VACUUM eventsTable USING INVENTORY inventoryTable  —- vacuum files based on a provided reservoir of files as a delta table
;
-- source: delta-io/delta:docs/src/content/docs/delta-utility/index.mdx:55
VACUUM eventsTable USING INVENTORY (select * from inventoryTable)  —- vacuum files based on a provided reservoir of files as spark SQL query
;
-- source: delta-io/delta:docs/src/content/docs/delta-utility/index.mdx:143
DESCRIBE HISTORY '/data/events/'          -- get the full history of the table
;
-- source: delta-io/delta:docs/src/content/docs/delta-utility/index.mdx:145
DESCRIBE HISTORY delta.`/data/events/`
;
-- source: delta-io/delta:docs/src/content/docs/delta-utility/index.mdx:147
DESCRIBE HISTORY '/data/events/' LIMIT 1  -- get the last operation only
;
-- source: delta-io/delta:docs/src/content/docs/delta-utility/index.mdx:149
DESCRIBE HISTORY eventsTable
;
-- source: delta-io/delta:docs/src/content/docs/delta-utility/index.mdx:316
SHOW PARTITIONS eventsTable
;
-- source: delta-io/delta:docs/src/content/docs/delta-utility/index.mdx:329
SHOW PARTITIONS eventsTable PARTITION (date = '2024-01-01')
;
-- source: delta-io/delta:docs/src/content/docs/delta-utility/index.mdx:341
SHOW PARTITIONS delta.`/data/events/`
;
-- source: delta-io/delta:docs/src/content/docs/delta-utility/index.mdx:366
DESCRIBE DETAIL '/data/events/'
;
-- source: delta-io/delta:docs/src/content/docs/delta-utility/index.mdx:368
DESCRIBE DETAIL eventsTable
;
-- source: delta-io/delta:docs/src/content/docs/delta-utility/index.mdx:443
GENERATE symlink_format_manifest FOR TABLE delta.`<path-to-delta-table>`
;
-- source: delta-io/delta:docs/src/content/docs/delta-utility/index.mdx:492
-- Convert unpartitioned Parquet table at path '<path-to-table>'
    CONVERT TO DELTA parquet.`<path-to-table>`

    -- Convert unpartitioned Parquet table and disable statistics collection
;
-- source: delta-io/delta:docs/src/content/docs/delta-utility/index.mdx:496
CONVERT TO DELTA parquet.`<path-to-table>` NO STATISTICS

    -- Convert partitioned Parquet table at path '<path-to-table>' and partitioned by integer columns named 'part' and 'part2'
;
-- source: delta-io/delta:docs/src/content/docs/delta-utility/index.mdx:499
CONVERT TO DELTA parquet.`<path-to-table>` PARTITIONED BY (part int, part2 int)

    -- Convert partitioned Parquet table and disable statistics collection
;
-- source: delta-io/delta:docs/src/content/docs/delta-utility/index.mdx:502
CONVERT TO DELTA parquet.`<path-to-table>` NO STATISTICS PARTITIONED BY (part int, part2 int)
;
-- source: delta-io/delta:docs/src/content/docs/delta-utility/index.mdx:566
-- Convert the Iceberg table in the path <path-to-table>.
    CONVERT TO DELTA iceberg.\`<path-to-table>\`

    -- Convert the Iceberg table in the path <path-to-table> without collecting statistics.
;
-- source: delta-io/delta:docs/src/content/docs/delta-utility/index.mdx:570
CONVERT TO DELTA iceberg.\`<path-to-table>\` NO STATISTICS
;
-- source: delta-io/delta:docs/src/content/docs/delta-utility/index.mdx:619
RESTORE TABLE db.target_table TO VERSION AS OF <version>
    RESTORE TABLE delta.`/data/target/` TO TIMESTAMP AS OF <timestamp>
;
-- source: delta-io/delta:docs/src/content/docs/delta-utility/index.mdx:746
CREATE TABLE delta.`/data/target/` SHALLOW CLONE delta.`/data/source/` -- Create a shallow clone of /data/source at /data/target
;
-- source: delta-io/delta:docs/src/content/docs/delta-utility/index.mdx:748
CREATE OR REPLACE TABLE db.target_table SHALLOW CLONE db.source_table -- Replace the target. target needs to be emptied
;
-- source: delta-io/delta:docs/src/content/docs/delta-utility/index.mdx:750
CREATE TABLE IF NOT EXISTS delta.`/data/target/` SHALLOW CLONE db.source_table -- No-op if the target table exists
;
-- source: delta-io/delta:docs/src/content/docs/delta-utility/index.mdx:752
CREATE TABLE db.target_table SHALLOW CLONE delta.`/data/source`
;
-- source: delta-io/delta:docs/src/content/docs/delta-utility/index.mdx:754
CREATE TABLE db.target_table SHALLOW CLONE delta.`/data/source` VERSION AS OF version
;
-- source: delta-io/delta:docs/src/content/docs/delta-utility/index.mdx:756
CREATE TABLE db.target_table SHALLOW CLONE delta.`/data/source` TIMESTAMP AS OF timestamp_expression -- timestamp can be like “2019-01-01” or like date_sub(current_date(), 1)
;
-- source: delta-io/delta:docs/src/content/docs/delta-utility/index.mdx:781
-- Trained model on version 15 of Delta table
    CREATE TABLE delta.`/model/dataset` SHALLOW CLONE entire_dataset VERSION AS OF 15
;
-- source: delta-io/delta:docs/src/content/docs/delta-utility/index.mdx:796
-- Perform shallow clone
    CREATE OR REPLACE TABLE my_test SHALLOW CLONE my_prod_table
;
-- source: delta-io/delta:docs/src/content/docs/delta-utility/index.mdx:799
UPDATE my_test WHERE user_id is null SET invalid=true;
    -- Run a bunch of validations. Once happy:

    -- This should leverage the update information in the clone to prune to only
    -- changed files in the clone if possible
;
-- source: delta-io/delta:docs/src/content/docs/delta-utility/index.mdx:804
MERGE INTO my_prod_table
    USING my_test
    ON my_test.user_id <=> my_prod_table.user_id
    WHEN MATCHED AND my_test.user_id is null THEN UPDATE *
;
-- source: delta-io/delta:docs/src/content/docs/delta-utility/index.mdx:809
DROP TABLE my_test
;
-- source: delta-io/delta:docs/src/content/docs/delta-utility/index.mdx:826
CREATE OR REPLACE TABLE archive.my_table SHALLOW CLONE prod.my_table
    TBLPROPERTIES (
      delta.logRetentionDuration = '3650 days',
      delta.deletedFileRetentionDuration = '3650 days'
    )
    LOCATION 'xx://archive/my_table'
;
-- source: delta-io/delta:docs/src/content/docs/delta-utility/index.mdx:849
CREATE OR REPLACE TABLE <target_table_name> SHALLOW CLONE parquet.`/path/to/data`
;
-- source: delta-io/delta:docs/src/content/docs/delta-utility/index.mdx:851
CREATE OR REPLACE TABLE <target_table_name> SHALLOW CLONE iceberg.`/path/to/data`
;
-- source: delta-io/delta:docs/src/content/docs/optimizations-oss/index.mdx:24
OPTIMIZE '/path/to/delta/table' -- Optimizes the path-based Delta Lake table
;
-- source: delta-io/delta:docs/src/content/docs/optimizations-oss/index.mdx:26
OPTIMIZE delta_table_name
;
-- source: delta-io/delta:docs/src/content/docs/optimizations-oss/index.mdx:28
OPTIMIZE delta.`/path/to/delta/table`;

    -- If you have a large amount of data and only want to optimize a subset of it, you can specify an optional partition predicate using `WHERE`:
;
-- source: delta-io/delta:docs/src/content/docs/optimizations-oss/index.mdx:31
OPTIMIZE delta_table_name WHERE date >= '2017-01-01'
;
-- source: delta-io/delta:docs/src/content/docs/optimizations-oss/index.mdx:126
OPTIMIZE events ZORDER BY (eventType)

    -- If you have a large amount of data and only want to optimize a subset of it, you can specify an optional partition predicate by using "where".
;
-- source: delta-io/delta:docs/src/content/docs/optimizations-oss/index.mdx:129
OPTIMIZE events WHERE date = '2021-11-18' ZORDER BY (eventType)
;
-- source: delta-io/delta:docs/src/content/docs/porting.mdx:56
CONVERT TO DELTA parquet.`/data-pipeline/`
  CREATE TABLE events USING DELTA LOCATION '/data-pipeline/'
;
-- source: delta-io/delta:docs/src/content/docs/porting.mdx:63
CREATE TABLE events USING PARQUET OPTIONS (path '/data-pipeline/')
  CONVERT TO DELTA events
;
-- source: delta-io/delta:docs/src/content/docs/presto-integration.mdx:71
CREATE EXTERNAL TABLE mytable ([(col_name1 col_datatype1, ...)])
[PARTITIONED BY (col_name2 col_datatype2, ...)]
ROW FORMAT SERDE 'org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe'
STORED AS INPUTFORMAT 'org.apache.hadoop.hive.ql.io.SymlinkTextInputFormat'
OUTPUTFORMAT 'org.apache.hadoop.hive.ql.io.HiveIgnoreKeyTextOutputFormat'
LOCATION '<path-to-delta-table>/_symlink_format_manifest/'  -- location of the generated manifest
;
-- source: delta-io/delta:docs/src/content/docs/presto-integration.mdx:111
ALTER TABLE delta.`<path-to-delta-table>` SET TBLPROPERTIES(delta.compatibility.symlinkFormatManifest.enabled=true)
;
-- source: delta-io/delta:docs/src/content/docs/quick-start.mdx:127
CREATE TABLE delta.`/tmp/delta-table` USING DELTA AS SELECT col1 as id FROM VALUES 0,1,2,3,4
;
-- source: delta-io/delta:docs/src/content/docs/quick-start.mdx:182
SELECT * FROM delta.`/tmp/delta-table`
;
-- source: delta-io/delta:docs/src/content/docs/quick-start.mdx:225
INSERT OVERWRITE delta.`/tmp/delta-table` SELECT col1 as id FROM VALUES 5,6,7,8,9
;
-- source: delta-io/delta:docs/src/content/docs/quick-start.mdx:266
-- Update every even value by adding 100 to it
    UPDATE delta.`/tmp/delta-table` SET id = id + 100 WHERE id % 2 == 0;

    -- Delete every even value
;
-- source: delta-io/delta:docs/src/content/docs/quick-start.mdx:270
DELETE FROM delta.`/tmp/delta-table` WHERE id % 2 == 0;

    -- Upsert (merge) new data
;
-- source: delta-io/delta:docs/src/content/docs/quick-start.mdx:273
CREATE TEMP VIEW newData AS SELECT col1 AS id FROM VALUES 1,3,5,7,9,11,13,15,17,19
;
-- source: delta-io/delta:docs/src/content/docs/quick-start.mdx:275
MERGE INTO delta.`/tmp/delta-table` AS oldData
    USING newData
    ON oldData.id = newData.id
    WHEN MATCHED
      THEN UPDATE SET id = newData.id
    WHEN NOT MATCHED
      THEN INSERT (id) VALUES (newData.id)
;
-- source: delta-io/delta:docs/src/content/docs/quick-start.mdx:408
SELECT * FROM delta.`/tmp/delta-table` VERSION AS OF 0
;
-- source: delta-io/delta:docs/src/content/docs/redshift-spectrum-integration.mdx:77
CREATE EXTERNAL TABLE mytable ([(col_name1 col_datatype1, ...)])
    [PARTITIONED BY (col_name2 col_datatype2, ...)]
    ROW FORMAT SERDE 'org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe'
    STORED AS INPUTFORMAT 'org.apache.hadoop.hive.ql.io.SymlinkTextInputFormat'
    OUTPUTFORMAT 'org.apache.hadoop.hive.ql.io.HiveIgnoreKeyTextOutputFormat'
    LOCATION '<path-to-delta-table>/_symlink_format_manifest/'  -- location of the generated manifest
;
-- source: delta-io/delta:docs/src/content/docs/redshift-spectrum-integration.mdx:103
ALTER TABLE mytable.redshiftdeltatable ADD IF NOT EXISTS PARTITION (col_name=col_value) LOCATION '<path-to-delta-table>/_symlink_format_manifest/col_name=col_value'
;
-- source: delta-io/delta:docs/src/content/docs/snowflake-integration.mdx:83
create or replace stage my_staged_table url='<path-to-delta-table>'
;
-- source: delta-io/delta:docs/src/content/docs/snowflake-integration.mdx:93
VARCHAR AS split_part(VALUE:c1, '/', -1) ) WITH LOCATION =
    @my_staged_table/_symlink_format_manifest/ FILE_FORMAT = (TYPE = CSV)
    PATTERN = '.*[/]manifest' AUTO_REFRESH = true
;
-- source: delta-io/delta:docs/src/content/docs/snowflake-integration.mdx:113
CREATE OR REPLACE EXTERNAL TABLE my_parquet_data_table(
      id INT AS (VALUE:id::INT),
      part INT AS (VALUE:part::INT),
      ...,
      parquet_filename VARCHAR AS split_part(metadata$filename, '/', -1)
    )
    WITH LOCATION = @my_staged_table/
    FILE_FORMAT = (TYPE = PARQUET)
    PATTERN = '.*[/]part-[^/]*[.]parquet'
    AUTO_REFRESH = true
;
-- source: delta-io/delta:docs/src/content/docs/snowflake-integration.mdx:138
CREATE OR REPLACE EXTERNAL TABLE my_parquet_data_partitioned_table(
      id INT AS (VALUE:id::INT),
      part INT AS (
        nullif(
          regexp_replace(metadata$filename, '.*part\\=(.*)\\/.*', '\\1'),
          '__HIVE_DEFAULT_PARTITION__'
        )::INT
      ),
      ...,
      parquet_filename VARCHAR AS split_part(metadata$filename, '/', -1)
    )
    WITH LOCATION = @my_staged_partitioned_table/
    FILE_FORMAT = (TYPE = PARQUET)
    PATTERN = '.*[/]part-[^/]*[.]parquet'
    AUTO_REFRESH = true
;
-- source: delta-io/delta:docs/src/content/docs/snowflake-integration.mdx:168
CREATE OR REPLACE VIEW my_delta_table AS
    SELECT id, part, ...
    FROM my_parquet_data_table
    WHERE parquet_filename IN (
      SELECT filename 
      FROM delta-manifest-table
    )
;
-- source: delta-io/delta:docs/src/content/docs/versioning.mdx:145
-- Upgrades the reader protocol version to 1 and the writer protocol version to 3.
    ALTER TABLE <table_identifier> SET TBLPROPERTIES('delta.minReaderVersion' = '1', 'delta.minWriterVersion' = '3')
;
