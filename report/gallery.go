package report

import (
	"fmt"
	"html/template"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"os"
	"path/filepath"

	xdraw "golang.org/x/image/draw"

	"github.com/leakaudit/leakaudit/neardup"
)

// GalleryPair is one side-by-side image pair with its caption.
type GalleryPair struct {
	Test, Train image.Image
	// Card, when set, is drawn in place of Test and Train side by side
	// (PairCard).
	Card    image.Image
	Caption []string // lines under the pair
	Flag    string   // a short warning such as "different formulas", or ""
}

// SideBySide draws test | train at a common height (uniform scaling only,
// no alignment, as in the audit paper's Figure 2) on a white ground.
func SideBySide(a, b image.Image, height int) *image.RGBA {
	scale := func(m image.Image) image.Image {
		r := m.Bounds()
		w := max(1, r.Dx()*height/max(1, r.Dy()))
		dst := image.NewRGBA(image.Rect(0, 0, w, height))
		xdraw.CatmullRom.Scale(dst, dst.Bounds(), m, r, draw.Src, nil)
		return dst
	}
	sa, sb := scale(a), scale(b)
	const gap = 16
	out := image.NewRGBA(image.Rect(0, 0, sa.Bounds().Dx()+gap+sb.Bounds().Dx(), height))
	draw.Draw(out, out.Bounds(), image.NewUniform(color.RGBA{255, 255, 255, 255}), image.Point{}, draw.Src)
	draw.Draw(out, sa.Bounds(), sa, image.Point{}, draw.Src)
	draw.Draw(out, sb.Bounds().Add(image.Pt(sa.Bounds().Dx()+gap, 0)), sb, image.Point{}, draw.Src)
	// A thin divider in the gap.
	for y := 0; y < height; y++ {
		out.Set(sa.Bounds().Dx()+gap/2, y, color.RGBA{200, 0, 0, 255})
	}
	return out
}

var galleryPage = template.Must(template.New("g").Parse(`<!doctype html>
<html><head><meta charset="utf-8"><title>{{.Title}}</title>
<style>body{font:14px sans-serif;margin:2em}figure{margin:0 0 2em}img{border:1px solid #ccc;max-width:100%}
figcaption{font-family:monospace;white-space:pre-wrap}.flag{color:#b00;font-weight:bold}</style></head>
<body><h1>{{.Title}}</h1><p>{{.Note}}</p>
{{range .Items}}<figure><img src="{{.File}}" alt="pair {{.N}}"><figcaption>{{if .Flag}}<span class="flag">{{.Flag}}</span>
{{end}}{{range .Caption}}{{.}}
{{end}}</figcaption></figure>
{{end}}</body></html>
`))

// WriteGallery writes pair-NNNN.png files and index.html into dir.
func WriteGallery(dir, title, note string, pairs []GalleryPair) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	type item struct {
		N       int
		File    string
		Caption []string
		Flag    string
	}
	var items []item
	for i, p := range pairs {
		name := fmt.Sprintf("pair-%04d.png", i+1)
		img := p.Card
		if img == nil {
			img = SideBySide(p.Test, p.Train, 96)
		}
		if err := WritePNG(filepath.Join(dir, name), img); err != nil {
			return err
		}
		items = append(items, item{i + 1, name, p.Caption, p.Flag})
	}
	f, err := os.Create(filepath.Join(dir, "index.html"))
	if err != nil {
		return err
	}
	err = galleryPage.Execute(f, map[string]any{"Title": title, "Note": note, "Items": items})
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// WritePNG writes an image to a PNG file.
func WritePNG(path string, img image.Image) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	err = png.Encode(f, img)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// WriteNearDupGallery writes a near-duplicate report's evidence pairs as a
// gallery (pair-NNNN.png and index.html) into dir, and returns how many
// pairs it drew.
func WriteNearDupGallery(dir string, rep neardup.Report) (int, error) {
	var pairs []GalleryPair
	for _, e := range rep.Evidence {
		p := e.Pair
		g := GalleryPair{Card: nearDupCard(e, rep.Canvas), Caption: []string{
			fmt.Sprintf("test  %s/%s: %s", p.TestSplit, p.TestID, p.TestLabel),
			fmt.Sprintf("train %s/%s: %s", p.TrainSplit, p.TrainID, p.TrainLabel),
			fmt.Sprintf("distance %d, fine %d: %s", p.Distance, p.FineDistance, CopyReason(p)),
			LabelReason(p.LabelCheck),
		}}
		if p.LabelMismatch {
			g.Flag = "different formulas"
		}
		pairs = append(pairs, g)
	}
	note := fmt.Sprintf("%d of %d pairs shown (copies whose labels are different formulas first, then other pairs whose labels differ, then the rest); test on the left, training on the right. %s", len(pairs), len(rep.Pairs), CardLegend)
	return len(pairs), WriteGallery(dir, "leakaudit near-duplicates", note, pairs)
}
