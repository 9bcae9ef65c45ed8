package report

import (
	"image/color"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Forest is a forest plot: one row per estimate, a point with its
// interval, and a vertical line at 0. Rows are drawn top to bottom in
// order; Red marks rows drawn in red (a flip).
type Forest struct {
	Title, XLabel string
	Labels        []string
	Values        []float64
	Lo, Hi        []float64
	Red           []bool
}

// PNG renders the plot as a PNG image of the given size in points.
func (f Forest) PNG(width, height vg.Length) ([]byte, error) {
	p := plot.New()
	p.Title.Text = f.Title
	p.X.Label.Text = f.XLabel
	n := len(f.Values)
	lo, hi := 0.0, 0.0
	for i := range n {
		lo, hi = min(lo, f.Lo[i]), max(hi, f.Hi[i])
	}
	for i := range n {
		y := float64(n - 1 - i)
		pts := plotter.XYs{{X: f.Values[i], Y: y}}
		errs := plotter.XErrors{{Low: f.Values[i] - f.Lo[i], High: f.Hi[i] - f.Values[i]}}
		eb, err := plotter.NewXErrorBars(struct {
			plotter.XYer
			plotter.XErrorer
		}{pts, errs})
		if err != nil {
			return nil, err
		}
		s, err := plotter.NewScatter(pts)
		if err != nil {
			return nil, err
		}
		col := color.Color(palette[0])
		if i < len(f.Red) && f.Red[i] {
			col = ColorContaminated
		}
		eb.LineStyle.Color, s.GlyphStyle.Color = col, col
		s.GlyphStyle.Shape = draw.CircleGlyph{}
		p.Add(eb, s)
	}
	zero, err := plotter.NewLine(plotter.XYs{{X: 0, Y: -0.5}, {X: 0, Y: float64(n) - 0.5}})
	if err != nil {
		return nil, err
	}
	zero.LineStyle.Dashes = []vg.Length{vg.Points(3), vg.Points(3)}
	p.Add(zero)
	pad := (hi - lo) * 0.05
	p.X.Min, p.X.Max = lo-pad, hi+pad
	p.Y.Min, p.Y.Max = -0.5, float64(n)-0.5
	labels := make([]string, n)
	for i := range n {
		labels[n-1-i] = f.Labels[i]
	}
	p.NominalY(labels...)
	p.Add(plotter.NewGrid())
	return encodePNG(p, width, height)
}
