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

// FuzzScorePair: any pair scores without a panic, with scores in [0, 1],
// its evidence row can be made, and an engine bug (engine_error) counted
// as a failure here.
func FuzzScorePair(f *testing.F) {
	for _, p := range [][2]string{{`x = 23`, `x = 32`}, {`\frac{a}{b}`, `\frac{a}{b+c`}, {`\sum_{i=1}^{n} x_i`, `\sum x`},
		{`\begin{array}{cc} a & b \\ c & d \end{array}`, `a b c d`}, {`{\color{red} x} + y`, `x + y`}} {
		f.Add(p[0], p[1])
	}
	f.Fuzz(func(t *testing.T, gt, pred string) {
		for _, prof := range []Profile{UniMERNet, Strict} {
			r := ScorePair(Pair{GT: gt, Pred: pred}, prof)
			checkRow(t, Pair{GT: gt, Pred: pred}, r)
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
		// The reference's colouring pass never ends on this one (SAN's
		// CROHME 2014 prediction for 37_em_25).
		"runaway colouring": `\sqrt [ \sqrt ] { b }`,
	} {
		start := time.Now()
		r := ScorePair(Pair{GT: "x + y", Pred: s}, UniMERNet)
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%s: %v", name, d)
		}
		if strings.Contains(r.Reason, FailInternal) {
			t.Errorf("%s: %s", name, r.Reason)
		}
		if name != "invalid UTF-8" && name != "NUL bytes" && (r.Status != PredFailed || !r.Counted || r.F1 != 0) {
			t.Errorf("%s: %v, want a counted prediction failure", name, r)
		}
		checkRow(t, Pair{GT: "x + y", Pred: s}, r)
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

// checkRow makes the evidence row of r and checks that it accounts for
// every boxed token of both sides: each is matched, rejected or unpaired.
func checkRow(t *testing.T, p Pair, r Result) {
	t.Helper()
	row := Row(p, r)
	if row.GTBoxed != len(r.GTTokens) || row.PredBoxed != len(r.PredTokens) || row.Status != r.Status.String() {
		t.Fatalf("%q / %q: row %+v does not describe %v", p.GT, p.Pred, row, r)
	}
	if want := len(r.GTTokens) + len(r.PredTokens) - 2*r.TP; len(tokensIn(row.Unmatched)) != want {
		t.Fatalf("%q / %q: %d tokens listed as unmatched, want %d: %q", p.GT, p.Pred, len(tokensIn(row.Unmatched)), want, row.Unmatched)
	}
}

// tokensIn splits "gt:a/pred:b (reason)" and "gt:a (unpaired)" entries into
// their tokens.
func tokensIn(unmatched []string) []string {
	var out []string
	for _, u := range unmatched {
		if strings.HasSuffix(u, " (unpaired)") {
			out = append(out, u)
		} else {
			out = append(out, u, u)
		}
	}
	return out
}

// TestRowEveryStatus: the evidence row of a pair of every status, the
// issue's reproducer among them (a prediction the tokenizer rejects, whose
// row used to index a ground-truth token list that was empty).
func TestRowEveryStatus(t *testing.T) {
	for _, tc := range []struct {
		gt, pred string
		want     Status
		gtBoxed  int
	}{
		{`1 - e ^ { - e ^ { 2 . 6 - 0 . 0 0 0 2 4 K } }`, `{1-{e^{-{{e^{2.6-0.00024k}}}}}`, PredFailed, 17},
		{`x + y`, `x + y`, Scored, 3},
		{`x + y`, `x - z`, Scored, 3},
		{`x + y`, ``, PredFailed, 3},
		{`{x`, `x`, GTFailed, 0},
		{`x`, `\sqrt [ \sqrt ] { b }`, PredFailed, 1},
	} {
		r := ScorePair(Pair{ID: "t", GT: tc.gt, Pred: tc.pred}, UniMERNet)
		if r.Status != tc.want {
			t.Errorf("%q / %q: status %v (%s), want %v", tc.gt, tc.pred, r.Status, r.Reason, tc.want)
		}
		row := Row(Pair{ID: "t", GT: tc.gt, Pred: tc.pred}, r)
		if row.GTBoxed != tc.gtBoxed {
			t.Errorf("%q / %q: %d GT tokens boxed, want %d", tc.gt, tc.pred, row.GTBoxed, tc.gtBoxed)
		}
		checkRow(t, Pair{GT: tc.gt, Pred: tc.pred}, r)
	}
}
