package metrics

// EDUniMERNet is ed_unimernet for one sample: character Levenshtein of
// the normalize_text-ed strings over the longer length (0 for two empty
// strings).
func EDUniMERNet(gt, pred string) float64 {
	return edNormalized(NormalizeText(gt), NormalizeText(pred), false)
}

// edNormalized is the character Levenshtein of normalized strings over
// the longer length, or over the reference's (byRef).
func edNormalized(gt, pred string, byRef bool) float64 {
	g, p := []rune(gt), []rune(pred)
	m := max(len(g), len(p))
	if byRef {
		m = len(g)
	}
	if m == 0 {
		return 0
	}
	return float64(Levenshtein(p, g)) / float64(m)
}

// EDPix2tex is ed_pix2tex for one sample: character Levenshtein of the
// post-processed strings over the reference's length (it can exceed 1);
// ok is false for an empty reference, which pix2tex skips.
func EDPix2tex(gt, pred string) (float64, bool) {
	g := NormalizeText(gt)
	if g == "" {
		return 0, false
	}
	return edNormalized(g, NormalizeText(pred), true), true
}

// EDNougat is ed_nougat for one sample: nltk edit_distance of the raw
// strings over the longer length; ok is false when either is shorter
// than 4 characters (skipped).
func EDNougat(gt, pred string) (float64, bool) {
	g, p := []rune(gt), []rune(pred)
	if len(g) < 4 || len(p) < 4 {
		return 0, false
	}
	return float64(Levenshtein(p, g)) / float64(max(len(g), len(p))), true
}

// EDAccIm2markup is edacc_im2markup over a corpus: 1 − Σ token
// Levenshtein / Σ max(token lengths), with tokens split on single spaces.
func EDAccIm2markup(refs, preds []string) float64 {
	var d, n int
	for i := range refs {
		r, p := splitSpace(refs[i]), splitSpace(preds[i])
		d += Levenshtein(r, p)
		n += max(len(r), len(p))
	}
	if n == 0 {
		return 1
	}
	return 1 - float64(d)/float64(n)
}

// splitSpace is Python's s.split(' ') (no strip).
func splitSpace(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] == ' ' {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}
