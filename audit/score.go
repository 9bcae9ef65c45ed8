package audit

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/leakaudit/leakaudit/internal/panics"
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

// eachItem calls fn for 0 to n-1 on workers goroutines (0: GOMAXPROCS),
// in runs of consecutive indices. A panic in fn is recovered and returned
// (the first one), and no run starts after it.
func eachItem(n, workers int, fn func(i int)) error {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	step := max((n+4*workers-1)/(4*workers), 256)
	next := make(chan int, (n+step-1)/step)
	for lo := 0; lo < n; lo += step {
		next <- lo
	}
	close(next)
	var wg sync.WaitGroup
	var once sync.Once
	var first error
	var failed atomic.Bool
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for lo := range next {
				if failed.Load() {
					return
				}
				if err := panics.Catch(func() {
					for i := lo; i < min(lo+step, n); i++ {
						fn(i)
					}
				}); err != nil {
					failed.Store(true)
					once.Do(func() { first = err })
				}
			}
		}()
	}
	wg.Wait()
	return first
}
