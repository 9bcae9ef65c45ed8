// Package metrics computes the text metrics of formula recognition as
// each published variant defines them (docs/metrics.md), under names that
// say which variant a number is: ExpRate at a canonical level, ExpRate ≤ k
// by token edit distance (the CAN/TAMER definition, le_k@tokEdit), BLEU as
// im2markup (multi-bleu.perl), UniMERNet (HF evaluate over sacrebleu's
// 13a tokens) and Nougat (mean nltk sentence BLEU) compute it, and the
// edit-distance variants of UniMERNet, pix2tex, Nougat and im2markup.
// CDM, TeXBLEU and IMEGE are in the subpackages cdm, texbleu and imege.
//
// Not here: le_k@symLG (needs a LaTeX to label-graph converter) and BLEU
// as pix2tex computes it (its BPE tokenizer file is not available).
package metrics

import (
	"strings"

	"github.com/leakaudit/leakaudit/canon"
)

// Levenshtein is the unit-cost edit distance between two sequences.
func Levenshtein[T comparable](a, b []T) int {
	if len(a) < len(b) {
		a, b = b, a
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			c := prev[j-1]
			if a[i-1] != b[j-1] {
				c++
			}
			c = min(c, prev[j]+1, cur[j-1]+1)
			cur[j] = c
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// Tokens splits a space-tokenized formula as CAN and TAMER do:
// strip(), then split on single spaces (so a double space makes an empty
// token, as in Python).
func Tokens(s string) []string {
	s = strings.TrimSpace(s)
	if s == "" {
		return []string{""}
	}
	return strings.Split(s, " ")
}

// TokenDistance is the token edit distance of le_k@tokEdit.
func TokenDistance(pred, gt string) int { return Levenshtein(Tokens(pred), Tokens(gt)) }

// ExpRate is exprate@L: the share of ground-truth items whose prediction
// equals it at the level; a missing prediction (has false) counts as
// wrong, and failures to canonicalize count as unequal. Every ExpRate of
// leakaudit (score's exprate@L, the audit's per-split ExpRate) is this
// count of Exact decisions.
func ExpRate(level canon.Level, gts, preds []string, has []bool) (exact, n int) {
	for i, g := range gts {
		n++
		if has[i] && Exact(level, g, preds[i]) {
			exact++
		}
	}
	return exact, n
}

// Exact is one item's exprate@L decision: the prediction equals the
// ground truth at the level. A label that fails to canonicalize equals
// nothing.
func Exact(level canon.Level, gt, pred string) bool {
	kg, err1 := level.Canon(gt)
	kp, err2 := level.Canon(pred)
	return err1 == nil && err2 == nil && kg == kp
}

// LeK counts items within token edit distance k, for k = 0…3
// (le_k@tokEdit; k = 0 is ExpRate on the dataset's own tokens).
func LeK(gts, preds []string, has []bool) (counts [4]int, n int) {
	for i, g := range gts {
		n++
		if !has[i] {
			continue
		}
		d := TokenDistance(preds[i], g)
		for k := d; k < 4; k++ {
			counts[k]++
		}
	}
	return counts, n
}
