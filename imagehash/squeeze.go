package imagehash

import "math"

// Squeezed ink. A copy drawn on a canvas stretched to another aspect (a
// wide formula on a narrow canvas) has its strokes squeezed along one
// axis while its pen stays round: along that axis neighbouring symbols
// overlap and merge, so the ink has less outline for its area than its
// pen drew, and penWidth, twice the area over the outline, overestimates
// the pen (by a median 16% and up to 3.8 times for a 4.2 px pen on a
// 76×241 ink box). Redrawn with too thick a pen, the strokes are thinned
// by too much and squeezed further, and the copy's ink lies 0.7–3 px from
// its original's where the true pen puts it within 0.1–0.55 px. Such a
// query, recognized by its ink's runs (many more along one axis than
// along the other, which handwriting at its own aspect does not show), is
// also drawn with thinner pens (squeezeShares); each drawing's pHash is
// searched with the query's (SearchHashes), and a candidate is verified
// when one drawing's ink is within VerifyInk of the training image's
// (Verify), no looser rule: each drawing is one more chance for another
// writer's sample to come close. Nothing of a training image changes.
//
// A thick pen on a small canvas does the same to a query at its own
// aspect: its ink is small against its pen (inkScale.thick, small.go),
// merged strokes have less outline for their area, and the estimate
// exceeds the drawn pen (by up to 1.9 times on a 137×137 canvas ×0.75
// whose pen is 2.8 px). Such a query is drawn with the same thinner pens
// and verified the same way, besides its small-ink levels. Its ink is a
// few pixels high and wide, so that a cut at a side (up to 3% of its box,
// 1–2 px of the hash canvas) shifts it as much as the pen does: where its
// ink reaches the image's edge, it is also drawn with thinner pens after
// ground is added at that side. On CROHME 2014 drawn with a 2.8 px pen on
// a 103×103 canvas (seed 1769844810), most of the misses that remain lie
// 0.8–1.4 px away even redrawn with the drawn pen (an oracle): their ink,
// some 82×16 px, is too coarse for the rule, not only merged.

// squeezeFrom is the least ratio of the ink's runs along one axis to those
// along the other at which a query counts as squeezed. Of CROHME train's
// and 2014's 9,820 bitmaps, at their own aspect, 437 reach it (27 reach 3:
// lone strokes, a 1, a bar); a formula stretched onto a 127×324 canvas has
// a median of 5. On a small stretched canvas the ratio shows the squeeze
// less, the strokes being a pixel or two wide: CROHME 2014 drawn with a
// 1.4 px pen on a 41×71 canvas (pen 4.8 on 139×239 stretched, ×0.30; ink
// about 25×56 px) missed 119 copies the verification refused, 69 of them
// with a ratio between 2 and 3; the 69 more of its 986 found with the
// thinner drawings (stop 50, when squeezeFrom was lowered from 3; see the
// README) have their pen measured 1.8–5.8 px and lay 0.7–2.7 px from their
// bitmaps.
const squeezeFrom = 2.0

// squeezeShares are the shares of its estimated pen width at which a
// squeezed query's ink is also drawn.
var squeezeShares = [...]float64{1 / 1.25, 1 / 1.6, 1 / 2.0, 1 / 2.5, 1 / 3.2}

// squeezed holds a squeezed query's drawings with thinner pens and their
// outlines' distance maps (a pointer in Hashes, so that Hashes stays
// comparable).
type squeezed struct {
	list  []Probe
	query *queryInk
}

// runRatio returns the ratio of the ink's runs along rows to its runs
// along columns (inkRuns), or its inverse, whichever is larger: how much
// more one axis cuts the strokes than the other; 1 when there is no ink.
func runRatio(rows, cols int) float64 {
	if rows == 0 || cols == 0 {
		return 1
	}
	r := float64(rows) / float64(cols)
	return math.Max(r, 1/r)
}

// squeezeOf draws a squeezed query's ink (ink ≤ t, its pen p as penWidth
// estimates it, ratio its runRatio), or one whose pen is thick for its
// ink (thick), with thinner pens; nil when the ink is neither squeezed
// (ratio below squeezeFrom) nor thick. A thick query's ink that reaches
// the image's edge at a side (bit s of edges, as edgeSides numbers the
// sides) may have been cut there, which shifts its strokes on the canvas
// by up to ProbeShare of its box: it is also drawn with ProbeShare of
// ground added at that side (reframe).
func squeezeOf(c Gray, t uint8, p, ratio float64, thick bool, edges uint8, o Options) (*squeezed, error) {
	if ratio < squeezeFrom && !thick {
		return nil, nil
	}
	s := new(squeezed)
	draw := func(c Gray) error {
		for _, f := range squeezeShares {
			q := p * f
			if q < 1 {
				break
			}
			var pr Probe
			canvas := penCanvasWith(c, t, q, o.size(), o.Canvas, nil)
			if err := hashCanvas(&pr.Hash, &pr.Fine, canvas, o); err != nil {
				return err
			}
			if pr.Ink = inkOf(canvas); !pr.Ink.IsZero() {
				s.list = append(s.list, pr)
			}
		}
		return nil
	}
	if err := draw(c); err != nil {
		return nil, err
	}
	if thick {
		for side := range 4 {
			if edges>>side&1 == 0 {
				continue
			}
			if err := draw(reframe(c, side, ProbeShare)); err != nil {
				return nil, err
			}
		}
	}
	if len(s.list) == 0 {
		return nil, nil
	}
	q := &queryInk{}
	for i := range s.list {
		q.inks = append(q.inks, &s.list[i].Ink)
	}
	s.query = q
	return s, nil
}

// verifySqueezed reports whether one of a squeezed query's drawings with
// a thinner pen is within VerifyInk of the training image's ink.
func verifySqueezed(query, train Hashes) bool {
	s := query.squeeze
	if s == nil || train.Ink.IsZero() {
		return false
	}
	return InkDistance(Hashes{Ink: s.list[0].Ink, query: s.query}, train) <= VerifyInk
}

// Squeezed reports whether the query's ink was found squeezed along one
// axis, or its pen thick for its ink, and also drawn with thinner pens
// (false for a training image).
func (fp Hashes) Squeezed() bool { return fp.squeeze != nil }
