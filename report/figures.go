package report

import (
	"bytes"
	"fmt"
	"image/color"
	"sort"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// Bars is a grouped bar chart: one group per label, one bar per series.
type Bars struct {
	Title, YLabel string
	Labels        []string
	Series        []Series
}

// Series is one bar series, with optional error bars.
type Series struct {
	Name   string
	Values []float64
	Lo, Hi []float64   // interval ends (same units), or nil
	Color  color.Color // nil: the palette's next colour
}

// The colours of contaminated and clean items, the same in every figure.
var (
	ColorContaminated = color.RGBA{214, 39, 40, 255}
	ColorClean        = color.RGBA{31, 119, 180, 255}
)

var palette = []color.Color{
	color.RGBA{31, 119, 180, 255}, color.RGBA{255, 127, 14, 255}, color.RGBA{44, 160, 44, 255},
	color.RGBA{214, 39, 40, 255}, color.RGBA{148, 103, 189, 255},
}

// PNG renders the chart as a PNG image of the given size in points.
func (b Bars) PNG(width, height vg.Length) ([]byte, error) {
	p := plot.New()
	p.Title.Text = b.Title
	p.Y.Label.Text = b.YLabel
	p.Legend.Top = true
	n := len(b.Series)
	w := vg.Points(float64(width) / float64(max(1, len(b.Labels))) / float64(n+1))
	for i, s := range b.Series {
		vals := plotter.Values(s.Values)
		bc, err := plotter.NewBarChart(vals, w)
		if err != nil {
			return nil, err
		}
		bc.Color = palette[i%len(palette)]
		if s.Color != nil {
			bc.Color = s.Color
		}
		bc.LineStyle.Width = 0
		bc.Offset = vg.Length(float64(i)-float64(n-1)/2) * w
		p.Add(bc)
		if n > 1 {
			p.Legend.Add(s.Name, bc)
		}
		if s.Lo != nil && n == 1 { // error bars on single-series charts
			pts := make(plotter.XYs, len(s.Values))
			errs := make(plotter.YErrors, len(s.Values))
			for j := range s.Values {
				pts[j].X, pts[j].Y = float64(j), s.Values[j]
				errs[j].Low, errs[j].High = s.Values[j]-s.Lo[j], s.Hi[j]-s.Values[j]
			}
			eb, err := plotter.NewYErrorBars(struct {
				plotter.XYer
				plotter.YErrorer
			}{pts, errs})
			if err != nil {
				return nil, err
			}
			p.Add(eb)
		}
	}
	// Headroom above the tallest bar (or interval) keeps the legend, drawn
	// at the top, clear of the data.
	top := 0.0
	for _, s := range b.Series {
		for j, v := range s.Values {
			top = max(top, v)
			if s.Hi != nil {
				top = max(top, s.Hi[j])
			}
		}
	}
	if n > 1 && top > 0 {
		p.Y.Min, p.Y.Max = 0, top*1.35
	}
	p.NominalX(b.Labels...)
	p.X.Tick.Label.Rotation = 0.5
	p.X.Tick.Label.XAlign = draw.XRight
	return encodePNG(p, width, height)
}

// CDF renders the cumulative distribution of values in [0, 1]: the share
// of items at or below each value, so that a distribution piled up at 1
// (CDM F1) still shows its lower tail.
func CDF(title, xlabel string, values []float64, width, height vg.Length) ([]byte, error) {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = xlabel
	p.Y.Label.Text = "share of items ≤ x (%)"
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, 1, 0, 100
	sorted := append([]float64(nil), values...)
	sort.Float64s(sorted)
	var pts plotter.XYs
	for i, v := range sorted {
		if i+1 < len(sorted) && sorted[i+1] == v {
			continue
		}
		pts = append(pts, plotter.XY{X: v, Y: 100 * float64(i+1) / float64(len(sorted))})
	}
	if len(pts) == 0 {
		pts = plotter.XYs{{X: 0, Y: 0}}
	}
	l, err := plotter.NewLine(pts)
	if err != nil {
		return nil, err
	}
	l.Color = palette[0]
	l.StepStyle = plotter.PostStep
	p.Add(l, plotter.NewGrid())
	return encodePNG(p, width, height)
}

// Histogram renders values in [0, 1] as a histogram PNG.
func Histogram(title string, values []float64, bins int, width, height vg.Length) ([]byte, error) {
	p := plot.New()
	p.Title.Text = title
	p.Y.Label.Text = "items"
	if len(values) == 0 {
		values = []float64{0}
	}
	h, err := plotter.NewHist(plotter.Values(values), bins)
	if err != nil {
		return nil, err
	}
	h.FillColor = palette[0]
	p.Add(h)
	return encodePNG(p, width, height)
}

// encodePNG draws a plot on a canvas of the given size and encodes it.
func encodePNG(p *plot.Plot, width, height vg.Length) ([]byte, error) {
	c := vgimg.New(width, height)
	p.Draw(draw.New(c))
	var buf bytes.Buffer
	if _, err := (vgimg.PngCanvas{Canvas: c}).WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("figure %q: %w", p.Title.Text, err)
	}
	return buf.Bytes(), nil
}
