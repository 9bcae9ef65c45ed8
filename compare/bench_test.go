package compare_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/leakaudit/leakaudit/compare"
	"github.com/leakaudit/leakaudit/internal/benchdata"
	"github.com/leakaudit/leakaudit/internal/synth"
	"github.com/leakaudit/leakaudit/report"
)

// BenchmarkCompare3Models is the performance goal: three models
// on a 25,000-item split against 10M training labels, each model's CDM
// scored once, the report written (goal: under 30 s on 2 cores). Test
// labels: the shared test lists (HME100K, CROHME, MathWriting test),
// shuffled; training: 10M labels drawn from the shared training lists
// with 0–2 random token edits, in one JSON file that two models list
// (looked up once), and the HME100K-sized benchmark training split of a
// third, rules: true model. Each model is right on a share of the items
// (85%, 70%, 55%) and otherwise predicts the label with one symbol
// changed. Without the shared data the labels come from internal/synth's
// grammar. Writing the inputs is not timed.
func BenchmarkCompare3Models(b *testing.B) {
	tests, train := benchdata.Labels(b)
	dir := b.TempDir()
	trainPath := filepath.Join(dir, "train.json")
	const n = 10_000_000
	if err := benchdata.WriteEdited(trainPath, n, train, 41, 42); err != nil {
		b.Fatal(err)
	}
	benchPath := filepath.Join(dir, "bench-train.json")
	if err := synth.WriteJSONStrings(benchPath, 75_000, func(i int) string { return train[i%len(train)] }); err != nil {
		b.Fatal(err)
	}
	var caps strings.Builder
	for i, l := range tests {
		fmt.Fprintf(&caps, "t%05d\t%s\n", i, l)
	}
	os.WriteFile(filepath.Join(dir, "test.txt"), []byte(caps.String()), 0o644)
	g := synth.New(43)
	for _, m := range []struct {
		name  string
		right int // of 20
	}{{"m1", 17}, {"m2", 14}, {"m3", 11}} {
		var p strings.Builder
		for i, l := range tests {
			if i%20 >= m.right {
				l = g.Corrupt(l)
			}
			fmt.Fprintf(&p, "t%05d\t%s\n", i, l)
		}
		os.WriteFile(filepath.Join(dir, m.name+".txt"), []byte(p.String()), 0o644)
	}
	cfg := `splits: [{name: test, labels: test.txt, format: caption}]
models:
  - {name: m1, train: [{name: big, path: train.json}], predictions: [{split: test, path: m1.txt, format: caption}]}
  - {name: m2, train: [{name: big, path: train.json}], predictions: [{split: test, path: m2.txt, format: caption}]}
  - {name: m3, rules: true, train: [{name: bench, path: bench-train.json}], predictions: [{split: test, path: m3.txt, format: caption}]}
`
	os.WriteFile(filepath.Join(dir, "compare.yaml"), []byte(cfg), 0o644)
	b.ResetTimer()
	for range b.N {
		c, err := compare.LoadConfig(filepath.Join(dir, "compare.yaml"))
		if err != nil {
			b.Fatal(err)
		}
		cpu0 := cpuSeconds()
		start := time.Now()
		last := start
		res, err := compare.Run(context.Background(), compare.Job{Config: c, Tool: "bench", Log: func(format string, a ...any) {
			b.Logf("%6.2fs (+%.2fs, %.1f CPU-s so far) %s", time.Since(start).Seconds(), time.Since(last).Seconds(), cpuSeconds()-cpu0, fmt.Sprintf(format, a...))
			last = time.Now()
		}})
		if err != nil {
			b.Fatal(err)
		}
		if err := report.WriteCompare(filepath.Join(dir, "out"), res); err != nil {
			b.Fatal(err)
		}
		el := time.Since(start)
		cpu := cpuSeconds() - cpu0
		b.ReportMetric(el.Seconds(), "s/run")
		b.ReportMetric(cpu, "CPU-s/run")
		s := res.Splits[0]
		b.Logf("3 models × %d items against %d training labels: %v (report written), %.1f CPU-s (user+system; on 2 idle cores at best half that in wall time); seen by some model %d, clean %d; %s",
			s.Items, n, el.Round(time.Millisecond), cpu, s.SeenAny, s.Clean, res.Leaderboards[0].Text)
	}
}

// cpuSeconds is the process's user and system CPU time so far: on a
// shared machine wall time depends on the other jobs, CPU time much less.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}
