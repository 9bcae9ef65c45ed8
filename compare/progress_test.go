package compare_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/leakaudit/leakaudit/compare"
)

// tasks records what a progress.Reporter is told.
type tasks struct {
	mu  sync.Mutex
	log []string // "start LABEL TOTAL", "done LABEL N"
	cur string
	n   int64
}

func (r *tasks) Start(label string, total int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.log = append(r.log, fmt.Sprintf("start %s %d", label, total))
	r.cur, r.n = label, 0
}

func (r *tasks) Add(n int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.n += n
}

func (r *tasks) Done() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.log = append(r.log, fmt.Sprintf("done %s %d", r.cur, r.n))
}

// TestProgressReporter: a comparison reports each split's CDM scoring as
// one task of the progress.Reporter, every unit of it added before Done:
// 60 distinct formulas rendered (40 ground truths, the 20 wrong
// predictions both models share), then 80 pairs scored.
func TestProgressReporter(t *testing.T) {
	a := func(i int) (bool, bool) { return true, i%2 == 0 }
	b := func(i int) (bool, bool) { return true, i%2 == 0 }
	c, err := compare.LoadConfig(fixture(t, map[string]func(int) (bool, bool){"a": a, "b": b}))
	if err != nil {
		t.Fatal(err)
	}
	var rep tasks
	if _, err := compare.Run(context.Background(), compare.Job{Config: c, Tool: "test", Progress: &rep}); err != nil {
		t.Fatal(err)
	}
	want := []string{"start CDM s 140", "done CDM s 140"}
	if fmt.Sprint(rep.log) != fmt.Sprint(want) {
		t.Errorf("progress %q, want %q", rep.log, want)
	}
}
