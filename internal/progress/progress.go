// Package progress is how long tasks report their progress: the Reporter
// interface every job that reports progress takes (index builds, the CDM
// scoring of score, audit and compare, one task per split, dedup), and Line, the Reporter the commands use, which draws a
// one-line progress counter on stderr when stderr is a terminal, and stays
// silent otherwise (pipes, CI, --json runs read by machines).
package progress

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"golang.org/x/term"
)

// Reporter follows a long task: Start begins a task of total units
// (total < 0: unknown), Add records n more units done, Done ends the
// task. Jobs take a Reporter that may be nil, meaning no report; a
// Reporter may be called from several goroutines at once.
type Reporter interface {
	Start(label string, total int64)
	Add(n int64)
	Done()
}

var _ Reporter = (*Line)(nil)

// Line is a throttled progress line. The zero value is silent; use New.
type Line struct {
	mu    sync.Mutex
	w     io.Writer
	label string
	total int64
	n     int64
	start time.Time
	last  time.Time
}

// New returns a progress line on stderr, or a silent one when stderr is not
// a terminal.
func New() *Line {
	if !term.IsTerminal(int(os.Stderr.Fd())) {
		return &Line{}
	}
	return &Line{w: os.Stderr}
}

// Start begins a new task; total < 0 means unknown.
func (p *Line) Start(label string, total int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.label, p.total, p.n, p.start = label, total, 0, time.Now()
}

// Add records n more units of work.
func (p *Line) Add(n int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.n += n
	if p.w == nil || time.Since(p.last) < 200*time.Millisecond {
		return
	}
	p.last = time.Now()
	p.draw()
}

func (p *Line) draw() {
	rate := float64(p.n) / max(time.Since(p.start).Seconds(), 1e-9)
	if p.total > 0 {
		fmt.Fprintf(p.w, "\r\033[K%s: %d/%d (%.0f%%, %.0f/s)", p.label, p.n, p.total, 100*float64(p.n)/float64(p.total), rate)
	} else {
		fmt.Fprintf(p.w, "\r\033[K%s: %d (%.0f/s)", p.label, p.n, rate)
	}
}

// Done ends the task and clears the line.
func (p *Line) Done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.w != nil {
		fmt.Fprint(p.w, "\r\033[K")
	}
}
