package inkraster

import (
	"bytes"
	"testing"

	"github.com/leakaudit/leakaudit/dataset"
)

var strokes = []dataset.Stroke{
	{{0, 0}, {10, 30}, {20, 0}},
	{{30, 10}, {50, 10}},
	{{60, 0}, {60, 30}, {75, 15}},
}

// TestRandomInRange: every drawn rasterizer lies within the ranges the
// matcher is held to, and a seed always draws the same one.
func TestRandomInRange(t *testing.T) {
	for seed := uint64(0); seed < 2000; seed++ {
		r := Random(seed)
		if r != Random(seed) {
			t.Fatalf("seed %d draws two rasterizers", seed)
		}
		switch {
		case r.Stroke < 1 || r.Stroke > 6:
			t.Errorf("%v: pen out of 1–6 px", r)
		case r.Height < 40 || r.Height > 512 || r.Width > 512:
			t.Errorf("%v: canvas out of 40 px high to 512×512", r)
		case r.Margin < 0 || r.Margin > 30:
			t.Errorf("%v: margin out of 0–30 px", r)
		case r.Cut < 0 || r.Cut > 0.03:
			t.Errorf("%v: cut out of 0–3%%", r)
		case r.JPEG != 0 && (r.JPEG < 50 || r.JPEG > 100):
			t.Errorf("%v: JPEG quality out of 50–100", r)
		case r.Scale < 0.25 || r.Scale > 4:
			t.Errorf("%v: scale out of 25–400%%", r)
		case float64(r.Height)*r.Scale < 39.5:
			t.Errorf("%v: rescaled canvas under 40 px high", r)
		}
	}
}

// TestEncodeDeterministic: a rasterizer encodes the same strokes to the
// same bytes, and the corners each draw some ink.
func TestEncodeDeterministic(t *testing.T) {
	for _, r := range append(Corners(), Random(1), Random(2)) {
		a, ext, err := r.Encode(strokes)
		if err != nil {
			t.Fatalf("%v: %v", r, err)
		}
		b, _, _ := r.Encode(strokes)
		if !bytes.Equal(a, b) {
			t.Errorf("%v: two encodings differ", r)
		}
		if (ext == ".jpg") != (r.JPEG > 0) {
			t.Errorf("%v: extension %s", r, ext)
		}
		g, err := r.Render(strokes)
		if err != nil {
			t.Fatal(err)
		}
		dark, light := 0, 0
		for _, p := range g.Pix {
			if p < 128 {
				dark++
			} else {
				light++
			}
		}
		ink := dark
		if r.WhiteOnBlack {
			ink = light
		}
		if ink == 0 || ink == len(g.Pix) {
			t.Errorf("%v: no ink drawn (%d of %d pixels)", r, ink, len(g.Pix))
		}
	}
	if _, err := Corners()[0].Render(nil); err == nil {
		t.Error("no strokes: want an error")
	}
}

func TestStrokeSignature(t *testing.T) {
	tests := []struct {
		name, ink, want string
	}{
		{"none", `<ink></ink>`, ""},
		{"one", `<ink><trace>1 2, 3 4, 5 6</trace></ink>`, "2"},
		{"attributes and lines", "<ink><trace id=\"0\">1 2,\n3 4</trace><trace>7 8</trace></ink>", "1.0"},
	}
	for _, tt := range tests {
		if got := StrokeSignature([]byte(tt.ink)); got != tt.want {
			t.Errorf("%s: StrokeSignature = %q, want %q", tt.name, got, tt.want)
		}
	}
}
