package cdm

import (
	"context"
	"reflect"
	"testing"
)

// TestEvaluateSharesRenders checks that Evaluate, which renders a
// formula repeated among the pairs once, gives every pair ScorePair's
// result: shared ground truths, predictions equal to their ground truth
// or to another pair's, a missing prediction, failures.
func TestEvaluateSharesRenders(t *testing.T) {
	pairs := []Pair{
		{ID: "a", GT: `x ^ { 2 }`, Pred: `x ^ { 2 }`},
		{ID: "b", GT: `x ^ { 2 }`, Pred: `x ^ { 3 }`},
		{ID: "c", GT: `\frac { a } { b }`, Pred: `x ^ { 3 }`},
		{ID: "d", GT: `\frac { a } { b }`, NoPred: true},
		{ID: "e", GT: `x ^ { 3 }`, Pred: `\frac { a } { b }`},
		{ID: "f", GT: `{ x`, Pred: `x ^ { 2 }`},
		{ID: "g", GT: `y`, Pred: `{ x`},
		{ID: "h", GT: `y`, Pred: `y`},
	}
	for _, prof := range []Profile{UniMERNet, Strict, OmniDocBench} {
		for _, workers := range []int{1, 3} {
			got, err := Evaluate(context.Background(), pairs, prof, workers, nil)
			if err != nil {
				t.Fatal(err)
			}
			for i, p := range pairs {
				if want := ScorePair(p, prof); !reflect.DeepEqual(got[i], want) {
					t.Errorf("%s, %d workers, pair %s: Evaluate gives %v, ScorePair %v", prof.Name, workers, p.ID, got[i], want)
				}
			}
		}
	}
}
