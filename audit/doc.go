// Package audit computes the findings of a benchmark-integrity audit. This
// file set covers label overlap: for each test split and canonical level,
// how many test items have a label that also occurs in the training
// corpora, with the matching training ids as evidence.
//
// Counting follows the published protocol (docs/canonical-ladder.md §1.3): every test
// entry is checked separately, so duplicates inside a test split count once
// each; total is the number of entries read; the rate is
// round(100*found/total, 2) computed on float64 and rounded half to even on
// the exact binary value, as Python's round does. Items a reader could not
// use are not in total; they are counted under Skipped with their reasons.
package audit
