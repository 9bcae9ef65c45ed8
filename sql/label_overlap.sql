-- Label overlap over fingerprints, as `leakaudit overlap` counts it.
--
-- Reads two views, made by duckdb/views.sql or spark/views.sql:
--   train: the training corpora's fingerprints (leakaudit fingerprint)
--   test:  the test splits' fingerprints, made with the same levels (and
--          the same salt, if any)
-- and returns one row per test corpus and level: the test items, those
-- whose key occurs in the training fingerprints, the distinct keys, and
-- the distinct keys found. Every test item counts, duplicates included,
-- as the published protocol counts. The rate is 100 * found / total,
-- rounded to two decimals.
--
-- The join is an equi-join on (level, 16-byte digest) against the
-- distinct training keys: a hash join in any engine, never all pairs.
-- Written in the SQL that DuckDB and Spark SQL share; only the views
-- differ.
WITH train_keys AS (
    SELECT DISTINCT level, key FROM (
        SELECT 'raw' AS level, key_raw AS key FROM train WHERE key_raw IS NOT NULL
        UNION ALL SELECT 'audit', key_audit FROM train WHERE key_audit IS NOT NULL
        UNION ALL SELECT 'ws', key_ws FROM train WHERE key_ws IS NOT NULL
        UNION ALL SELECT 'tokens', key_tokens FROM train WHERE key_tokens IS NOT NULL
        UNION ALL SELECT 'render', key_render FROM train WHERE key_render IS NOT NULL
    ) AS k
),
test_keys AS (
    SELECT corpus, 'raw' AS level, key_raw AS key FROM test WHERE key_raw IS NOT NULL
    UNION ALL SELECT corpus, 'audit', key_audit FROM test WHERE key_audit IS NOT NULL
    UNION ALL SELECT corpus, 'ws', key_ws FROM test WHERE key_ws IS NOT NULL
    UNION ALL SELECT corpus, 'tokens', key_tokens FROM test WHERE key_tokens IS NOT NULL
    UNION ALL SELECT corpus, 'render', key_render FROM test WHERE key_render IS NOT NULL
)
SELECT t.corpus AS split,
       t.level,
       COUNT(*) AS total,
       COUNT(k.key) AS found,
       ROUND(100.0 * COUNT(k.key) / COUNT(*), 2) AS rate,
       COUNT(DISTINCT t.key) AS unique_labels,
       COUNT(DISTINCT k.key) AS unique_labels_found
FROM test_keys AS t
LEFT JOIN train_keys AS k ON k.level = t.level AND k.key = t.key
GROUP BY t.corpus, t.level
ORDER BY t.corpus, t.level;
