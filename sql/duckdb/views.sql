-- DuckDB: the train and test views over fingerprint files, folders of
-- partitions (hive style) or globs. Set the paths first:
--   SET VARIABLE train = 'train.fp.parquet';
--   SET VARIABLE test  = 'test.fp.parquet';
CREATE OR REPLACE VIEW train AS
    SELECT * FROM read_parquet(getvariable('train'), hive_partitioning = true, union_by_name = true);
CREATE OR REPLACE VIEW test AS
    SELECT * FROM read_parquet(getvariable('test'), hive_partitioning = true, union_by_name = true);
