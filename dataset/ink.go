package dataset

import (
	"fmt"
	"image"
	"image/draw"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/image/vector"
)

// InkOptions control how InkML strokes are rasterized.
type InkOptions struct {
	// Height is the height in pixels the ink's bounding box is scaled to
	// (default 64); very wide expressions are scaled so that their width
	// stays under 16 times that.
	Height float64
	// Stroke is the pen width in pixels (default 3.5).
	Stroke float64
	// Margin is the white border in pixels (default 4).
	Margin float64
}

func (o InkOptions) or() InkOptions {
	if o.Height <= 0 {
		o.Height = 64
	}
	if o.Stroke <= 0 {
		o.Stroke = 3.5
	}
	if o.Margin <= 0 {
		o.Margin = 4
	}
	return o
}

// A Stroke is one pen trace: a list of points.
type Stroke [][2]float64

// ParseInkTraces returns the strokes of an InkML document: every <trace>,
// as "x y[ more channels], x y, …". Points with fewer than two numbers are
// ignored.
func ParseInkTraces(data []byte) ([]Stroke, error) {
	doc, err := parseInkML(data)
	return doc.strokes, err
}

// parseStroke reads one trace's points.
func parseStroke(s string) Stroke {
	var st Stroke
	for _, p := range strings.Split(s, ",") {
		f := strings.Fields(p)
		if len(f) < 2 {
			continue
		}
		x, err1 := strconv.ParseFloat(f[0], 64)
		y, err2 := strconv.ParseFloat(f[1], 64)
		if err1 == nil && err2 == nil && !math.IsNaN(x) && !math.IsNaN(y) && !math.IsInf(x, 0) && !math.IsInf(y, 0) {
			st = append(st, [2]float64{x, y})
		}
	}
	return st
}

// InkBounds returns the box around every point of strokes, or an error
// when they have no point.
func InkBounds(strokes []Stroke) (minX, minY, maxX, maxY float64, err error) {
	minX, minY = math.Inf(1), math.Inf(1)
	maxX, maxY = math.Inf(-1), math.Inf(-1)
	for _, s := range strokes {
		for _, p := range s {
			minX, maxX = math.Min(minX, p[0]), math.Max(maxX, p[0])
			minY, maxY = math.Min(minY, p[1]), math.Max(maxY, p[1])
		}
	}
	if math.IsInf(minX, 1) {
		return 0, 0, 0, 0, fmt.Errorf("no ink")
	}
	return minX, minY, maxX, maxY, nil
}

// PenStrokes adds strokes to rz as a round pen hw pixels in half-width
// draws them: at each point a regular polygon of the given number of
// sides (its first corner to the right of the point), along each segment
// a band. pt maps a point to canvas pixels. Polygons and bands are all
// wound the same way (clockwise on screen when clockwise is set), so that
// where they overlap the ink adds up rather than cancels.
func PenStrokes(rz *vector.Rasterizer, strokes []Stroke, pt func([2]float64) (float32, float32), hw float32, sides int, clockwise bool) {
	// side turns the band's normal so that the band is wound as the
	// polygons are.
	side := float32(-1)
	if clockwise {
		side = 1
	}
	dot := func(x, y float32) {
		for i := 0; i <= sides; i++ {
			a := 2 * math.Pi * float64(i) / float64(sides)
			if clockwise {
				a = -a
			}
			px, py := x+hw*float32(math.Cos(a)), y+hw*float32(math.Sin(a))
			if i == 0 {
				rz.MoveTo(px, py)
			} else {
				rz.LineTo(px, py)
			}
		}
		rz.ClosePath()
	}
	for _, s := range strokes {
		for i, p := range s {
			x, y := pt(p)
			dot(x, y)
			if i == 0 {
				continue
			}
			px, py := pt(s[i-1])
			dx, dy := x-px, y-py
			l := float32(math.Hypot(float64(dx), float64(dy)))
			if l == 0 {
				continue
			}
			nx, ny := side*(-dy/l*hw), side*(dx/l*hw)
			rz.MoveTo(px+nx, py+ny)
			rz.LineTo(x+nx, y+ny)
			rz.LineTo(x-nx, y-ny)
			rz.LineTo(px-nx, py-ny)
			rz.ClosePath()
		}
	}
}

// RasterizeInk draws strokes as dark anti-aliased ink on a white ground.
func RasterizeInk(strokes []Stroke, o InkOptions) (*image.Gray, error) {
	o = o.or()
	minX, minY, maxX, maxY, err := InkBounds(strokes)
	if err != nil {
		return nil, err
	}
	w, h := maxX-minX, maxY-minY
	scale := o.Height / math.Max(math.Max(h, w/16), 1e-9)
	if w == 0 && h == 0 {
		scale = 1
	}
	W := int(math.Ceil(w*scale+2*o.Margin)) + 1
	H := int(math.Ceil(h*scale+2*o.Margin)) + 1
	if W > 20000 || H > 20000 {
		return nil, fmt.Errorf("rasterized ink would be %d×%d", W, H)
	}
	r := vector.NewRasterizer(W, H)
	r.DrawOp = draw.Src
	hw := float32(o.Stroke / 2)
	pt := func(p [2]float64) (float32, float32) {
		return float32((p[0]-minX)*scale + o.Margin), float32((p[1]-minY)*scale + o.Margin)
	}
	PenStrokes(r, strokes, pt, hw, 8, true)
	alpha := image.NewAlpha(image.Rect(0, 0, W, H))
	r.Draw(alpha, alpha.Bounds(), image.Opaque, image.Point{})
	g := image.NewGray(alpha.Bounds())
	for i, a := range alpha.Pix {
		g.Pix[i] = 255 - a
	}
	return g, nil
}

// scanInkImages rasterizes InkML files, with their truth labels.
func scanInkImages(src ImageSource, e *emitter, fn func(ImageItem) error) error {
	files, err := inkmlFiles(src.Path)
	if err != nil {
		return err
	}
	for seq, p := range files {
		it := ImageItem{Seq: int64(seq), ID: strings.TrimSuffix(filepath.Base(p), filepath.Ext(p)), Where: "file " + filepath.Base(p)}
		data, err := readBounded(p, MaxInkMLBytes)
		if err != nil {
			e.skip(it.Seq, it.ID, it.Where, err.Error())
			continue
		}
		doc, err := parseInkML(data)
		if err != nil {
			e.skip(it.Seq, it.ID, it.Where+": "+err.Error(), ReasonBadXML)
			continue
		}
		img, err := RasterizeInk(doc.strokes, src.Ink)
		if err != nil {
			e.skip(it.Seq, it.ID, it.Where, err.Error())
			continue
		}
		if l := doc.truth(defaultInkMLFields); l != nil {
			it.Label, it.HasLabel = *l, true
		}
		it.Image = img
		if err := e.deliverImage(fn, it); err != nil {
			return err
		}
	}
	return nil
}
