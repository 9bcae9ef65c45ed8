package dedup

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/leakaudit/leakaudit/dataset"
	"github.com/leakaudit/leakaudit/internal/synth"
	"github.com/parquet-go/parquet-go"
)

type benchImage struct {
	Bytes []byte `parquet:"bytes"`
	Path  string `parquet:"path"`
}

type benchRow struct {
	Image benchImage `parquet:"image"`
	Latex string     `parquet:"latex_formula"`
}

// writeBenchRelease writes a Hugging Face-style Parquet release of n rows,
// each with 512 bytes of image data, and a JSON list of 25k test labels of
// which 1% are copies of release labels.
func writeBenchRelease(b *testing.B, dir string, n int) (release, test string) {
	g := synth.New(7)
	r := rand.New(rand.NewPCG(1, 2))
	release = filepath.Join(dir, "release.parquet")
	f, err := os.Create(release)
	if err != nil {
		b.Fatal(err)
	}
	w := parquet.NewGenericWriter[benchRow](f, parquet.Compression(&parquet.Snappy), parquet.MaxRowsPerRowGroup(10_000))
	var tests []string
	rows := make([]benchRow, 0, 4096)
	for i := range n {
		img := make([]byte, 512)
		for j := range img {
			img[j] = byte(r.Uint32())
		}
		l := g.Formula()
		if i%(n/250+1) == 0 && len(tests) < 250 {
			tests = append(tests, l)
		}
		rows = append(rows, benchRow{Image: benchImage{Bytes: img, Path: fmt.Sprintf("%08d.png", i)}, Latex: l})
		if len(rows) == cap(rows) {
			if _, err := w.Write(rows); err != nil {
				b.Fatal(err)
			}
			rows = rows[:0]
		}
	}
	w.Write(rows)
	w.Close()
	f.Close()
	for len(tests) < 25_000 {
		tests = append(tests, g.Formula())
	}
	test = filepath.Join(dir, "test.json")
	if err := synth.WriteJSONStrings(test, len(tests), func(i int) string { return tests[i] }); err != nil {
		b.Fatal(err)
	}
	return release, test
}

// BenchmarkDedupParquet cleans a Parquet release with image bytes against
// 25k test labels at the ws level and reports rows/s and the peak heap
// (sampled every 10 ms), which should not grow with the release.
func BenchmarkDedupParquet(b *testing.B) {
	for _, n := range []int{100_000, 1_000_000} {
		b.Run(fmt.Sprintf("%dk", n/1000), func(b *testing.B) {
			dir := b.TempDir()
			release, test := writeBenchRelease(b, dir, n)
			b.ResetTimer()
			for i := range b.N {
				runtime.GC()
				var peak atomic.Uint64
				stop := make(chan struct{})
				go func() {
					var ms runtime.MemStats
					for {
						select {
						case <-stop:
							return
						case <-time.After(10 * time.Millisecond):
							runtime.ReadMemStats(&ms)
							if ms.HeapInuse > peak.Load() {
								peak.Store(ms.HeapInuse)
							}
						}
					}
				}()
				res, err := Run(context.Background(), Job{
					Releases: []Input{{Name: "release", Source: dataset.Source{Path: release}}},
					Against:  []Input{{Name: "test", Source: dataset.Source{Path: test}}},
					Out:      filepath.Join(dir, fmt.Sprint("out", i)), Levels: ws(nil),
				})
				close(stop)
				if err != nil {
					b.Fatal(err)
				}
				if res.Releases[0].Removed < 250 {
					b.Fatalf("removed %d, planted 250", res.Releases[0].Removed)
				}
				b.ReportMetric(float64(peak.Load())/(1<<20), "peak-heap-MiB")
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}

// BenchmarkDedupNear cleans a release of synthetic training labels against
// 25k test labels with --near 2 (ws level too) and reports labels/s; the
// goal is 10M labels in under 60 s on 2 cores. Every 400th release label is
// a copy of a test label with one token edited.
func BenchmarkDedupNear(b *testing.B) {
	for _, n := range []int{1_000_000, 10_000_000} {
		b.Run(fmt.Sprintf("%dM", n/1_000_000), func(b *testing.B) {
			dir := b.TempDir()
			g := synth.New(11)
			tests := make([]string, 25_000)
			for i := range tests {
				tests[i] = g.Formula()
			}
			test := filepath.Join(dir, "test.json")
			if err := synth.WriteJSONStrings(test, len(tests), func(i int) string { return tests[i] }); err != nil {
				b.Fatal(err)
			}
			release := filepath.Join(dir, "release.json")
			if err := synth.WriteJSONStrings(release, n, func(i int) string {
				if i%400 == 0 {
					return tests[(i/400)%len(tests)] + " + 1"
				}
				return g.Formula()
			}); err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for i := range b.N {
				res, err := Run(context.Background(), Job{
					Releases: []Input{{Name: "release", Source: dataset.Source{Path: release}}},
					Against:  []Input{{Name: "test", Source: dataset.Source{Path: test}}},
					Out:      filepath.Join(dir, fmt.Sprint("out", i)), Levels: ws(nil), Near: 2,
				})
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(res.Releases[0].ByReason[ReasonNear]), "near")
				b.ReportMetric(float64(res.Releases[0].ByReason[ReasonLabel]), "label")
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "labels/s")
		})
	}
}
