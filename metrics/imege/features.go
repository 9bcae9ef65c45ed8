package imege

import "math"

// The derivative features of an image: for every pixel, the slope of the
// ink profile across a (1+2·size)-pixel cell centred on it, horizontally
// and vertically, each the arctangent of a Gaussian-weighted least-squares
// line fit, quantised to 0…255 with a flat neighbourhood at 127.
//
// Every quantity is computed in the precision the original computes it in
// (single precision, with the double-precision steps C's promotions
// introduce), so that the quantised values are the original's bit for bit.
// The explicit float32 conversions also stop Go from fusing a multiply and
// an add, which would round differently.

// samplesPerPixel is how finely a cell is sampled along each axis.
const samplesPerPixel = 5

// features holds the two quantised derivative planes of an image, row-major.
type features struct {
	w, h   int
	dh, dv []int32
}

// cellAxis describes the sampling of one axis: the sample offsets from the
// pixel's centre and their Gaussian weights, with the weight sums that do
// not depend on the image.
type cellAxis struct {
	pos         float32 // half a cell step: the centre of cell k is pos·(1+2k)
	coord, filt []float32
	sumA, sumW  float32 // Σ w·x and Σ w
	sumAX       float32 // Σ (w·x)·x
	a           []float32
}

func newCellAxis(pixels, cells, size int) cellAxis {
	step := float32(pixels) / float32(cells)
	span := step * float32(1+2*float32(size))
	n := int(math.Ceil(float64(span * samplesPerPixel)))
	ax := cellAxis{pos: float32(0.5 * float64(step)), coord: make([]float32, n), filt: make([]float32, n), a: make([]float32, n)}
	sigma := span / 4
	for k := range n {
		c := float32(float64(span) * (float64(float32(k)/float32(n)) + 0.5/float64(n) - 0.5))
		t := float64(c / sigma)
		ax.coord[k] = c
		ax.filt[k] = float32(math.Exp(-0.5 * (t * t)))
	}
	for k := range n {
		a := float32(ax.filt[k] * ax.coord[k])
		ax.a[k] = a
		ax.sumA += a
		ax.sumW += ax.filt[k]
		ax.sumAX += float32(a * ax.coord[k])
	}
	return ax
}

// index returns, for cell c, the pixel each sample falls on, or −1 outside
// the image.
func (ax *cellAxis) index(c, pixels int, out []int32) {
	centre := float32(ax.pos * float32(1+2*c))
	for k, off := range ax.coord {
		p := off + centre
		if p < 0 || p >= float32(pixels) {
			out[k] = -1
		} else {
			out[k] = int32(p)
		}
	}
}

// slope is the quantised arctangent of the weighted least-squares slope of
// the profile prof (sums of inverted samples, each over `across` samples).
func (ax *cellAxis) slope(prof []int32, across, maxval int) int32 {
	den := float32(across * maxval)
	var sumB, sumBX float32
	for k, s := range prof {
		y := float32(s) / den
		b := float32(ax.filt[k] * y)
		sumB += b
		sumBX += float32(b * ax.coord[k])
	}
	num := float32(sumB*ax.sumA) - float32(ax.sumW*sumBX)
	div := float32(ax.sumA*ax.sumA) - float32(ax.sumW*ax.sumAX)
	v := float32(math.Atan(float64(num / div)))
	switch {
	case float64(v) < -0.1:
		return 255
	case float64(v) > 0.1:
		return 0
	}
	return int32(255 * ((0.1 - float64(v)) / 0.2))
}

// cellsAcross is how many cells the original fits across the width: the
// width rounded from the aspect ratio times the height, in single precision.
// It equals the width for every image within the package's limits (checked
// by a test), so cells are pixels.
func cellsAcross(w, h int) int {
	asp := float32(w) / float32(h)
	return int(float64(float32(asp*float32(h))) + 0.5)
}

// derive computes the derivative features of a gray image (0 = black,
// maxval = white) with a cell of 1+2·size pixels.
func derive(g *Image, size int) *features {
	W, H := g.W, g.H
	cx := newCellAxis(W, cellsAcross(W, H), size)
	cy := newCellAxis(H, H, size)
	nx, ny := len(cx.coord), len(cy.coord)

	// Sample positions of every column and row.
	colIdx := make([]int32, W*nx)
	for j := range W {
		cx.index(j, W, colIdx[j*nx:(j+1)*nx])
	}
	rowIdx := make([]int32, H*ny)
	for i := range H {
		cy.index(i, H, rowIdx[i*ny:(i+1)*ny])
	}
	maxval := int32(g.Max)
	inv := make([]int32, W*H)
	for p, v := range g.Pix {
		inv[p] = maxval - int32(v)
	}
	// across[j][r]: the inverted samples of row r at column j's sample
	// columns, summed (the vertical derivative's profile entries).
	across := make([]int32, W*H)
	for r := range H {
		row := inv[r*W : (r+1)*W]
		for j := range W {
			var s int32
			for _, c := range colIdx[j*nx : (j+1)*nx] {
				if c >= 0 {
					s += row[c]
				}
			}
			across[j*H+r] = s
		}
	}
	f := &features{w: W, h: H, dh: make([]int32, W*H), dv: make([]int32, W*H)}
	down := make([]int32, W) // down[c]: the samples of column c at row i's sample rows, summed
	profH := make([]int32, nx)
	profV := make([]int32, ny)
	for i := range H {
		clear(down)
		for _, r := range rowIdx[i*ny : (i+1)*ny] {
			if r < 0 {
				continue
			}
			for c, v := range inv[int(r)*W : int(r+1)*W] {
				down[c] += v
			}
		}
		for j := range W {
			for k, c := range colIdx[j*nx : (j+1)*nx] {
				profH[k] = 0
				if c >= 0 {
					profH[k] = down[c]
				}
			}
			col := across[j*H : (j+1)*H]
			for k, r := range rowIdx[i*ny : (i+1)*ny] {
				profV[k] = 0
				if r >= 0 {
					profV[k] = col[r]
				}
			}
			f.dh[i*W+j] = cx.slope(profH, ny, int(maxval))
			f.dv[i*W+j] = cy.slope(profV, nx, int(maxval))
		}
	}
	return f
}
