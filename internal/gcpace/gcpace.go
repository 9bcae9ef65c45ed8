// Package gcpace gives a batch job's garbage collector a fixed headroom
// over the live heap while it runs, where the default pacing (GOGC=100:
// collect each time the heap has grown by its live size) collects very
// often because the live heap is small and the job makes short-lived
// garbage at a high rate (CDM's layouts: most of score's time went to
// allocation and collection).
//
// The headroom is a bound on memory, not a factor: the collector runs
// when the heap has grown by max(live, Headroom), so that a run uses at
// most Headroom more than the default would, however large its input,
// and exactly the default once the live heap is larger than Headroom.
package gcpace

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// Headroom is the heap growth allowed between two collections while a
// job runs, when the live heap is smaller.
const Headroom = 128 << 20

// defaultPercent is GOGC's default.
const defaultPercent = 100

// percentFor is the GOGC percentage that lets a heap of live bytes grow
// by max(live, headroom): defaultPercent for a live heap of headroom or
// more. It is at most the percentage at which the runtime's minimum heap
// (4 MiB × GOGC/100, what a nearly empty heap may grow to) is headroom,
// so that a small live heap grows by no more than headroom either.
func percentFor(live, headroom uint64) int {
	const minHeap = 4 << 20 // the runtime's minimum heap at GOGC=100
	maxPercent := headroom * 100 / minHeap
	if live == 0 {
		return int(max(maxPercent, defaultPercent))
	}
	p := headroom * 100 / live
	switch {
	case p < defaultPercent:
		return defaultPercent
	case p > maxPercent:
		return int(maxPercent)
	}
	return int(p)
}

// Start paces the collector with Headroom until the returned function is
// called, which restores the percentage in force before. The percentage
// is set again after every collection, from the live heap it measured.
// With GOGC or GOMEMLIMIT in the environment it does nothing: the user's
// setting stands.
func Start() (stop func()) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	p := &pacer{sample: []metrics.Sample{{Name: "/gc/heap/live:bytes"}}}
	p.previous = debug.SetGCPercent(p.percent())
	p.arm()
	return p.stop
}

// pacer is one Start's state.
type pacer struct {
	mu       sync.Mutex
	stopped  bool
	previous int
	sample   []metrics.Sample
}

// percent measures the live heap and returns the percentage for it.
func (p *pacer) percent() int {
	metrics.Read(p.sample)
	var live uint64
	if p.sample[0].Value.Kind() == metrics.KindUint64 {
		live = p.sample[0].Value.Uint64()
	}
	return percentFor(live, Headroom)
}

// arm sets a finalizer on a new sentinel object: it runs after the next
// collection frees the object, sets the percentage for the live heap that
// collection measured and arms again, until stop.
func (p *pacer) arm() {
	sentinel := new([32]byte) // not a tiny allocation, whose finalizer might never run
	runtime.SetFinalizer(sentinel, func(*[32]byte) {
		p.mu.Lock()
		defer p.mu.Unlock()
		if p.stopped {
			return
		}
		debug.SetGCPercent(p.percent())
		p.arm()
	})
}

// stop restores the percentage in force before Start.
func (p *pacer) stop() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stopped {
		return
	}
	p.stopped = true
	debug.SetGCPercent(p.previous)
}
