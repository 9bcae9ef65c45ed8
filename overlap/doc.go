// Package overlap measures label overlap: for each test split and
// canonical level, how many test items have a label that also occurs in
// the training corpora, with the matching training ids as evidence.
//
// Run is the whole check: it digests the training corpora, then either
// streams them once past the test keys (index.Probe, a one-off check) or
// reuses, resumes or builds their index (index.DB, repeated checks), and
// looks every test label up at every level (Check). The two paths answer
// the same lookups, so they give the same Report. With Job.Near it also
// finds, for each test item, the training labels within a few token edits
// (near.go), beside the chance level that control splits measure.
// Per-item evidence goes to Job.Item (ItemMatch rows, in split, item and
// level order) or, for the near rows, to Job.NearItem.
//
// Counting follows the published protocol (docs/canonical-ladder.md §1.3):
// every test entry is checked separately, so duplicates inside a test
// split count once each; total is the number of entries read; the rate is
// round(100*found/total, 2) computed on float64 and rounded half to even
// on the exact binary value, as Python's round does (Percent). Items a
// reader could not use are not in total; they are counted under Skipped
// with their reasons, and an input read only in part is listed in the
// Report's Completeness.
//
// A Report holds nothing that depends on the machine or the time: the
// same inputs give the same JSON. The package reads inputs and an index
// folder; it writes only into the index folder (Job.DB, or the default
// folder under the user cache directory).
package overlap
