package dedup

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/leakaudit/leakaudit/dataset"
	"github.com/parquet-go/parquet-go"
)

// ringPNG draws a lone symbol, one ring of ink dark on white, k pixels
// for each of a 60×60 drawing's: with k > 1 the same ink in other pixels.
func ringPNG(t *testing.T, k int) []byte {
	return ringShapePNG(t, k, 0)
}

// ringShapePNG is ringPNG with the ring deformed by egg (0: none; more: an
// egg, wider at the bottom).
func ringShapePNG(t *testing.T, k int, egg float64) []byte {
	t.Helper()
	g := image.NewGray(image.Rect(0, 0, 60*k, 60*k))
	for y := range 60 * k {
		for x := range 60 * k {
			dx, dy := float64(x/k-30), float64(y/k-30)
			r := math.Hypot(dx*(1+egg*dy/20), dy)
			g.Pix[y*g.Stride+x] = 255
			if r <= 20 && r >= 14 {
				g.Pix[y*g.Stride+x] = 0
			}
		}
	}
	return pngOf(t, g)
}

// pngOf encodes an image as PNG.
func pngOf(t *testing.T, img image.Image) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// twicePNG scales a PNG to twice its size, each pixel a 2×2 block.
func twicePNG(t *testing.T, data []byte) []byte {
	t.Helper()
	src, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	b := src.Bounds()
	m := image.NewGray(image.Rect(0, 0, 2*b.Dx(), 2*b.Dy()))
	for y := range m.Bounds().Dy() {
		for x := range m.Bounds().Dx() {
			m.Set(x, y, src.At(b.Min.X+x/2, b.Min.Y+y/2))
		}
	}
	return pngOf(t, m)
}

// TestLoneSymbolRemovals: an item removed as an image copy whose image is
// one piece of ink, its pixels not those of what it matched, is marked a
// lone symbol's, counted in its split's summary and noted in summary.md,
// removed.jsonl and removed.parquet; a formula of several pieces and a
// lone symbol with identical pixels are removed unmarked. Both image
// rules are covered: against another set's images, and inside the release.
func TestLoneSymbolRemovals(t *testing.T) {
	dir := t.TempDir()
	formula := formulaPNG(t, 21)
	// The benchmark: a lone o and a formula, labelled otherwise than the
	// release, so that only their images match.
	bench := filepath.Join(dir, "bench")
	write(t, filepath.Join(bench, "caption.txt"), []byte("o\t0\nf\ty - 2\n"))
	write(t, filepath.Join(bench, "img", "o.png"), ringPNG(t, 1))
	write(t, filepath.Join(bench, "img", "f.png"), formula)
	// The release: each leaks one of them, and repeats one of its own.
	rel := filepath.Join(dir, "rel")
	write(t, filepath.Join(rel, "caption.txt"), []byte("o2\to\nf2\tx + 1\no1\to\nq\tq\nq2\tq\no4\to\n"))
	write(t, filepath.Join(rel, "img", "o2.png"), ringPNG(t, 2))              // lone, other pixels
	write(t, filepath.Join(rel, "img", "f2.png"), twicePNG(t, formula))       // eight pieces, other pixels
	write(t, filepath.Join(rel, "img", "o1.png"), ringPNG(t, 1))              // lone, the same pixels
	write(t, filepath.Join(rel, "img", "q.png"), ringPNG(t, 3))               // kept: the first of two
	write(t, filepath.Join(rel, "img", "q2.png"), twicePNG(t, ringPNG(t, 3))) // lone, other pixels, inside the release
	write(t, filepath.Join(rel, "img", "o4.png"), ringPNG(t, 2))              // o2's pixels, inside the release
	cases := []struct {
		name    string
		against []Input
		want    map[string]bool // removed item → marked a lone symbol
	}{
		{"against", []Input{{Name: "bench", Source: dataset.Source{Path: bench}}},
			map[string]bool{"o2": true, "f2": false, "o1": false, "q": true, "q2": true, "o4": true}},
		{"within", nil,
			// o1, q and q2 are copies of o2 (the first kept), lone with other
			// pixels; o4 has o2's pixels; f2 has no earlier copy.
			map[string]bool{"o1": true, "q": true, "q2": true, "o4": false}},
	}
	for _, c := range cases {
		out := filepath.Join(dir, "out-"+c.name)
		res, err := Run(context.Background(), Job{Releases: []Input{{Name: "r", Source: dataset.Source{Path: rel, Format: dataset.Caption}}},
			Against: c.against, Out: out, Levels: ws(t), Images: c.against != nil, Within: c.against == nil, Tool: "leakaudit test"})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		got := map[string]bool{}
		for _, r := range res.Removed {
			got[r.ID] = r.LoneSymbol
			if r.Reason != ReasonImage && !(r.Reason == ReasonWithin && r.Level == "image") {
				t.Errorf("%s: %s removed as %s (%s), want an image copy", c.name, r.ID, r.Reason, r.Level)
			}
		}
		lone := 0
		for id, want := range c.want {
			if l, ok := got[id]; !ok || l != want {
				t.Errorf("%s: %s removed %v, lone symbol %v; want removed, lone symbol %v", c.name, id, ok, l, want)
			}
			if want {
				lone++
			}
		}
		if len(got) != len(c.want) {
			t.Errorf("%s: removed %v, want %v", c.name, got, c.want)
		}
		if s := res.Releases[0]; s.LoneSymbol != int64(lone) {
			t.Errorf("%s: summary counts %d lone symbols, want %d", c.name, s.LoneSymbol, lone)
		}
		md, err := os.ReadFile(filepath.Join(out, "summary.md"))
		if err != nil || !strings.Contains(string(md), "are lone symbols without identical pixels") {
			t.Errorf("%s: summary.md has no lone-symbol note (%v):\n%s", c.name, err, md)
		}
		jl, err := os.ReadFile(filepath.Join(out, "removed.jsonl"))
		if n := strings.Count(string(jl), `"lone_symbol":true`); err != nil || n != lone {
			t.Errorf("%s: removed.jsonl marks %d lone symbols (%v), want %d", c.name, n, err, lone)
		}
		rows, err := parquet.ReadFile[Removed](filepath.Join(out, "removed.parquet"))
		n := 0
		for _, r := range rows {
			if r.LoneSymbol {
				n++
			}
		}
		if err != nil || n != lone {
			t.Errorf("%s: removed.parquet marks %d lone symbols (%v), want %d", c.name, n, err, lone)
		}
	}
}

// eggPNG draws a ring deformed into an egg, wider at the bottom: a lone
// symbol within the radius of ringPNG's but not verified as its copy.
func eggPNG(t *testing.T) []byte {
	return ringShapePNG(t, 1, 0.2)
}

// TestLoneUnverifiedKept: a kept item whose image is a lone symbol with an
// against image within the radius, not verified as a copy, is counted
// (ReleaseSummary.LoneUnverified), noted in summary.md and listed with its
// candidate in unverified.jsonl, in a release with labels and in an
// image-only one; an item removed (here by its label) is not, nor is one
// removed as a verified copy. Without images compared, no list is written.
func TestLoneUnverifiedKept(t *testing.T) {
	dir := t.TempDir()
	bench := filepath.Join(dir, "bench")
	write(t, filepath.Join(bench, "caption.txt"), []byte("o\t0\n"))
	write(t, filepath.Join(bench, "img", "o.png"), ringPNG(t, 1))
	rel := filepath.Join(dir, "rel")
	write(t, filepath.Join(rel, "caption.txt"), []byte("egg\te\no2\to\negg2\t0\n"))
	write(t, filepath.Join(rel, "img", "egg.png"), eggPNG(t))    // kept, counted
	write(t, filepath.Join(rel, "img", "o2.png"), ringPNG(t, 2)) // removed as a copy
	write(t, filepath.Join(rel, "img", "egg2.png"), eggPNG(t))   // removed by its label
	imgs := filepath.Join(dir, "imgs")
	write(t, filepath.Join(imgs, "egg.png"), eggPNG(t))
	write(t, filepath.Join(imgs, "o2.png"), ringPNG(t, 2))
	for _, c := range []struct {
		name    string
		src     dataset.Source
		removed int64
	}{
		{"labels", dataset.Source{Path: rel, Format: dataset.Caption}, 2},
		{"images", dataset.Source{Path: imgs}, 1},
	} {
		out := filepath.Join(dir, "out-"+c.name)
		res, err := Run(context.Background(), Job{Releases: []Input{{Name: "r", Source: c.src}},
			Against: []Input{{Name: "bench", Source: dataset.Source{Path: bench}}}, Out: out, Levels: ws(t), Images: true, Tool: "leakaudit test"})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		s := res.Releases[0]
		if s.Removed != c.removed || s.LoneUnverified != 1 {
			t.Errorf("%s: %d removed, %d kept lone symbols with unverified candidates; want %d and 1 (removed %+v)", c.name, s.Removed, s.LoneUnverified, c.removed, res.Removed)
		}
		md, err := os.ReadFile(filepath.Join(out, "summary.md"))
		if err != nil || !strings.Contains(string(md), "1 kept item(s) are lone symbols") {
			t.Errorf("%s: summary.md has no note of it (%v):\n%s", c.name, err, md)
		}
		jl, err := os.ReadFile(filepath.Join(out, "unverified.jsonl"))
		want := `{"release":"r","id":"egg","seq":0,"distance":`
		if err != nil || strings.Count(string(jl), "\n") != 1 || !strings.HasPrefix(string(jl), want) || !strings.Contains(string(jl), `"candidates":["bench:o"]`) {
			t.Errorf("%s: unverified.jsonl (%v):\n%s\nwant one line, %s…, candidates [bench:o]", c.name, err, jl, want)
		}
	}
	// Without --images nothing is compared by image, and no list is written.
	out := filepath.Join(dir, "out-labels-only")
	if _, err := Run(context.Background(), Job{Releases: []Input{{Name: "r", Source: dataset.Source{Path: rel, Format: dataset.Caption}}},
		Against: []Input{{Name: "bench", Source: dataset.Source{Path: bench}}}, Out: out, Levels: ws(t), Tool: "leakaudit test"}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(out, "unverified.jsonl")); !os.IsNotExist(err) {
		t.Errorf("without images: unverified.jsonl written (%v)", err)
	}
}
