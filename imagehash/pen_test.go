package imagehash

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// randomCells returns an S×S grid with each cell ink with probability
// density, as cells and as a plain [y][x] grid.
func randomCells(rng *rand.Rand, S int, density float64) (*cells, [][]bool) {
	c := new(cells)
	c.reset(S)
	plain := make([][]bool, S)
	for y := range plain {
		plain[y] = make([]bool, S)
		for x := range plain[y] {
			if rng.Float64() < density {
				plain[y][x] = true
				c.set(x, y)
			}
		}
	}
	return c, plain
}

// reach applies the definition of dilate (any) or erode (all) to a plain
// grid: along rows by ex, then along columns by ey; cells outside the
// grid are ground for dilate and ink for erode.
func reach(g [][]bool, ex, ey int, erode bool) [][]bool {
	S := len(g)
	pass := func(at func(y, x int) bool, e int, horizontal bool) [][]bool {
		out := make([][]bool, S)
		for y := range out {
			out[y] = make([]bool, S)
			for x := range out[y] {
				v := erode
				for d := -e; d <= e; d++ {
					yy, xx := y, x+d
					if !horizontal {
						yy, xx = y+d, x
					}
					in := yy >= 0 && yy < S && xx >= 0 && xx < S
					ink := erode // outside the grid
					if in {
						ink = at(yy, xx)
					}
					if erode {
						v = v && ink
					} else {
						v = v || ink
					}
				}
				out[y][x] = v
			}
		}
		return out
	}
	h := pass(func(y, x int) bool { return g[y][x] }, ex, true)
	return pass(func(y, x int) bool { return h[y][x] }, ey, false)
}

func TestCellsMorphology(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, S := range []int{1, 6, 63, 64, 70, 128, 130} {
		for trial := 0; trial < 12; trial++ {
			density := []float64{0.02, 0.2, 0.6, 0.95}[trial%4]
			ex, ey := rng.IntN(8), rng.IntN(8)
			for _, erode := range []bool{false, true} {
				c, plain := randomCells(rng, S, density)
				if erode {
					c.erode(ex, ey)
				} else {
					c.dilate(ex, ey)
				}
				want := reach(plain, ex, ey, erode)
				name := fmt.Sprintf("S %d, density %.2f, reach %d×%d, erode %v", S, density, ex, ey, erode)
				for y := 0; y < S; y++ {
					for x := 0; x < S; x++ {
						got := c.w[y*c.W+x/64]>>(x%64)&1 == 1
						if got != want[y][x] {
							t.Fatalf("%s: cell (%d, %d) is %v, want %v", name, x, y, got, want[y][x])
						}
					}
				}
				for y := 0; y < S; y++ {
					if r := S % 64; r != 0 && c.w[y*c.W+c.W-1]>>r != 0 {
						t.Fatalf("%s: row %d has bits beyond the grid", name, y)
					}
				}
				if S%2 == 0 {
					for y := 0; y < S/2; y++ {
						for x := 0; x < S/2; x++ {
							n := 0
							for _, d := range [][2]int{{0, 0}, {1, 0}, {0, 1}, {1, 1}} {
								if want[2*y+d[1]][2*x+d[0]] {
									n++
								}
							}
							if got := c.ink2x2(x, y); got != n {
								t.Fatalf("%s: ink2x2(%d, %d) = %d, want %d", name, x, y, got, n)
							}
						}
					}
				}
			}
		}
	}
}

// randomGray returns a w×h image of ground (200–255) with ink pixels
// (0–100) at the given density, some of them alone.
func randomGray(rng *rand.Rand, w, h int, density float64) Gray {
	g := Gray{W: w, H: h, Pix: make([]uint8, w*h)}
	for i := range g.Pix {
		if rng.Float64() < density {
			g.Pix[i] = uint8(rng.IntN(101))
		} else {
			g.Pix[i] = uint8(200 + rng.IntN(56))
		}
	}
	return g
}

func TestInkBoxAndRuns(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const th = 128
	for trial := 0; trial < 300; trial++ {
		w, h := 1+rng.IntN(200), 1+rng.IntN(12)
		density := []float64{0, 0.005, 0.05, 0.5, 1}[trial%5]
		g := randomGray(rng, w, h, density)
		isInk := func(x, y int) bool {
			return x >= 0 && x < w && y >= 0 && y < h && g.Pix[y*w+x] <= th
		}
		x0, y0, x1, y1, isolated, area, rows, cols := w, h, -1, -1, 0, 0, 0, 0
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				if !isInk(x, y) {
					continue
				}
				x0, y0, x1, y1 = min(x0, x), min(y0, y), max(x1, x), max(y1, y)
				alone := true
				for dy := -1; dy <= 1; dy++ {
					for dx := -1; dx <= 1; dx++ {
						if (dx != 0 || dy != 0) && isInk(x+dx, y+dy) {
							alone = false
						}
					}
				}
				if alone {
					isolated++
				}
				area++
				if !isInk(x-1, y) {
					rows++
				}
				if !isInk(x, y-1) {
					cols++
				}
			}
		}
		name := fmt.Sprintf("%d×%d, density %.3f", w, h, density)
		gx0, gy0, gx1, gy1, giso := inkBox(g, th, 0)
		if [5]int{gx0, gy0, gx1, gy1, giso} != [5]int{x0, y0, x1, y1, isolated} {
			t.Errorf("%s: inkBox = %d,%d,%d,%d isolated %d; want %d,%d,%d,%d isolated %d",
				name, gx0, gy0, gx1, gy1, giso, x0, y0, x1, y1, isolated)
		}
		if ga, gr, gc := inkRuns(g, th); [3]int{ga, gr, gc} != [3]int{area, rows, cols} {
			t.Errorf("%s: inkRuns = %d, %d, %d; want %d, %d, %d", name, ga, gr, gc, area, rows, cols)
		}
	}
}
