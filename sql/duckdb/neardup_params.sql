-- DuckDB: the radius of image_neardup.sql, from a variable. Set it first:
--   SET VARIABLE radius = 8;   -- neardup's default --max-distance
CREATE OR REPLACE VIEW neardup_params AS
    SELECT CAST(getvariable('radius') AS INTEGER) AS radius;
