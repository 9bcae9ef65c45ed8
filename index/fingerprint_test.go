package index

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/leakaudit/leakaudit/checksum"
	"github.com/leakaudit/leakaudit/dataset"
	"github.com/leakaudit/leakaudit/fingerprint"
)

// TestIndexFromFingerprint: an index built from a fingerprint gives the
// lookups of one built from the corpora themselves, counts and named
// items alike: a fingerprint of one corpus (whose postings are numbered
// by the items' positions and name the corpus: Corpus.Items) and one of two
// corpora (whose postings name each item's corpus), each whole and in
// partitions. A fingerprint of one corpus naming a position twice is
// refused rather than losing a posting.
func TestIndexFromFingerprint(t *testing.T) {
	dir := t.TempDir()
	var labels []string
	for i := range 400 {
		labels = append(labels, fmt.Sprintf("x ^ { %d } + y", i%9)) // groups larger than the 10 refs asked for
	}
	a, fa := corpus(t, dir, "a", labels)
	b, fb := corpus(t, dir, "b", labels[:60])
	ls := levels(t, "audit,ws")
	index := func(name string, ins []CorpusInput, fps []checksum.Input) *DB {
		ix, err := Open(filepath.Join(dir, "ix-"+name), Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ix.Close() })
		build(t, ix, ins, fps, ls)
		return ix
	}
	lookups := func(ix *DB) []Match {
		var out []Match
		for _, l := range []string{"audit", "ws"} {
			for i := range 10 {
				out = append(out, lookup(t, ix, l, fmt.Sprintf("x^{%d}+y", i)))
			}
		}
		return out
	}
	fromFingerprint := func(name string, ins []CorpusInput, parts int) (*DB, error) {
		var fins []fingerprint.Input
		for _, in := range ins {
			fins = append(fins, fingerprint.Input{Name: in.Name, Source: in.Source})
		}
		out := filepath.Join(dir, name+".fp.parquet")
		if _, err := fingerprint.Write(out, fins, fingerprint.Options{Levels: ls, Partitions: parts}); err != nil {
			t.Fatal(err)
		}
		return fromPath(t, dir, name, out)
	}
	wantA := lookups(index("a", []CorpusInput{a}, []checksum.Input{fa}))
	wantAB := lookups(index("ab", []CorpusInput{a, b}, []checksum.Input{fa, fb}))
	for _, tc := range []struct {
		name  string
		ins   []CorpusInput
		parts int
		want  []Match
		items string
	}{
		{"one", []CorpusInput{a}, 0, wantA, "a"},
		{"one-partitioned", []CorpusInput{a}, 4, wantA, "a"},
		{"two", []CorpusInput{a, b}, 0, wantAB, ""},
		{"two-partitioned", []CorpusInput{a, b}, 3, wantAB, ""},
	} {
		ix, err := fromFingerprint(tc.name, tc.ins, tc.parts)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := lookups(ix); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: lookups\n%v\nwant\n%v", tc.name, got, tc.want)
		}
		if got := ix.Manifest().Corpora[0].Items; got != tc.items {
			t.Errorf("%s: items corpus %q, want %q", tc.name, got, tc.items)
		}
	}
	// One corpus's fingerprint twice over, as the partitions of a folder.
	one := filepath.Join(dir, "one.fp.parquet")
	twice := filepath.Join(dir, "twice")
	if err := os.MkdirAll(twice, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"part-0.parquet", "part-1.parquet"} {
		data, err := os.ReadFile(one)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(twice, p), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := fromPath(t, dir, "twice", twice); err == nil || !strings.Contains(err.Error(), "two items at position 0") {
		t.Errorf("a corpus's positions twice: %v", err)
	}
}

// fromPath builds an index from the fingerprint at path.
func fromPath(t *testing.T, dir, name, path string) (*DB, error) {
	t.Helper()
	fp, err := checksum.Of(path)
	if err != nil {
		t.Fatal(err)
	}
	ix, err := Open(filepath.Join(dir, "ix-fp-"+name), Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	_, err = ix.Build(t.Context(), []CorpusInput{{Name: name, Source: dataset.Source{Path: path}}}, []checksum.Input{{Name: name, File: fp}}, levels(t, "audit,ws"), "test", nil)
	return ix, err
}
