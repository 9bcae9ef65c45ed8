package audit

import (
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestAuditSplitReadsWithinWorkers: the splits' files are read on at most
// Workers goroutines at once, every split is read once, and a panic
// reading one is that split's error.
func TestAuditSplitReadsWithinWorkers(t *testing.T) {
	dir := t.TempDir()
	var cfg strings.Builder
	cfg.WriteString("name: t\ntrain:\n  - {name: t, path: train.json}\nsplits:\n")
	files := map[string]string{"train.json": `["x ^ { 2 }", "y"]`}
	const splits = 5
	for i := range splits {
		name := string(rune('a'+i)) + ".json"
		files[name] = `[{"img_id": "a", "gt": "x ^ { 2 }", "pred": "x ^ { 2 }"}, {"img_id": "b", "gt": "y", "pred": "z"}]`
		cfg.WriteString("  - {name: " + name[:1] + ", role: test, predictions: " + name + "}\n")
	}
	files["audit.yaml"] = cfg.String()
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	defer func(f func(splitPlan) splitRead) { splitReader = f }(splitReader)
	for _, tc := range []struct {
		workers, want int
		panicOn       string // the split whose reading panics
	}{{1, 1, ""}, {2, 2, ""}, {3, 3, ""}, {2, 2, "c"}} {
		var active, peak, reads atomic.Int32
		splitReader = func(sp splitPlan) splitRead {
			a := active.Add(1)
			defer active.Add(-1)
			for p := peak.Load(); a > p && !peak.CompareAndSwap(p, a); p = peak.Load() {
			}
			reads.Add(1)
			time.Sleep(20 * time.Millisecond)
			if sp.cfg.Name == tc.panicOn {
				panic("boom")
			}
			return readSplitFile(sp)
		}
		c, err := LoadConfig(filepath.Join(dir, "audit.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		c.DB = filepath.Join(t.TempDir(), "db")
		_, err = Run(t.Context(), Job{Config: c, Tool: "test", Workers: tc.workers})
		switch {
		case tc.panicOn == "" && err != nil:
			t.Errorf("%d workers: %v", tc.workers, err)
		case tc.panicOn != "" && (err == nil || !strings.Contains(err.Error(), "internal error: boom")):
			t.Errorf("%d workers, a panic reading split %s: error %v", tc.workers, tc.panicOn, err)
		}
		if got := int(peak.Load()); got > tc.want || got < min(tc.want, 2) {
			t.Errorf("%d workers: %d splits read at once, want %d", tc.workers, got, tc.want)
		}
		if n := reads.Load(); n != splits {
			t.Errorf("%d workers: %d split reads, want %d", tc.workers, n, splits)
		}
	}
}
