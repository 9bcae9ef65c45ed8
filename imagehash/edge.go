package imagehash

import (
	"math/bits"
)

// Edge keys. A copy whose ink was cut at an edge of its image has lost the
// strokes there, and the pHash, which weighs the whole canvas, moves by
// 10–28 bits, from the query and from each of its probes: the probes
// restore the ink box, not the lost ink. The edge key is a second 64-bit
// key of the normalized ink ([Ink]) that leaves a band of EdgeMargin
// pixels out at each side of the canvas, where the cut ink was. A query
// computes it for its own ink and each probe's (the probe that grows the
// cut side puts the window where the uncut copy has it); a training
// image's is computed from its stored ink, so nothing more is stored.
// A pair only the edge key finds is verified more strictly (VerifyEdge).

// EdgeMargin is the band, in pixels of the 64×64 ink canvas, the edge key
// leaves out at each side: ink cut by up to 3% of its box, drawn with the
// common pen, stays within it.
const EdgeMargin = 5

// EdgeRadius is the Hamming radius within which a query's edge keys find
// a training image's.
const EdgeRadius = 10

// edgeSide is the side of the edge key's window.
const edgeSide = InkSide - 2*EdgeMargin

// edgeBasis is the DCT-II basis over the window (dctBasis).
var edgeBasis = dctBasis(edgeSide)

// EdgeKey returns the edge key of an ink bitmap: each of the 8×8 lowest
// DCT coefficients of the window that leaves EdgeMargin pixels out at each
// side, set when it is above their median (a pHash of the window). It is 0
// for an empty bitmap.
func (k *Ink) EdgeKey() uint64 {
	if k.IsZero() {
		return 0
	}
	var rows [edgeSide][8]float64 // each window row's 8 lowest horizontal coefficients
	for y := range rows {
		w := k[y+EdgeMargin] >> EdgeMargin & (1<<edgeSide - 1)
		for w != 0 {
			x := bits.TrailingZeros64(w)
			w &= w - 1
			for u := range 8 {
				rows[y][u] += edgeBasis[u][x]
			}
		}
	}
	return dctKey(rows[:], &edgeBasis)
}

// EdgeKeys returns the edge keys a query searches with: of its ink and
// of each probe's. It is nil for an image without ink or probes (a
// training image, or a query hashed without Options.Probe), for a query
// of one piece of ink (Parts 1): a lone symbol is not searched beyond the
// pHash radius, as other writers draw it alike; and for a query whose ink
// does not reach an edge of its image (AtEdge): no ink of it was cut
// there, and beyond the pHash radius the edge key mostly finds formulas
// that differ at their ends ("331" for "831", printed); nor for a query
// whose ink is too small to verify a copy on the image alone (TooSmall).
func (fp Hashes) EdgeKeys() []uint64 {
	if fp.Probes == nil || fp.Ink.IsZero() || fp.Parts == 1 || !fp.AtEdge || fp.TooSmall() {
		return nil
	}
	out := []uint64{fp.Ink.EdgeKey()}
	for i := range fp.Probes {
		if k := &fp.Probes[i].Ink; !k.IsZero() {
			out = append(out, k.EdgeKey())
		}
	}
	return out
}

// VerifyEdge is Verify for a candidate pair found by the edge key only
// (its pHash beyond the radius): a copy when the cropped pixels are the
// same, or when the query is not one piece of ink and the InkDistance is
// within VerifyInk; the fine hash never verifies such a pair. (Measuring
// the distance inside the edge key's window only found 0.3% more cut
// copies and let a pair of two writers of CROHME train through.)
func VerifyEdge(query, train Hashes) (int, bool) {
	d := FineDistance(query, train)
	if query.Digest == train.Digest {
		return d, true
	}
	if query.Parts == 1 || query.Ink.IsZero() || train.Ink.IsZero() {
		return d, false
	}
	return d, InkDistance(query, train) <= VerifyInk
}
