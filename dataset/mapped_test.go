package dataset

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestScanMappedOrderAndStop(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "l.txt")
	var b strings.Builder
	for i := range 10_000 {
		fmt.Fprintf(&b, "x_%d\n", i)
	}
	os.WriteFile(p, []byte(b.String()), 0o644)
	for _, workers := range []int{1, 2, 7} {
		next := int64(0)
		st, err := ScanMapped(context.Background(), Source{Path: p, Format: Lines}, workers, func(it Item) string { return strings.ToUpper(it.Label) },
			func(it Item, v string) error {
				if it.Seq != next || v != strings.ToUpper(it.Label) {
					return fmt.Errorf("item %d (%q → %q) out of order, want %d", it.Seq, it.Label, v, next)
				}
				next++
				return nil
			})
		if err != nil || st.Items != 10_000 || next != 10_000 {
			t.Fatalf("workers %d: %v, %d items, %d consumed", workers, err, st.Items, next)
		}
	}
	stop := errors.New("stop")
	n := 0
	_, err := ScanMapped(context.Background(), Source{Path: p, Format: Lines}, 2, func(it Item) int { return 0 },
		func(Item, int) error {
			if n++; n == 5000 {
				return stop
			}
			return nil
		})
	if !errors.Is(err, stop) || n != 5000 {
		t.Errorf("stop: %v after %d", err, n)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := ScanMapped(ctx, Source{Path: p, Format: Lines}, 2, func(it Item) int { return 0 }, func(Item, int) error { return nil }); err == nil {
		t.Error("a cancelled context was ignored")
	}
}
