package overlap

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/leakaudit/leakaudit/canon"
	"github.com/leakaudit/leakaudit/dataset"
	"github.com/leakaudit/leakaudit/index"
)

// TestHostileDamagedDefaultIndex: a damaged index in the default folder
// (no DB given) is built again after saying so, found at open (a table's
// tail) or only by a lookup (a table block), with the undamaged report;
// the same damage in a folder given as DB is an error naming it.
func TestHostileDamagedDefaultIndex(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	dir := t.TempDir()
	var b strings.Builder
	for i := range 20000 {
		fmt.Fprintf(&b, "a%d\tx_{%d}\n", i, i%5000)
	}
	train := filepath.Join(dir, "train.txt")
	os.WriteFile(train, []byte(b.String()), 0o644)
	levels, _ := canon.ParseLevels("ws")
	var logged []string
	run := func(db string) (string, error) {
		logged = nil
		rep, err := Run(context.Background(), Job{
			Train:  []index.CorpusInput{{Name: "a", Source: dataset.Source{Path: train, Format: dataset.Caption}}},
			Tests:  []Split{{Name: "test", Source: dataset.Source{Path: train, Format: dataset.Caption}}},
			Levels: levels, MaxRefs: 2, DB: db,
			Log: func(f string, a ...any) { logged = append(logged, fmt.Sprintf(f, a...)) },
		})
		r, _ := json.Marshal(rep.Splits)
		return string(r), err
	}
	want, err := run("")
	if err != nil || !strings.Contains(want, `"found":20000`) {
		t.Fatalf("%v %s", err, want)
	}
	ixdirs, _ := filepath.Glob(filepath.Join(os.Getenv("XDG_CACHE_HOME"), "leakaudit", "index", "*"))
	if len(ixdirs) != 1 {
		t.Fatalf("default index folders %v", ixdirs)
	}
	damage := func(ixdir string, off func(size int64) int64) {
		ssts, _ := filepath.Glob(filepath.Join(ixdir, "shard-*", "*.sst"))
		for _, p := range ssts {
			fi, _ := os.Stat(p)
			fh, _ := os.OpenFile(p, os.O_WRONLY, 0)
			fh.WriteAt(make([]byte, 512), off(fi.Size()))
			fh.Close()
		}
	}
	for _, c := range []struct {
		name string
		off  func(int64) int64
	}{
		{"a table block", func(int64) int64 { return 0 }},
		{"a table's tail", func(n int64) int64 { return n - 512 }},
	} {
		damage(ixdirs[0], c.off)
		got, err := run("")
		if err != nil || got != want {
			t.Errorf("%s damaged in the default index: %v\n%s", c.name, err, got)
		}
		if l := strings.Join(logged, "\n"); !strings.Contains(l, "is damaged") || !strings.Contains(l, "building it again") {
			t.Errorf("%s damaged in the default index: not said\n%s", c.name, l)
		}
		// Given as DB: an error, and the folder left as it is.
		given := filepath.Join(dir, "given-"+strings.ReplaceAll(c.name, " ", "-"))
		if _, err := run(given); err != nil {
			t.Fatal(err)
		}
		damage(given, c.off)
		if got, err := run(given); !errors.Is(err, index.ErrDamaged) || !strings.Contains(err.Error(), given) {
			t.Errorf("%s damaged in a given index: %v\n%s", c.name, err, got)
		}
	}
}
