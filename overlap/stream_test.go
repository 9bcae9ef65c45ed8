package overlap

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/leakaudit/leakaudit/canon"
	"github.com/leakaudit/leakaudit/dataset"
	"github.com/leakaudit/leakaudit/fingerprint"
	"github.com/leakaudit/leakaudit/index"
)

// TestStreamEqualsIndex: a one-off check (training corpora streamed past
// the test keys) gives the same report and per-item evidence, byte for
// byte, as the index, with label files, a caption folder and a fingerprint
// as training corpora.
func TestStreamEqualsIndex(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	dir := t.TempDir()
	w := func(p, s string) string {
		p = filepath.Join(dir, p)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(s), 0o644)
		return p
	}
	a := w("a.json", `["x^2", "y + 1", "x ^ 2", "\\alphab", "z", "x^2"]`)
	b := w("b/caption.txt", "b0\tz\nb1\t\\frac{1}{2}\nb2\tx^2\n")
	c := w("c.jsonl", `{"id":"c0","latex":"q"}`+"\n"+`{"id":"c1","latex":"y+1"}`+"\n")
	test := w("test.json", `["x^2", "y+1", "\\alpha b", "\\frac12", "nothing", "q", "z"]`)
	levels, _ := canon.ParseLevels("raw,audit,ws,tokens")
	fp := filepath.Join(dir, "c.fp.parquet")
	if _, err := fingerprint.Write(fp, []fingerprint.Input{{Name: "c", Source: dataset.Source{Path: c}}}, fingerprint.Options{Levels: levels, Tool: "t"}); err != nil {
		t.Fatal(err)
	}
	var logged []string
	run := func(stream bool, db string) (string, string) {
		var items []ItemMatch
		logged = nil
		rep, err := Run(context.Background(), Job{
			Train: []index.CorpusInput{{Name: "a", Source: dataset.Source{Path: a}}, {Name: "b", Source: dataset.Source{Path: b, Format: dataset.Caption}}, {Name: "cfp", Source: dataset.Source{Path: fp}}},
			Tests: []Split{{Name: "test", Source: dataset.Source{Path: test}}}, Levels: levels, MaxRefs: 2, Stream: stream, DB: db,
			Item: func(m ItemMatch) error { items = append(items, m); return nil },
			Log:  func(f string, a ...any) { logged = append(logged, fmt.Sprintf(f, a...)) },
		})
		if err != nil {
			t.Fatal(err)
		}
		r, _ := json.Marshal(rep)
		i, _ := json.Marshal(items)
		return string(r), string(i)
	}
	r1, i1 := run(true, "")
	r2, i2 := run(false, filepath.Join(dir, "db"))
	if r1 != r2 {
		t.Errorf("reports differ:\nstream %s\nindex  %s", r1, r2)
	}
	if i1 != i2 {
		t.Errorf("items differ:\nstream %s\nindex  %s", i1, i2)
	}

	// No default index yet: the one-off path reads the corpora while
	// their checksums are computed. Once one is built in the default
	// folder, a one-off run uses it, with the same output.
	names, sizes := []string{"a", "b", "cfp"}, []int64{}
	for _, p := range []string{a, b, fp} {
		fi, _ := os.Stat(p)
		sizes = append(sizes, fi.Size())
	}
	if index.DefaultMayCover(names, sizes) {
		t.Fatal("DefaultMayCover before any default index was built")
	}
	run(false, "")
	if !index.DefaultMayCover(names, sizes) {
		t.Fatal("DefaultMayCover false for the default index just built")
	}
	if index.DefaultMayCover(names, []int64{sizes[0] + 1, sizes[1], sizes[2]}) || index.DefaultMayCover(names[:2], sizes[:2]) {
		t.Error("DefaultMayCover true for other sizes or other corpora")
	}
	r3, i3 := run(true, "")
	if !slices.ContainsFunc(logged, func(l string) bool { return strings.HasPrefix(l, "using index") }) {
		t.Errorf("a one-off run did not use the default index: %q", logged)
	}
	if r3 != r1 || i3 != i1 {
		t.Errorf("one-off run over the default index differs:\n%s\n%s", r3, r1)
	}
}
