package parallel

import (
	"context"
	"errors"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/leakaudit/leakaudit/internal/panics"
)

// TestForVisitsEachIndexOnce: every index is visited exactly once,
// whatever the number of items and of workers.
func TestForVisitsEachIndexOnce(t *testing.T) {
	for _, n := range []int{0, 1, 7, 255, 256, 257, 2047, 5000} {
		for _, workers := range []int{-1, 0, 1, 3, 64} {
			seen := make([]int32, n)
			if err := For(context.Background(), n, workers, func(i int) error {
				atomic.AddInt32(&seen[i], 1)
				return nil
			}); err != nil {
				t.Fatalf("%d items, %d workers: %v", n, workers, err)
			}
			for i, c := range seen {
				if c != 1 {
					t.Fatalf("%d items, %d workers: index %d visited %d times", n, workers, i, c)
				}
			}
		}
	}
}

// TestForBoundsWorkers: no more than workers calls of fn run at once
// (GOMAXPROCS for workers ≤ 0), and with several workers they do overlap.
func TestForBoundsWorkers(t *testing.T) {
	for _, tc := range []struct{ n, workers, want int }{
		{64, 1, 1},
		{64, 2, 2},
		{64, 3, 3},
		{64, 0, runtime.GOMAXPROCS(0)},
		{2, 8, 2}, // never more goroutines than items
	} {
		var active, peak atomic.Int32
		if err := For(context.Background(), tc.n, tc.workers, func(int) error {
			a := active.Add(1)
			for p := peak.Load(); a > p && !peak.CompareAndSwap(p, a); p = peak.Load() {
			}
			time.Sleep(2 * time.Millisecond)
			active.Add(-1)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if got := int(peak.Load()); got > tc.want || (tc.want > 1 && got < 2) {
			t.Errorf("%d items, %d workers: %d calls at once, want at most %d (and more than one)", tc.n, tc.workers, got, tc.want)
		}
	}
}

// TestForStops: an error or a panic in fn comes back (a panic as a
// *panics.Error) and stops the loop, and so does a cancelled context.
func TestForStops(t *testing.T) {
	boom := errors.New("boom")
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tc := range []struct {
		name    string
		ctx     context.Context
		workers int
		fn      func(i int, cancel func()) error
		want    func(error) bool
		// calls is the number of calls of fn with one worker (-1: any
		// number below the items').
		calls int
	}{{
		name: "error", ctx: context.Background(), workers: 1, calls: 601,
		fn: func(i int, _ func()) error {
			if i == 600 {
				return boom
			}
			return nil
		},
		want: func(err error) bool { return err == boom },
	}, {
		name: "error, 3 workers", ctx: context.Background(), workers: 3, calls: -1,
		fn: func(i int, _ func()) error {
			if i == 600 {
				return boom
			}
			return nil
		},
		want: func(err error) bool { return err == boom },
	}, {
		name: "panic", ctx: context.Background(), workers: 1, calls: 601,
		fn: func(i int, _ func()) error {
			if i == 600 {
				panic("boom")
			}
			return nil
		},
		want: func(err error) bool {
			var pe *panics.Error
			return errors.As(err, &pe) && pe.Value == "boom" && len(pe.Stack) > 0
		},
	}, {
		name: "panic, 2 workers", ctx: context.Background(), workers: 2, calls: -1,
		fn: func(i int, _ func()) error {
			if i == 600 {
				var s []int
				_ = s[i]
			}
			return nil
		},
		want: func(err error) bool { var pe *panics.Error; return errors.As(err, &pe) },
	}, {
		name: "cancelled before", ctx: cancelled, workers: 2, calls: 0,
		fn:   func(int, func()) error { return nil },
		want: func(err error) bool { return errors.Is(err, context.Canceled) },
	}, {
		name: "cancelled during", ctx: nil, workers: 1, calls: 11,
		fn: func(i int, cancel func()) error {
			if i == 10 {
				cancel()
			}
			return nil
		},
		want: func(err error) bool { return errors.Is(err, context.Canceled) },
	}} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := tc.ctx, func() {}
			if ctx == nil {
				ctx, cancel = context.WithCancel(context.Background())
				defer cancel()
			}
			const n = 100000
			var calls atomic.Int64
			err := For(ctx, n, tc.workers, func(i int) error {
				calls.Add(1)
				return tc.fn(i, cancel)
			})
			if !tc.want(err) {
				t.Errorf("For returned %v", err)
			}
			if c := calls.Load(); (tc.calls >= 0 && c != int64(tc.calls)) || c >= n {
				t.Errorf("fn called %d times, want %d", c, tc.calls)
			}
		})
	}
}
