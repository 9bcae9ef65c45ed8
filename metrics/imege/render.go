package imege

import (
	"fmt"

	"github.com/leakaudit/leakaudit/tex"
)

// DPI is the resolution IMEGE's released script renders formulas at.
const DPI = 600

// Render typesets a math-mode formula with leakaudit's TeX engine (display
// style, as the IMEGE README advises with \displaystyle) and rasterizes it
// at dpi, cropped to its ink as the original's renderer crops, with pad
// white pixels around. The engine sets formulas at 12 pt; the released
// script's l2p sets them at article's default 10 pt (docs/metrics.md
// §8.5), whose script fonts the engine does not have.
func Render(formula string, dpi float64, pad int) (*Image, error) {
	l, err := tex.Typeset(formula)
	if err != nil {
		return nil, err
	}
	g, err := l.Render(tex.RenderOptions{DPI: dpi, Pad: pad})
	if err != nil {
		return nil, err
	}
	if g.Bounds().Dx()*g.Bounds().Dy() > DefaultLimits.MaxPixels {
		return nil, fmt.Errorf("%w: %d×%d rendered", ErrTooLarge, g.Bounds().Dx(), g.Bounds().Dy())
	}
	return FromImage(g), nil
}
