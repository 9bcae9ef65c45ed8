package fingerprint

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/leakaudit/leakaudit/canon"
	"github.com/leakaudit/leakaudit/dataset"
	"github.com/leakaudit/leakaudit/imagehash"

	"github.com/parquet-go/parquet-go"
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

// labelsFile writes n labels "x_{i mod m} + i" to dir/name.json, a JSON
// list, and returns its path.
func labelsFile(t *testing.T, dir, name string, n, m int) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("[")
	for i := range n {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `"x_{%d} + %d"`, i%m, i)
	}
	b.WriteString("]")
	p := filepath.Join(dir, name+".json")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
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

// imageFolder writes a caption folder with img/: three drawn images (one
// without a caption, which the caption folder leaves out and its img/
// folder holds), a blank one, and one that cannot be decoded.
func imageFolder(t *testing.T, dir string) string {
	t.Helper()
	p := filepath.Join(dir, "split")
	if err := os.MkdirAll(filepath.Join(p, "img"), 0o755); err != nil {
		t.Fatal(err)
	}
	draw := func(name string, n int) {
		g := image.NewGray(image.Rect(0, 0, 120, 40))
		for i := range g.Pix {
			g.Pix[i] = 255
		}
		for k := 0; k < n; k++ {
			for y := 5 + 3*k; y < 35; y++ {
				for x := 10 + 25*k; x < 18+25*k+n; x++ {
					g.Pix[y*g.Stride+x] = 0
				}
			}
		}
		var b bytes.Buffer
		if err := png.Encode(&b, g); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(p, "img", name+".png"), b.Bytes(), 0o644)
	}
	draw("a", 2)
	draw("b", 3)
	draw("c", 4)
	draw("blank", 0)
	os.WriteFile(filepath.Join(p, "img", "broken.png"), []byte("\x89PNG\r\n\x1a\nnot really"), 0o644)
	os.WriteFile(filepath.Join(p, "caption.txt"), []byte("a\tx ^ { 2 }\nb\t\\frac { a } { b }\nblank\ty\nbroken\tz\n"), 0o644)
	return p
}

// TestImages: an image fingerprint holds, per decodable image, the
// fingerprint imagehash.Compute gives and its label's keys; a blank image
// has a row without hashes, an undecodable one is counted with its reason;
// the metadata records the hash settings and the sources; the same inputs
// give the same bytes.
func TestImages(t *testing.T) {
	dir := t.TempDir()
	src := imageFolder(t, dir)
	lv := levels(t, "ws")
	in := []Input{{Name: "train", Source: dataset.Source{Path: src}, SHA256: "abc"}, {Name: "plain", Source: dataset.Source{Path: filepath.Join(src, "img")}}}
	out := filepath.Join(dir, "img.fp.parquet")
	o := Options{Levels: lv, Tool: "test", Images: true, WithInk: true}
	res, err := Write(out, in, o)
	if err != nil {
		t.Fatal(err)
	}
	for i, rows := range []int64{3, 4} {
		ir := res.Inputs[i]
		if res.Complete || ir.Rows != rows || ir.Images != rows-1 || ir.Blank != 1 || ir.Stats.Skipped != 1 || len(ir.Stats.Reasons) != 1 {
			t.Fatalf("%+v", res)
		}
		for reason := range ir.Stats.Reasons {
			if !strings.Contains(reason, "cannot be decoded") {
				t.Errorf("skip reason %q", reason)
			}
		}
	}
	want := map[string]imagehash.Hashes{}
	if _, _, err := imagehash.Scan(context.Background(), dataset.ImageSource{Path: filepath.Join(src, "img")}, Settings(imagehash.Options{}).Options(), 1, nil,
		func(it dataset.ImageItem, fp imagehash.Hashes) error { want[it.ID] = fp; return nil }); err != nil {
		t.Fatal(err)
	}
	n := 0
	if _, err := Scan(out, func(r Row) error {
		n++
		fp, ok := r.Image()
		if !ok || fp != want[r.ID] {
			t.Errorf("row %s: image %+v (%v), want %+v", r.ID, fp, ok, want[r.ID])
		}
		_, hasKey := r.Key(canon.WS)
		if hasKey != (r.Corpus == "train") || r.Label != nil {
			t.Errorf("row %s/%s: key %v, label %v", r.Corpus, r.ID, hasKey, r.Label)
		}
		if fp.Blank != (r.ID == "blank") || fp.Blank && r.ImageHash != nil {
			t.Errorf("row %s: blank %v, hash %v", r.ID, fp.Blank, r.ImageHash)
		}
		return nil
	}); err != nil || n != 7 {
		t.Fatalf("%d rows, %v", n, err)
	}
	// Without WithInk: the same hashes, and no ink (the file does not
	// show the formulas).
	noInk := filepath.Join(dir, "noink.fp.parquet")
	if _, err := Write(noInk, in, Options{Levels: lv, Tool: "test", Images: true}); err != nil {
		t.Fatal(err)
	}
	inked := 0
	if _, err := Scan(noInk, func(r Row) error {
		fp, _ := r.Image()
		if len(r.ImageInk) > 0 || !fp.Ink.IsZero() {
			t.Errorf("row %s: ink kept without WithInk", r.ID)
		}
		if w := want[r.ID]; !w.Ink.IsZero() {
			inked++
			w.Ink = imagehash.Ink{}
			if fp != w {
				t.Errorf("row %s without ink: %+v, want %+v", r.ID, fp, w)
			}
		}
		return nil
	}); err != nil || inked == 0 {
		t.Fatalf("%d rows with ink in the images, %v", inked, err)
	}
	m, err := Open(out)
	if err != nil {
		t.Fatal(err)
	}
	if m.Images == nil || *m.Images != Settings(imagehash.Options{}) || m.Sources["train"] != "abc" {
		t.Errorf("meta %+v %+v", m.Images, m.Sources)
	}
	if err := m.CheckImages(imagehash.Options{Kind: imagehash.PHash, Canvas: imagehash.Stretch}); err != nil {
		t.Error(err)
	}
	if err := m.CheckImages(imagehash.Options{Kind: imagehash.DHash}); err == nil || !strings.Contains(err.Error(), "kind=dhash") {
		t.Errorf("another hash: %v", err)
	}
	a, _ := os.ReadFile(out)
	if _, err := Write(out, in, o); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(out); !bytes.Equal(a, b) {
		t.Error("the same images gave other bytes")
	}
	// A label fingerprint holds no images.
	lab := filepath.Join(dir, "labels.parquet")
	if _, err := Write(lab, corpus(t, dir), Options{Levels: lv, Tool: "test"}); err != nil {
		t.Fatal(err)
	}
	if m, _ := Open(lab); m.CheckImages(imagehash.Options{}) == nil {
		t.Error("a label fingerprint passed as images")
	}
	// Partitioned: the same rows.
	parts := filepath.Join(dir, "parts")
	o.Partitions = 3
	if _, err := Write(parts, in, o); err != nil {
		t.Fatal(err)
	}
	n = 0
	Scan(parts, func(r Row) error {
		if fp, ok := r.Image(); ok && fp == want[r.ID] {
			n++
		}
		return nil
	})
	if m, err := Open(parts); err != nil || m.Images == nil || n != 7 {
		t.Errorf("partitions: %d rows, %v", n, err)
	}
	if _, err := Write(out, in, Options{Levels: lv, Images: true, Hash: imagehash.Options{Canvas: "round"}}); err == nil {
		t.Error("an unknown canvas was accepted")
	}
}

// TestRowGroups: a fingerprint larger than a row group is written in
// several, bounded ones, and reads back row for row as one written whole.
func TestRowGroups(t *testing.T) {
	dir := t.TempDir()
	in := []Input{{Name: "train", Source: dataset.Source{Path: labelsFile(t, dir, "train", 10000, 777)}}}
	lv := levels(t, "audit,ws")
	read := func(groups int) []Row {
		t.Helper()
		rowGroupRows = groups
		defer func() { rowGroupRows = defaultRowGroupRows }()
		out := filepath.Join(dir, fmt.Sprint("fp", groups, ".parquet"))
		if _, err := Write(out, in, Options{Levels: lv, Tool: "test"}); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(out)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		fi, _ := f.Stat()
		pf, err := parquet.OpenFile(f, fi.Size())
		if err != nil {
			t.Fatal(err)
		}
		for _, rg := range pf.RowGroups() {
			if rg.NumRows() > int64(groups) {
				t.Errorf("a row group of %d rows, bound %d", rg.NumRows(), groups)
			}
		}
		if want := (10000 + groups - 1) / groups; len(pf.RowGroups()) != want {
			t.Errorf("%d row groups, want %d", len(pf.RowGroups()), want)
		}
		var rows []Row
		if _, err := Scan(out, func(r Row) error { rows = append(rows, r); return nil }); err != nil {
			t.Fatal(err)
		}
		return rows
	}
	whole, split := read(defaultRowGroupRows), read(1000)
	if len(whole) != 10000 || len(split) != 10000 {
		t.Fatalf("%d and %d rows, want 10000", len(whole), len(split))
	}
	for i := range whole {
		if fmt.Sprint(whole[i]) != fmt.Sprint(split[i]) {
			t.Fatalf("row %d: %v, in row groups %v", i, whole[i], split[i])
		}
	}
}
