package dataset

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

// TestRunOrdered checks that runOrdered commits every result in task
// order, then in the order sent, whatever the workers' speeds; that the
// tasks are made in order; and that the first commit error ends it and is
// returned, with the workers still sending or not yet started.
func TestRunOrdered(t *testing.T) {
	errStop := errors.New("stop")
	for _, tc := range []struct {
		n, workers, ahead, per int
		failAt                 int // the commit that fails (-1: none)
	}{
		{n: 0, workers: 2, ahead: 2, per: 1, failAt: -1},
		{n: 1, workers: 1, ahead: 1, per: 1, failAt: -1},
		{n: 50, workers: 1, ahead: 1, per: 3, failAt: -1},
		{n: 50, workers: 4, ahead: 5, per: 1, failAt: -1},
		{n: 50, workers: 3, ahead: 3, per: 4, failAt: -1},
		{n: 50, workers: 0, ahead: 0, per: 2, failAt: -1},
		{n: 50, workers: 3, ahead: 4, per: 3, failAt: 0},
		{n: 50, workers: 3, ahead: 4, per: 3, failAt: 17},
		{n: 50, workers: 2, ahead: 1, per: 1, failAt: 49},
	} {
		t.Run(fmt.Sprintf("%d/%d/%d/%d/%d", tc.n, tc.workers, tc.ahead, tc.per, tc.failAt), func(t *testing.T) {
			made := 0
			var got []int
			done := make(chan error, 1)
			go func() {
				done <- runOrdered(tc.n, tc.workers, tc.ahead,
					func(i int) int {
						if i != made {
							t.Errorf("task %d made after %d others", i, made)
						}
						made++
						return i
					},
					func() func(int, func(int) bool) {
						r := rand.New(rand.NewPCG(uint64(tc.n), uint64(tc.per)))
						return func(i int, send func(int) bool) {
							for k := range tc.per {
								time.Sleep(time.Duration(r.IntN(200)) * time.Microsecond)
								if !send(i*tc.per + k) {
									return
								}
							}
						}
					},
					func(r int) error {
						if len(got) == tc.failAt {
							return errStop
						}
						got = append(got, r)
						return nil
					})
			}()
			var err error
			select {
			case err = <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("runOrdered did not return")
			}
			want := tc.n * tc.per
			if tc.failAt >= 0 {
				if !errors.Is(err, errStop) {
					t.Fatalf("error %v, want the commit's", err)
				}
				want = tc.failAt
			} else if err != nil {
				t.Fatal(err)
			}
			if len(got) != want {
				t.Fatalf("%d results committed, want %d", len(got), want)
			}
			for i, r := range got {
				if r != i {
					t.Fatalf("result %d is %d: out of order", i, r)
				}
			}
		})
	}
}
