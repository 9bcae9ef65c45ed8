package cdm

import "testing"

// TestExtraRightInCell: a \right left in an alignment's cell (a prediction
// that dropped the \left\{ of a cases-like array in a matrix cell, issue
// 34's left-out pair) is TeX's "Extra \right." (tex.web §1192): pdflatex
// drops it with its delimiter and typesets the rest, so the pair is
// scored, not left out. Reference F1 from UniMERNet cdm/ run locally on
// these pairs; the boxes agree with the reference's within the usual
// pixel.
func TestExtraRightInCell(t *testing.T) {
	for _, c := range []struct {
		gt, pred string
		f1       float64
	}{
		{`\begin{matrix} f = \left\{ \begin{array} {ll} a & b \\ c & d \end{array} \right. & x \end{matrix}`,
			`\begin{matrix} f = \begin{array} {ll} a & b \\ c & d \end{array} \right. & x \end{matrix}`, 0.933},
		{`\begin{matrix} a & b \\ c & d \end{matrix}`, `\begin{matrix} a & b \right) \\ c & d \end{matrix}`, 1},
		{`\begin{pmatrix} a & b \end{pmatrix}`, `\begin{pmatrix} a \right. & b \end{pmatrix}`, 0.667},
		{`\left( \begin{matrix} a & b \\ c & d \end{matrix} \right)`, `\left( \begin{matrix} a & b \right) \\ c & d \end{matrix}`, 0.909},
		{`\begin{matrix} x = \left\{ \begin{array} {l} 1 \\ 2 \end{array} \right. & y \end{matrix}`,
			`\begin{matrix} x = \begin{array} {l} 1 \\ 2 \end{array} \right. & y \end{matrix}`, 0.909},
	} {
		r := ScorePair(Pair{GT: c.gt, Pred: c.pred}, UniMERNet)
		if r.Status != Scored || r.F1 != c.f1 {
			t.Errorf("%s -> %s: %s (%s), reference F1 %.3f", c.gt, c.pred, r, r.Reason, c.f1)
		}
		if s := ScorePair(Pair{GT: c.gt, Pred: c.pred}, Strict); s.Status != PredFailed {
			t.Errorf("strict: %s: %s (%s), want a LaTeX error", c.pred, s, s.Reason)
		}
	}
}
