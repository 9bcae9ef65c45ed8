package index_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/leakaudit/leakaudit/canon"
	"github.com/leakaudit/leakaudit/checksum"
	"github.com/leakaudit/leakaudit/dataset"
	"github.com/leakaudit/leakaudit/index"
	"github.com/leakaudit/leakaudit/internal/synth"
	"github.com/leakaudit/leakaudit/overlap"
)

// BenchmarkLabelIndex builds an index of n synthetic labels at the audit and
// ws levels from a JSON label list on disk, then checks a 25k-label test
// split (a tenth of it planted from the corpus) against it with the real
// overlap code. Run one size per process (make bench) so that peak-RSS-MB
// belongs to that size; 80M needs about 5 GB of disk for its corpus.
//
// Peak memory is the kernel's VmHWM (peak resident set, anonymous and
// file-backed pages together) of each phase: generating the corpus (gen),
// building and querying; the peak is reset between phases through
// /proc/self/clear_refs, and peak-RSS-MB is the largest of the three, the
// process's peak. The anon and filemap figures split each phase's peak
// into the process's own memory and resident memory-mapped files
// (Badger's tables), sampled every 20 ms.
func BenchmarkLabelIndex(b *testing.B) {
	for _, n := range []int{1_000_000, 10_000_000, 80_000_000} {
		b.Run(fmt.Sprintf("%dM", n/1_000_000), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				benchIndex(b, n)
			}
		})
	}
}

func benchIndex(b *testing.B, n int) {
	b.StopTimer()
	resetPeak := resetHWM(b)
	dir := b.TempDir()
	corpus := filepath.Join(dir, "train.json")
	g := synth.New(1)
	var bytes int64
	sample := make([]string, 0, 2500)
	if err := synth.WriteJSONStrings(corpus, n, func(i int) string {
		f := g.Formula()
		bytes += int64(len(f))
		if i%(n/2500) == 0 && len(sample) < cap(sample) {
			sample = append(sample, f)
		}
		return f
	}); err != nil {
		b.Fatal(err)
	}
	test := filepath.Join(dir, "test.json")
	if err := synth.WriteJSONStrings(test, 25000, func(i int) string {
		if i%10 == 0 {
			return sample[(i/10)%len(sample)]
		}
		return g.Formula()
	}); err != nil {
		b.Fatal(err)
	}
	levels, _ := canon.ParseLevels("audit,ws")
	fp, err := checksum.Of(corpus)
	if err != nil {
		b.Fatal(err)
	}
	ix, err := index.Open(filepath.Join(dir, "ix"), index.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer ix.Close()
	in := index.CorpusInput{Name: "train", Source: dataset.Source{Path: corpus}}

	genPeak := resetPeak()
	stopSampling := sampleMemory()
	b.StartTimer()
	start := time.Now()
	if _, err := ix.Build(context.Background(), []index.CorpusInput{in}, []checksum.Input{{Name: "train", File: fp}}, levels, "bench", nil); err != nil {
		b.Fatal(err)
	}
	build := time.Since(start)
	b.StopTimer()
	buildAnon, buildFile, buildHeap := stopSampling()
	buildPeak := resetPeak()
	stopSampling = sampleMemory()
	b.StartTimer()
	start = time.Now()
	res, err := overlap.Check(context.Background(), ix, []overlap.Split{{Name: "test", Source: dataset.Source{Path: test}}}, overlap.Options{Levels: levels, MaxRefs: 10})
	if err != nil {
		b.Fatal(err)
	}
	query := time.Since(start)
	b.StopTimer()
	queryAnon, queryFile, _ := stopSampling()
	queryPeak := resetPeak()
	if res.Splits[0].Found < 2500 {
		b.Fatalf("planted labels not found: %d", res.Splits[0].Found)
	}
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	b.ReportMetric(genPeak, "gen-RSS-MB")
	b.ReportMetric(buildPeak, "build-RSS-MB")
	b.ReportMetric(buildAnon, "build-anon-MB")
	b.ReportMetric(buildFile, "build-filemap-MB")
	b.ReportMetric(buildHeap, "build-goheap-MB")
	b.ReportMetric(queryPeak, "query-RSS-MB")
	b.ReportMetric(queryAnon, "query-anon-MB")
	b.ReportMetric(queryFile, "query-filemap-MB")
	b.ReportMetric(build.Seconds(), "build-s")
	b.ReportMetric(float64(n)/build.Seconds(), "labels/s")
	b.ReportMetric(query.Seconds(), "query25k-s")
	b.ReportMetric(max(genPeak, buildPeak, queryPeak, float64(ru.Maxrss)/1024), "peak-RSS-MB")
	b.ReportMetric(float64(bytes)/float64(n), "label-bytes")
	b.ReportMetric(float64(dirSize(filepath.Join(dir, "ix")))/(1<<20), "index-MB")
}

// dirSize returns the disk space used under dir (allocated blocks, so
// that Badger's sparse preallocated files count for what they use).
func dirSize(dir string) int64 {
	var n int64
	filepath.Walk(dir, func(_ string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			if st, ok := fi.Sys().(*syscall.Stat_t); ok {
				n += st.Blocks * 512
			}
		}
		return nil
	})
	return n
}

// sampleMemory samples, every 20 ms until stopped, the process's anonymous
// resident memory (heap, stacks, Badger's allocations), its resident
// file-backed mappings (Badger's memory-mapped tables, which the kernel can
// drop at will) and the Go heap in use; it returns their peaks in MB.
func sampleMemory() func() (anon, file, heap float64) {
	done := make(chan struct{})
	result := make(chan [3]float64)
	go func() {
		var peak [3]float64
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			a, f := procRSS()
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			peak[0] = max(peak[0], a)
			peak[1] = max(peak[1], f)
			peak[2] = max(peak[2], float64(ms.HeapInuse)/(1<<20))
			select {
			case <-done:
				result <- peak
				return
			case <-tick.C:
			}
		}
	}()
	return func() (float64, float64, float64) {
		close(done)
		p := <-result
		return p[0], p[1], p[2]
	}
}

// resetHWM returns a function that returns the process's peak resident set
// (VmHWM, in MB) since the previous call and resets it to the current
// resident set. Where the peak cannot be reset, each call returns the peak
// so far, which overstates the later phases (logged).
func resetHWM(b *testing.B) func() float64 {
	reset := func() bool { return os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) == nil }
	if !reset() {
		b.Logf("cannot reset VmHWM: each phase's peak includes the earlier phases")
	}
	return func() float64 {
		peak := procStatus("VmHWM")
		reset()
		return peak
	}
}

// procStatus reads a memory figure from /proc/self/status, in MB.
func procStatus(field string) float64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			var kb float64
			fmt.Sscanf(strings.TrimSpace(rest), "%f kB", &kb)
			return kb / 1024
		}
	}
	return 0
}

// procRSS reads RssAnon and RssFile from /proc/self/status, in MB.
func procRSS() (anon, file float64) {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		var kb float64
		if n, _ := fmt.Sscanf(line, "RssAnon: %f kB", &kb); n == 1 {
			anon = kb / 1024
		}
		if n, _ := fmt.Sscanf(line, "RssFile: %f kB", &kb); n == 1 {
			file = kb / 1024
		}
	}
	return anon, file
}
