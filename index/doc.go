// Package index keeps persistent indexes of training corpora in a Badger
// database, so that a test split can be checked against tens of millions of
// training labels in well under a second, and so that a corpus is
// canonicalized once, not at every audit.
//
// # Label index
//
// A [LabelIndex] maps (canonical level, canonical key) to the training items
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
// corpus, which makes every posting unique and every build idempotent: the
// value is omitted when the id is just that position.
//
// Builds stream each corpus once, canonicalize at every requested level and
// write through a Badger write batch, so memory is bounded by Badger's
// tables and caches (set in [Options]) and not by the corpus size.
//
// # Manifest and crash safety
//
// The key "m" holds a JSON [Manifest]: the tool version, the levels with
// their rule versions, and each corpus with its path, size, sha256, read
// statistics and the levels already indexed for it. A (corpus, level) pair
// is recorded as done only after all its postings are written and synced;
// the manifest is marked Complete only when every requested pair is done.
// An index whose build was killed therefore opens as incomplete and the next
// build resumes: pairs already done are skipped, and re-writing a partly
// written pair produces the same keys. Inputs whose checksum changed, or a
// level whose rules changed, are dropped and rebuilt.
//
// Badger holds an exclusive lock on the directory while it is open for
// writing; a second writer gets [ErrLocked]. Readers open the index
// read-only with a shared lock, so audits can run side by side.
package index
