package dataset

import (
	"context"
	"runtime"
	"sync"
)

// mappedBatch is how many items ScanMapped computes together.
const mappedBatch = 4096

// ScanMapped scans src like Scan, computes f for every item on workers
// goroutines (0: one per CPU), and calls fn with each item and its value in
// file order, one call at a time. Reading, computing and consuming overlap:
// the reader fills the next batch while the workers compute the current
// one and fn consumes the one before (a JSON string list is decoded on the
// workers too). f must be safe for concurrent use; fn is never called
// twice at once. The scan
// stops when ctx is cancelled or fn returns an error.
func ScanMapped[T any](ctx context.Context, src Source, workers int, f func(Item) T, fn func(Item, T) error) (Stats, error) {
	return scanMapped(ctx, src, workers, f, fn, nil, nil)
}

// scanMapped is ScanMapped; onLabel, when not nil, is what f computes
// from an item's label alone, with whether the item is to be delivered
// whole: the parallel JSON string list reader then calls it with a label
// in a reused buffer, and gives the others their Seq, span and nothing
// else (see ScanSelected); onPass is then told of n items in a row not
// delivered whole, in place of n calls of fn.
func scanMapped[T any](ctx context.Context, src Source, workers int, f func(Item) T, fn func(Item, T) error, onLabel func(KeepLabel) (T, bool), onPass func(n int) error) (Stats, error) {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	type batch struct {
		items []Item
		vals  []T
		done  chan struct{} // closed when vals are computed
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// Items to compute go to the workers in chunks; batches go to the
	// consumer in order.
	type chunk struct {
		b      *batch
		lo, hi int
		wg     *sync.WaitGroup
	}
	chunks := make(chan chunk, 4*workers)
	ordered := make(chan *batch, 2)
	var workersWG sync.WaitGroup
	for range workers {
		workersWG.Add(1)
		go func() {
			defer workersWG.Done()
			for c := range chunks {
				for i := c.lo; i < c.hi; i++ {
					c.b.vals[i] = f(c.b.items[i])
				}
				c.wg.Done()
			}
		}()
	}
	var fnErr error
	// Consumed batches' items and values are used again (fn and f get
	// copies), so that a scan does not make and collect them anew.
	type buffers struct {
		items []Item
		vals  []T
	}
	spare := make(chan buffers, 4)
	consumed := make(chan struct{})
	go func() {
		defer close(consumed)
		for b := range ordered {
			<-b.done
			if fnErr == nil { // else drain
				for i, it := range b.items {
					if err := fn(it, b.vals[i]); err != nil {
						fnErr = err
						cancel()
						break
					}
				}
			}
			select {
			case spare <- buffers{b.items[:0], b.vals[:0]}:
			default:
			}
		}
	}()
	var vals []T // the values' buffer for the batch being filled
	newItems := func() []Item {
		select {
		case s := <-spare:
			vals = s.vals
			return s.items
		default:
			vals = nil
			return make([]Item, 0, mappedBatch)
		}
	}
	submit := func(items []Item) {
		if cap(vals) < len(items) {
			vals = make([]T, len(items))
		}
		b := &batch{items: items, vals: vals[:len(items)], done: make(chan struct{})}
		wg := &sync.WaitGroup{}
		step := max((len(items)+workers*4-1)/(workers*4), 64)
		for lo := 0; lo < len(items); lo += step {
			wg.Add(1)
			chunks <- chunk{b, lo, min(lo+step, len(items)), wg}
		}
		go func() { wg.Wait(); close(b.done) }()
		ordered <- b
	}
	// A JSON string list's reader decodes on workers of its own: they
	// compute f too, and its deliveries call fn, in order, on this
	// goroutine (each before the items of any batch submitted after).
	hook := &mapHook{workers: workers,
		alloc: func(n int) any { return make([]T, n) },
		compute: func(b *fastBatch, lo, hi int) {
			vals := b.vals.([]T)
			for i := lo; i < hi; i++ {
				if b.reasons[i] == "" {
					vals[i] = f(b.items[i])
				}
			}
		},
		deliver: func(b *fastBatch, i int) error {
			if err := ctx.Err(); err != nil {
				return err
			}
			if fnErr == nil {
				fnErr = fn(b.items[i], b.vals.([]T)[i])
			}
			if fnErr != nil {
				cancel()
			}
			return fnErr
		}}
	if onLabel != nil {
		hook.label = func(b *fastBatch, i int, label KeepLabel) bool {
			v, whole := onLabel(label)
			b.vals.([]T)[i] = v
			return whole
		}
		hook.pass = func(n int) error {
			if err := ctx.Err(); err != nil {
				return err
			}
			if fnErr == nil {
				fnErr = onPass(n)
			}
			if fnErr != nil {
				cancel()
			}
			return fnErr
		}
	}
	items := newItems()
	st, err := scan(src, func(it Item) error {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		items = append(items, it)
		if len(items) == mappedBatch {
			submit(items)
			items = newItems()
		}
		return nil
	}, hook, false)
	if err == nil && len(items) > 0 {
		submit(items)
	}
	close(ordered)
	<-consumed
	close(chunks)
	workersWG.Wait()
	if fnErr != nil {
		return st, fnErr
	}
	if err == nil {
		err = ctx.Err()
	}
	return st, err
}
