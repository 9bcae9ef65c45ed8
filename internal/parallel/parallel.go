// Package parallel is leakaudit's one parallel for-loop: the per-item
// stages (the audit's item evidence, compare's rendering and scoring, the
// corpus metrics) call fn for every index of their items on a bounded
// number of goroutines, each index written by one goroutine into its own
// slot, so that the results are those of the sequential loop.
//
// A panic in fn is recovered and returned as an error (a *panics.Error,
// which the command line reports as an internal error), the first error
// stops the loop, and a cancelled context stops it too.
package parallel

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/leakaudit/leakaudit/internal/panics"
)

// maxRun is the most consecutive indices a goroutine takes at a time, and
// runsPerWorker how many runs each goroutine gets at least: a run is long
// enough that handing it out (one atomic add) costs nothing next to the
// work of its items, and short enough that the goroutines finish together
// when items take unequal times (CDM renders).
const (
	maxRun        = 64
	runsPerWorker = 32
)

// For calls fn(i) for every i in 0…n−1 on at most workers goroutines
// (workers ≤ 0: GOMAXPROCS), and waits for them. Each goroutine takes runs
// of consecutive indices; fn must be safe to call concurrently for
// different indices.
//
// The first error fn returns, or the first panic in fn (returned as a
// *panics.Error with its stack), stops the loop: no index starts after
// it, and For returns it. When ctx is done, no index starts after that
// either and For returns ctx.Err(); it also returns ctx.Err() when ctx is
// done by the time every index ran. Otherwise For returns nil.
func For(ctx context.Context, n, workers int, fn func(i int) error) error {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	run := min(maxRun, max(1, n/(runsPerWorker*workers)))
	workers = min(workers, (n+run-1)/run)
	done := ctx.Done()
	var (
		next   atomic.Int64 // the first index of the next run
		failed atomic.Bool
		once   sync.Once
		first  error
		wg     sync.WaitGroup
	)
	fail := func(err error) {
		once.Do(func() { first = err })
		failed.Store(true)
	}
	work := func() {
		for !failed.Load() {
			lo := int(next.Add(int64(run)) - int64(run))
			if lo >= n {
				return
			}
			var err error
			if perr := panics.Catch(func() {
				for i := lo; i < min(lo+run, n); i++ {
					select {
					case <-done:
						failed.Store(true)
						return
					default:
					}
					if failed.Load() {
						return
					}
					if err = fn(i); err != nil {
						return
					}
				}
			}); perr != nil {
				err = perr
			}
			if err != nil {
				fail(err)
			}
		}
	}
	for range workers {
		wg.Go(work)
	}
	wg.Wait()
	if first != nil {
		return first
	}
	return ctx.Err()
}
