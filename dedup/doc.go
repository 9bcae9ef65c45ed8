// Package dedup writes a clean release: a dataset rewritten in its own
// format without the items that leak a benchmark, with a manifest of what
// was removed and why. It is the curator's job, where package audit is the
// reviewer's.
//
// A [Job] names the release's splits (any format package dataset reads)
// and what must not leak into them (benchmark test sets as labels, images
// or fingerprints). [Run] works in three steps:
//
//  1. The "against" side is small (benchmark test sets: thousands to tens
//     of thousands of items), so it is held in memory: the digest of each
//     label's canonical key at every requested level ([canon.DigestOf],
//     the digest fingerprints publish, so a fingerprint stands in for a
//     test set), and with Images the perceptual hashes, searched by a
//     [neardup.Matcher] (the searches and the verification neardup
//     makes, so that a copy is one thing to both).
//  2. Each release split is streamed once: an item is removed when its key
//     at some level equals an against item's ("label", the strictest level
//     reported), when its image has a verified near-copy among the against
//     images ("image"), or, with Within, when an earlier release item has
//     the same key ("within"; the first in input order survives). A record
//     the reader cannot use, or whose image cannot be decoded when images
//     are compared, cannot be shown clean and is removed as "unreadable".
//     An image removal whose image is one piece of ink, its pixels not
//     those of what it matched, is marked (Removed.LoneSymbol) and counted
//     (ReleaseSummary.LoneSymbol): another writer's sample of one symbol
//     can lie as close as a copy, so such a removal asks for a look. A
//     kept item whose image is a lone symbol with against images within
//     the radius, none verified (a copy drawn by another pipeline can lie
//     as far as another writer's sample), is counted
//     (ReleaseSummary.LoneUnverified) and listed with those images
//     (Result.Unverified, unverified.jsonl).
//     Memory grows with the removed items (and with Within, with the
//     release's distinct keys and, in a split with images, with its
//     images' hashes, probes included), not otherwise with the release.
//  3. Each split is rewritten by [dataset.WriteSubset] from the removal
//     set, in its own format, every kept record's bytes as they were. A
//     stream file (JSON, JSONL, CSV, lines) whose removals are all decided
//     as its items are delivered (no caption folder, no image rule) is
//     written during step 2 by a [dataset.StreamWriter] instead, to the
//     same bytes, without a second read; a Parquet file's row groups are
//     filtered and encoded on all cores.
//
// The output folder is built beside its final place and renamed into it
// only when complete; inputs are read only; ids never become paths (files
// are named by their directory entries, and symbolic links that lead out
// of a release are refused), and the same inputs give byte-identical
// outputs. Cleaning a cleaned release again removes nothing. The design and
// the file formats are described in docs/formats.md.
package dedup
