package font

import (
	"math"
	"strings"
	"testing"
)

// bounds is the exact bounding box of an outline, curve extrema included.
func (o *Outline) bounds() (x0, y0, x1, y1 float64, ok bool) {
	x0, y0, x1, y1 = math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	add := func(p Point) {
		x0, y0 = math.Min(x0, p.X), math.Min(y0, p.Y)
		x1, y1 = math.Max(x1, p.X), math.Max(y1, p.Y)
	}
	var cur Point
	for _, op := range o.Ops {
		switch op.Kind {
		case 'M', 'L':
			cur = op.Pts[0]
			add(cur)
		case 'C':
			p0, p1, p2, p3 := cur, op.Pts[0], op.Pts[1], op.Pts[2]
			for k := 0; k <= 256; k++ {
				t := float64(k) / 256
				u := 1 - t
				add(Point{
					u*u*u*p0.X + 3*u*u*t*p1.X + 3*u*t*t*p2.X + t*t*t*p3.X,
					u*u*u*p0.Y + 3*u*u*t*p1.Y + 3*u*t*t*p2.Y + t*t*t*p3.Y,
				})
			}
			cur = p3
		}
	}
	return x0, y0, x1, y1, x1 >= x0
}

// TestType1AgainstAFM interprets every glyph of every embedded Type 1
// font and checks its outline's bounding box and advance against the AFM
// that TeX Live ships for it (computed by the font's makers from the same
// outlines): within one font unit, 1/1000 em.
func TestType1AgainstAFM(t *testing.T) {
	entries, err := pfbFiles.ReadDir("fonts")
	if err != nil {
		t.Fatal(err)
	}
	fonts, glyphs := 0, 0
	for _, e := range entries {
		name := strings.TrimSuffix(e.Name(), ".pfb")
		f, err := LoadType1(name)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		afm, err := LoadAFM(name)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		fonts++
		for code, ink := range afm.Glyph {
			o, err := f.Outline(code)
			if err != nil {
				t.Errorf("%s %d: %v", name, code, err)
				continue
			}
			glyphs++
			if math.Abs(o.Advance-float64(ink.WX)) > 1 {
				t.Errorf("%s %d: advance %.2f, AFM %d", name, code, o.Advance, ink.WX)
			}
			x0, y0, x1, y1, ok := o.bounds()
			if !ok {
				if ink.Urx > ink.Llx {
					t.Errorf("%s %d: empty outline, AFM box %v", name, code, ink)
				}
				continue
			}
			d := math.Max(math.Max(math.Abs(x0-float64(ink.Llx)), math.Abs(y0-float64(ink.Lly))),
				math.Max(math.Abs(x1-float64(ink.Urx)), math.Abs(y1-float64(ink.Ury))))
			// Euler's T: its AFM box is 2 units wider than its outline at
			// every size (the outline's rightmost point is a line end at 573).
			tol := 1.01
			if strings.HasPrefix(name, "eurm") && code == 'T' {
				tol = 2.01
			}
			if d > tol {
				t.Errorf("%s %d: outline box %.1f %.1f %.1f %.1f, AFM %d %d %d %d", name, code, x0, y0, x1, y1, ink.Llx, ink.Lly, ink.Urx, ink.Ury)
			}
		}
	}
	if want := len(entries); fonts != want {
		t.Errorf("%d fonts checked, want %d", fonts, want)
	}
	t.Logf("%d fonts, %d glyphs: outline boxes within 1/1000 em of the AFM", fonts, glyphs)
}

func TestType1Damaged(t *testing.T) {
	data, err := pfbFiles.ReadFile("fonts/cmr12.pfb")
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{0, 1, 5, 6, 100, 1000, len(data) / 2, len(data) - 10} {
		if _, err := ParseType1("cut", data[:n]); err == nil && n < len(data)/2 {
			t.Errorf("%d bytes: parsed without error", n)
		}
	}
	if _, err := ParseType1("text", []byte("%!PS-AdobeFont-1.0")); err == nil {
		t.Error("a PFA without eexec parsed")
	}
}

func FuzzType1Charstring(f *testing.F) {
	cmr, err := LoadType1("cmr12")
	if err != nil {
		f.Fatal(err)
	}
	for _, n := range []string{"A", "g", "Omega", "ff"} {
		if cs, ok := cmr.charStrings[n]; ok {
			f.Add(cs)
		}
	}
	f.Fuzz(func(t *testing.T, cs []byte) {
		ft := &Type1{Name: "fuzz", charStrings: map[string][]byte{"x": cs}, subrs: cmr.subrs}
		ft.Encoding[120] = "x"
		_, _ = ft.Outline(120)
	})
}
