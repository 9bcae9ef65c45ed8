-- Image near-duplicates over image fingerprints (leakaudit fingerprint
-- --images), as `leakaudit neardup` finds them: every pair of a test image
-- and a training image whose 64-bit perceptual hashes differ in at most
-- `radius` bits, with the checks neardup makes on each pair.
--
-- Reads three views: train and test (duckdb/views.sql or spark/views.sql)
-- over image fingerprints made with the same hash settings, and
-- neardup_params (neardup_params.sql), one row holding the radius
-- (0 to 31; neardup's default is 8).
--
-- Multi-index banding, so that the engine never compares all pairs: the
-- 64 bits are cut into radius+1 bands of about 64/(radius+1) bits. Two
-- hashes within radius bits differ in at most radius bands, so by the
-- pigeonhole principle they agree exactly on at least one. Every image is
-- joined on (band, its bits in that band) - an equi-join, which any
-- engine runs as a hash join - and only the pairs found are compared in
-- full; a pair that agrees on several bands is kept once. The Hamming
-- distance is bit_count(a | b) - bit_count(a & b), which is the popcount
-- of a XOR b written in the SQL DuckDB (a # b) and Spark (a ^ b) share.
--
-- A corpus name on both sides is one corpus compared with itself, as
-- neardup compares a test split that is a training corpus: an image is
-- never paired with itself, and each pair is listed once (test seq <
-- train seq).
--
-- The checks need no pixels: identical when the digests of the normalized
-- pixels are equal; verified when identical or the 256-bit difference
-- hashes differ in at most 30 bits (imagehash.VerifyDistance: the fine-hash
-- verdict; neardup itself verifies by the chamfer distance of the
-- normalized ink, column image_ink, which this SQL does not compute, and
-- searches each test image with eight probes for ink cut at an edge, which
-- need the test images themselves: the SQL is neardup with NoProbes and
-- --unverified, its verified column the fine-hash verdict);
-- label_mismatch when both images have a label and their ws digests
-- differ (neardup's label check also merges labels that differ only in
-- notation, at the tokens, render and typeset rungs, so it flags a subset
-- of these pairs; on the shared CROHME images the two agree). Written in
-- the SQL DuckDB and Spark SQL share; only the views differ.
WITH bands AS (
    SELECT b.band,
           CAST(FLOOR(64.0 * b.band / (p.radius + 1)) AS INT) AS lo,
           CAST(FLOOR(64.0 * (b.band + 1) / (p.radius + 1)) AS INT) AS hi
    FROM (VALUES (0), (1), (2), (3), (4), (5), (6), (7), (8), (9), (10), (11), (12), (13), (14), (15), (16), (17), (18), (19), (20), (21), (22), (23), (24), (25), (26), (27), (28), (29), (30), (31)) AS b(band)
    CROSS JOIN neardup_params AS p
    WHERE b.band <= p.radius
),
masks AS (
    -- Bits lo..hi-1 set, as a signed 64-bit integer (no shift: the two
    -- engines spell shifts differently).
    SELECT band,
           CASE WHEN hi = 64 THEN -CAST(POWER(2, lo) AS BIGINT)
                ELSE CAST(POWER(2, hi) AS BIGINT) - CAST(POWER(2, lo) AS BIGINT) END AS mask
    FROM bands
),
train_bands AS (
    SELECT t.corpus, t.seq, t.image_hash AS hash, m.band, t.image_hash & m.mask AS part
    FROM train AS t CROSS JOIN masks AS m
    WHERE t.image_hash IS NOT NULL
),
test_bands AS (
    SELECT q.corpus, q.seq, q.image_hash AS hash, m.band, q.image_hash & m.mask AS part
    FROM test AS q CROSS JOIN masks AS m
    WHERE q.image_hash IS NOT NULL
),
candidates AS (
    SELECT DISTINCT q.corpus AS test_corpus, q.seq AS test_seq, t.corpus AS train_corpus, t.seq AS train_seq,
           CAST(bit_count(q.hash | t.hash) - bit_count(q.hash & t.hash) AS INT) AS distance
    FROM test_bands AS q
    JOIN train_bands AS t ON t.band = q.band AND t.part = q.part
    CROSS JOIN neardup_params AS p
    WHERE CAST(bit_count(q.hash | t.hash) - bit_count(q.hash & t.hash) AS INT) <= p.radius
      AND NOT (q.corpus = t.corpus AND q.seq >= t.seq)
),
pairs AS (
    SELECT c.test_corpus AS test_split, q.id AS test_id, c.test_seq,
           c.train_corpus AS train_split, t.id AS train_id, c.train_seq,
           c.distance,
           CAST(bit_count(q.image_fine0 | t.image_fine0) - bit_count(q.image_fine0 & t.image_fine0) AS INT)
         + CAST(bit_count(q.image_fine1 | t.image_fine1) - bit_count(q.image_fine1 & t.image_fine1) AS INT)
         + CAST(bit_count(q.image_fine2 | t.image_fine2) - bit_count(q.image_fine2 & t.image_fine2) AS INT)
         + CAST(bit_count(q.image_fine3 | t.image_fine3) - bit_count(q.image_fine3 & t.image_fine3) AS INT) AS fine_distance,
           q.image_digest = t.image_digest AS identical,
           COALESCE(q.key_ws <> t.key_ws, FALSE) AS label_mismatch
    FROM candidates AS c
    JOIN test AS q ON q.corpus = c.test_corpus AND q.seq = c.test_seq
    JOIN train AS t ON t.corpus = c.train_corpus AND t.seq = c.train_seq
)
SELECT test_split, test_id, test_seq, train_split, train_id, train_seq, distance, fine_distance,
       identical, identical OR fine_distance <= 30 AS verified, label_mismatch
FROM pairs
ORDER BY test_split, test_seq, distance, train_split, train_id, train_seq;
