// Package inkraster rasterizes InkML strokes the way other projects do:
// another pen width, canvas, aspect, anti-aliasing, polarity, margin, cut
// ink, JPEG compression and rescaling. It makes the test sets on which the
// image matcher is measured ("the same strokes, another pipeline"); every
// rasterizer is a deterministic function of its parameters, and Random
// draws the parameters from a seed.
package inkraster

import (
	"bytes"
	"fmt"
	"image"
	"image/jpeg"
	"image/png"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	xdraw "golang.org/x/image/draw"
	"golang.org/x/image/vector"

	"github.com/leakaudit/leakaudit/dataset"
)

// Rasterizer is one rasterization pipeline.
type Rasterizer struct {
	Name string
	// Stroke is the pen width in canvas pixels.
	Stroke float64
	// Height is the canvas height. Width 0 makes the canvas as wide as
	// the ink needs at that height (aspect kept); otherwise the ink is
	// fitted into Width×Height, centred with its aspect kept, or
	// stretched to fill it when Stretch is set.
	Height, Width int
	Stretch       bool
	// AA draws anti-aliased ink; without it, every pixel is ink or ground.
	AA bool
	// WhiteOnBlack draws white ink on a black ground.
	WhiteOnBlack bool
	// Margin is the ground left around the ink, in pixels.
	Margin int
	// Cut is the share of the ink box pushed past one canvas edge
	// (CutSide: 0 left, 1 top, 2 right, 3 bottom), so that ink is lost.
	Cut     float64
	CutSide int
	// JPEG is the JPEG quality (0: PNG).
	JPEG int
	// Scale resizes the finished canvas (1: not resized).
	Scale float64
}

// String describes the rasterizer's parameters.
func (r Rasterizer) String() string {
	canvas := fmt.Sprintf("h%d", r.Height)
	if r.Width > 0 {
		canvas = fmt.Sprintf("%dx%d", r.Width, r.Height)
		if r.Stretch {
			canvas += " stretched"
		}
	}
	enc := "png"
	if r.JPEG > 0 {
		enc = fmt.Sprintf("jpeg q%d", r.JPEG)
	}
	return fmt.Sprintf("%s: pen %.1f, canvas %s, aa %v, white-on-black %v, margin %d, cut %.1f%% side %d, %s, scale %.0f%%",
		r.Name, r.Stroke, canvas, r.AA, r.WhiteOnBlack, r.Margin, 100*r.Cut, r.CutSide, enc, 100*r.Scale)
}

// Corners are five fixed rasterizers at the ends of the ranges the matcher
// is held to: pen 1–6 px, canvas 40 px high to 512×512 (aspect kept or
// stretched), anti-aliasing on and off, both polarities, margins 0–30 px,
// ink cut by up to 3% of its box, JPEG quality 50 and rescaling by 25–400%.
func Corners() []Rasterizer {
	return []Rasterizer{
		{Name: "thin-40", Stroke: 1, Height: 40, AA: true, Margin: 0, Scale: 1},
		{Name: "thick-512", Stroke: 6, Height: 512, Width: 512, AA: false, WhiteOnBlack: true, Margin: 30, JPEG: 50, Scale: 1},
		{Name: "stretch-256", Stroke: 2, Height: 256, Width: 256, Stretch: true, AA: true, Margin: 10, Cut: 0.03, CutSide: 2, Scale: 1},
		{Name: "up-400", Stroke: 1.5, Height: 48, AA: false, WhiteOnBlack: true, Margin: 3, Scale: 4},
		{Name: "down-25", Stroke: 6, Height: 400, AA: true, Margin: 20, Cut: 0.03, CutSide: 1, JPEG: 60, Scale: 0.25},
	}
}

// Corner returns the corner rasterizer of that name (Corners), and
// whether there is one.
func Corner(name string) (Rasterizer, bool) {
	for _, c := range Corners() {
		if c.Name == name {
			return c, true
		}
	}
	return Rasterizer{}, false
}

// Random draws a rasterizer from seed, within the same ranges. The pen is
// at most a 24th of the canvas height (1.7 px at 40 px), so that small
// canvases are not drawn with a pen that fills the symbols, and the
// rescaled canvas keeps at least 40 px of height.
func Random(seed uint64) Rasterizer {
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	r := Rasterizer{Name: fmt.Sprintf("seed-%d", seed), Scale: 1}
	switch rng.IntN(3) {
	case 0:
		r.Height = 40 + rng.IntN(217)
	case 1:
		s := 64 + rng.IntN(449)
		r.Height, r.Width = s, s
	default:
		r.Height, r.Width = 64+rng.IntN(449), 64+rng.IntN(449)
		r.Stretch = rng.IntN(2) == 0
	}
	r.Stroke = 1 + 5*rng.Float64()
	r.Stroke = math.Min(r.Stroke, math.Max(1, float64(r.Height)/24))
	r.AA = rng.IntN(2) == 0
	r.WhiteOnBlack = rng.IntN(2) == 0
	r.Margin = rng.IntN(31)
	r.Margin = min(r.Margin, r.Height/8)
	if rng.IntN(2) == 0 {
		r.Cut, r.CutSide = 0.03*rng.Float64(), rng.IntN(4)
	}
	if rng.IntN(2) == 0 {
		r.JPEG = 50 + rng.IntN(46)
	}
	if rng.IntN(2) == 0 {
		s := math.Exp(math.Log(0.25) + rng.Float64()*(math.Log(4)-math.Log(0.25)))
		s = math.Max(s, 40/float64(r.Height))
		r.Scale = math.Min(s, 2048/float64(max(r.Height, r.Width)))
	}
	return r
}

// Render draws strokes as the rasterizer would, before encoding.
func (r Rasterizer) Render(strokes []dataset.Stroke) (*image.Gray, error) {
	minX, minY, maxX, maxY, err := dataset.InkBounds(strokes)
	if err != nil {
		return nil, err
	}
	w, h := math.Max(maxX-minX, 1e-6), math.Max(maxY-minY, 1e-6)
	pad := float64(r.Margin) + r.Stroke/2
	H := r.Height
	availH := float64(H) - 2*pad
	if availH < 1 {
		return nil, fmt.Errorf("canvas %d px high leaves no room for the ink", H)
	}
	var sx, sy, ox, oy float64
	W := r.Width
	if W == 0 {
		sx = availH / h
		if w*sx > 16*availH { // very wide: keep the canvas bounded
			sx = 16 * availH / w
		}
		sy = sx
		W = int(math.Ceil(w*sx + 2*pad))
		ox, oy = pad, pad+(availH-h*sy)/2
	} else {
		availW := float64(W) - 2*pad
		if availW < 1 {
			return nil, fmt.Errorf("canvas %d px wide leaves no room for the ink", W)
		}
		sx, sy = availW/w, availH/h
		if !r.Stretch {
			s := math.Min(sx, sy)
			sx, sy = s, s
		}
		ox, oy = pad+(availW-w*sx)/2, pad+(availH-h*sy)/2
	}
	// Cut: push a share of the ink box (pen included) past one edge.
	if r.Cut > 0 {
		bw, bh := w*sx+r.Stroke, h*sy+r.Stroke
		switch r.CutSide {
		case 0:
			ox = r.Stroke/2 - r.Cut*bw
		case 1:
			oy = r.Stroke/2 - r.Cut*bh
		case 2:
			ox = float64(W) - bw + r.Stroke/2 + r.Cut*bw
		default:
			oy = float64(H) - bh + r.Stroke/2 + r.Cut*bh
		}
	}
	rz := vector.NewRasterizer(W, H)
	hw := float32(r.Stroke / 2)
	pt := func(p [2]float64) (float32, float32) {
		return float32((p[0]-minX)*sx + ox), float32((p[1]-minY)*sy + oy)
	}
	dataset.PenStrokes(rz, strokes, pt, hw, 12, false)
	alpha := image.NewAlpha(image.Rect(0, 0, W, H))
	rz.Draw(alpha, alpha.Bounds(), image.Opaque, image.Point{})
	g := image.NewGray(alpha.Bounds())
	for i, a := range alpha.Pix {
		if !r.AA {
			if a >= 128 {
				a = 255
			} else {
				a = 0
			}
		}
		if r.WhiteOnBlack {
			g.Pix[i] = a
		} else {
			g.Pix[i] = 255 - a
		}
	}
	if r.Scale > 0 && r.Scale != 1 {
		dw, dh := max(1, int(math.Round(float64(W)*r.Scale))), max(1, int(math.Round(float64(H)*r.Scale)))
		out := image.NewGray(image.Rect(0, 0, dw, dh))
		xdraw.CatmullRom.Scale(out, out.Bounds(), g, g.Bounds(), xdraw.Src, nil)
		g = out
	}
	return g, nil
}

// Encode renders strokes and encodes the image as the rasterizer's format,
// returning the bytes and the file extension (".png" or ".jpg").
func (r Rasterizer) Encode(strokes []dataset.Stroke) ([]byte, string, error) {
	g, err := r.Render(strokes)
	if err != nil {
		return nil, "", err
	}
	var buf bytes.Buffer
	if r.JPEG > 0 {
		err = jpeg.Encode(&buf, g, &jpeg.Options{Quality: r.JPEG})
		return buf.Bytes(), ".jpg", err
	}
	err = png.Encode(&buf, g)
	return buf.Bytes(), ".png", err
}

// EncodeFile rasterizes one InkML file's strokes (as leakaudit reads
// them) and encodes the image as Encode does; a file that cannot be read
// or has no ink is an error.
func (r Rasterizer) EncodeFile(path string) ([]byte, string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, "", err
	}
	strokes, err := dataset.ParseInkTraces(data)
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", path, err)
	}
	if len(strokes) == 0 {
		return nil, "", fmt.Errorf("%s: no ink", path)
	}
	return r.Encode(strokes)
}

// WriteSet rasterizes every InkML file under inkDir (as leakaudit reads
// them, in lexical order) into dir, one image per file named by the file's
// stem, and returns how many were written. Files without ink or that
// cannot be read are left out and named in the returned list.
func (r Rasterizer) WriteSet(inkDir, dir string) (int, []string, error) {
	var files []string
	err := filepath.WalkDir(inkDir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.EqualFold(filepath.Ext(p), ".inkml") {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return 0, nil, err
	}
	sort.Strings(files)
	n := 0
	var left []string
	for _, p := range files {
		stem := strings.TrimSuffix(filepath.Base(p), filepath.Ext(p))
		b, ext, err := r.EncodeFile(p)
		if err != nil {
			left = append(left, stem)
			continue
		}
		if err := os.WriteFile(filepath.Join(dir, stem+ext), b, 0o644); err != nil {
			return n, left, err
		}
		n++
	}
	return n, left, nil
}

// traceRE finds the point lists of an InkML file's traces.
var traceRE = regexp.MustCompile(`(?s)<trace(?:\s[^>]*)?>(.*?)</trace>`)

// StrokeSignature names an InkML file's strokes by their point counts,
// joined by dots ("" when it has no trace): two files with the same
// signature hold the same strokes, which is how the measurements tell a
// same-strokes copy from another writer's sample of the formula.
func StrokeSignature(inkml []byte) string {
	var sig []string
	for _, m := range traceRE.FindAllSubmatch(inkml, -1) {
		sig = append(sig, strconv.Itoa(strings.Count(string(m[1]), ",")))
	}
	return strings.Join(sig, ".")
}
