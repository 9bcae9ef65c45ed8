-- Spark SQL: the train and test views over fingerprint files or folders
-- of partitions (part=NNN/, discovered as a partition column). Give the
-- paths as variables:
--   spark-sql --define train=hdfs:///fp/train --define test=hdfs:///fp/test \
--     -f spark/views.sql -f label_overlap.sql
CREATE OR REPLACE TEMPORARY VIEW train USING parquet OPTIONS (path '${train}');
CREATE OR REPLACE TEMPORARY VIEW test USING parquet OPTIONS (path '${test}');
