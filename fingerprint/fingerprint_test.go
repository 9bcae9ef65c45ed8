package fingerprint

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/leakaudit/leakaudit/canon"
	"github.com/leakaudit/leakaudit/dataset"
)

func levels(t *testing.T, names string) []canon.Level {
	t.Helper()
	l, err := canon.ParseLevels(names)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func corpus(t *testing.T, dir string) []Input {
	t.Helper()
	p := filepath.Join(dir, "train.json")
	if err := os.WriteFile(p, []byte(`["x ^ { 2 }", "\\frac { a } { b }", "x^{2}", "{"]`), 0o644); err != nil {
		t.Fatal(err)
	}
	return []Input{{Name: "train", Source: dataset.Source{Path: p}}}
}

// TestRoundTrip: the rows read back hold each level's digest of the
// label's key, the token count and no label; the same inputs give the
// same bytes.
func TestRoundTrip(t *testing.T) {
	dir := t.TempDir()
	lv := levels(t, "audit,ws,tokens")
	in := corpus(t, dir)
	out := filepath.Join(dir, "fp.parquet")
	res, err := Write(out, in, Options{Levels: lv, Tool: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Complete || res.Inputs[0].Rows != 4 {
		t.Fatalf("%+v", res)
	}
	if !Is(out) || Is(in[0].Source.Path) {
		t.Error("Is does not tell a fingerprint from a label file")
	}
	labels := []string{`x ^ { 2 }`, `\frac { a } { b }`, `x^{2}`, `{`}
	var rows []Row
	if _, err := Scan(out, func(r Row) error { rows = append(rows, r); return nil }); err != nil {
		t.Fatal(err)
	}
	for i, r := range rows {
		for _, l := range lv {
			k, _ := l.Canon(labels[i])
			if d, ok := r.Key(l.ID); !ok || d != canon.DigestOf(k, nil) {
				t.Errorf("row %d level %s: digest %x, want that of %q", i, l.Name, d, k)
			}
		}
		if _, ok := r.Key(canon.Render); ok || r.Label != nil || r.Corpus != "train" || r.Seq != int64(i) {
			t.Errorf("row %d: %+v", i, r)
		}
	}
	if rows[0].Tokens != 5 || rows[3].Tokens != -1 {
		t.Errorf("token counts %d, %d; want 5 and -1", rows[0].Tokens, rows[3].Tokens)
	}
	a, _ := os.ReadFile(out)
	if _, err := Write(out, in, Options{Levels: lv, Tool: "test"}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(out); !bytes.Equal(a, b) {
		t.Error("the same inputs gave other bytes")
	}
}

// TestCheck: a fingerprint is refused at a level it lacks, under other
// rules, or with another salt, each with a message saying which.
func TestCheck(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "fp.parquet")
	if _, err := Write(out, corpus(t, dir), Options{Levels: levels(t, "ws"), Salt: []byte("s3cret"), Tool: "test"}); err != nil {
		t.Fatal(err)
	}
	m, err := Open(out)
	if err != nil {
		t.Fatal(err)
	}
	ws := levels(t, "ws")
	older := []canon.Level{ws[0]}
	older[0].Version++
	for _, tc := range []struct {
		levels []canon.Level
		salt   string
		want   string
	}{
		{ws, "s3cret", ""},
		{levels(t, "tokens"), "s3cret", "holds no tokens keys"},
		{older, "s3cret", "rules version"},
		{ws, "", "give the salt"},
		{ws, "other", "another salt"},
	} {
		err := m.Check(tc.levels, []byte(tc.salt))
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("levels %v salt %q: %v, want %q", tc.levels, tc.salt, err, tc.want)
		}
	}
}

// TestPartitions: a partitioned fingerprint is a folder of part=NNN files
// whose rows together are those of the single file.
func TestPartitions(t *testing.T) {
	dir := t.TempDir()
	in := corpus(t, dir)
	lv := levels(t, "ws")
	out := filepath.Join(dir, "fp")
	if _, err := Write(out, in, Options{Levels: lv, Partitions: 4, Tool: "test"}); err != nil {
		t.Fatal(err)
	}
	parts, _ := filepath.Glob(filepath.Join(out, "part=*", "data.parquet"))
	if len(parts) == 0 || !Is(out) {
		t.Fatalf("%d partitions", len(parts))
	}
	n := 0
	if _, err := Scan(out, func(r Row) error { n++; return nil }); err != nil || n != 4 {
		t.Errorf("%d rows (%v), want 4", n, err)
	}
}
