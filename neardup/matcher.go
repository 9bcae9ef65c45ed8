package neardup

import (
	"context"
	"math/bits"

	"github.com/leakaudit/leakaudit/imagehash"
	"github.com/leakaudit/leakaudit/index"
	"github.com/leakaudit/leakaudit/internal/parallel"
)

// Matcher finds a query image's copies among a fixed set of images (the
// training side), by every search and rule the package comment describes:
// the pHash within a radius, verified by imagehash.Verify; and, with
// probes, the edge keys (imagehash.VerifyEdge), the cut variants' keys
// (imagehash.VerifyCut) and the small-ink keys (imagehash.Verify). Run
// searches the training images with one, and package dedup the images a
// release must not copy, so that a copy is one thing to both. It is safe
// for concurrent searches once made.
type Matcher struct {
	print func(i int) *imagehash.Hashes
	mih   *index.Hamming // over the images' pHashes
	// edge is over the edge keys of the images with ink (edgePos[i] is
	// the i-th key's image; nil without probes or when no image has
	// ink): a second search, for ink cut at an edge.
	edge    *index.Hamming
	edgePos []int
	// cut is over the cut variants' keys of the images with ink
	// (cutPos[i] is the i-th key's image and side; nil as edge is): a
	// third search, for a cut that moved the ink box.
	cut    *index.Hamming
	cutPos []cutPos
	small  *smallKeys // nil without probes
}

// cutPos is a cut variant's image position and side.
type cutPos struct {
	pos  int32
	side uint8
}

// NewMatcher indexes n images, the i-th's hashes print(i) (none blank),
// on all cores under ctx. Without probes only the pHash is searched (the
// queries were hashed without imagehash.Options.Probe).
func NewMatcher(ctx context.Context, n int, print func(i int) *imagehash.Hashes, probes bool) (*Matcher, error) {
	m := &Matcher{print: print}
	hashes := make([]uint64, n)
	for i := range hashes {
		hashes[i] = print(i).Hash
	}
	m.mih = index.NewHamming(hashes)
	if !probes {
		return m, nil
	}
	var inked []int
	for i := range n {
		if !print(i).Ink.IsZero() {
			inked = append(inked, i)
		}
	}
	// The edge keys and the cut variants' keys are computed from the
	// stored ink; an image without ink (from a fingerprint made without
	// it) has none, and VerifyEdge and VerifyCut never verify it.
	keys := make([]uint64, len(inked))
	cuts := make([][4]uint64, len(inked))
	if err := parallel.For(ctx, len(inked), 0, func(i int) error {
		ink := &print(inked[i]).Ink
		keys[i], cuts[i] = ink.EdgeKey(), ink.CutVariantKeys()
		return nil
	}); err != nil {
		return nil, err
	}
	if len(keys) > 0 {
		m.edge, m.edgePos = index.NewHamming(keys), inked
	}
	var ckeys []uint64
	for i, ks := range cuts {
		for side, k := range ks {
			if k != 0 {
				ckeys = append(ckeys, k)
				m.cutPos = append(m.cutPos, cutPos{int32(inked[i]), uint8(side)})
			}
		}
	}
	if len(ckeys) > 0 {
		m.cut = index.NewHamming(ckeys)
	}
	m.small = newSmallKeys(n, print)
	return m, nil
}

// Rule names the search that found a match.
type Rule uint8

const (
	ByPHash Rule = iota // the pHash within the radius
	ByEdge              // the edge keys
	ByCut               // a cut variant's key, or a pHash candidate a cut variant verified
	BySmall             // the small-ink keys
)

// Match is an image a query matched.
type Match struct {
	Pos int // the image's position
	// Distance is the pHash distance from the query's nearest search
	// hash (imagehash.Hashes.SearchHashes), within the radius or beyond.
	Distance int
	By       Rule
	Verified bool
	Fine     int // the fine hashes' distance
	// Drawing is the query's drawing that verified a match by the pHash
	// or the small-ink keys (imagehash.VerifyDrawing).
	Drawing imagehash.Drawing
}

// Search returns the images that match fp, in the order its searches find
// them, each once: those within radius of its pHash that
// imagehash.Verify verifies (all of them with unverified, the rest
// marked), those beyond it that the edge keys find within
// imagehash.EdgeRadius and imagehash.VerifyEdge verifies, those that a cut
// variant's key finds within imagehash.CutRadius and imagehash.VerifyCut
// verifies (a pHash candidate left unverified becomes verified so), and,
// for a query whose ink is small, those its small-ink keys find that
// imagehash.Verify verifies. An image skip refuses is never matched (nil
// skips none).
func (m *Matcher) Search(fp imagehash.Hashes, radius int, unverified bool, skip func(pos int) bool) []Match {
	var found []Match
	var seen map[int]bool // the positions the pHash search or the edge keys found
	if m.edge != nil || m.cut != nil || m.small != nil {
		seen = map[int]bool{}
	}
	at := map[int]int{} // the positions in found, and where
	// consider offers the image at pos, d bits from the query, found by
	// the search by (at side, for a cut variant), and says whether it was
	// kept.
	consider := func(pos, d int, by Rule, side int) bool {
		if skip != nil && skip(pos) {
			return false
		}
		o := m.print(pos)
		mt := Match{Pos: pos, Distance: d, By: by}
		switch by {
		case ByEdge:
			if mt.Fine, mt.Verified = imagehash.VerifyEdge(fp, *o); !mt.Verified {
				return false
			}
		case ByCut:
			mt.Fine = imagehash.FineDistance(fp, *o)
			if _, mt.Verified = imagehash.VerifyCut(fp, *o, side); !mt.Verified {
				return false
			}
		default:
			// Beyond the radius, only verified matches: the unverified
			// candidates are mostly other formulas.
			if mt.Fine, mt.Verified, mt.Drawing = imagehash.VerifyDrawing(fp, *o); !mt.Verified && (by == BySmall || !unverified) {
				return false
			}
		}
		at[pos] = len(found)
		found = append(found, mt)
		return true
	}
	search := fp.SearchHashes()
	m.mih.SearchAny(search, radius, func(pos, d int) {
		if seen != nil {
			seen[pos] = true
		}
		consider(pos, d, ByPHash, 0)
	})
	nearest := func(pos int) int {
		d := 64
		h := m.print(pos).Hash
		for _, s := range search {
			d = min(d, bits.OnesCount64(s^h))
		}
		return d
	}
	if m.edge != nil {
		m.edge.SearchAny(fp.EdgeKeys(), imagehash.EdgeRadius, func(i, _ int) {
			pos := m.edgePos[i]
			// An edge candidate VerifyEdge refuses may still be a cut
			// copy or a small ink's (below).
			if !seen[pos] && consider(pos, nearest(pos), ByEdge, 0) {
				seen[pos] = true
			}
		})
	}
	if m.cut != nil {
		// A candidate within the radius that Verify did not verify may
		// still be a cut copy: a match kept unverified becomes verified.
		m.cut.SearchAny(fp.CutKeys(), imagehash.CutRadius, func(i, _ int) {
			c := m.cutPos[i]
			pos := int(c.pos)
			k, ok := at[pos]
			switch {
			case !ok:
				consider(pos, nearest(pos), ByCut, int(c.side))
			case !found[k].Verified:
				if _, v := imagehash.VerifyCut(fp, *m.print(pos), int(c.side)); v {
					found[k].Verified, found[k].By = true, ByCut
				}
			}
		})
	}
	m.small.search(fp, func(pos int) {
		if _, ok := at[pos]; !ok && !seen[pos] {
			consider(pos, nearest(pos), BySmall, 0)
		}
	})
	return found
}

// LoneUnverified returns, for a query that is a lone symbol (one piece of
// ink, imagehash.Hashes.Parts, its ink not too small to verify), the
// images within radius of its pHash (not skipped) when Search verifies
// none of them: another writer's sample of the symbol, or a copy drawn by
// another pipeline that lies as far from its source
// (imagehash.LoneUnverifiedNote). It returns nil for any other query, and
// when a match is verified.
func (m *Matcher) LoneUnverified(fp imagehash.Hashes, radius int, skip func(pos int) bool) []Match {
	if fp.Parts != 1 || fp.TooSmall() {
		return nil
	}
	found := m.Search(fp, radius, true, skip)
	for _, mt := range found {
		if mt.Verified {
			return nil
		}
	}
	return found
}
