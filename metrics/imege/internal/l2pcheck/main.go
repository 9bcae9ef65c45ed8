// Command l2pcheck measures how closely imege.Render reproduces the
// renders of IMEGE's released script (docs/metrics.md §8.5): it renders a
// sample of benchmark labels as l2p does (its document, `latex`, `dvips
// -E`, `convert -units PixelsPerInch -density 600`; Debian's TeX Live and
// ImageMagick, which this needs), and with leakaudit, and reports the
// share of images of the same size, the mean pixel IoU of their ink
// (pixels darker than 128, the images' top left corners aligned, and
// with the best shift within -shift pixels) and the mean IMEGE between
// the two renders, for imege.Render and for the renderer it replaced
// (display style at 12 pt, cropped to the ink). l2p itself is not run:
// the commands are its.
//
//	go run ./metrics/imege/internal/l2pcheck -n 60
package main

import (
	"bytes"
	"flag"
	"fmt"
	"image"
	"image/draw"
	_ "image/png"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/leakaudit/leakaudit/dataset"
	"github.com/leakaudit/leakaudit/internal/reftemplate"
	"github.com/leakaudit/leakaudit/internal/shareddata"
	"github.com/leakaudit/leakaudit/metrics/imege"
	"github.com/leakaudit/leakaudit/tex"
)

// l2p renders a formula as l2p does; nil when LaTeX reports an error.
func l2p(dir, formula string, dpi int) (*image.Gray, error) {
	for _, f := range []string{"foo.dvi", "foo.ps", "foo.log", "img.png"} {
		os.Remove(filepath.Join(dir, f))
	}
	if err := os.WriteFile(filepath.Join(dir, "foo.latex"), []byte(reftemplate.L2PDocument(formula)), 0o644); err != nil {
		return nil, err
	}
	run := func(name string, args ...string) error {
		c := exec.Command(name, args...)
		c.Dir = dir
		return c.Run()
	}
	_ = run("latex", "-interaction=batchmode", "foo.latex")
	if lg, _ := os.ReadFile(filepath.Join(dir, "foo.log")); bytes.Contains(lg, []byte("\n! ")) {
		return nil, nil
	}
	if err := run("dvips", "-E", "foo", "-o"); err != nil {
		return nil, fmt.Errorf("dvips: %w", err)
	}
	if err := run("convert", "-units", "PixelsPerInch", "-density", fmt.Sprint(dpi), "foo.ps", "png:img.png"); err != nil {
		return nil, fmt.Errorf("convert: %w", err)
	}
	f, err := os.Open(filepath.Join(dir, "img.png"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	m, _, err := image.Decode(f)
	if err != nil {
		return nil, err
	}
	g := image.NewGray(image.Rect(0, 0, m.Bounds().Dx(), m.Bounds().Dy()))
	draw.Draw(g, g.Bounds(), m, m.Bounds().Min, draw.Src)
	return g, nil
}

// before is the renderer imege.Render replaced: display style at the
// engine's 12 pt, cropped to the ink.
func before(formula string, dpi float64) (*imege.Image, error) {
	l, err := tex.Typeset(formula)
	if err != nil {
		return nil, err
	}
	g, err := l.Render(tex.RenderOptions{DPI: dpi})
	if err != nil {
		return nil, err
	}
	return imege.FromImage(g), nil
}

// iou is the ink IoU of two images, a's top left corner at (dx, dy) in
// b's.
func iou(a *imege.Image, b *image.Gray, dx, dy int) float64 {
	var inter, union int
	for y := min(0, dy); y < max(a.H+dy, b.Rect.Dy()); y++ {
		for x := min(0, dx); x < max(a.W+dx, b.Rect.Dx()); x++ {
			ax, ay := x-dx, y-dy
			ia := ax >= 0 && ay >= 0 && ax < a.W && ay < a.H && a.Pix[ay*a.W+ax] < 128
			ib := x >= 0 && y >= 0 && x < b.Rect.Dx() && y < b.Rect.Dy() && b.Pix[y*b.Stride+x] < 128
			if ia && ib {
				inter++
			}
			if ia || ib {
				union++
			}
		}
	}
	if union == 0 {
		return 1
	}
	return float64(inter) / float64(union)
}

// bestIoU is the best ink IoU with a shifted by at most r pixels.
func bestIoU(a *imege.Image, b *image.Gray, r int) float64 {
	best := 0.0
	for dy := -r; dy <= r; dy++ {
		for dx := -r; dx <= r; dx++ {
			best = max(best, iou(a, b, dx, dy))
		}
	}
	return best
}

// score is IMEGE between leakaudit's render and l2p's (0: the same).
func score(a *imege.Image, b *image.Gray) float64 {
	r, err := imege.Compare(a, imege.FromImage(b), imege.DefaultParams, imege.Limits{})
	if err != nil {
		log.Fatal(err)
	}
	return r.IMEGE
}

func main() {
	n := flag.Int("n", 60, "formulas to compare")
	split := flag.String("labels", "crohme_2019_captions.json", "label file under the shared data's labels/")
	dpi := flag.Int("dpi", imege.DPI, "resolution")
	verbose := flag.Bool("v", false, "print each formula's figures")
	shift := flag.Int("shift", 3, "also report the best IoU with shifts of up to this many pixels")
	withIMEGE := flag.Bool("imege", true, "also report IMEGE between leakaudit's render and l2p's")
	flag.Parse()
	root := shareddata.Find()
	if root == "" {
		log.Fatal("shared data not found (../shared/data or $LEAKAUDIT_DATA)")
	}
	var labels []string
	if _, err := dataset.Scan(dataset.Source{Path: filepath.Join(root, "labels", *split)}, func(it dataset.Item) error {
		labels = append(labels, it.Label)
		return nil
	}); err != nil {
		log.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "l2pcheck")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	step := max(1, len(labels)/(*n*2))
	var count, sameNew, sameOld, latexErr, unsup int
	var sumNew, sumOld, shNew, shOld, imNew, imOld float64
	for i := 0; i < len(labels) && count < *n; i += step {
		f := strings.TrimSpace(labels[i])
		if f == "" {
			continue
		}
		ref, err := l2p(dir, f, *dpi)
		if err != nil {
			log.Fatal(err)
		}
		if ref == nil {
			latexErr++
			continue
		}
		now, err1 := imege.Render(f, float64(*dpi), 0)
		old, err2 := before(f, float64(*dpi))
		if err1 != nil || err2 != nil {
			unsup++
			continue
		}
		count++
		a, b := iou(now, ref, 0, 0), iou(old, ref, 0, 0)
		sumNew += a
		sumOld += b
		sa, sb := bestIoU(now, ref, *shift), bestIoU(old, ref, *shift)
		shNew += sa
		shOld += sb
		var ia, ib float64
		if *withIMEGE {
			ia, ib = score(now, ref), score(old, ref)
			imNew += ia
			imOld += ib
		}
		if now.W == ref.Rect.Dx() && now.H == ref.Rect.Dy() {
			sameNew++
		}
		if old.W == ref.Rect.Dx() && old.H == ref.Rect.Dy() {
			sameOld++
		}
		if *verbose {
			fmt.Printf("%.3f %.3f (shifted %.3f %.3f; IMEGE %.2f %.2f)  l2p %dx%d now %dx%d before %dx%d  %s\n", a, b, sa, sb, ia, ib, ref.Rect.Dx(), ref.Rect.Dy(), now.W, now.H, old.W, old.H, f)
		}
	}
	fmt.Printf("%d formulas of %s at %d dpi (%d left out for LaTeX errors, %d the engine does not set)\n", count, *split, *dpi, latexErr, unsup)
	c := float64(max(count, 1))
	fmt.Printf("imege.Render (10 pt, in-line, l2p's crop): mean ink IoU %.4f (%.4f with the best shift within %d px), same size %d/%d, mean IMEGE against l2p %.2f\n", sumNew/c, shNew/c, *shift, sameNew, count, imNew/c)
	fmt.Printf("before (12 pt display, cropped to ink):    mean ink IoU %.4f (%.4f with the best shift within %d px), same size %d/%d, mean IMEGE against l2p %.2f\n", sumOld/c, shOld/c, *shift, sameOld, count, imOld/c)
}
