package imege

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/color"
	"io"
	"os"

	_ "golang.org/x/image/bmp" // BMP decoder
	_ "image/png"              // PNG decoder
)

// Image is a gray image as BIDM reads it: Pix holds W×H samples row by
// row, 0 black and Max white. Ink is any sample below 255 (the original
// counts foreground that way whatever the maxval, and IMEGE's pipeline
// always gives 255).
type Image struct {
	W, H int
	Max  int // maxval, 1…255
	Pix  []uint8
}

// Limits bound the images Compare accepts. BIDM's cost grows with the
// pixels of both images times the warp window; these keep one call within
// minutes and every count exact in single precision.
type Limits struct {
	MaxSide   int // either dimension (default 8,192)
	MaxPixels int // width × height (default 4,000,000)
}

// DefaultLimits apply where a Limits field is zero.
var DefaultLimits = Limits{MaxSide: 8192, MaxPixels: 4_000_000}

func (l Limits) or() Limits {
	if l.MaxSide <= 0 {
		l.MaxSide = DefaultLimits.MaxSide
	}
	if l.MaxPixels <= 0 {
		l.MaxPixels = DefaultLimits.MaxPixels
	}
	return l
}

// ErrTooLarge reports an image beyond the limits.
var ErrTooLarge = errors.New("imege: image too large")

// check validates an image's shape against l.
func (g *Image) check(l Limits) error {
	if g == nil {
		return errors.New("imege: no image")
	}
	if err := g.checkShape(l.or()); err != nil {
		return err
	}
	switch {
	case g.Max < 1 || g.Max > 255:
		return fmt.Errorf("imege: maxval %d outside 1…255", g.Max)
	case len(g.Pix) != g.W*g.H:
		return fmt.Errorf("imege: %d samples for %d×%d", len(g.Pix), g.W, g.H)
	case cellsAcross(g.W, g.H) != g.W:
		// Never seen within the limits; the original would read past its
		// feature rows.
		return fmt.Errorf("imege: %d×%d: the original's cell count differs from the width", g.W, g.H)
	}
	return nil
}

// FromImage converts any image to 8-bit gray (maxval 255): transparent
// pixels are composited on white, colour is reduced with Go's luma
// (ITU-R 601) weights.
func FromImage(m image.Image) *Image {
	b := m.Bounds()
	g := &Image{W: b.Dx(), H: b.Dy(), Max: 255, Pix: make([]uint8, b.Dx()*b.Dy())}
	if gm, ok := m.(*image.Gray); ok {
		for y := range g.H {
			copy(g.Pix[y*g.W:(y+1)*g.W], gm.Pix[(y+b.Min.Y-gm.Rect.Min.Y)*gm.Stride+(b.Min.X-gm.Rect.Min.X):])
		}
		return g
	}
	for y := range g.H {
		for x := range g.W {
			r, gg, bb, a := m.At(b.Min.X+x, b.Min.Y+y).RGBA()
			// Over white: c + (1 − a)·white, premultiplied.
			w := 0xffff - a
			c := color.RGBA64{uint16(r + w), uint16(gg + w), uint16(bb + w), 0xffff}
			g.Pix[y*g.W+x] = color.GrayModel.Convert(c).(color.Gray).Y
		}
	}
	return g
}

// ReadFile reads a PGM (P2 or P5, maxval ≤ 255), PNG or BMP file, refusing
// images beyond l before allocating their pixels.
func ReadFile(path string, l Limits) (*Image, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	g, err := Decode(data, l)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return g, nil
}

// Decode decodes a PGM, PNG or BMP image held in memory.
func Decode(data []byte, l Limits) (*Image, error) {
	l = l.or()
	if len(data) >= 2 && data[0] == 'P' && (data[1] == '2' || data[1] == '5') {
		return decodePGM(data, l)
	}
	cfg, _, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("imege: not a PGM, PNG or BMP image: %v", err)
	}
	if err := (&Image{W: cfg.Width, H: cfg.Height}).checkShape(l); err != nil {
		return nil, err
	}
	m, _, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("imege: %v", err)
	}
	return FromImage(m), nil
}

func (g *Image) checkShape(l Limits) error {
	if g.W <= 0 || g.H <= 0 {
		return errors.New("imege: empty image (no pixels)")
	}
	if g.W > l.MaxSide || g.H > l.MaxSide || g.W*g.H > l.MaxPixels {
		return fmt.Errorf("%w: %d×%d (limits %d px a side, %d px)", ErrTooLarge, g.W, g.H, l.MaxSide, l.MaxPixels)
	}
	return nil
}

// decodePGM reads the header as netpbm does (whitespace-separated decimal
// fields; '#' comments are also skipped, which the original does not
// allow), then the samples: one byte each after a single whitespace for
// P5, decimal for P2.
func decodePGM(data []byte, l Limits) (*Image, error) {
	r := bufio.NewReader(bytes.NewReader(data[2:]))
	plain := data[1] == '2'
	var hdr [3]int
	for k := range hdr {
		v, err := pgmUint(r, true)
		if err != nil {
			return nil, fmt.Errorf("imege: PGM header: %v", err)
		}
		hdr[k] = v
	}
	g := &Image{W: hdr[0], H: hdr[1], Max: hdr[2]}
	if err := g.checkShape(l); err != nil {
		return nil, err
	}
	if g.Max < 1 || g.Max > 255 {
		return nil, fmt.Errorf("imege: PGM maxval %d (only 1…255 is read)", g.Max)
	}
	g.Pix = make([]uint8, g.W*g.H)
	if !plain {
		// pgmUint consumed the single whitespace after maxval.
		if _, err := io.ReadFull(r, g.Pix); err != nil {
			return nil, fmt.Errorf("imege: PGM raster: %v", err)
		}
	} else {
		for p := range g.Pix {
			v, err := pgmUint(r, false)
			if err != nil {
				return nil, fmt.Errorf("imege: PGM sample %d: %v", p, err)
			}
			if v > g.Max {
				return nil, fmt.Errorf("imege: PGM sample %d is %d, above maxval %d", p, v, g.Max)
			}
			g.Pix[p] = uint8(v)
		}
	}
	for _, v := range g.Pix {
		if int(v) > g.Max {
			return nil, fmt.Errorf("imege: PGM sample %d above maxval %d", v, g.Max)
		}
	}
	return g, nil
}

// pgmUint reads a decimal field after whitespace (and, in the header,
// comments), consuming the one character that ends it.
func pgmUint(r *bufio.Reader, header bool) (int, error) {
	c, err := r.ReadByte()
	for err == nil {
		if c == '#' && header {
			for err == nil && c != '\n' && c != '\r' {
				c, err = r.ReadByte()
			}
			continue
		}
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' && c != '\v' && c != '\f' {
			break
		}
		c, err = r.ReadByte()
	}
	if err != nil {
		return 0, io.ErrUnexpectedEOF
	}
	if c < '0' || c > '9' {
		return 0, fmt.Errorf("junk %q where a number should be", c)
	}
	v := 0
	for ; err == nil && c >= '0' && c <= '9'; c, err = r.ReadByte() {
		v = v*10 + int(c-'0')
		if v > 1<<30 {
			return 0, errors.New("number too large")
		}
	}
	return v, nil
}
