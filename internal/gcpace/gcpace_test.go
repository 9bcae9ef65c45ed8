package gcpace

import (
	"runtime"
	"runtime/debug"
	"testing"
)

func TestPercentFor(t *testing.T) {
	for _, c := range []struct {
		live, headroom uint64
		want           int
	}{
		{0, 256 << 20, 6400},
		{1, 256 << 20, 6400},
		{2 << 20, 256 << 20, 6400},
		{0, 1 << 20, 100},
		{64 << 20, 256 << 20, 400},
		{100 << 20, 256 << 20, 256},
		{256 << 20, 256 << 20, 100},
		{1 << 30, 256 << 20, 100},
	} {
		if got := percentFor(c.live, c.headroom); got != c.want {
			t.Errorf("percentFor(%d, %d) = %d, want %d", c.live, c.headroom, got, c.want)
		}
	}
}

// TestStartRestores checks that Start raises the percentage for a small
// live heap, keeps it set across collections, and that stop puts back the
// one in force before.
func TestStartRestores(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	prev := debug.SetGCPercent(77)
	defer debug.SetGCPercent(prev)
	stop := Start()
	for range 3 {
		runtime.GC()
	}
	if got := debug.SetGCPercent(-1); got <= defaultPercent {
		t.Errorf("while paced: GOGC %d, want more than %d for a test's live heap", got, defaultPercent)
	} else {
		debug.SetGCPercent(got)
	}
	stop()
	stop() // twice is harmless
	runtime.GC()
	runtime.GC()
	if got := debug.SetGCPercent(77); got != 77 {
		t.Errorf("after stop: GOGC %d, want 77", got)
	}
}

func TestStartLeavesUserSetting(t *testing.T) {
	t.Setenv("GOGC", "50")
	prev := debug.SetGCPercent(50)
	defer debug.SetGCPercent(prev)
	stop := Start()
	defer stop()
	runtime.GC()
	if got := debug.SetGCPercent(50); got != 50 {
		t.Errorf("with GOGC=50 in the environment: GOGC %d, want 50", got)
	}
}
