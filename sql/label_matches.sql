-- Per test item and level, how many training items share its key: the
-- `matches` column of `leakaudit overlap --items`. Same views as
-- label_overlap.sql. Only items with at least one match are listed.
WITH train_keys AS (
    SELECT 'raw' AS level, key_raw AS key FROM train WHERE key_raw IS NOT NULL
    UNION ALL SELECT 'audit', key_audit FROM train WHERE key_audit IS NOT NULL
    UNION ALL SELECT 'ws', key_ws FROM train WHERE key_ws IS NOT NULL
    UNION ALL SELECT 'tokens', key_tokens FROM train WHERE key_tokens IS NOT NULL
    UNION ALL SELECT 'render', key_render FROM train WHERE key_render IS NOT NULL
),
train_counts AS (
    SELECT level, key, COUNT(*) AS matches FROM train_keys GROUP BY level, key
),
test_keys AS (
    SELECT corpus, id, seq, 'raw' AS level, key_raw AS key FROM test WHERE key_raw IS NOT NULL
    UNION ALL SELECT corpus, id, seq, 'audit', key_audit FROM test WHERE key_audit IS NOT NULL
    UNION ALL SELECT corpus, id, seq, 'ws', key_ws FROM test WHERE key_ws IS NOT NULL
    UNION ALL SELECT corpus, id, seq, 'tokens', key_tokens FROM test WHERE key_tokens IS NOT NULL
    UNION ALL SELECT corpus, id, seq, 'render', key_render FROM test WHERE key_render IS NOT NULL
)
SELECT t.corpus AS split, t.id, t.seq, t.level, c.matches
FROM test_keys AS t
JOIN train_counts AS c ON c.level = t.level AND c.key = t.key
ORDER BY t.corpus, t.seq, t.level;
