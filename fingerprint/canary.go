package fingerprint

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"image"
	"math"
	"sync"

	"github.com/leakaudit/leakaudit/imagehash"
)

// The image canary: a few small images drawn in code, hashed by this
// build's imagehash with every hash kind on both canvases. Stored image
// hashes (an image index, an image fingerprint) record the digest of the
// canary's hashes beside imagehash.Version: hashes made by code that hashes
// differently, though under the same version, give other pairs, and the
// canary tells them apart without reading an image.

var canary struct {
	once   sync.Once
	digest string
}

// ImageCanary returns the digest of the canary images' fingerprints as this
// build hashes them (hex, 16 bytes of SHA-256 over every hash, digest,
// size and ink). It is computed once per process, in about a millisecond.
func ImageCanary() string {
	canary.once.Do(func() {
		var prints []imagehash.Hashes
		for _, img := range canaryImages() {
			for _, kind := range imagehash.Kinds {
				for _, cv := range []imagehash.Canvas{imagehash.Stretch, imagehash.Aspect} {
					fp, err := imagehash.Compute(img, imagehash.Options{Kind: kind, Canvas: cv})
					if err != nil {
						// Not a hash: the digest of the failure tells
						// this code apart as well.
						canary.digest = "error: " + err.Error()
						return
					}
					prints = append(prints, fp)
				}
			}
		}
		canary.digest = canaryDigest(prints)
	})
	return canary.digest
}

// canaryDigest digests what is stored of each fingerprint: the hashes,
// the pixel digest, blank, the decoded size and the ink.
func canaryDigest(prints []imagehash.Hashes) string {
	h := sha256.New()
	var b [8]byte
	word := func(x uint64) {
		binary.BigEndian.PutUint64(b[:], x)
		h.Write(b[:])
	}
	for _, fp := range prints {
		word(fp.Hash)
		for _, f := range fp.Fine {
			word(f)
		}
		h.Write(fp.Digest[:])
		blank := uint64(0)
		if fp.Blank {
			blank = 1
		}
		word(blank)
		word(uint64(fp.Width))
		word(uint64(fp.Height))
		h.Write(fp.Ink.Bytes())
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// canaryImages draws the canary: an x², anti-aliased dark ink on light
// paper, and a fraction a/b, light ink on dark, at sizes of their own
// (the hashing crops, inverts, fits and re-pens them all).
func canaryImages() []image.Image {
	x2 := newPaper(72, 48, 255)
	x2.stroke(8, 16, 36, 44, 3, 0)    // x
	x2.stroke(36, 16, 8, 44, 3, 0)    //
	x2.arc(54, 12, 7, 200, 360, 2, 0) // 2: the bowl
	x2.stroke(61, 12, 48, 24, 2, 0)   //    the diagonal
	x2.stroke(48, 24, 63, 24, 2, 0)   //    the foot
	frac := newPaper(40, 90, 20)
	frac.arc(20, 18, 9, 0, 360, 3, 235) // a
	frac.stroke(29, 12, 29, 28, 3, 235)
	frac.stroke(4, 45, 36, 45, 2, 235)  // the bar
	frac.stroke(13, 56, 13, 84, 3, 235) // b
	frac.arc(20, 76, 7, 0, 360, 3, 235)
	return []image.Image{x2.g, frac.g}
}

// paper is a gray image the canary is drawn on.
type paper struct{ g *image.Gray }

func newPaper(w, h int, bg uint8) paper {
	g := image.NewGray(image.Rect(0, 0, w, h))
	for i := range g.Pix {
		g.Pix[i] = bg
	}
	return paper{g}
}

// stroke draws a line from (x0, y0) to (x1, y1) with a round pen of
// radius r in ink, anti-aliased over one pixel.
func (p paper) stroke(x0, y0, x1, y1, r float64, ink uint8) {
	p.paint(func(x, y float64) float64 {
		dx, dy := x1-x0, y1-y0
		t := ((x-x0)*dx + (y-y0)*dy) / math.Max(dx*dx+dy*dy, 1e-9)
		t = math.Max(0, math.Min(1, t))
		return math.Hypot(x-(x0+t*dx), y-(y0+t*dy)) - r
	}, ink)
}

// arc draws the arc of the circle of centre (cx, cy) and radius rad from
// angle a0 to a1 (degrees, clockwise on the image) with a pen of radius r.
func (p paper) arc(cx, cy, rad, a0, a1, r float64, ink uint8) {
	p.paint(func(x, y float64) float64 {
		a := math.Atan2(y-cy, x-cx) * 180 / math.Pi
		if a < 0 {
			a += 360
		}
		if a >= a0 && a <= a1 {
			return math.Abs(math.Hypot(x-cx, y-cy)-rad) - r
		}
		d := math.Inf(1)
		for _, e := range []float64{a0, a1} {
			ex, ey := cx+rad*math.Cos(e*math.Pi/180), cy+rad*math.Sin(e*math.Pi/180)
			d = math.Min(d, math.Hypot(x-ex, y-ey)-r)
		}
		return d
	}, ink)
}

// paint blends ink into every pixel by its signed distance to a shape
// (negative inside): full ink inside, none a pixel outside.
func (p paper) paint(dist func(x, y float64) float64, ink uint8) {
	b := p.g.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			cover := math.Max(0, math.Min(1, 0.5-dist(float64(x)+0.5, float64(y)+0.5)))
			if cover == 0 {
				continue
			}
			i := p.g.PixOffset(x, y)
			v := float64(p.g.Pix[i])*(1-cover) + float64(ink)*cover
			p.g.Pix[i] = uint8(math.Round(v))
		}
	}
}
