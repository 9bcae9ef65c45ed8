package imagehash

import (
	"image"
	"math/bits"
	"testing"

	xdraw "golang.org/x/image/draw"
)

// formula draws a fixed, formula-like test image: dark strokes on white,
// with a wide aspect and a margin.
func formula() *image.Gray {
	g := image.NewGray(image.Rect(0, 0, 300, 80))
	for i := range g.Pix {
		g.Pix[i] = 255
	}
	box := func(x0, y0, x1, y1 int) {
		for y := y0; y < y1; y++ {
			for x := x0; x < x1; x++ {
				g.Pix[y*g.Stride+x] = 0
			}
		}
	}
	box(20, 20, 24, 60)   // 1
	box(40, 38, 70, 42)   // -
	box(90, 20, 120, 24)  // fraction: numerator
	box(85, 38, 150, 41)  // bar
	box(100, 50, 104, 68) // denominator
	box(170, 30, 175, 50) // x
	box(180, 25, 200, 29)
	box(230, 15, 234, 65)
	box(250, 40, 280, 44)
	return g
}

func invert(g *image.Gray) *image.Gray {
	o := image.NewGray(g.Bounds())
	for i, p := range g.Pix {
		o.Pix[i] = 255 - p
	}
	return o
}

func pad(g *image.Gray, m int, bg uint8) *image.Gray {
	r := g.Bounds()
	o := image.NewGray(image.Rect(0, 0, r.Dx()+2*m, r.Dy()+2*m))
	for i := range o.Pix {
		o.Pix[i] = bg
	}
	xdraw.Draw(o, r.Add(image.Pt(m, m)), g, image.Point{}, xdraw.Src)
	return o
}

func scale(g image.Image, sx, sy float64) *image.Gray {
	r := g.Bounds()
	o := image.NewGray(image.Rect(0, 0, int(float64(r.Dx())*sx), int(float64(r.Dy())*sy)))
	xdraw.BiLinear.Scale(o, o.Bounds(), g, r, xdraw.Src, nil)
	return o
}

func mustCompute(t *testing.T, img image.Image, o Options) Hashes {
	t.Helper()
	fp, err := Compute(img, o)
	if err != nil {
		t.Fatal(err)
	}
	return fp
}

func TestTransformsDoNotHideACopy(t *testing.T) {
	o := Options{Kind: PHash, Canvas: Stretch}
	base := formula()
	ref := mustCompute(t, base, o)
	if ref.Blank {
		t.Fatal("test image found blank")
	}
	tests := []struct {
		name      string
		img       image.Image
		maxDist   int
		identical bool
	}{
		{"inverted polarity", invert(base), 0, true},
		{"white margin", pad(base, 40, 255), 0, true},
		{"inverted with black margin", pad(invert(base), 25, 0), 0, true},
		// Half size: a 27 px high formula, whose pen estimate moves its
		// strokes' box by a cell; within the default radius.
		{"half size", scale(base, 0.5, 0.5), 8, false},
		{"double size", scale(base, 2, 2), 6, false},
		{"stretched 1.3x", scale(base, 1.3, 1), 6, false},
		{"on a square canvas", pad(scale(base, 0.8, 0.8), 80, 255), 6, false},
	}
	for _, tt := range tests {
		fp := mustCompute(t, tt.img, o)
		d := bits.OnesCount64(fp.Hash ^ ref.Hash)
		if d > tt.maxDist {
			t.Errorf("%s: distance %d, want ≤ %d", tt.name, d, tt.maxDist)
		}
		if (fp.Digest == ref.Digest) != tt.identical {
			t.Errorf("%s: identical = %v, want %v", tt.name, fp.Digest == ref.Digest, tt.identical)
		}
		// Queries are verified with their probes, as neardup and dedup
		// hash them.
		po := o
		po.Probe = true
		if d, ok := Verify(mustCompute(t, tt.img, po), ref); !ok {
			t.Errorf("%s: fine distance %d would not verify", tt.name, d)
		}
	}
}

func TestBlank(t *testing.T) {
	g := image.NewGray(image.Rect(0, 0, 50, 20))
	for i := range g.Pix {
		g.Pix[i] = 250
	}
	if fp := mustCompute(t, g, Options{}); !fp.Blank {
		t.Error("a uniform image is not blank")
	}
	if fp := mustCompute(t, image.NewGray(image.Rect(0, 0, 0, 0)), Options{}); !fp.Blank {
		t.Error("an empty image is not blank")
	}
}

func TestToGrayKinds(t *testing.T) {
	base := formula()
	want := ToGray(base)
	rgba := image.NewRGBA(base.Bounds())
	xdraw.Draw(rgba, rgba.Bounds(), base, image.Point{}, xdraw.Src)
	sub := pad(base, 10, 255).SubImage(image.Rect(10, 10, 310, 90))
	for name, img := range map[string]image.Image{"rgba": rgba, "sub-image": sub} {
		got := ToGray(img)
		if got.W != want.W || got.H != want.H || string(got.Pix) != string(want.Pix) {
			t.Errorf("%s: pixels differ", name)
		}
	}
}

func BenchmarkCompute(b *testing.B) {
	img := formula()
	for i := 0; i < b.N; i++ {
		Compute(img, Options{})
	}
}

// BenchmarkComputeQuery hashes the formula as a query: its own canvas,
// the probes and the drawings a query keeps for verification.
func BenchmarkComputeQuery(b *testing.B) {
	img := formula()
	for i := 0; i < b.N; i++ {
		Compute(img, Options{Probe: true})
	}
}
