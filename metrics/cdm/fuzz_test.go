package cdm

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/leakaudit/leakaudit/internal/shareddata"
)

// FuzzScorePair: any pair scores without a panic, with scores in [0, 1]
// and an engine bug (engine_error) counted as a failure here.
func FuzzScorePair(f *testing.F) {
	for _, p := range [][2]string{{`x = 23`, `x = 32`}, {`\frac{a}{b}`, `\frac{a}{b+c`}, {`\sum_{i=1}^{n} x_i`, `\sum x`},
		{`\begin{array}{cc} a & b \\ c & d \end{array}`, `a b c d`}, {`{\color{red} x} + y`, `x + y`}} {
		f.Add(p[0], p[1])
	}
	f.Fuzz(func(t *testing.T, gt, pred string) {
		for _, prof := range []Profile{UniMERNet, Strict} {
			r := ScorePair(Pair{GT: gt, Pred: pred}, prof)
			if strings.Contains(r.Reason, FailInternal) {
				t.Fatalf("%q / %q: %s", gt, pred, r.Reason)
			}
			if r.F1 < 0 || r.F1 > 1 || r.Recall < 0 || r.Recall > 1 || r.Precision < 0 || r.Precision > 1 {
				t.Fatalf("%q / %q: scores out of range: %+v", gt, pred, r)
			}
		}
	})
}

// TestHostilePairs: hostile formulas are failures with a reason, in
// bounded time.
func TestHostilePairs(t *testing.T) {
	for name, s := range map[string]string{
		"100k characters":   strings.Repeat("x+", 50_000),
		"10k nested braces": strings.Repeat("{", 10_000) + "x" + strings.Repeat("}", 10_000),
		"invalid UTF-8":     "x\xff\xfe+\xc3",
		"NUL bytes":         "x\x00+\x00y",
	} {
		start := time.Now()
		r := ScorePair(Pair{GT: "x + y", Pred: s}, UniMERNet)
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%s: %v", name, d)
		}
		if strings.Contains(r.Reason, FailInternal) {
			t.Errorf("%s: %s", name, r.Reason)
		}
		t.Logf("%s: %s %s", name, r.Status, r.Reason)
	}
}

// TestDeterministicAcrossWorkers: the reference schema output is
// byte-identical whatever the number of workers.
func TestDeterministicAcrossWorkers(t *testing.T) {
	pairs := readPairs(t, shareddata.Path(t, filepath.Join("refcdm", "reference_600", "pairs.json")))
	var outs []string
	for _, w := range []int{1, 2, 7} {
		res, err := Evaluate(context.Background(), pairs, UniMERNet, w, nil)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := WriteMetricsRes(&b, pairs, res, UniMERNet); err != nil {
			t.Fatal(err)
		}
		outs = append(outs, b.String())
	}
	if outs[0] != outs[1] || outs[0] != outs[2] {
		t.Error("metrics_res.json differs between worker counts")
	}
}
