package dataset

import "sync"

// runOrdered is an ordered pipeline: n tasks, made in order by task on
// one goroutine (so that it may call a keep function in seq order), are
// worked on by up to workers goroutines, each with its own state from
// worker; a task's work sends its results, in order, through send; commit
// takes every result on the calling goroutine in task order, then in the
// order sent. At most ahead tasks wait for their commit beyond those being
// worked on, which bounds the results held in memory.
//
// The first error commit returns ends the pipeline: send then returns
// false (the work should return), no more tasks are made, and runOrdered
// returns that error once every goroutine it started has ended.
func runOrdered[T, R any](n, workers, ahead int, task func(i int) T, worker func() func(t T, send func(R) bool), commit func(R) error) (err error) {
	type job struct {
		t   T
		out chan R
	}
	workers = max(1, workers)
	jobs := make(chan *job)
	order := make(chan *job, max(1, ahead))
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			do := worker()
			for j := range jobs {
				do(j.t, func(r R) bool {
					select {
					case j.out <- r:
						return true
					case <-stop:
						return false
					}
				})
				close(j.out)
			}
		}()
	}
	go func() {
		defer close(order)
		defer close(jobs)
		for i := range n {
			j := &job{t: task(i), out: make(chan R, 1)}
			select {
			case order <- j:
			case <-stop:
				return
			}
			select {
			case jobs <- j:
			case <-stop:
				close(j.out)
				return
			}
		}
	}()
	defer func() {
		if err != nil {
			close(stop)
			for j := range order { // let the workers and the feeder end
				for range j.out {
				}
			}
		}
		wg.Wait()
	}()
	for j := range order {
		for r := range j.out {
			if err := commit(r); err != nil {
				return err
			}
		}
	}
	return nil
}
