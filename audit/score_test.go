package audit

import (
	"context"
	"fmt"
	"reflect"
	"sync/atomic"
	"testing"

	"github.com/leakaudit/leakaudit/metrics/cdm"
)

// TestEvaluateChunksCompact checks that scoring in chunks gives, in input
// order, the results of one cdm.Evaluate over all the pairs, without their
// tokens, boxes and matches, for chunk sizes around the number of pairs.
func TestEvaluateChunksCompact(t *testing.T) {
	gts := []string{`x^2`, `\frac{a}{b}`, `\sqrt{x+1}`, `a_{1}+a_{2}`, `\alpha\beta`, `x^2`, `\int_0^1 f(x)dx`}
	preds := []string{`x^2`, `\frac{a}{c}`, `\sqrt{x+1}`, `a_1+a_2`, `\alpha \beta`, `x^{3}`, `\}`}
	var pairs []cdm.Pair
	for i := range 23 {
		pairs = append(pairs, cdm.Pair{ID: fmt.Sprint(i), GT: gts[i%len(gts)], Pred: preds[(i*3)%len(preds)], NoPred: i == 11})
	}
	want, err := cdm.Evaluate(context.Background(), pairs, cdm.UniMERNet, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func(n int) { scoreChunk = n }(scoreChunk)
	for _, chunk := range []int{1, 5, 22, 23, 24, 4096} {
		scoreChunk = chunk
		var calls atomic.Int64 // done is called from the scoring goroutines
		got, err := evaluate(context.Background(), pairs, cdm.UniMERNet, 2, func() { calls.Add(1) })
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(pairs) || calls.Load() != int64(len(pairs)) {
			t.Fatalf("chunk %d: %d results, %d done calls for %d pairs", chunk, len(got), calls.Load(), len(pairs))
		}
		for i := range pairs {
			if w := compact(want[i]); !reflect.DeepEqual(got[i], w) {
				t.Errorf("chunk %d, pair %d: %+v, want %+v", chunk, i, got[i], w)
			}
			if got[i].Matches != nil || got[i].GTTokens != nil || got[i].PredBoxes != nil {
				t.Errorf("chunk %d, pair %d: details kept", chunk, i)
			}
		}
	}
}
