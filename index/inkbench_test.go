package index_test

import (
	"flag"
	"fmt"
	"image"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/leakaudit/leakaudit/dataset"
	"github.com/leakaudit/leakaudit/imagehash"
	"github.com/leakaudit/leakaudit/index"
	"github.com/leakaudit/leakaudit/internal/inkraster"
)

var inkBenchN = flag.Int("inkbench.n", 1_000_000, "training images of BenchmarkInkIndex")

// synthInk returns random handwriting-like strokes for image i: a few
// random-walk strokes laid out left to right, as a formula's symbols are.
func synthInk(i int) []dataset.Stroke {
	r := rand.New(rand.NewPCG(uint64(i), 0x1a4c))
	symbols := 2 + r.IntN(10)
	var out []dataset.Stroke
	for s := 0; s < symbols; s++ {
		x0 := float64(s)*100 + r.Float64()*20
		y0 := r.Float64()*40 - 20
		for k := 0; k < 1+r.IntN(3); k++ {
			x, y := x0+r.Float64()*60, y0+r.Float64()*80
			dir := r.Float64() * 2 * math.Pi
			var st dataset.Stroke
			for p := 0; p < 5+r.IntN(25); p++ {
				st = append(st, [2]float64{x, y})
				dir += r.NormFloat64() * 0.5
				x += 6 * math.Cos(dir)
				y += 6 * math.Sin(dir)
			}
			out = append(out, st)
		}
	}
	return out
}

// cpuTime is the process's user and system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// queryRender draws image i again by another pipeline: the first of the
// seeded random rasterizers after i's that has room for the ink (a narrow
// canvas under a wide margin has none, and Render says so).
func queryRender(i int) (*image.Gray, error) {
	var err error
	for k := uint64(0); k < 16; k++ {
		r := inkraster.Random(uint64(i) + 1<<40 + k<<32)
		r.Scale = math.Max(r.Scale, 1)
		var g *image.Gray
		if g, err = r.Render(synthInk(i)); err == nil {
			return g, nil
		}
	}
	return nil, fmt.Errorf("image %d: no rasterizer of 16 had room: %w", i, err)
}

// BenchmarkInkIndex hashes -inkbench.n synthetic handwriting images (random
// strokes rasterized by random pipelines, 48 to 160 px high) as a training
// set, keeping only their fingerprints, builds the Hamming index over them,
// and, as neardup does when it reads an index, the indexes of the edge
// keys and of the cut variants computed from the stored ink, and queries
// them with 2,000 of the images rasterized again by another pipeline
// (with probes, radius 8, the edge keys and the cut variants, verified as
// neardup verifies, by the ink; not the small-ink keys, whose indexes
// neardup builds only when a query needs them). It
// reports the hashing rate, the CPU time per image, the query time, the
// recall of the re-rasterized copies, and the peak heap per training
// image, which must stay flat in the number of images apart from the
// index (about 620 bytes per image: the hashes, the 512-byte normalized
// ink and the multi-index tables).
func BenchmarkInkIndex(b *testing.B) {
	n := *inkBenchN
	o := imagehash.Options{Kind: imagehash.PHash, Canvas: imagehash.Stretch}
	train := func(i int) inkraster.Rasterizer {
		r := inkraster.Random(uint64(i))
		r.Height, r.Width, r.Scale, r.JPEG = 48+i%113, 0, 1, 0
		r.Stroke = math.Min(r.Stroke, float64(r.Height)/24)
		r.Margin = min(r.Margin, r.Height/8)
		return r
	}
	for it := 0; it < b.N; it++ {
		var peak atomic.Uint64
		stop := make(chan struct{})
		var wg sync.WaitGroup
		wg.Add(1)
		go func() { // sample the heap
			defer wg.Done()
			var ms runtime.MemStats
			for {
				runtime.ReadMemStats(&ms)
				if ms.HeapAlloc > peak.Load() {
					peak.Store(ms.HeapAlloc)
				}
				select {
				case <-stop:
					return
				case <-time.After(50 * time.Millisecond):
				}
			}
		}()
		hashes := make([]uint64, n)
		fines := make([][4]uint64, n)
		inks := make([]imagehash.Ink, n) // the normalized ink Verify compares: 512 bytes an image
		start, cpu0 := time.Now(), cpuTime()
		var next atomic.Int64
		var hw sync.WaitGroup
		for w := 0; w < runtime.GOMAXPROCS(0); w++ {
			hw.Add(1)
			go func() {
				defer hw.Done()
				for {
					i := int(next.Add(1) - 1)
					if i >= n {
						return
					}
					g, err := train(i).Render(synthInk(i))
					if err != nil {
						b.Error(err)
						return
					}
					fp, err := imagehash.Compute(g, o)
					if err != nil {
						b.Error(err)
						return
					}
					hashes[i], fines[i], inks[i] = fp.Hash, fp.Fine, fp.Ink
				}
			}()
		}
		hw.Wait()
		hashWall, hashCPU := time.Since(start), cpuTime()-cpu0
		start = time.Now()
		ix := index.NewHamming(hashes)
		edgeKeys := make([]uint64, n)
		var cutKeys []uint64
		var cutPos []int32
		var cutSide []uint8
		for i := range inks {
			edgeKeys[i] = inks[i].EdgeKey()
			for side, k := range inks[i].CutVariantKeys() {
				if k != 0 {
					cutKeys = append(cutKeys, k)
					cutPos = append(cutPos, int32(i))
					cutSide = append(cutSide, uint8(side))
				}
			}
		}
		edge, cut := index.NewHamming(edgeKeys), index.NewHamming(cutKeys)
		build := time.Since(start)
		const queries = 2000
		found, wrong := 0, 0
		start = time.Now()
		for q := 0; q < queries; q++ {
			i := q * (n / queries)
			g, err := queryRender(i)
			if err != nil {
				b.Fatal(err)
			}
			qo := o
			qo.Probe = true
			fp, err := imagehash.Compute(g, qo)
			if err != nil {
				b.Fatal(err)
			}
			seen := map[int]bool{}
			kept := map[int]bool{}
			count := func(pos int) {
				kept[pos] = true
				if pos == i {
					found++
				} else {
					wrong++
				}
			}
			ix.SearchAny(fp.SearchHashes(), 8, func(pos, d int) {
				seen[pos] = true
				if _, ok := imagehash.Verify(fp, imagehash.Hashes{Fine: fines[pos], Ink: inks[pos]}); ok {
					count(pos)
				}
			})
			edge.SearchAny(fp.EdgeKeys(), imagehash.EdgeRadius, func(pos, _ int) {
				if seen[pos] {
					return
				}
				if _, ok := imagehash.VerifyEdge(fp, imagehash.Hashes{Fine: fines[pos], Ink: inks[pos]}); ok {
					seen[pos] = true
					count(pos)
				}
			})
			cut.SearchAny(fp.CutKeys(), imagehash.CutRadius, func(k, _ int) {
				pos := int(cutPos[k])
				if kept[pos] {
					return
				}
				if _, ok := imagehash.VerifyCut(fp, imagehash.Hashes{Ink: inks[pos]}, int(cutSide[k])); ok {
					count(pos)
				}
			})
		}
		queryWall := time.Since(start)
		close(stop)
		wg.Wait()
		runtime.KeepAlive(ix)
		runtime.KeepAlive(edge)
		runtime.KeepAlive(cut)
		b.ReportMetric(float64(n)/hashWall.Seconds(), "images/s")
		b.ReportMetric(float64(hashCPU.Microseconds())/float64(n), "cpu-µs/image")
		b.ReportMetric(build.Seconds(), "index-build-s")
		b.ReportMetric(float64(queryWall.Microseconds())/queries, "µs/query")
		b.ReportMetric(float64(found)/queries, "recall")
		b.ReportMetric(float64(wrong), "wrong-pairs")
		b.ReportMetric(float64(peak.Load())/float64(n), "peak-heap-B/image")
	}
}
