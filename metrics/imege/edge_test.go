package imege

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
)

func filled(w, h int, v uint8) *Image {
	g := &Image{W: w, H: h, Max: 255, Pix: make([]uint8, w*h)}
	for k := range g.Pix {
		g.Pix[k] = v
	}
	return g
}

func dotImage() *Image { // 10×8: one black and one gray pixel
	g := filled(10, 8, 255)
	g.Pix[2*10+4], g.Pix[5*10+5] = 0, 128
	return g
}

func barImage() *Image { // 12×6: a black bar on row 3
	g := filled(12, 6, 255)
	for x := 2; x < 10; x++ {
		g.Pix[3*12+x] = 0
	}
	return g
}

// Edge cases, with the original bidm's outputs on the same images (35 31
// -i 2, and 3 3).
func TestEdgeCases(t *testing.T) {
	for _, c := range []struct {
		name       string
		test, ref  *Image
		def, small string
	}{
		{"one black pixel, identical", filled(1, 1, 0), filled(1, 1, 0), "1.000000", "1.000000"},
		{"all ink, identical", filled(3, 3, 0), filled(3, 3, 0), "1.000000", "1.000000"},
		{"all ink, sizes differ", filled(1, 1, 0), filled(3, 3, 0), "0.000000", "0.000000"},
		{"blank, identical", filled(10, 10, 255), filled(10, 10, 255), "1.000000", "1.000000"},
		{"blank test", filled(10, 10, 255), dotImage(), "NaN", "NaN"},
		{"blank reference", dotImage(), filled(10, 10, 255), "0.000000", "0.000000"},
		{"dot vs bar", dotImage(), barImage(), "0.000000", "0.000000"},
		{"bar vs dot", barImage(), dotImage(), "0.000000", "0.500000"},
		{"all ink vs bar", filled(3, 3, 0), barImage(), "0.555556", "0.555556"},
	} {
		for _, run := range []struct {
			p    Params
			want string
		}{{DefaultParams, c.def}, {Params{Warp: 3, Context: 3, Size: 3}, c.small}} {
			v, err := BIDM(c.test, c.ref, run.p, Limits{})
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			got := "NaN"
			if !math.IsNaN(v) {
				got = fmt.Sprintf("%8.6f", v)
			}
			if got != run.want {
				t.Errorf("%s %+v: %s, original %s", c.name, run.p, got, run.want)
			}
		}
	}
}

func TestRefused(t *testing.T) {
	ok := filled(4, 4, 0)
	for _, c := range []struct {
		name      string
		test, ref *Image
		p         Params
		l         Limits
		want      string
	}{
		{"empty image", &Image{Max: 255}, ok, DefaultParams, Limits{}, "empty"},
		{"nil image", nil, ok, DefaultParams, Limits{}, "no image"},
		{"too wide", filled(9, 2, 0), ok, DefaultParams, Limits{MaxSide: 8}, "too large"},
		{"too many pixels", filled(5, 5, 0), ok, DefaultParams, Limits{MaxPixels: 24}, "too large"},
		{"short pixels", &Image{W: 2, H: 2, Max: 255, Pix: []uint8{0}}, ok, DefaultParams, Limits{}, "samples"},
		{"even context", ok, ok, Params{Warp: 3, Context: 4, Size: 3}, Limits{}, "odd"},
		{"bad interpolation", ok, ok, Params{Warp: 3, Context: 3, Interp: 3, Size: 3}, Limits{}, "interpolation"},
	} {
		_, err := BIDM(c.test, c.ref, c.p, c.l)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
	if _, err := BIDM(filled(9, 2, 0), ok, DefaultParams, Limits{MaxSide: 8}); !errors.Is(err, ErrTooLarge) {
		t.Errorf("not ErrTooLarge: %v", err)
	}
}

func TestDecode(t *testing.T) {
	g, err := Decode([]byte("P2\n# comment\n3 2\n15\n0 15 7\n1 2 3\n"), Limits{})
	if err != nil || g.W != 3 || g.H != 2 || g.Max != 15 || g.Pix[2] != 7 || g.Pix[5] != 3 {
		t.Fatalf("%+v %v", g, err)
	}
	for _, bad := range []string{"P5\n3 2\n255\n\x00", "P2\n3 2\n15\n16 0 0 0 0 0", "P5\n3 2\n65535\n", "P5\n100000 100000\n255\n", "GIF89a"} {
		if _, err := Decode([]byte(bad), Limits{}); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// The cell count the original derives from the aspect ratio equals the
// width for every shape up to 1,000 px a side (and the sides checked
// beyond); Image.check refuses any other.
func TestCellsAcross(t *testing.T) {
	for h := 1; h <= 1000; h++ {
		for w := 1; w <= 1000; w++ {
			if cellsAcross(w, h) != w {
				t.Fatalf("%d×%d: %d cells", w, h, cellsAcross(w, h))
			}
		}
	}
}
