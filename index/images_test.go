package index

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/leakaudit/leakaudit/canon"
	"github.com/leakaudit/leakaudit/checksum"
	"github.com/leakaudit/leakaudit/dataset"
	"github.com/leakaudit/leakaudit/fingerprint"
	"github.com/leakaudit/leakaudit/imagehash"
)

func imageFolder(t *testing.T, n int) string {
	dir := filepath.Join(t.TempDir(), "imgs")
	os.MkdirAll(dir, 0o755)
	for i := 0; i < n; i++ {
		g := image.NewGray(image.Rect(0, 0, 40, 20))
		for p := range g.Pix {
			g.Pix[p] = 255
			if (p*7+i*3)%11 < 3 {
				g.Pix[p] = 0
			}
		}
		var b bytes.Buffer
		png.Encode(&b, g)
		os.WriteFile(filepath.Join(dir, string(rune('a'+i))+".png"), b.Bytes(), 0o644)
	}
	os.WriteFile(filepath.Join(dir, "broken.png"), []byte("not a png"), 0o644)
	return dir
}

func TestImageIndexRoundTrip(t *testing.T) {
	folder := imageFolder(t, 5)
	fp, err := checksum.Of(folder)
	if err != nil {
		t.Fatal(err)
	}
	in := []ImageCorpusInput{{Name: "imgs", Source: dataset.ImageSource{Path: folder}}}
	fps := []checksum.Input{{Name: "imgs", File: fp}}
	set := ImageSettings{Kind: imagehash.PHash, Canvas: imagehash.Stretch}
	dir := filepath.Join(t.TempDir(), "db")
	db, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := db.BuildImages(context.Background(), in, fps, set, "test", 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Postings != 5 {
		t.Errorf("%d images hashed", rep.Postings)
	}
	m := db.Manifest()
	if !m.CoversImages(fps, set) || m.ImageCorpora[0].Stats.Skipped != 1 || m.ImageCorpora[0].Stats.Examples[0].ID != "broken" {
		t.Errorf("manifest %+v", m.ImageCorpora)
	}
	other := set
	other.Canvas = imagehash.Aspect
	if m.CoversImages(fps, other) {
		t.Error("manifest covers other settings")
	}
	var got []ImageRecord
	db.Images(func(r ImageRecord) error { got = append(got, r); return nil })
	if len(got) != 5 || got[0].ID != "a" || got[4].ID != "e" || got[0].Corpus != "imgs" {
		t.Fatalf("records %+v", got)
	}
	// The stored fingerprint equals a fresh one.
	data, _ := os.ReadFile(filepath.Join(folder, "a.png"))
	img, _ := dataset.ImageItem{Data: data}.Decode(dataset.ImageLimits{})
	fresh, _ := imagehash.Compute(img, imagehash.Options{Kind: imagehash.PHash, Canvas: imagehash.Stretch})
	if got[0].Print != fresh {
		t.Errorf("stored %+v, fresh %+v", got[0].Print, fresh)
	}
	// Other settings rebuild the hashes, and label postings survive.
	rep, err = db.BuildImages(context.Background(), in, fps, other, "test", 2, nil)
	if err != nil || rep.Rebuilt == "" {
		t.Errorf("settings change: %+v, %v", rep, err)
	}
	n := 0
	db.Images(func(ImageRecord) error { n++; return nil })
	if n != 5 {
		t.Errorf("%d records after the rebuild", n)
	}
	db.Close()
}

// TestLabelsAndImagesShareADB builds label postings and image hashes in one
// folder, then rebuilds each kind: the other must survive.
func TestLabelsAndImagesShareADB(t *testing.T) {
	dir := t.TempDir()
	a, fa := corpus(t, dir, "a", []string{"x", "y"})
	folder := imageFolder(t, 3)
	ffp, _ := checksum.Of(folder)
	imgs := []ImageCorpusInput{{Name: "imgs", Source: dataset.ImageSource{Path: folder}}}
	ifps := []checksum.Input{{Name: "imgs", File: ffp}}
	set := ImageSettings{Kind: imagehash.PHash, Canvas: imagehash.Stretch}
	dbdir := filepath.Join(dir, "db")
	db, _ := Open(dbdir, Options{})
	build(t, db, []CorpusInput{a}, []checksum.Input{fa}, levels(t, "audit"))
	if _, err := db.BuildImages(context.Background(), imgs, ifps, set, "test", 1, nil); err != nil {
		t.Fatal(err)
	}
	// A different label corpus rebuilds the postings only.
	b, fb := corpus(t, dir, "b", []string{"z"})
	build(t, db, []CorpusInput{b}, []checksum.Input{fb}, levels(t, "audit"))
	db.Close()
	db, err := OpenReadOnly(dbdir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if lookup(t, db, "audit", "z").Count != 1 || lookup(t, db, "audit", "x").Count != 0 {
		t.Error("label postings wrong after the rebuild")
	}
	n := 0
	if err := db.Images(func(ImageRecord) error { n++; return nil }); err != nil || n != 3 {
		t.Errorf("%d image records after the label rebuild (%v)", n, err)
	}
	if !db.Manifest().CoversImages(ifps, set) {
		t.Error("image manifest lost")
	}
}

// TestLoadImageFingerprint: the records of an image fingerprint are the
// records the index stores for the same images (ids, positions, prints);
// other hash settings and a label fingerprint are refused.
func TestLoadImageFingerprint(t *testing.T) {
	folder := imageFolder(t, 5)
	dir := t.TempDir()
	fpPath := filepath.Join(dir, "imgs.fp.parquet")
	lv, _ := canon.ParseLevels("ws")
	if _, err := fingerprint.Write(fpPath, []fingerprint.Input{{Name: "imgs", Source: dataset.Source{Path: folder}}},
		fingerprint.Options{Levels: lv, Images: true, WithInk: true, Tool: "test"}); err != nil {
		t.Fatal(err)
	}
	o := imagehash.Options{Kind: imagehash.PHash, Canvas: imagehash.Stretch}
	f, err := LoadImageFingerprint(fpPath, o)
	if err != nil {
		t.Fatal(err)
	}
	fp, _ := checksum.Of(folder)
	db, err := Open(filepath.Join(dir, "db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.BuildImages(context.Background(), []ImageCorpusInput{{Name: "imgs", Source: dataset.ImageSource{Path: folder}}},
		[]checksum.Input{{Name: "imgs", File: fp}}, ImageSettings{Kind: o.Kind, Canvas: o.Canvas}, "test", 2, nil); err != nil {
		t.Fatal(err)
	}
	var want []ImageRecord
	db.Images(func(r ImageRecord) error { want = append(want, r); return nil })
	if len(f.Records) != 5 || len(want) != 5 || f.Stats.Items != 5 {
		t.Fatalf("%d records from the fingerprint (%+v), %d from the index", len(f.Records), f.Stats, len(want))
	}
	for i, r := range f.Records {
		if w := want[i]; r.Corpus != w.Corpus || r.Seq != w.Seq || r.ID != w.ID || r.Print != w.Print || r.HasLabel || r.HasWSKey {
			t.Errorf("record %d: %+v, want %+v", i, r, w)
		}
	}
	if _, err := LoadImageFingerprint(fpPath, imagehash.Options{Kind: imagehash.PHash, Canvas: imagehash.Aspect}); err == nil || !strings.Contains(err.Error(), "canvas=aspect") {
		t.Errorf("other canvas: %v", err)
	}
	labels := filepath.Join(dir, "labels.json")
	os.WriteFile(labels, []byte(`["x"]`), 0o644)
	lfp := filepath.Join(dir, "labels.fp.parquet")
	if _, err := fingerprint.Write(lfp, []fingerprint.Input{{Name: "l", Source: dataset.Source{Path: labels}}}, fingerprint.Options{Levels: lv}); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadImageFingerprint(lfp, o); err == nil || !strings.Contains(err.Error(), "no image hashes") {
		t.Errorf("a label fingerprint: %v", err)
	}
}

// TestImageIndexCanary: an image index whose hashes were made by code
// with another canary (or none recorded), under the same settings and
// version, does not cover the images: it is hashed again, with a reason
// that names the canary.
func TestImageIndexCanary(t *testing.T) {
	folder := imageFolder(t, 3)
	fp, err := checksum.Of(folder)
	if err != nil {
		t.Fatal(err)
	}
	in := []ImageCorpusInput{{Name: "imgs", Source: dataset.ImageSource{Path: folder}}}
	fps := []checksum.Input{{Name: "imgs", File: fp}}
	set := ImageSettings{Kind: imagehash.PHash, Canvas: imagehash.Stretch}
	for _, tc := range []struct{ name, canary, reason string }{
		{"another canary", "0123456789abcdef0123456789abcdef", "hashes the canary images differently"},
		{"no canary", "", "recorded no image canary"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "db")
			db, err := Open(dir, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := db.BuildImages(context.Background(), in, fps, set, "test", 1, nil); err != nil {
				t.Fatal(err)
			}
			if got := db.Manifest().ImageHash.Canary; got != fingerprint.ImageCanary() {
				t.Fatalf("manifest canary %q, want %q", got, fingerprint.ImageCanary())
			}
			// The index as another build would have left it.
			db.m.ImageHash.Canary = tc.canary
			if err := db.saveManifest(); err != nil {
				t.Fatal(err)
			}
			db.Close()
			if db, err = Open(dir, Options{}); err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if db.Manifest().CoversImages(fps, set) {
				t.Error("an index of another canary covers the images")
			}
			rep, err := db.BuildImages(context.Background(), in, fps, set, "test", 1, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(rep.Rebuilt, tc.reason) || len(rep.Indexed) != 1 || len(rep.Reused) != 0 || rep.Postings != 3 {
				t.Errorf("rebuild: %+v", rep)
			}
			if m := db.Manifest(); !m.CoversImages(fps, set) || m.ImageHash.Canary != fingerprint.ImageCanary() {
				t.Errorf("after the rebuild: covers %v, canary %q", m.CoversImages(fps, set), m.ImageHash.Canary)
			}
		})
	}
}
