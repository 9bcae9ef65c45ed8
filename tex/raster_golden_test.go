package tex

import (
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/leakaudit/leakaudit/latex"
)

// referenceRender is one formula of refcdm/bbox_golden: its coloured
// LaTeX, token count and the reference pipeline's binarized crop
// (pdflatex, Ghostscript at 200 dpi, every touched pixel black).
type referenceRender struct {
	id, side, formula string
	rendered          string
	tokens            int
	ref               *image.Gray
}

func loadReferenceRenders(tb testing.TB) []referenceRender {
	root, pairs := referencePairs(tb)
	var out []referenceRender
	for _, pr := range pairs {
		for _, side := range []struct{ dir, formula string }{{"gt", pr.GT}, {"pred", pr.Pred}} {
			f, err := os.Open(filepath.Join(root, "refcdm", "bbox_golden", "render_"+side.dir, pr.ID+".png"))
			if err != nil {
				continue
			}
			img, err := png.Decode(f)
			f.Close()
			if err != nil {
				tb.Fatalf("%s/%s: %v", side.dir, pr.ID, err)
			}
			res, err := latex.TokenizeCDM(side.formula)
			if err != nil {
				continue
			}
			b := img.Bounds()
			g := image.NewGray(image.Rect(0, 0, b.Dx(), b.Dy()))
			for y := 0; y < b.Dy(); y++ {
				for x := 0; x < b.Dx(); x++ {
					r, _, _, _ := img.At(b.Min.X+x, b.Min.Y+y).RGBA()
					g.Pix[y*g.Stride+x] = uint8(r >> 8)
				}
			}
			out = append(out, referenceRender{id: pr.ID, side: side.dir, formula: side.formula, rendered: res.Rendered(), tokens: len(res.Tokens), ref: g})
		}
	}
	return out
}

// rasterStats compares Render with the reference's renders.
type rasterStats struct {
	compared, failed, sameSize int
	ious                       []float64
	nearF                      []float64 // F-measure of ink within 1 px
	worst                      []string
}

func compareRenders(tb testing.TB, refs []referenceRender, thr uint8) rasterStats {
	var st rasterStats
	type scored struct {
		v  float64
		id string
	}
	var all []scored
	for _, r := range refs {
		l, err := Typeset(r.rendered)
		if err != nil {
			st.failed++
			continue
		}
		img, err := l.Render(RenderOptions{DPI: 200, Page: PageFor(r.tokens), Pad: 8})
		if err != nil {
			st.failed++
			continue
		}
		bin := recrop(binarize(img, thr), 8)
		if bin.Rect.Dx() == r.ref.Rect.Dx() && bin.Rect.Dy() == r.ref.Rect.Dy() {
			st.sameSize++
		}
		v, dx, dy := bestIoU(bin, r.ref, 2)
		p, q := near(bin, r.ref, dx, dy), near(r.ref, bin, -dx, -dy)
		st.compared++
		st.ious = append(st.ious, v)
		st.nearF = append(st.nearF, 2*p*q/max(p+q, 1e-9))
		all = append(all, scored{v, r.side + "/" + r.id + " " + r.formula})
	}
	sort.Slice(all, func(i, j int) bool { return all[i].v < all[j].v })
	for _, s := range all[:min(8, len(all))] {
		st.worst = append(st.worst, fmt.Sprintf("%.3f %s", s.v, s.id))
	}
	sort.Float64s(st.ious)
	sort.Float64s(st.nearF)
	return st
}

// binarize makes a render black wherever its coverage exceeds thr/255, as
// the reference's binarization makes every touched pixel black.
func binarize(img *image.Gray, thr uint8) *image.Gray {
	out := image.NewGray(img.Rect)
	for i, v := range img.Pix {
		if 255-v > thr {
			out.Pix[i] = 0
		} else {
			out.Pix[i] = 255
		}
	}
	return out
}

func mean(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s / float64(max(len(v), 1))
}

// TestRenderAgainstReference renders the 1,200 formulas of the reference
// pairs with the embedded Type 1 outlines on the reference's page and
// compares each with the reference pipeline's own binarized render
// (pdflatex and Ghostscript at 200 dpi): pixel IoU of the ink.
func TestRenderAgainstReference(t *testing.T) {
	refs := loadReferenceRenders(t)
	st := compareRenders(t, refs, 0)
	t.Logf("%d renders compared (%d not laid out), %d of the same size as the reference's", st.compared, st.failed, st.sameSize)
	t.Logf("pixel IoU (best alignment within ±2 px): mean %.4f, median %.4f, p10 %.4f, min %.4f",
		mean(st.ious), st.ious[len(st.ious)/2], st.ious[len(st.ious)/10], st.ious[0])
	t.Logf("ink within 1 px of the other's ink (F-measure): mean %.4f, median %.4f, p10 %.4f, min %.4f",
		mean(st.nearF), st.nearF[len(st.nearF)/2], st.nearF[len(st.nearF)/10], st.nearF[0])
	for _, w := range st.worst {
		t.Logf("lowest IoU: %s", w)
	}
	if st.compared < 1190 {
		t.Errorf("%d renders compared, want at least 1,190 of 1,200", st.compared)
	}
	if m := mean(st.ious); m < 0.75 {
		t.Errorf("mean IoU %.4f below 0.75", m)
	}
	if m := mean(st.nearF); m < 0.98 {
		t.Errorf("mean 1-px F-measure %.4f below 0.98", m)
	}
}

// recrop crops a binary image pad pixels around its black pixels.
func recrop(img *image.Gray, pad int) *image.Gray {
	x0, y0, x1, y1 := img.Rect.Dx(), img.Rect.Dy(), -1, -1
	for y := 0; y < img.Rect.Dy(); y++ {
		for x := 0; x < img.Rect.Dx(); x++ {
			if img.Pix[y*img.Stride+x] == 0 {
				x0, x1 = min(x0, x), max(x1, x)
				y0, y1 = min(y0, y), max(y1, y)
			}
		}
	}
	out := image.NewGray(image.Rect(0, 0, max(x1-x0+1, 0)+2*pad, max(y1-y0+1, 0)+2*pad))
	for i := range out.Pix {
		out.Pix[i] = 255
	}
	for y := y0; y <= y1; y++ {
		for x := x0; x <= x1; x++ {
			out.Pix[(y-y0+pad)*out.Stride+x-x0+pad] = img.Pix[y*img.Stride+x]
		}
	}
	return out
}

// bestIoU is the highest IoU of a against b shifted by at most d pixels
// on each axis: both are crops around their ink, so a one-pixel
// difference in the extent of the faintest pixel moves the whole crop.
func bestIoU(a, b *image.Gray, d int) (best float64, bx, by int) {
	for dy := -d; dy <= d; dy++ {
		for dx := -d; dx <= d; dx++ {
			if v := shiftedIoU(a, b, dx, dy); v > best {
				best, bx, by = v, dx, dy
			}
		}
	}
	return best, bx, by
}

// near is the share of the black pixels of a that have a black pixel of b
// (moved by dx, dy) within one pixel (their 3×3 neighbourhood).
func near(a, b *image.Gray, dx, dy int) float64 {
	black := func(g *image.Gray, x, y int) bool {
		return x >= 0 && y >= 0 && x < g.Rect.Dx() && y < g.Rect.Dy() && g.Pix[y*g.Stride+x] < 128
	}
	n, ok := 0, 0
	for y := 0; y < a.Rect.Dy(); y++ {
		for x := 0; x < a.Rect.Dx(); x++ {
			if !black(a, x, y) {
				continue
			}
			n++
		search:
			for j := -1; j <= 1; j++ {
				for i := -1; i <= 1; i++ {
					if black(b, x+i-dx, y+j-dy) {
						ok++
						break search
					}
				}
			}
		}
	}
	if n == 0 {
		return 1
	}
	return float64(ok) / float64(n)
}

// shiftedIoU is the IoU of the black pixels of a and of b moved by (dx, dy).
func shiftedIoU(a, b *image.Gray, dx, dy int) float64 {
	inter, na, nb := 0, 0, 0
	black := func(g *image.Gray, x, y int) bool {
		return x >= 0 && y >= 0 && x < g.Rect.Dx() && y < g.Rect.Dy() && g.Pix[y*g.Stride+x] < 128
	}
	for y := 0; y < a.Rect.Dy(); y++ {
		for x := 0; x < a.Rect.Dx(); x++ {
			if black(a, x, y) {
				na++
				if black(b, x-dx, y-dy) {
					inter++
				}
			}
		}
	}
	for _, v := range b.Pix {
		if v < 128 {
			nb++
		}
	}
	if na+nb == 0 {
		return 1
	}
	return float64(inter) / float64(na+nb-inter)
}
