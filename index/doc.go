// Package index keeps persistent indexes of training corpora in a Badger
// database, so that a test split can be checked against tens of millions of
// training labels in well under a second, and so that a corpus is
// canonicalized once, not at every audit.
//
// # Label index
//
// A [DB] maps (canonical level, canonical key) to the training items
// whose label has that key. Each posting is one Badger key with a small
// value:
//
//	'p' level(1) sha256(key)[:16] corpus(2, big endian) seq(4, big endian) → item id
//
// The 128-bit digest of the canonical key groups all postings of one key
// under one prefix; a lookup is a single prefix scan that reads keys only,
// and reads values (item ids) only for the first few matches it reports.
// With 80M labels the chance that any test key collides with a different
// training key is below 10^-22 per lookup. seq is the item's position in its
// corpus, which makes every posting unique and every build idempotent; the
// value is empty when the id is just that position.
//
// # Building
//
// A build streams each corpus once and never sorts it in memory: labels
// are canonicalized and digested on every core (dataset.ScanMapped),
// postings are collected in file order in runs of a fixed size, each run is
// sorted (on a second goroutine while the next fills) and spilled to a
// temporary file, and the sorted runs are merged (a heap keyed by the
// posting keys' three words) into Badger's incremental StreamWriter, which
// writes tables directly without memtables or compactions. Memory is
// bounded by two runs and Badger's caches (see [Options]), not by the
// corpus.
//
// # Manifest and crash safety
//
// manifest.json in the index folder is the [Manifest]: the tool version,
// the levels with their rule versions, and each corpus with its path, size,
// sha256, read statistics and the levels already indexed for it. It is
// replaced atomically (write, fsync, rename). A (corpus, level) pair is
// recorded as done only after its postings are flushed, and the manifest is
// marked Complete only when every requested pair is done. An index whose
// build was killed therefore opens as incomplete, lookups refuse it with
// [ErrIncomplete], and the next build resumes: pairs already done are
// skipped, and a pair that was written but not yet recorded is written
// again, yielding the same keys, so counts stay exact. Inputs whose
// checksum changed, or a level whose rules changed, are dropped and
// rebuilt.
//
// Badger holds an exclusive lock on the folder while it is open for
// writing; a second writer gets [ErrLocked]. Readers open the index
// read-only with a shared lock, so audits can run side by side.
//
// # Near labels
//
// [Near] is an in-memory index of token sequences that finds every indexed
// sequence within K token edits of a query: a pigeonhole table of K+1
// segments per sequence, probed only at the shifts an alignment with K
// edits allows, and an exact banded edit distance over every candidate. It
// is built over the small side (test items) and queried, from any number
// of goroutines, by streaming the large side (a training corpus).
package index
