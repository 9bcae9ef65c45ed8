// Package neardup finds image near-duplicates: test images that are
// copies of training images, possibly rescanned, rasterized by another
// pipeline or with their polarity inverted.
//
// Run hashes the training images into an index (reused while the inputs
// are unchanged) or reads their hashes from an image fingerprint, hashes
// each test split (package imagehash: normalized ink, a 64-bit pHash, a
// 256-bit difference hash and a pixel digest), and searches every test
// hash among the training hashes within Job.MaxDistance by multi-index
// hashing, with probes for ink cut at an edge. A candidate is reported
// when the two images' normalized ink verifies it as a copy
// (imagehash.Verify: the chamfer distance of their outlines), or with
// Job.Unverified always. The query's edge keys (imagehash.EdgeKeys, the
// ink without a band at each side) are also searched, within
// imagehash.EdgeRadius of keys computed from the training images' stored
// ink, so that a copy whose ink was cut at an edge is found beyond the
// pHash radius; such a pair (Pair.EdgeKey) is reported only when
// imagehash.VerifyEdge verifies it. A query also searches its ink keys
// (imagehash.Hashes.CutKeys) among the training images' cut variants of
// every side (imagehash.Ink.CutVariantKeys,
// computed from the stored ink: the ink a 3% cut would leave, refitted),
// for a cut that moved the ink box; such a pair (Pair.Cut) is reported
// only when imagehash.VerifyCut verifies it. A query whose ink a thick pen merged on
// a small canvas is also searched by its small-ink keys
// (imagehash.Hashes.SmallKeys) among keys computed from the training
// images' stored ink closed at its level; such a pair (Pair.SmallInk) is
// reported only when imagehash.Verify verifies it, and a query whose ink is
// too small to verify (imagehash.Hashes.TooSmall) is counted in
// Summary.InkTooSmall. These searches and their verification are a
// Matcher's, over the training images; package dedup searches the images
// a release must not copy with one too, so that a copy is one thing to
// both. A verified pair of a lone symbol (a test image of
// one piece of ink) whose pixels differ is marked (Pair.LoneSymbol) and
// counted (Summary.LoneSymbol): another sample of one symbol can lie as
// close as a copy. The other way round, a copy of a lone symbol drawn by
// another pipeline can lie as far from its source as another writer's
// sample, and is then not verified: a lone symbol with training images
// within the radius, none verified, is counted (Summary.LoneUnverified),
// so that a split of symbols does not look clean for lack of proof. Within a split that is itself a training corpus,
// a pair is listed once, from whichever of its items found it first. Each pair's labels are compared (package
// labelcheck), so that a copy carrying another formula (a relabelled copy
// or a label error) stands out; a fingerprint's labels are compared by
// their digests.
//
// The Report lists the pairs, a Summary per test split and the inputs
// with their checksums; it holds nothing that depends on the machine or
// the time. Its Evidence, the first Job.Evidence pairs with both images
// decoded, is for galleries and reports and is not part of the JSON.
package neardup
