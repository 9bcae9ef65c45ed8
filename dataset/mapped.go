package dataset

import (
	"context"
	"runtime"
	"sync"
)

// mappedBatch is how many items ScanMapped computes together.
const mappedBatch = 2048

// ScanMapped scans src like Scan, computes f for every item on workers
// goroutines (0: one per CPU) in batches, and calls fn with each item and
// its value in file order, on the calling goroutine: the costly per-item
// work runs on every core while the results stay in input order. f must be
// safe for concurrent use. The scan stops when ctx is cancelled or fn
// returns an error.
func ScanMapped[T any](ctx context.Context, src Source, workers int, f func(Item) T, fn func(Item, T) error) (Stats, error) {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	items := make([]Item, 0, mappedBatch)
	vals := make([]T, mappedBatch)
	flush := func() error {
		if err := ctx.Err(); err != nil {
			return err
		}
		var wg sync.WaitGroup
		chunk := (len(items) + workers - 1) / workers
		for lo := 0; lo < len(items); lo += chunk {
			hi := min(lo+chunk, len(items))
			wg.Add(1)
			go func(lo, hi int) {
				defer wg.Done()
				for i := lo; i < hi; i++ {
					vals[i] = f(items[i])
				}
			}(lo, hi)
		}
		wg.Wait()
		for i, it := range items {
			if err := fn(it, vals[i]); err != nil {
				return err
			}
		}
		items = items[:0]
		return nil
	}
	st, err := Scan(src, func(it Item) error {
		items = append(items, it)
		if len(items) == mappedBatch {
			return flush()
		}
		return nil
	})
	if err == nil && len(items) > 0 {
		err = flush()
	}
	return st, err
}
