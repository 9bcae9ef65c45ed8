package index_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/leakaudit/leakaudit/dataset"
	"github.com/leakaudit/leakaudit/imagehash"
	"github.com/leakaudit/leakaudit/index"
	"github.com/leakaudit/leakaudit/internal/shareddata"
)

// pHash-like random hashes: 32 bits set, as a median threshold gives.
func balancedHash(r *rand.Rand) uint64 {
	var h uint64
	for _, i := range r.Perm(64)[:32] {
		h |= 1 << i
	}
	return h
}

// BenchmarkHammingSearch runs 25k radius-8 queries against 1M and 10M
// stored hashes, a tenth of the queries having a planted neighbour.
func BenchmarkHammingSearch(b *testing.B) {
	for _, n := range []int{1_000_000, 10_000_000} {
		b.Run(fmt.Sprintf("%dM", n/1_000_000), func(b *testing.B) {
			r := rand.New(rand.NewPCG(7, 7))
			hashes := make([]uint64, n)
			for i := range hashes {
				hashes[i] = balancedHash(r)
			}
			queries := make([]uint64, 25000)
			for i := range queries {
				if i%10 == 0 {
					q := hashes[r.IntN(n)]
					for k := 0; k < 3; k++ {
						q ^= 1 << r.IntN(64)
					}
					queries[i] = q
				} else {
					queries[i] = balancedHash(r)
				}
			}
			start := time.Now()
			ix := index.NewHamming(hashes)
			build := time.Since(start)
			b.ResetTimer()
			var found int
			var search time.Duration
			for i := 0; i < b.N; i++ {
				start := time.Now()
				found = 0
				for _, q := range queries {
					ix.Search(q, 8, func(int, int) { found++ })
				}
				search = time.Since(start)
			}
			if found < 2500 {
				b.Fatalf("planted neighbours not found: %d", found)
			}
			b.ReportMetric(build.Seconds(), "build-s")
			b.ReportMetric(search.Seconds(), "search25k-s")
			b.ReportMetric(float64(found), "hits")
		})
	}
}

// BenchmarkHashImages decodes, normalizes and hashes formula images held in
// memory on all cores: the CROHME 2014 PNG scans when the shared data is
// there, else synthetic formula PNGs.
func BenchmarkHashImages(b *testing.B) {
	var items []dataset.ImageItem
	if d := shareddata.Find(); d != "" {
		dir := filepath.Join(d, "crohme", "2014", "img")
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			data, _ := os.ReadFile(filepath.Join(dir, e.Name()))
			items = append(items, dataset.ImageItem{ID: e.Name(), Data: data})
		}
	}
	if len(items) == 0 {
		b.Skip("shared data not found: no CROHME images to hash")
	}
	o := imagehash.Options{Kind: imagehash.PHash, Canvas: imagehash.Stretch}
	b.ResetTimer()
	start, cpu0 := time.Now(), cpuTime()
	for i := 0; i < b.N; i++ {
		_, failed := imagehash.HashItems(items, dataset.ImageLimits{}, o, 0)
		for _, f := range failed {
			if f != "" {
				b.Fatal(f)
			}
		}
	}
	b.ReportMetric(float64(len(items)*b.N)/time.Since(start).Seconds(), "images/s")
	b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/float64(len(items)*b.N), "cpu-µs/image")
}
