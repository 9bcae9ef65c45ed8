// Package cdm computes Character Detection Matching (CDM), the
// image-level formula recognition metric of Wang et al. (CVPR 2025), as
// the reference implementation (UniMERNet's cdm/ at 5a2c80d) computes it,
// without running pdflatex or Ghostscript.
//
// Each side of a pair goes through leakaudit's reproduction of the
// reference's tokenizer and colouring (package latex), is laid out by the
// TeX layout engine (package tex) and yields one pixel box per coloured
// token, in the reference's 200-dpi crop coordinates. The boxes of the
// two sides are matched with the reference's cost (token identity,
// position, order) by an exact assignment solver; pairs whose positions
// disagree with a translation-and-scale model are dropped in the
// reference's RANSAC rounds, which replay the reference's own random
// trials (numpy's default_rng(42) stream); pairs whose tokens differ are
// dropped; recall, precision and F1 follow from the accepted pairs
// (docs/cdm.md §8–§11).
//
// Profiles select the reference's constants (UniMERNet, the default;
// OmniDocBench's older copy) or leakaudit's Strict profile, which closes
// the reference's documented blind spots.
package cdm

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/leakaudit/leakaudit/internal/rounding"
	"github.com/leakaudit/leakaudit/latex"
	"github.com/leakaudit/leakaudit/tex"
)

// Profile is a set of CDM constants and policies.
type Profile struct {
	Name string
	// VariantCost is the token cost of two tokens that render alike.
	VariantCost float64
	// OrderPerSide divides each side's order by its own length
	// (OmniDocBench) instead of the longer side's.
	OrderPerSide bool
	// RANSAC: minimum sample, inlier threshold (px) and rounds.
	MinSamples int
	Threshold  float64
	MaxIter    int
	// ScoreGTFailures scores a pair whose ground truth cannot be rendered
	// as 0 instead of leaving it out.
	ScoreGTFailures bool
	// Unrounded keeps recall, precision and F1 unrounded.
	Unrounded bool
	// Strict adds the size and order checks, compares tokens with their
	// font, counts an item exact only when every token matches, and
	// treats any LaTeX error as a failure.
	Strict bool
	// Limits bound the formulas scored (zero fields: DefaultLimits); a
	// formula beyond them fails with reason "limits".
	Limits Limits
	norm   func(string) string
	help   string
}

// Limits bound a formula before it is tokenized and laid out.
type Limits struct {
	MaxFormulaBytes int // default latex.MaxFormulaBytes (64 KiB)
	MaxNesting      int // brace/bracket depth, default latex.MaxNesting (512)
	MaxTokens       int // coloured tokens, default 20,000
}

// DefaultLimits are the limits used for zero fields.
var DefaultLimits = Limits{MaxFormulaBytes: latex.MaxFormulaBytes, MaxNesting: latex.MaxNesting, MaxTokens: 20_000}

func (l Limits) or() Limits {
	d := DefaultLimits
	if l.MaxFormulaBytes > 0 {
		d.MaxFormulaBytes = min(l.MaxFormulaBytes, latex.MaxFormulaBytes)
	}
	if l.MaxNesting > 0 {
		d.MaxNesting = min(l.MaxNesting, latex.MaxNesting)
	}
	if l.MaxTokens > 0 {
		d.MaxTokens = l.MaxTokens
	}
	return d
}

// Help says what the profile is and what it changes.
func (p Profile) Help() string { return p.help }

// The profiles.
var (
	UniMERNet = Profile{Name: "unimernet", VariantCost: 0.005, MinSamples: 2, Threshold: 20, MaxIter: 5, norm: normHead,
		help: "parity with the current reference (UniMERNet cdm/ at 5a2c80d): variant cost 0.005, RANSAC 2 samples / 20 px / 5 rounds, F1 rounded to 3 decimals, GT failures left out of the mean"}
	OmniDocBench = Profile{Name: "omnidocbench", VariantCost: 0.05, OrderPerSide: true, MinSamples: 3, Threshold: 25, MaxIter: 3,
		ScoreGTFailures: true, Unrounded: true, norm: normOmniDocBench,
		help: "OmniDocBench's older copy: variant cost 0.05, per-side order term, RANSAC 3 samples / 25 px / 3 rounds, older token classes, unrounded scores, every failure (GT included) scored 0 (its xelatex renderer is not reproduced)"}
	Strict = Profile{Name: "strict", VariantCost: 0.005, MinSamples: 2, Threshold: 20, MaxIter: 5, Strict: true, norm: normStrict,
		help: "leakaudit's corrections: a box-height check (pred/GT within 0.8-1.25 for glyph tokens) and a left-to-right order check per line, so swaps such as 23/32 and lost primes count; \\ne and \\neq alike, \\var glyphs apart; tokens compared with their font; any LaTeX error is a failure; GT failures reported, not hidden; exact means every token matched"}
)

// Profiles lists the profiles by name.
var Profiles = map[string]Profile{UniMERNet.Name: UniMERNet, OmniDocBench.Name: OmniDocBench, Strict.Name: Strict}

// Side is one formula as the reference sees it: its coloured tokens and
// their pixel boxes in the crop of its render.
type Side struct {
	Tokens []string
	Boxes  []tex.PixelBox
	Fonts  []string // font of each token's first glyph (Strict)
	W, H   int
	// Failure is why the formula has no boxes ("" when it has some).
	Failure string
	// Unsupported is set when leakaudit's engine does not model a
	// construct of the formula: the reference might render it, so the
	// item is reported apart, not as a failure of the prediction.
	Unsupported bool
	// Approximate lists why the layout is not TeX-exact (CJK glyphs).
	Approximate []string
}

// Failure reasons.
const (
	FailTokenizer = "tokenizer"   // the reference's normalizer raises (unbalanced braces)
	FailFatal     = "latex_fatal" // pdflatex would stop without output
	FailNoBoxes   = "no_boxes"    // nothing coloured was drawn
	FailLimits    = "limits"      // beyond leakaudit's input limits
	FailLaTeX     = "latex_error" // any LaTeX error (Strict only)
	FailEngine    = "engine_unsupported"
	FailInternal  = "engine_error" // a bug of leakaudit's engine, reported
	FailMissing   = "missing prediction"
)

// Render tokenizes, lays out and boxes one formula.
func Render(formula string, prof Profile) Side {
	var s Side
	lim := prof.Limits.or()
	if n := len(formula); n > lim.MaxFormulaBytes {
		s.Failure = fmt.Sprintf("%s: more than %d bytes", FailLimits, lim.MaxFormulaBytes)
		return s
	}
	if d := latex.Nesting(formula); d > lim.MaxNesting {
		s.Failure = fmt.Sprintf("%s: nested deeper than %d", FailLimits, lim.MaxNesting)
		return s
	}
	res, err := latex.TokenizeCDM(formula)
	switch {
	case errors.Is(err, latex.ErrTooLarge):
		s.Failure = FailLimits
		return s
	case err != nil:
		s.Failure = FailTokenizer
		return s
	}
	if n := len(res.Tokens); n > lim.MaxTokens {
		s.Failure = fmt.Sprintf("%s: more than %d tokens", FailLimits, lim.MaxTokens)
		return s
	}
	s.Tokens = res.Tokens
	if len(res.Tokens) == 0 {
		s.Failure = FailNoBoxes
		return s
	}
	t, err := layTokens(res)
	l := t.Layout
	switch {
	case errors.Is(err, tex.ErrUnsupported):
		s.Failure, s.Unsupported = FailEngine+": "+strings.TrimPrefix(err.Error(), tex.ErrUnsupported.Error()+": "), true
		return s
	case errors.Is(err, tex.ErrTooLarge):
		s.Failure = FailLimits
		return s
	case errors.Is(err, tex.ErrInternal):
		s.Failure, s.Unsupported = FailInternal+": "+err.Error(), true
		return s
	case err != nil:
		s.Failure = FailFatal
		return s
	}
	if prof.Strict && len(l.Recovered) > 0 {
		s.Failure = FailLaTeX + ": " + l.Recovered[0]
		return s
	}
	s.Approximate = l.Approximate
	s.Boxes, s.W, s.H = t.Boxes(0)
	if prof.Strict {
		s.Fonts = make([]string, len(res.Tokens))
		for _, g := range l.Glyphs {
			if g.Token >= 0 && g.Token < len(s.Fonts) && s.Fonts[g.Token] == "" {
				s.Fonts[g.Token] = strings.TrimRight(g.Font, "0123456789")
			}
		}
	}
	any := false
	for _, b := range s.Boxes {
		if !b.Empty {
			any = true
			break
		}
	}
	if !any {
		s.Failure = FailNoBoxes
	}
	return s
}

// Status of a scored pair.
type Status uint8

const (
	Scored      Status = iota // both sides rendered
	PredFailed                // the prediction failed: F1 0
	GTFailed                  // the ground truth failed: left out (UniMERNet, Strict) or 0 (OmniDocBench)
	Unsupported               // leakaudit cannot render a side the reference might: left out, reported
)

func (s Status) String() string {
	return [...]string{"scored", "pred_failed", "gt_failed", "unsupported"}[s]
}

// Result is one pair's score.
type Result struct {
	Status                Status
	Reason                string // why a side failed
	G, P, TP              int    // boxed tokens of each side, accepted pairs
	Recall, Precision, F1 float64
	// Exact is the ExpRate@CDM decision.
	Exact bool
	// Counted is whether the result enters the mean and ExpRate@CDM.
	Counted bool
	// Matches are the assignment's pairs (indices into the boxed tokens of
	// each side) and whether each was accepted.
	Matches []Match
	// GTTokens and PredTokens are each side's boxed tokens, GTBoxes and
	// PredBoxes their pixel boxes [x1 y1 x2 y2], GTSize and PredSize the
	// crops' sizes.
	GTTokens, PredTokens []string
	GTBoxes, PredBoxes   [][4]float64
	GTSize, PredSize     [2]int
	// Approximate is set when a side's layout is not TeX-exact (CJK).
	Approximate bool
}

// Match is one assigned pair of boxed tokens.
type Match struct {
	G, P     int
	Accepted bool
	Reason   string // why it was rejected: "position", "token", "size", "order"
}

// boxed is a side's tokens that have a box, in token order.
type boxed struct {
	tok  []string
	font []string
	box  [][4]float64
	w, h float64
}

func boxesOf(s Side) boxed {
	b := boxed{w: float64(s.W), h: float64(s.H)}
	n := 0
	for _, bx := range s.Boxes {
		if !bx.Empty {
			n++
		}
	}
	if n > 0 { // (no boxes: nil slices, as ever)
		b.tok, b.box = make([]string, 0, n), make([][4]float64, 0, n)
		if s.Fonts != nil {
			b.font = make([]string, 0, n)
		}
	}
	for i, bx := range s.Boxes {
		if bx.Empty {
			continue
		}
		b.tok = append(b.tok, s.Tokens[i])
		if s.Fonts != nil {
			b.font = append(b.font, s.Fonts[i])
		}
		b.box = append(b.box, [4]float64{float64(bx.X1), float64(bx.Y1), float64(bx.X2), float64(bx.Y2)})
	}
	return b
}

// failed is the result of a pair one of whose sides has no boxes: it
// keeps whatever the other side boxed, so that every writer sees the same
// evidence for every status.
func failed(st Status, reason string, gt, pred Side, counted bool) Result {
	g, p := boxesOf(gt), boxesOf(pred)
	return Result{Status: st, Reason: reason, G: len(g.tok), P: len(p.tok), Counted: counted,
		GTTokens: g.tok, PredTokens: p.tok, GTBoxes: g.box, PredBoxes: p.box,
		GTSize: [2]int{gt.W, gt.H}, PredSize: [2]int{pred.W, pred.H}}
}

// Score scores a rendered pair. A side that failed anywhere between the
// tokenizer and the layout gives the one failure result: a ground truth
// left out (or counted as 0 under ScoreGTFailures), an unsupported
// construct left out, or a prediction scored 0.
func Score(gt, pred Side, prof Profile) Result {
	switch {
	case gt.Failure != "" && gt.Unsupported:
		return failed(Unsupported, "gt: "+gt.Failure, gt, pred, false)
	case gt.Failure != "":
		return failed(GTFailed, "gt: "+gt.Failure, gt, pred, prof.ScoreGTFailures)
	case pred.Failure != "" && pred.Unsupported:
		return failed(Unsupported, "pred: "+pred.Failure, gt, pred, false)
	case pred.Failure != "":
		return failed(PredFailed, "pred: "+pred.Failure, gt, pred, true)
	}
	g, p := boxesOf(gt), boxesOf(pred)
	r := Result{Status: Scored, G: len(g.tok), P: len(p.tok), Counted: true,
		GTTokens: g.tok, PredTokens: p.tok, GTBoxes: g.box, PredBoxes: p.box,
		GTSize: [2]int{gt.W, gt.H}, PredSize: [2]int{pred.W, pred.H},
		Approximate: len(gt.Approximate)+len(pred.Approximate) > 0}
	n, m := len(g.tok), len(p.tok)
	sc := getScratch()
	defer putScratch(sc)
	cost := sc.floats.take(n * m)
	maxLen := float64(max(n, m))
	// Each token's identity and class as small numbers, and each box
	// relative to its crop, computed once per token rather than once per
	// (GT, pred) pair: the same comparisons and the same divisions.
	gID, pID, gClass, pClass := tokenClasses(g.tok, p.tok, prof.norm, sc)
	gRel, pRel := relativeBoxes(g, sc), relativeBoxes(p, sc)
	// each token's place, divided by the longer side's length (or by its
	// own side's under OrderPerSide)
	gDiv, pDiv := maxLen, maxLen
	if prof.OrderPerSide {
		gDiv, pDiv = float64(n), float64(m)
	}
	gOrd, pOrd := sc.floats.take(n), sc.floats.take(m)
	for i := range gOrd {
		gOrd[i] = float64(i) / gDiv
	}
	for j := range pOrd {
		pOrd[j] = float64(j) / pDiv
	}
	tokCost := func(i, j int) float64 {
		tc := 1.0
		switch {
		case gID[i] == pID[j]:
			tc = 0
		case gClass[i] == pClass[j]:
			tc = prof.VariantCost
		}
		if prof.Strict && tc < 1 && g.font[i] != p.font[j] {
			tc = 1
		}
		return tc
	}
	pID, pClass, pRel, pOrd = pID[:m], pClass[:m], pRel[:m], pOrd[:m]
	for i := range n {
		// tokCost(i, j) and the position and order terms, with what
		// depends on i read once per row
		gi, gc, gr, gOrdI := gID[i], gClass[i], gRel[i], gOrd[i]
		row := cost[i*m : i*m+m]
		for j := range row {
			tc := 1.0
			switch {
			case gi == pID[j]:
				tc = 0
			case gc == pClass[j]:
				tc = prof.VariantCost
			}
			if prof.Strict && tc < 1 && g.font[i] != p.font[j] {
				tc = 1
			}
			pr := &pRel[j]
			pos := math.Abs(gr[0] - pr[0])
			pos += math.Abs(gr[1] - pr[1])
			pos += math.Abs(gr[2] - pr[2])
			pos += math.Abs(gr[3] - pr[3])
			pos /= 4
			ord := math.Abs(gOrdI - pOrd[j])
			c := tc + 0.05*pos + 0.15*ord
			if c-c != 0 { // NaN or ±Inf
				c = 100
			}
			row[j] = c
		}
	}
	pairs := assign(cost, n, m, sc)
	src, dst := sc.pairs.take(len(pairs)), sc.pairs.take(len(pairs))
	for k, pr := range pairs {
		a, b := g.box[pr[0]], p.box[pr[1]]
		src[k] = [2]float64{(a[1] + a[3]) / 2, (a[0] + a[2]) / 2}
		dst[k] = [2]float64{(b[1] + b[3]) / 2, (b[0] + b[2]) / 2}
	}
	inl := consistent(src, dst, prof)
	r.Matches = make([]Match, len(pairs))
	for k, pr := range pairs {
		mt := Match{G: pr[0], P: pr[1], Accepted: inl[k]}
		if !inl[k] {
			mt.Reason = "position"
		} else if tokCost(pr[0], pr[1]) == 1 {
			mt.Accepted, mt.Reason = false, "token"
		}
		r.Matches[k] = mt
	}
	if prof.Strict {
		strictChecks(&r, g, p)
	}
	for _, mt := range r.Matches {
		if mt.Accepted {
			r.TP++
		}
	}
	r.Recall = float64(r.TP) / float64(n)
	r.Precision = float64(r.TP) / float64(m)
	r.F1 = 2 * float64(r.TP) / float64(n+m)
	if !prof.Unrounded {
		r.Recall, r.Precision, r.F1 = rounding.Python(r.Recall, 3), rounding.Python(r.Precision, 3), rounding.Python(r.F1, 3)
	}
	if prof.Strict {
		r.Exact = r.TP == n && r.TP == m
	} else {
		r.Exact = r.F1 == 1
	}
	return r
}

// tokenClasses numbers the tokens of both sides (equal strings, equal
// numbers) and their classes under norm (tokens norm maps to the same
// string, equal numbers), in sc.
func tokenClasses(gt, pred []string, norm func(string) string, sc *scoreScratch) (gID, pID, gClass, pClass []int32) {
	ids, classes := sc.ids, sc.classes // empty
	classOf := sc.classOf[:0]          // the class of each id
	number := func(toks []string) (id, class []int32) {
		id, class = sc.int32s.take(len(toks)), sc.int32s.take(len(toks))
		for i, t := range toks {
			k, ok := ids[t]
			if !ok {
				k = int32(len(ids))
				ids[t] = k
				c := norm(t)
				cl, ok := classes[c]
				if !ok {
					cl = int32(len(classes))
					classes[c] = cl
				}
				classOf = append(classOf, cl)
			}
			id[i], class[i] = k, classOf[k]
		}
		return id, class
	}
	gID, gClass = number(gt)
	pID, pClass = number(pred)
	sc.classOf = classOf
	return gID, pID, gClass, pClass
}

// relativeBoxes divides each box's x coordinates by the crop's width and
// its y coordinates by the crop's height, in sc.
func relativeBoxes(b boxed, sc *scoreScratch) [][4]float64 {
	rel := sc.quads.take(len(b.box))
	for i, bx := range b.box {
		rel[i] = [4]float64{bx[0] / b.w, bx[1] / b.h, bx[2] / b.w, bx[3] / b.h}
	}
	return rel
}

// Pair is one (ground truth, prediction) item to score.
type Pair struct {
	ID, GT, Pred string
	// NoPred marks an item for which the model gave no prediction: it is
	// a prediction failure (FailMissing), scored 0, never left out.
	NoPred bool
}

// ScorePair renders both sides and scores them.
func ScorePair(p Pair, prof Profile) Result {
	if p.NoPred {
		return Score(Render(p.GT, prof), Side{Failure: FailMissing}, prof)
	}
	return Score(Render(p.GT, prof), Render(p.Pred, prof), prof)
}

// String summarises a result.
func (r Result) String() string {
	return fmt.Sprintf("%s G=%d P=%d TP=%d F1=%.3f", r.Status, r.G, r.P, r.TP, r.F1)
}
