package audit

import (
	"context"

	"github.com/leakaudit/leakaudit/metrics/cdm"
)

// scoreChunk is how many pairs of a split cdm.Evaluate scores at a time (a
// variable for the tests). A result holds its tokens, boxes and matches (a
// few kilobytes), which the audit does not use (the report scores again
// the few items it draws): scoring in chunks and keeping each result's
// figures only (compact) keeps the live heap to the items, whatever the
// split's size.
var scoreChunk = 4096

// evaluate scores pairs with CDM, scoreChunk at a time, on workers
// goroutines, and returns their compact results in input order; done is
// called after each pair, as cdm.Evaluate calls it.
func evaluate(ctx context.Context, pairs []cdm.Pair, prof cdm.Profile, workers int, done func()) ([]cdm.Result, error) {
	out := make([]cdm.Result, 0, len(pairs))
	for lo := 0; lo < len(pairs); lo += scoreChunk {
		res, err := cdm.Evaluate(ctx, pairs[lo:min(lo+scoreChunk, len(pairs))], prof, workers, done)
		if err != nil {
			return nil, err
		}
		for _, r := range res {
			out = append(out, compact(r))
		}
	}
	return out, nil
}

// compact is a result without its tokens, boxes and matches.
func compact(r cdm.Result) cdm.Result {
	r.Matches, r.GTTokens, r.PredTokens, r.GTBoxes, r.PredBoxes = nil, nil, nil, nil, nil
	return r
}
