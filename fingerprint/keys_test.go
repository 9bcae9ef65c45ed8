package fingerprint

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/leakaudit/leakaudit/canon"
	"github.com/leakaudit/leakaudit/dataset"
)

// keysByRows is what ScanKeys must give: Scan's rows, reduced.
func keysByRows(t *testing.T, path string, ids []canon.LevelID) []string {
	t.Helper()
	var out []string
	if _, err := Scan(path, func(r Row) error {
		s := fmt.Sprintf("%s|%s|%d", r.Corpus, r.ID, r.Seq)
		for _, id := range ids {
			d, ok := r.Key(id)
			s += fmt.Sprintf("|%v:%x", ok, d)
		}
		out = append(out, s)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

func keysDirect(t *testing.T, path string, ids []canon.LevelID) []string {
	t.Helper()
	var out []string
	st, err := ScanKeys(path, ids, func(k *KeyRow) error {
		s := fmt.Sprintf("%s|%s|%d", k.Corpus, k.ID, k.Seq)
		for i := range ids {
			d := k.Keys[i]
			if !k.Has[i] {
				d = canon.Digest{}
			}
			s += fmt.Sprintf("|%v:%x", k.Has[i], d)
		}
		out = append(out, s)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if st.Items != int64(len(out)) || st.FileError != "" {
		t.Errorf("stats %+v for %d rows", st, len(out))
	}
	return out
}

// dictRow is Row's label columns, dictionary-encoded: a file rewritten
// by another writer, which ScanKeys reads row by row.
type dictRow struct {
	Corpus string `parquet:"corpus,dict"`
	ID     string `parquet:"id,dict"`
	Seq    int64  `parquet:"seq"`
	KeyWS  []byte `parquet:"key_ws,optional,dict"`
}

// TestScanKeys: ScanKeys gives Scan's corpus, id and keys, row for row:
// over one and several row groups, partitions, several corpora, levels
// the rows lack (null keys), and a dictionary-encoded file.
func TestScanKeys(t *testing.T) {
	dir := t.TempDir()
	in := append(corpus(t, dir), Input{Name: "big", Source: dataset.Source{Path: labelsFile(t, dir, "big", 3000, 77)}})
	lv := levels(t, "audit,ws")
	ids := []canon.LevelID{canon.Audit, canon.WS}
	check := func(name, path string, ids []canon.LevelID) {
		t.Helper()
		want, got := keysByRows(t, path, ids), keysDirect(t, path, ids)
		if len(want) == 0 || len(got) != len(want) {
			t.Fatalf("%s: %d rows, want %d", name, len(got), len(want))
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("%s: row %d is %s, want %s", name, i, got[i], want[i])
			}
		}
	}
	one := filepath.Join(dir, "one.parquet")
	if _, err := Write(one, in, Options{Levels: lv, Tool: "test"}); err != nil {
		t.Fatal(err)
	}
	check("one file", one, ids)
	if n := len(keysByRows(t, one, ids)); n != 3004 {
		t.Fatalf("%d rows, want 3004", n)
	}
	check("a level the rows lack", one, []canon.LevelID{canon.WS, canon.Tokens, canon.Audit})
	check("no level", one, nil)

	rowGroupRows = 500
	groups := filepath.Join(dir, "groups.parquet")
	_, err := Write(groups, in, Options{Levels: lv, Tool: "test", WithLabels: true})
	rowGroupRows = defaultRowGroupRows
	if err != nil {
		t.Fatal(err)
	}
	check("row groups", groups, ids)

	parts := filepath.Join(dir, "parts")
	if _, err := Write(parts, in, Options{Levels: lv, Tool: "test", Partitions: 4}); err != nil {
		t.Fatal(err)
	}
	check("partitions", parts, ids)

	dict := filepath.Join(dir, "dict.parquet")
	f, err := os.Create(dict)
	if err != nil {
		t.Fatal(err)
	}
	w := parquet.NewGenericWriter[dictRow](f)
	var rows []dictRow
	for i := range 100 {
		r := dictRow{Corpus: "c", ID: fmt.Sprint("id", i%7), Seq: int64(i)}
		if i%3 != 0 {
			d := canon.DigestOf(fmt.Sprint(i%5), nil)
			r.KeyWS = d[:]
		}
		rows = append(rows, r)
	}
	if _, err := w.Write(rows); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	check("dictionary pages", dict, []canon.LevelID{canon.WS})
	if direct, err := scanKeysFile(dict, []canon.LevelID{canon.WS}, &KeyRow{Keys: make([]canon.Digest, 1), Has: make([]bool, 1)}, nil, &dataset.Stats{}); direct || err != nil {
		t.Errorf("a dictionary-encoded file read directly (%v, %v)", direct, err)
	}
	if direct, err := scanKeysFile(one, ids, &KeyRow{Keys: make([]canon.Digest, 2), Has: make([]bool, 2)}, func(*KeyRow) error { return nil }, &dataset.Stats{}); !direct || err != nil {
		t.Errorf("leakaudit's own file not read directly (%v, %v)", direct, err)
	}
}

// TestOneCorpus: OneCorpus names the corpus of a fingerprint of one, whole
// or in partitions, and of no fingerprint of two.
func TestOneCorpus(t *testing.T) {
	dir := t.TempDir()
	big := Input{Name: "big", Source: dataset.Source{Path: labelsFile(t, dir, "big", 3000, 77)}}
	lv := levels(t, "ws")
	for _, tc := range []struct {
		name  string
		ins   []Input
		parts int
		want  string
	}{
		{"one", []Input{big}, 0, "big"},
		{"one-partitioned", []Input{big}, 3, "big"},
		{"two", append(corpus(t, dir), big), 0, ""},
		{"two-partitioned", append(corpus(t, dir), big), 3, ""},
	} {
		out := filepath.Join(dir, tc.name+".parquet")
		if _, err := Write(out, tc.ins, Options{Levels: lv, Tool: "test", Partitions: tc.parts}); err != nil {
			t.Fatal(err)
		}
		name, ok, err := OneCorpus(out)
		if err != nil || name != tc.want || ok != (tc.want != "") {
			t.Errorf("%s: OneCorpus = %q, %v, %v; want %q", tc.name, name, ok, err, tc.want)
		}
	}
}
