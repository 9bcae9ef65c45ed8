// Command imegegolden writes the IMEGE golden pairs (formulas rendered by
// leakaudit, some thickened, thinned or resized) as PNG files under
// metrics/imege/testdata/pairs, and, given a bidm binary built from the
// original falvaro/imege repository (-bidm or $BIDM), runs it on each pair
// in both directions and writes the printed values to
// metrics/imege/testdata/golden.tsv. The original program never enters the
// repository: build it elsewhere (make in its BIDM folder) and point here.
//
//	go run ./metrics/imege/internal/imegegolden -bidm /path/to/bidm
package main

import (
	"bytes"
	"flag"
	"fmt"
	"image"
	"image/png"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/leakaudit/leakaudit/metrics/imege"
)

// An image is a formula rendered at a resolution, then optionally made
// thicker ("thick": one pixel of dilation) or thinner ("thin": erosion).
type img struct {
	formula string
	dpi     float64
	stroke  string
}

type pair struct {
	name     string
	rec, ref img
	args     string // bidm's arguments after the two images
}

const def = "35 31 -i 2"

func pairs() []pair {
	r := func(f string, dpi float64) img { return img{f, dpi, ""} }
	return []pair{
		{"identical", r(`x^2+1`, 300), r(`x^2+1`, 300), def},
		{"identical_frac", r(`\frac{a+b}{c}`, 200), r(`\frac{a+b}{c}`, 200), def},
		{"x2_vs_xsq", r(`x2+1`, 300), r(`x^2+1`, 300), def},
		{"plus_minus", r(`a+b`, 300), r(`a-b`, 300), def},
		{"frac_denominator", r(`\frac{a}{b}`, 300), r(`\frac{a}{c}`, 300), def},
		{"sqrt_arg", r(`\sqrt{x}`, 300), r(`\sqrt{y}`, 300), def},
		{"sub_sup", r(`x_{i}`, 300), r(`x^{i}`, 300), def},
		{"greek", r(`\alpha+\beta`, 300), r(`\alpha+\gamma`, 300), def},
		{"paper_power", r(`(y+1^2)`, 300), r(`(y+1)^2`, 300), def},
		{"sum_limits", r(`\sum_{i=0}^{n} i`, 200), r(`\sum_{i=1}^{n} i`, 200), def},
		{"digit", r(`1+2`, 300), r(`1+3`, 300), def},
		{"single_glyph", r(`a`, 300), r(`b`, 300), def},
		{"function", r(`\sin x`, 300), r(`\sin y`, 300), def},
		{"frac_vs_slash", r(`1/2`, 300), r(`\frac{1}{2}`, 300), def},
		{"integral_bound", r(`\int_0^2 f`, 200), r(`\int_0^1 f`, 200), def},
		{"size_600_300", r(`x^2+1`, 600), r(`x^2+1`, 300), def},
		{"size_200_300", r(`a+b`, 200), r(`a+b`, 300), def},
		{"thick_stroke", img{`x+y`, 300, "thick"}, r(`x+y`, 300), def},
		{"thin_stroke", img{`x+y`, 300, "thin"}, r(`x+y`, 300), def},
		{"thick_vs_edit", img{`x^2+1`, 300, "thick"}, r(`x2+1`, 300), def},
		{"render_600", r(`x2+1`, 600), r(`x^2+1`, 600), def},
		{"paper_params", r(`x2+1`, 200), r(`x^2+1`, 200), "40 27"},
		{"interp1", r(`a+b`, 200), r(`a-b`, 200), "35 31 -i 1"},
		{"small_window", r(`\frac{a}{b}`, 300), r(`\frac{a}{c}`, 300), "8 7"},
	}
}

// stroke dilates (thick) or erodes (thin) the ink by one pixel: each pixel
// takes the darkest (lightest) value of its 3×3 neighbourhood.
func stroke(g *imege.Image, how string) *imege.Image {
	if how == "" {
		return g
	}
	out := &imege.Image{W: g.W, H: g.H, Max: g.Max, Pix: make([]uint8, len(g.Pix))}
	for y := range g.H {
		for x := range g.W {
			v := g.Pix[y*g.W+x]
			for dy := -1; dy <= 1; dy++ {
				for dx := -1; dx <= 1; dx++ {
					xx, yy := x+dx, y+dy
					if xx < 0 || yy < 0 || xx >= g.W || yy >= g.H {
						if how == "thin" {
							v = 255
						}
						continue
					}
					n := g.Pix[yy*g.W+xx]
					if how == "thick" {
						v = min(v, n)
					} else {
						v = max(v, n)
					}
				}
			}
			out.Pix[y*g.W+x] = v
		}
	}
	return out
}

func render(m img) *imege.Image {
	g, err := imege.Render(m.formula, m.dpi, 0)
	if err != nil {
		log.Fatalf("%s: %v", m.formula, err)
	}
	return stroke(g, m.stroke)
}

func writePNG(path string, g *imege.Image) {
	m := &image.Gray{Pix: g.Pix, Stride: g.W, Rect: image.Rect(0, 0, g.W, g.H)}
	var b bytes.Buffer
	if err := png.Encode(&b, m); err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		log.Fatal(err)
	}
}

func writePGM(path string, g *imege.Image) {
	b := fmt.Appendf(nil, "P5\n%d %d\n255\n", g.W, g.H)
	if err := os.WriteFile(path, append(b, g.Pix...), 0o644); err != nil {
		log.Fatal(err)
	}
}

func main() {
	bidm := flag.String("bidm", os.Getenv("BIDM"), "bidm binary built from falvaro/imege (only to write golden.tsv)")
	dir := flag.String("dir", "metrics/imege/testdata", "output folder")
	flag.Parse()
	pd := filepath.Join(*dir, "pairs")
	if err := os.MkdirAll(pd, 0o755); err != nil {
		log.Fatal(err)
	}
	tmp, err := os.MkdirTemp("", "imegegolden")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	var tsv strings.Builder
	tsv.WriteString("# pair\trec\tref\targs\tprecision\trecall (outputs of the original bidm: rec ref ARGS, ref rec ARGS)\n")
	for _, p := range pairs() {
		a, b := render(p.rec), render(p.ref)
		an, bn := p.name+"_rec.png", p.name+"_ref.png"
		writePNG(filepath.Join(pd, an), a)
		writePNG(filepath.Join(pd, bn), b)
		if *bidm == "" {
			continue
		}
		ap, bp := filepath.Join(tmp, "rec.pgm"), filepath.Join(tmp, "ref.pgm")
		writePGM(ap, a)
		writePGM(bp, b)
		run := func(x, y string) string {
			out, err := exec.Command(*bidm, append([]string{x, y}, strings.Fields(p.args)...)...).Output()
			if err != nil {
				log.Fatalf("%s: %v", p.name, err)
			}
			return strings.TrimSpace(string(out))
		}
		pr, rc := run(ap, bp), run(bp, ap)
		fmt.Fprintf(&tsv, "%s\t%s\t%s\t%s\t%s\t%s\n", p.name, an, bn, p.args, pr, rc)
		log.Printf("%s %d×%d %d×%d: %s %s", p.name, a.W, a.H, b.W, b.H, pr, rc)
	}
	if *bidm != "" {
		if err := os.WriteFile(filepath.Join(*dir, "golden.tsv"), []byte(tsv.String()), 0o644); err != nil {
			log.Fatal(err)
		}
	}
}
