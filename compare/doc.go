// Package compare audits a ranking: two or more models' predictions on the
// same test splits, each model with its own training data, compared as a
// reviewer of a state-of-the-art claim would (docs/compare.md).
//
// A claim "X reaches 90.7%, ahead of Y" is a comparison, so the question is
// whether X's lead survives on the items neither model could have seen,
// and whether X's advantage on the items it saw is larger than a model
// trained by the benchmark's rules shows on the same items. Run reads
// every split's items once (matched by id across the prediction files,
// ground truths from the split's label file when given), scores each
// model's predictions with CDM once (reusing "leakaudit score --out"
// results when given), looks every label up in each distinct training
// corpus once (overlap.Run: the canonical levels, and near labels
// with Config.Near) and each split's images in each model's training
// images (neardup.Run), and derives, per split:
//
//   - each model's ExpRate@CDM on all items, on the common clean subset
//     (items no model saw) and on its own seen subset, with Wilson
//     intervals, and the text ExpRate and ≤1, ≤2 token errors beside it;
//   - each model's seen gap, stratified by label length (Mantel–Haenszel,
//     as the audit's contamination gap) with a Greenland–Robins interval
//     (on Agresti–Caffo's adjusted proportions);
//   - the excess gap of each model over each rules: true model: the
//     difference of the two models' stratified gaps on the same items,
//     with an interval that accounts for the pairing;
//   - every pair of models on all items and on clean items: the paired
//     difference with Newcombe's interval for paired proportions and an
//     exact McNemar p, Holm-adjusted over every comparison of the run;
//   - the ranks on all items and on clean items, rank flips flagged, and
//     one sentence per split.
//
// Everything is deterministic: the same inputs give the same Comparison,
// whose JSON, Markdown and HTML (package report) are the same bytes.
package compare
