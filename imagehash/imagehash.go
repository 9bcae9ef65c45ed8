// Package imagehash hashes formula images so that copies are found across
// the transformations seen between benchmark releases: inverted polarity
// (white ink on black, as in the CROHME PNGs, versus black on white),
// rescaling, padding and margins, stretching, JPEG compression, and the
// same handwriting rasterized by another pipeline (another pen width,
// canvas, anti-aliasing or margin).
//
// [Normalize] makes every image dark ink on a light ground, crops it to the
// ink, fits it to a canvas ([Fit], [Canvas]) and redraws its ink with one
// common pen (see pen.go). [Compute] hashes the result with a perceptual
// hash from goimagehash ([Kind]: pHash by default), which is what an index
// searches within a Hamming radius, and adds a 256-bit fine hash of the
// same canvas and a SHA-256 digest of the cropped pixels, which mark exact
// copies whatever their polarity or margins. A query also hashes probes
// ([Options.Probe]): its ink box moved in and out at each side, so that a
// copy whose ink was cut at an edge is still found; and [Ink.EdgeKey], a
// pHash of the ink without a band at each side, finds a copy whose cut
// lost strokes ([Hashes.EdgeKeys], verified by [VerifyEdge]); a
// training image's cut variants ([Ink.CutVariantKeys]) find a copy whose
// cut moved its ink box further ([Hashes.CutKeys], verified by
// [VerifyCut]). A query whose strokes a thick pen merged on a small
// canvas is keyed and verified against the training ink closed at its
// level ([Hashes.SmallKeys], small.go); one whose ink is too small to tell
// one formula from another is verified only by identical pixels
// ([Hashes.TooSmall]). A query whose ink a canvas of another aspect
// squeezed along one axis, so that its round pen merged neighbouring
// symbols and is overestimated, is also drawn with thinner pens
// ([Hashes.Squeezed], squeeze.go); one whose pen is underestimated
// (short strokes against a thick pen) is compared with a candidate near
// it as drawn with thicker pens ([ByThickerPen], thicker.go).
//
// A candidate within the radius is a copy only when [Verify] says so: the
// same digest, or the two normalized inks within [VerifyInk] of each
// other, or within [VerifyInkFine] with fine hashes within
// [VerifyDistance] (stricter for a lone symbol) for a query of at most
// [VerifyInkFineParts] pieces of ink, or one of the rules above; hashes
// without ink bitmaps, by the fine hashes alone. Even then an image
// match cannot tell "the same formula" from "one symbol changed", so
// callers always read it together with the labels.
//
// [Scan] and [HashItems] hash a dataset image source, or a batch of its
// items, on all cores, in source order; an image that cannot be decoded is
// counted, never fatal. [Version] is bumped whenever normalization or
// hashing changes, so that stored hashes are never compared with another
// version's.
package imagehash

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"image"
	"image/color"
	"math"
	"math/bits"

	"github.com/corona10/goimagehash"
)

// Kind names a perceptual hash.
type Kind string

// The hashes offered. PHash is the default; AHash is included for
// comparison only: on formula images most unrelated pairs fall within
// distance 10.
const (
	PHash Kind = "phash"
	DHash Kind = "dhash"
	AHash Kind = "ahash"
)

// Kinds lists the hash kinds.
var Kinds = []Kind{PHash, DHash, AHash}

// ParseKind validates a hash kind name.
func ParseKind(s string) (Kind, error) {
	for _, k := range Kinds {
		if string(k) == s {
			return k, nil
		}
	}
	return "", fmt.Errorf("unknown hash %q (known: phash, dhash, ahash)", s)
}

// Canvas says how the cropped ink is fitted into the square the hash sees.
type Canvas string

const (
	// Aspect centres the ink on a square canvas, keeping its aspect ratio.
	Aspect Canvas = "aspect"
	// Stretch scales the ink box to the square, so that a copy whose aspect
	// was stretched still lines up.
	Stretch Canvas = "stretch"
)

// ParseCanvas validates a canvas name: stretch or aspect.
func ParseCanvas(s string) (Canvas, error) {
	if c := Canvas(s); c == Stretch || c == Aspect {
		return c, nil
	}
	return "", fmt.Errorf("unknown canvas %q (stretch or aspect)", s)
}

// Options configure normalization.
type Options struct {
	Kind   Kind
	Canvas Canvas
	// Size is the side of the normalized canvas in pixels (default 64, the
	// size pHash works at).
	Size int
	// Probe computes Hashes.Probes, for queries.
	Probe bool
}

func (o Options) size() int {
	if o.Size <= 0 {
		return 64
	}
	return o.Size
}

// Hashes are the hashes of one image: what is stored for it and compared
// with another's.
type Hashes struct {
	Hash   uint64    // the perceptual hash
	Fine   [4]uint64 // a 256-bit difference hash of the same canvas, to verify candidates
	Digest [16]byte  // SHA-256 (first 16 bytes) of the normalized, cropped pixels
	Blank  bool      // no ink was found; such images never match anything
	// Ink is the normalized canvas as a bitmap, which Verify compares;
	// zero when absent (no ink, or hashes without it).
	Ink Ink
	// query caches, for a query, its canvases' outlines and their
	// distance maps (InkDistance).
	query  *queryInk
	Width  int // of the decoded image
	Height int
	// Probes, computed for a query when Options.Probe is set, are the
	// hashes of the image with its ink box moved by ProbeShare on each
	// side, outwards and inwards: a copy whose ink was cut at an edge, or
	// that has ink this one lost, is found through one of them. They are
	// never stored; nil for a training image.
	Probes *[NumProbes]Probe
	// Parts is the number of connected pieces of ink Compute found, with
	// Options.Probe (not stored: 0 for a training image). An
	// image of one piece, a lone symbol, is verified more strictly: other
	// writers' symbols differ little. One piece at least wideOnePiece
	// times as wide as it is high counts as two: a formula whose symbols
	// a thick pen joined on a small canvas.
	Parts int
	// AtEdge, set for a query (Options.Probe; not stored), says that its
	// ink reaches an edge of the decoded image, as ink cut by that edge
	// does: only such a query searches by its edge keys (EdgeKeys).
	AtEdge bool
	// scale is what a query's pen did to its strokes (small.go; not
	// stored: zero for a training image), and small caches its inks
	// prepared at the small levels.
	scale inkScale
	small *smallQuery
	// squeeze holds a squeezed query's ink drawn with thinner pens
	// (squeeze.go; not stored: nil for a training image).
	squeeze *squeezed
	// thicker holds what a query's ink is drawn with thicker pens from,
	// and the drawings once made (thicker.go; not stored: nil for a
	// training image).
	thicker *thicker
}

// LoneSymbolNote says why a verified copy of a lone symbol (an image of one
// piece of ink, Hashes.Parts 1) whose pixels differ from its match's is
// weaker evidence than a formula's copy, as neardup and dedup report it:
// measured on CROHME train against itself (the false-pair control), where
// no sample is another's copy.
const LoneSymbolNote = "another sample of one symbol can lie as close as a copy (CROHME train against itself verifies three pairs of two samples of one symbol, at 0.50–0.69 px)"

// LoneUnverifiedNote says why a lone symbol (an image of one piece of ink)
// whose candidates within the radius are not verified may still be a copy,
// as neardup and dedup report such items: a copy of a small symbol drawn by
// another pipeline, its pen thick against its size, can lie as far from its
// source as other writers' samples of the symbol lie from each other, and
// the verification stops short of those (see the README, "Lone symbols").
const LoneUnverifiedNote = "a lone symbol's copy drawn by another pipeline can lie as far from its source as another writer's sample of the symbol, and such pairs are not verified: these may hide copies"

// wideOnePiece is the width-to-height ratio from which one piece of ink is
// taken for a joined formula rather than a lone symbol.
const wideOnePiece = 3

// Probe is one probe's hashes.
type Probe struct {
	Hash uint64
	Fine [4]uint64
	Ink  Ink
}

// NumProbes is the number of probes of a query: the four sides, the ink
// box grown and shrunk.
const NumProbes = 8

// ProbeShare is the share of the ink box a probe adds or takes away at one
// side: ink cut at an edge by up to 3% of its box is found.
//
// Every probe is used, whatever the margins. Using one only where a cut
// is possible (growing a side only where the query's ink reaches its
// image's edge, shrinking one only where the training image's does) was
// measured in stop 45: CROHME train against itself kept 1 of its 8 pairs
// of two writers, and its cut queries 2–7 of 13–18, but 0.4–3.0% of the
// copies rasterized by other pipelines were lost (CROHME 2014 read as
// InkML: 980 of 986 found instead of 986; pen 1.5 ×4: 973 instead of
// 986), as were 0.07–0.17% of the cut queries' own bitmaps. A copy's ink
// box differs from its original's by a few percent at a side for reasons
// other than a cut (the pen, anti-aliasing, JPEG, the scale; no CROHME
// bitmap has ink within a pixel of its edge), and the probes absorb that
// too.
const ProbeShare = 0.03

// SearchHashes returns the perceptual hash, those of the probes and, for
// a squeezed query (Squeezed), those of its ink drawn with thinner pens:
// the hashes a query searches with.
func (fp Hashes) SearchHashes() []uint64 {
	out := []uint64{fp.Hash}
	if fp.Probes != nil {
		for _, p := range fp.Probes {
			out = append(out, p.Hash)
		}
	}
	if fp.squeeze != nil {
		for _, p := range fp.squeeze.list {
			out = append(out, p.Hash)
		}
	}
	return out
}

// Gray is a grayscale pixel buffer, 0 = black, 255 = white.
type Gray struct {
	W, H int
	Pix  []uint8
}

// ToGray converts any decoded image to grayscale, with fast paths for the
// types the standard decoders return. Its pixels are always a new buffer,
// never img's.
func ToGray(img image.Image) Gray {
	b := img.Bounds()
	g := Gray{W: b.Dx(), H: b.Dy(), Pix: make([]uint8, b.Dx()*b.Dy())}
	switch m := img.(type) {
	case *image.Gray:
		for y := 0; y < g.H; y++ {
			copy(g.Pix[y*g.W:(y+1)*g.W], m.Pix[m.PixOffset(b.Min.X, b.Min.Y+y):])
		}
	case *image.Paletted:
		lut := make([]uint8, len(m.Palette))
		for i, c := range m.Palette {
			lut[i] = color.GrayModel.Convert(c).(color.Gray).Y
		}
		for y := 0; y < g.H; y++ {
			off := m.PixOffset(b.Min.X, b.Min.Y+y)
			row := m.Pix[off : off+g.W]
			for x, p := range row {
				if int(p) < len(lut) {
					g.Pix[y*g.W+x] = lut[p]
				}
			}
		}
	case *image.YCbCr:
		for y := 0; y < g.H; y++ {
			copy(g.Pix[y*g.W:(y+1)*g.W], m.Y[m.YOffset(b.Min.X, b.Min.Y+y):])
		}
	case *image.NRGBA:
		for y := 0; y < g.H; y++ {
			for x := 0; x < g.W; x++ {
				i := m.PixOffset(b.Min.X+x, b.Min.Y+y)
				g.Pix[y*g.W+x] = lum(m.Pix[i], m.Pix[i+1], m.Pix[i+2], m.Pix[i+3])
			}
		}
	case *image.RGBA:
		for y := 0; y < g.H; y++ {
			for x := 0; x < g.W; x++ {
				i := m.PixOffset(b.Min.X+x, b.Min.Y+y)
				g.Pix[y*g.W+x] = lum(m.Pix[i], m.Pix[i+1], m.Pix[i+2], 255)
			}
		}
	default:
		for y := 0; y < g.H; y++ {
			for x := 0; x < g.W; x++ {
				g.Pix[y*g.W+x] = color.GrayModel.Convert(img.At(b.Min.X+x, b.Min.Y+y)).(color.Gray).Y
			}
		}
	}
	return g
}

// lum is the ITU-R 601 luma of a colour composited on white.
func lum(r, g, b, a uint8) uint8 {
	y := (19595*uint32(r) + 38470*uint32(g) + 7471*uint32(b) + 1<<15) >> 16
	if a == 255 {
		return uint8(y)
	}
	return uint8((y*uint32(a) + 255*(255-uint32(a))) / 255)
}

// Normalize returns the image the matcher hashes with the default options
// (a 64×64 canvas, the ink box stretched to it), and whether any ink was
// found; NormalizeFor takes the options.
func Normalize(g Gray) (Gray, bool) {
	return NormalizeFor(g, Options{Canvas: Stretch})
}

// NormalizeFor returns the image Compute hashes with options o: the ink
// (dark on light, polarity decided by the median of the border pixels, ink
// being what Otsu's threshold separates from the ground), cropped, fitted
// to the canvas and redrawn with one common pen, and whether any ink was
// found. Two rasterizations of the same strokes with another pen width,
// resolution, anti-aliasing or margin normalize alike.
func NormalizeFor(g Gray, o Options) (Gray, bool) {
	c, t, ok := crop(g)
	if !ok {
		return Gray{}, false
	}
	n := penCanvas(c, t, o.size(), o.Canvas, nil)
	return Gray{W: n.Rect.Dx(), H: n.Rect.Dy(), Pix: n.Pix}, true
}

// crop returns the image as dark ink on a light ground, cropped to the
// ink, with the ink threshold, and whether any ink was found.
func crop(g Gray) (Gray, uint8, bool) {
	c, t, _, ok := cropAt(g)
	return c, t, ok
}

// cropAt is crop, and also returns the ink box's margins in the image:
// left, top, right, bottom (0 where it reaches the edge).
func cropAt(g Gray) (c Gray, t uint8, margins [4]int, ok bool) {
	return cropOwned(g, false)
}

// cropOwned is cropAt; when owned, g's pixels are the caller's to
// overwrite, and light ink on a dark ground is inverted in place.
func cropOwned(g Gray, owned bool) (c Gray, t uint8, margins [4]int, ok bool) {
	if g.W == 0 || g.H == 0 {
		return g, 0, margins, false
	}
	if borderMedian(g) < 128 {
		inv := g.Pix
		if !owned {
			inv = make([]uint8, len(g.Pix))
		}
		for i, p := range g.Pix {
			inv[i] = 255 - p
		}
		g.Pix = inv
	}
	t, ok = otsu(g.Pix)
	if !ok {
		return g, 0, margins, false
	}
	x0, y0, x1, y1, isolated := inkBox(g, t, 0)
	// Speckle noise (many ink pixels with no ink neighbour) would stretch
	// the box to the whole image; then count only ink pixels with at least
	// two ink neighbours. Clean images keep the plain box, so that a small
	// mark at the edge (a dot, a comma) is not lost.
	if isolated > max(8, g.W*g.H/1000) {
		x0, y0, x1, y1, _ = inkBox(g, t, 2)
	}
	if x1 < 0 {
		return g, 0, margins, false
	}
	c = Gray{W: x1 - x0 + 1, H: y1 - y0 + 1}
	c.Pix = make([]uint8, c.W*c.H)
	for y := 0; y < c.H; y++ {
		copy(c.Pix[y*c.W:(y+1)*c.W], g.Pix[(y0+y)*g.W+x0:])
	}
	return c, t, [4]int{x0, y0, g.W - 1 - x1, g.H - 1 - y1}, true
}

// inkBox returns the bounding box of the ink pixels (value ≤ t) that have
// at least minNeighbours ink pixels among their 8 neighbours, and the number
// of ink pixels with none.
func inkBox(g Gray, t uint8, minNeighbours int) (x0, y0, x1, y1, isolated int) {
	if minNeighbours == 0 {
		return inkBoxAll(g, t)
	}
	x0, y0, x1, y1 = g.W, g.H, -1, -1
	enough := max(1, minNeighbours)
	w, h, pix := g.W, g.H, g.Pix
	for y := 0; y < h; y++ {
		row := pix[y*w : (y+1)*w]
		for x, p := range row {
			if p > t {
				continue
			}
			// Count ink among the 8 neighbours, stopping at enough.
			n := 0
			for dy := -1; dy <= 1 && n < enough; dy++ {
				yy := y + dy
				if yy < 0 || yy >= h {
					continue
				}
				nrow := pix[yy*w : (yy+1)*w]
				for dx := -1; dx <= 1; dx++ {
					xx := x + dx
					if (dx == 0 && dy == 0) || xx < 0 || xx >= w || nrow[xx] > t {
						continue
					}
					if n++; n >= enough {
						break
					}
				}
			}
			if n == 0 {
				isolated++
			}
			if n >= minNeighbours {
				x0, x1 = min(x0, x), max(x1, x)
				y0, y1 = min(y0, y), max(y1, y)
			}
		}
	}
	return
}

// inkBoxAll is inkBox with minNeighbours 0: the box of every ink pixel,
// and the number of ink pixels with no ink among their 8 neighbours,
// found 64 pixels at a time on rows of bits.
func inkBoxAll(g Gray, t uint8) (x0, y0, x1, y1, isolated int) {
	x0, y0, x1, y1 = g.W, g.H, -1, -1
	W := (g.W + 63) / 64
	isInk := inkTable(t)
	ink := make([]uint64, (g.H+2)*W) // a row of ground above and below
	for y := 0; y < g.H; y++ {
		r := ink[(y+1)*W : (y+2)*W]
		row := g.Pix[y*g.W : (y+1)*g.W]
		for i := range r {
			var word uint64
			for x, p := range row[64*i : min(64*i+64, g.W)] {
				word |= uint64(isInk[p]) << x
			}
			r[i] = word
		}
	}
	// sides is the ink left or right of each pixel of word i of r.
	sides := func(r []uint64, i int) uint64 {
		v := r[i] << 1
		if i > 0 {
			v |= r[i-1] >> 63
		}
		v |= r[i] >> 1
		if i+1 < W {
			v |= r[i+1] << 63
		}
		return v
	}
	for y := 0; y < g.H; y++ {
		up, r, down := ink[y*W:(y+1)*W], ink[(y+1)*W:(y+2)*W], ink[(y+2)*W:(y+3)*W]
		for i, v := range r {
			if v == 0 {
				continue
			}
			y0, y1 = min(y0, y), y
			x0 = min(x0, 64*i+bits.TrailingZeros64(v))
			x1 = max(x1, 64*i+63-bits.LeadingZeros64(v))
			near := up[i] | sides(up, i) | down[i] | sides(down, i) | sides(r, i)
			isolated += bits.OnesCount64(v &^ near)
		}
	}
	return
}

func borderMedian(g Gray) uint8 {
	var hist [256]int
	n := 0
	add := func(p uint8) { hist[p]++; n++ }
	for x := 0; x < g.W; x++ {
		add(g.Pix[x])
		add(g.Pix[(g.H-1)*g.W+x])
	}
	for y := 1; y < g.H-1; y++ {
		add(g.Pix[y*g.W])
		add(g.Pix[y*g.W+g.W-1])
	}
	acc := 0
	for v := 0; v < 256; v++ {
		if acc += hist[v]; 2*acc >= n {
			return uint8(v)
		}
	}
	return 255
}

// otsu returns the threshold that best separates ink from ground, and false
// when the image is (nearly) uniform.
func otsu(pix []uint8) (uint8, bool) {
	// Four histograms, summed, so that runs of one value do not wait on
	// one counter.
	var h4 [4][256]int
	i := 0
	for ; i+4 <= len(pix); i += 4 {
		h4[0][pix[i]]++
		h4[1][pix[i+1]]++
		h4[2][pix[i+2]]++
		h4[3][pix[i+3]]++
	}
	for ; i < len(pix); i++ {
		h4[0][pix[i]]++
	}
	var hist [256]int
	for v := range hist {
		hist[v] = h4[0][v] + h4[1][v] + h4[2][v] + h4[3][v]
	}
	lo, hi := 0, 255
	for lo < 255 && hist[lo] == 0 {
		lo++
	}
	for hi > 0 && hist[hi] == 0 {
		hi--
	}
	if hi-lo < 32 {
		return 0, false
	}
	total := float64(len(pix))
	var sum float64
	for v := lo; v <= hi; v++ {
		sum += float64(v * hist[v])
	}
	var sumB, wB, best float64
	t := lo
	for v := lo; v <= hi; v++ {
		wB += float64(hist[v])
		if wB == 0 {
			continue
		}
		wF := total - wB
		if wF == 0 {
			break
		}
		sumB += float64(v * hist[v])
		mB, mF := sumB/wB, (sum-sumB)/wF
		if between := wB * wF * (mB - mF) * (mB - mF); between > best {
			best, t = between, v
		}
	}
	return uint8(t), true
}

// fitBox is the box a w×h image (both above 0) fills on a size×size
// canvas: all of it for Stretch, else the largest box of its aspect,
// centred; dw×dh at (ox, oy).
func fitBox(w, h, size int, canvas Canvas) (dw, dh, ox, oy int) {
	dw, dh = size, size
	if canvas != Stretch {
		if w >= h {
			dh = max(1, (h*size+w/2)/w)
			oy = (size - dh) / 2
		} else {
			dw = max(1, (w*size+h/2)/h)
			ox = (size - dw) / 2
		}
	}
	return dw, dh, ox, oy
}

// Fit places the cropped ink on a size×size canvas (white ground) by area
// averaging, keeping its aspect ratio or stretching it.
func Fit(c Gray, size int, canvas Canvas) *image.Gray {
	out := image.NewGray(image.Rect(0, 0, size, size))
	for i := range out.Pix {
		out.Pix[i] = 255
	}
	if c.W == 0 || c.H == 0 {
		return out
	}
	dw, dh, ox, oy := fitBox(c.W, c.H, size, canvas)
	// Area averaging, separably: each target pixel is the mean of the
	// source pixels it covers, with fractional coverage at the edges.
	xs, ys := spans(c.W, dw), spans(c.H, dh)
	rows := make([]float32, c.H*dw) // horizontally averaged source rows
	for y := 0; y < c.H; y++ {
		src := c.Pix[y*c.W : (y+1)*c.W]
		dst := rows[y*dw : (y+1)*dw]
		for tx, sp := range xs {
			var acc float32
			for k, w := range sp.w {
				acc += w * float32(src[sp.first+k])
			}
			dst[tx] = acc
		}
	}
	for ty, sp := range ys {
		line := out.Pix[(oy+ty)*size+ox : (oy+ty)*size+ox+dw]
		for tx := range line {
			var acc float32
			for k, w := range sp.w {
				acc += w * rows[(sp.first+k)*dw+tx]
			}
			line[tx] = uint8(min(255, acc+0.5))
		}
	}
	return out
}

// span lists the source pixels one target pixel covers, from first on, and
// their weights (summing to 1).
type span struct {
	first int
	w     []float32
}

// spans maps n source pixels onto m target pixels by area. The weights
// share one backing array: a target pixel covers at most n/m+2 source
// pixels.
func spans(n, m int) []span {
	out := make([]span, m)
	step := float64(n) / float64(m)
	ws := make([]float32, 0, n+2*m)
	for t := range out {
		a, b := float64(t)*step, float64(t+1)*step
		first := int(a)
		start := len(ws)
		for x := first; x < n && float64(x) < b; x++ {
			w := (math.Min(float64(x+1), b) - math.Max(float64(x), a)) / step
			ws = append(ws, float32(w))
		}
		out[t] = span{first: first, w: ws[start:len(ws):len(ws)]}
	}
	return out
}

// Compute normalizes a decoded image and hashes it; with o.Probe,
// it also hashes the probes (Hashes.Probes).
func Compute(img image.Image, o Options) (Hashes, error) {
	g := ToGray(img)
	fp := Hashes{Width: g.W, Height: g.H}
	c, t, margins, ok := cropOwned(g, true) // g is a copy of img's pixels
	if !ok {
		fp.Blank = true
		return fp, nil
	}
	h := sha256.New()
	var dims [8]byte
	binary.BigEndian.PutUint32(dims[:4], uint32(c.W))
	binary.BigEndian.PutUint32(dims[4:], uint32(c.H))
	h.Write(dims[:])
	h.Write(c.Pix)
	copy(fp.Digest[:], h.Sum(nil))
	var parts *int // counted for queries only
	if o.Probe {
		parts = &fp.Parts
	}
	area, rows, cols := inkRuns(c, t)
	pen := penOfRuns(area, rows, cols)
	canvas := penCanvasWith(c, t, pen, o.size(), o.Canvas, parts)
	if err := hashCanvas(&fp.Hash, &fp.Fine, canvas, o); err != nil {
		return fp, err
	}
	fp.Ink = inkOf(canvas)
	if fp.Parts == 1 && c.W >= wideOnePiece*c.H {
		fp.Parts = 2 // a formula a thick pen joined, not a lone symbol
	}
	if o.Probe {
		edges := edgeSides(margins)
		fp.AtEdge = edges != 0
		fp.scale = scaleOf(c, t, pen, o.size(), o.Canvas)
		fp.small = new(smallQuery)
		fp.Probes = new([NumProbes]Probe)
		for i := range fp.Probes {
			side, e := i%4, ProbeShare
			if i >= 4 {
				e = -e
			}
			p := &fp.Probes[i]
			canvas := penCanvas(reframe(c, side, e), t, o.size(), o.Canvas, nil)
			if err := hashCanvas(&p.Hash, &p.Fine, canvas, o); err != nil {
				return fp, err
			}
			p.Ink = inkOf(canvas)
		}
		fp.query = newQueryInk(fp)
		var err error
		if fp.squeeze, err = squeezeOf(c, t, pen, runRatio(rows, cols), fp.scale.thick(), edges, o); err != nil {
			return fp, err
		}
		fp.thicker = newThicker(c, t, pen, o)
	}
	return fp, nil
}

// hashCanvas sets the perceptual and fine hashes of a normalized canvas.
func hashCanvas(hash *uint64, fineHash *[4]uint64, fitted *image.Gray, o Options) error {
	var ih *goimagehash.ImageHash
	var err error
	switch o.Kind {
	case DHash:
		ih, err = goimagehash.DifferenceHash(fitted)
	case AHash:
		ih, err = goimagehash.AverageHash(fitted)
	default:
		ih, err = goimagehash.PerceptionHash(fitted)
	}
	if err != nil {
		return err
	}
	*hash = ih.GetHash()
	fine, err := goimagehash.ExtDifferenceHash(fitted, 16, 16)
	if err != nil {
		return err
	}
	copy(fineHash[:], fine.GetHash())
	return nil
}

// FineDistance is the Hamming distance between two fine hashes (0–256);
// when either has probes, the smallest over its probes and its
// own fine hash against the other's.
func FineDistance(a, b Hashes) int {
	d := fineBits(a.Fine, b.Fine)
	for _, x := range [2][2]Hashes{{a, b}, {b, a}} {
		if x[0].Probes != nil {
			for _, p := range x[0].Probes {
				d = min(d, fineBits(p.Fine, x[1].Fine))
			}
		}
	}
	return d
}

func fineBits(a, b [4]uint64) int {
	d := 0
	for i := range a {
		d += bits.OnesCount64(a[i] ^ b[i])
	}
	return d
}

// VerifyDistance is the largest fine distance at which a candidate pair
// without ink bitmaps is verified as a copy, and VerifyDistanceSymbol the
// same for a query of one piece of ink (Hashes.Parts 1, mostly a lone
// symbol, which other writers draw alike): the rule before ink bitmaps
// were stored (imagehash version 4), kept for hashes that have none.
const (
	VerifyDistance       = 30
	VerifyDistanceSymbol = 14
)

// VerifyInk is the largest InkDistance at which a candidate pair is a
// copy whatever its fine distance, and VerifyInkFine the largest at which
// a pair the fine hash verifies (VerifyDistance, VerifyDistanceSymbol for
// a lone symbol) stays one. Measured on CROHME 2014 and train-sample
// InkML rasterized by other pipelines against the CROHME bitmaps, and
// CROHME train against itself (other writers of one formula): see the
// README, "Copies rasterized by another pipeline".
const (
	VerifyInk     = 0.7
	VerifyInkFine = 0.9
)

// VerifyInkFineParts is the most pieces of ink (Hashes.Parts) a query may
// have for VerifyInkFine to verify it. The fine hash's 256 bits spread
// over every symbol of the canvas, so the more symbols a formula has, the
// fewer bits are likely to tell two writers' versions of one symbol
// apart (a reason only the counts below support): in CROHME
// train against itself, with and without ink cut at an edge, most pairs
// of two writers of one formula that the fine rule verified were
// formulas of 9 to 20 pieces, while 48 of the 53 copies that only the
// fine rule verified in rasterized CROHME InkML had at most eight (see
// the README, "The fine rule and long formulas"). A query of more pieces
// is a copy only within VerifyInk, or by another of Verify's rules. Zero
// (pieces not counted: hashes computed without Options.Probe) counts as
// few.
const VerifyInkFineParts = 8

// Verify returns the fine distance of a candidate pair and whether it is a
// verified copy: the same cropped pixels; or, when both have ink bitmaps,
// an InkDistance within VerifyInk, or within VerifyInkFine and a fine
// distance within VerifyDistance (VerifyDistanceSymbol when the query is
// one piece of ink) when the query has at most VerifyInkFineParts pieces
// of ink, or, for a query whose ink is small, its closed ink
// within VerifySmallInk of the training image's closed at its level
// (small.go), or, for a query whose ink is squeezed along one axis, its
// ink drawn with a thinner pen within VerifyInk (squeeze.go), or, when
// its ink lies within 1 px, its ink drawn with a thicker pen within
// VerifyInk (thicker.go); without ink
// bitmaps, that fine distance alone. A query
// whose ink is too small (Hashes.TooSmall) is verified only by the same
// cropped pixels.
func Verify(query, train Hashes) (int, bool) {
	d, ok, _ := verify(query, train)
	return d, ok
}

// VerifyDrawing is Verify, and also says which drawing of the query's
// ink verified the pair: ByEstimate, or only a drawing with a thinner pen
// (ByThinnerPen: Hashes.Squeezed, squeeze.go) or a thicker one
// (ByThickerPen, thicker.go).
func VerifyDrawing(query, train Hashes) (int, bool, Drawing) {
	return verify(query, train)
}

// Drawing names a drawing of a query's ink, as VerifyDrawing reports the
// one that verified a pair.
type Drawing uint8

const (
	// ByEstimate is the ink drawn with the estimated pen (or its pixels,
	// or its small levels): every pair Verify verifies otherwise.
	ByEstimate Drawing = iota
	// ByThinnerPen is a drawing with a thinner pen than estimated, of a
	// squeezed query or one whose pen is thick for its ink (squeeze.go).
	ByThinnerPen
	// ByThickerPen is a drawing with a thicker pen than estimated
	// (thicker.go).
	ByThickerPen
)

// verify is Verify, and also says which of the query's drawings verified
// the pair.
func verify(query, train Hashes) (d int, ok bool, by Drawing) {
	d = FineDistance(query, train)
	if query.Digest == train.Digest {
		return d, true, ByEstimate
	}
	if query.TooSmall() {
		return d, false, ByEstimate // small.go: no copy is verified on a silhouette
	}
	limit := VerifyDistance
	if query.Parts == 1 {
		limit = VerifyDistanceSymbol
	}
	if query.Ink.IsZero() || train.Ink.IsZero() {
		return d, d <= limit, ByEstimate
	}
	e := InkDistance(query, train)
	fine := d <= limit && e <= VerifyInkFine && query.Parts <= VerifyInkFineParts
	if e <= VerifyInk || fine || verifySmall(query, train) {
		return d, true, ByEstimate
	}
	if verifySqueezed(query, train) {
		return d, true, ByThinnerPen
	}
	if verifyThicker(query, train, e) {
		return d, true, ByThickerPen
	}
	return d, false, ByEstimate
}
