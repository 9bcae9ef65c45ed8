-- Spark SQL: the radius of image_neardup.sql, from a variable:
--   spark-sql --define train=... --define test=... --define radius=8 \
--     -f spark/views.sql -f spark/neardup_params.sql -f image_neardup.sql
CREATE OR REPLACE TEMPORARY VIEW neardup_params AS SELECT CAST(${radius} AS INT) AS radius;
