// Package index keeps persistent indexes of training corpora in Badger
// databases, so that a test split can be checked against tens of millions of
// training labels in well under a second, and so that a corpus is
// canonicalized once, not at every audit. Beside the label index ([DB],
// [DB.Build], [DB.Lookup]) it holds the searches that need no database:
// a [Probe] streams the training corpora past a test set once and answers
// the same lookups without keeping an index; [Near] finds labels within K
// token edits; [Hamming] finds image hashes within a Hamming radius,
// over hashes read from the index's image database ([DB.BuildImages],
// [DB.Images]) or from an image fingerprint ([LoadImageFingerprint]).
//
// # Label index
//
// A [DB] maps (canonical level, canonical key) to the training items
// whose label has that key. A posting names one item under one key:
//
//	level, corpus, sha256(key)[:16], seq → item id
//
// With 80M labels the chance that any test key collides with a different
// training key is below 10^-22 per lookup. seq is the item's position in its
// corpus, which makes every posting unique and every build idempotent; the
// id is empty when it is just that position. Postings are stored in
// blocks of up to 64 consecutive postings of one level and corpus, one
// Badger entry per block, keyed by its last posting:
//
//	'p' level(1) corpus(2, big endian) digest(16) seq(4, big endian) → postings
//
// so that a lookup seeks, per corpus that may hold the key, to the block
// holding the key's first posting and decodes forward (block.go has the
// encoding). One Badger entry per posting, as format 2 had, made Badger's
// own per-entry work (encoding each one for the stream writer, decoding it
// again, adding it to a table) most of a build's time: on 5M labels at
// two levels, an index built from a fingerprint took 10.3 s with it and
// 6.8 s with blocks, with the same answers.
//
// An index built from a fingerprint (package fingerprint) has the digests
// without the labels. When all its rows belong to one corpus (its files'
// statistics of the corpus column say so), the postings are the corpus's
// own: numbered by the items' positions, with ids only where they are not
// the positions, and lookups name that corpus (Corpus.Items). Otherwise a
// posting is numbered by its row and holds the row's corpus and id. The
// first way halved the index built from an 80M-row fingerprint (4.2 to
// 2.1 GB) and its build time (112 to 70 s).
//
// Keys that many training items share (x, 1, \alpha: thousands of
// postings in a large corpus) would make every lookup of them read all
// their postings to count them. When one corpus has more than 64 postings
// of a key, the build follows them with a count record, a posting of the
// same key and corpus with seq 2^32−1 (no item has it) and the number of
// postings as a uvarint value; a lookup that has its refs reads 64
// postings, seeks to the record and adds its count. On 10M synthetic labels
// this made 50k lookups, the first after opening the index, eight times
// faster (0.81 s to 0.10 s).
//
// # Shards
//
// The postings are split over 16 Badger databases, shard-00 … shard-15 in
// the index folder, by the top four bits of the digest, so that all the
// postings of a key are in one shard and a lookup reads one database. The
// reason is memory: Badger memory-maps every table file, and a table's
// pages, once written or read, stay resident in the process (file-backed,
// reclaimable, but counted in its RSS) until the database is closed. One
// database built with 80M labels kept its whole 6 GB of tables resident;
// a build that writes the shards one after another, closing each, has at
// most about a sixteenth of the index (two shards while one is finished
// in the background) mapped at a time. Lookups open a shard (read-only,
// with a sixteenth of the caches of [Options]) on its first lookup, so
// only the shards and pages that queries touch are mapped. Image hashes
// are in a seventeenth database, images/.
//
// A search of Badger's tables leaves about 50 KB resident (the block it
// reads and the pages the kernel maps around it), so 50k lookups would
// map most of a large index again. Each shard therefore has a key filter
// per corpus and level (shard-XX/filter-<corpus>-<level>): a blocked Bloom
// filter of the digests indexed, 12 bits a key, written by the build with
// the postings. A lookup reads one 64-byte block of each (the filters
// are mapped read-only: 12 bits a key, a few per cent of the index) and
// searches Badger only when one may hold the key: keys no training label
// has (most of most test sets) cost one small read, and few of them pass
// (12 of 15,000 in TestKeyFilters). A pair without its filter is always searched, so the
// filters change speed and memory, never answers; a filter the manifest
// records (every filter a format-4 build writes) that is missing or
// changed makes the index damaged (below). Badger's own per-table
// Bloom filters, which only point reads use, are not written.
//
// # Building
//
// A build streams each corpus once and never sorts it in memory: labels
// are canonicalized and digested on every core (dataset.ScanMapped),
// postings are collected in file order in runs of a fixed size, each run is
// sorted by shard, then key (on a second goroutine while the next fills)
// and spilled to a temporary file, and the sorted runs are merged (a heap
// keyed by the posting keys' three words) into one shard after another,
// each by Badger's incremental StreamWriter, which writes tables directly
// without memtables or compactions. Memory is bounded by two runs, the
// StreamWriter's table buffers and the mapped tables of two shards, not
// by the corpus.
//
// # Manifest and crash safety
//
// manifest.json in the index folder is the [Manifest]: the layout format
// and shard count, the tool version, the levels with their rule versions,
// and each corpus with its path, size, sha256, read statistics and the
// levels already indexed for it. It is replaced atomically (write, fsync,
// rename). A (corpus, level) pair is recorded as done only after its
// postings and filters are flushed to every shard, and the manifest is
// marked Complete only when every requested pair is done; before anything
// is dropped (other corpora, a level whose rules changed) it is saved
// marked incomplete. An index whose build was killed therefore opens as
// incomplete, lookups refuse it with [ErrIncomplete], and the next build
// resumes: pairs already done are skipped, and a pair that was written but
// not yet recorded is written again, yielding the same keys, so counts
// stay exact. Inputs whose checksum changed, or a level whose rules
// changed, are dropped and rebuilt. An index written in format 1 (one
// Badger database in the index folder, before the shards) is refused by
// readers with [ErrOldFormat], whose message says to build it again, and
// is replaced by the next build.
//
// # Integrity
//
// Every answer is exact or an error: a damaged index (a file truncated,
// overwritten, removed or added to) never gives another count, and never
// a panic. The manifest of a complete index records each file of its
// databases with its size and a CRC-32C (a table's by its tail, the part
// Badger reads when it opens it; the manifest carries a checksum of its
// own), checked before a database is opened; Badger checks every table
// block's checksum when a lookup reads it; and the blocks of a level and
// corpus form a chain ending in an end record, which a lookup checks as
// it walks it, since Badger's iterator ends silently at a block it cannot
// read (integrity.go has the details). Errors wrap [ErrDamaged] and name
// the folder. A writer works only in a folder that is empty or holds an
// index and nothing else ([CheckFolder]), and [Remove] removes only such
// an index, so a folder given by mistake loses nothing.
//
// A writer holds an exclusive flock on the index folder while it is open
// (as Badger itself locks a database folder, so a format-1 index open in
// an older leakaudit excludes it too); a second writer gets [ErrLocked].
// Readers open the index read-only with a shared lock, so audits can run
// side by side.
//
// # Image hashes
//
// [DB.BuildImages] hashes image corpora (package imagehash) into a
// database of their own, images/ in the index folder, one record per image
// keyed by corpus and position (images.go has the layout), under the hash
// settings the manifest records ([ImageSettings]): records made with other
// settings, or by another imagehash.Version, are never mixed with them.
// [DB.Images] reads them back in order, and a [Hamming] over their
// perceptual hashes answers radius queries by multi-index hashing: each
// hash cut into chunks, one table per chunk, a query probing the chunk
// values near its own (hamming.go), with a linear scan for small sets.
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
