package imagehash_test

import (
	"bytes"
	"image"
	_ "image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/leakaudit/leakaudit/imagehash"
	"github.com/leakaudit/leakaudit/internal/inkraster"
	"github.com/leakaudit/leakaudit/internal/shareddata"
)

// TestHostileThickPenSmallCanvasReal checks real handwriting (CROHME 2014
// InkML, the shared data) drawn with a thick pen on a small canvas: its
// ink is small against its pen, whose estimate exceeds the pen that drew
// it, so that the copy redrawn with the estimate lies 1.1–2.3 px from its
// CROHME bitmap. The ink also drawn with thinner pens (squeeze.go, for
// thick pens as for squeezed ink), and with ground added at a side where
// it was cut, verifies the copy, and no other item's bitmap.
func TestHostileThickPenSmallCanvasReal(t *testing.T) {
	data := shareddata.Dir(t)
	tests := []struct {
		seed uint64 // inkraster.Random
		ids  []string
	}{
		// pen 3.7, 137×137, AA, margin 12, cut 2.4% left, JPEG 55, ×0.75: the
		// last three are verified only by the ink drawn with ground added at
		// the cut side.
		{1769844810, []string{"519_em_448", "RIT_2014_185", "RIT_2014_186", "34_em_244", "512_em_292", "RIT_2014_60"}},
		// pen 3.3, 80×80, margin 8, JPEG 87, ×2.71
		{827649761, []string{"508_em_88", "RIT_2014_186", "RIT_2014_51"}},
	}
	bitmaps := map[string]imagehash.Hashes{}
	bitmap := func(id string) imagehash.Hashes {
		if fp, ok := bitmaps[id]; ok {
			return fp
		}
		fp := bitmapPrint(t, filepath.Join(data, "crohme", "2014", "img", id+".png"))
		bitmaps[id] = fp
		return fp
	}
	for _, tt := range tests {
		r := inkraster.Random(tt.seed)
		for _, id := range tt.ids {
			q := inkQuery(t, r, filepath.Join(data, "crohme-inkml", "2014", id+".inkml"))
			own := bitmap(id)
			_, ok := imagehash.Verify(q, own)
			t.Logf("%s, %s: copy %v, ink %.2f, thinner pens %v", r.Name, id, ok, imagehash.InkDistance(q, own), q.Squeezed())
			if !ok {
				t.Errorf("%s, %s: the copy is not verified (ink %.2f)", r.Name, id, imagehash.InkDistance(q, own))
			}
			for _, tc := range tests {
				for _, other := range tc.ids {
					if other == id {
						continue
					}
					if _, ok := imagehash.Verify(q, bitmap(other)); ok {
						t.Errorf("%s, %s: %s verified as its copy", r.Name, id, other)
					}
				}
			}
		}
	}
}

// TestHostileSmallInkSilhouetteReal checks real handwriting (CROHME
// train-sample InkML, the shared data) drawn so small against its pen
// that its ink, closed at the last small level, is a silhouette that
// other formulas of its length share: such a pair must not be verified
// (silhouetteLevel), while the copy still is, through the ink drawn with
// a thinner pen. Both queries made wrong pairs before the last level's
// own ink stopped verifying.
func TestHostileSmallInkSilhouetteReal(t *testing.T) {
	data := shareddata.Dir(t)
	tests := []struct {
		seed   uint64 // inkraster.Random
		ink    string // under crohme-inkml/train-sample
		others []string
	}{
		// pen 5.2, 288×474 stretched, AA, white on black, margin 27, cut
		// 2.8% bottom, JPEG 65: ink 234×16 px, three long formulas of
		// digits and brackets at 0.61–0.74 px at the last level.
		{3430153667, "HAMEX/formulaire028-equation070", []string{"formulaire013-equation060", "formulaire015-equation000", "formulaire025-equation000"}},
		// pen 4.0, 96×96, white on black, margin 12, cut 1.1% bottom:
		// another writer of the formula.
		{3697545901, "expressmatch/107_Fabricio", []string{"107_daniel"}},
	}
	bitmap := func(id string) imagehash.Hashes {
		return bitmapPrint(t, filepath.Join(data, "crohme", "train", "img", id+".png"))
	}
	for _, tt := range tests {
		r := inkraster.Random(tt.seed)
		q := inkQuery(t, r, filepath.Join(data, "crohme-inkml", "train-sample", tt.ink+".inkml"))
		if _, small := q.SmallLevel(); !small || q.TooSmall() {
			t.Fatalf("%s, %s: small ink %v, too small %v; want small and verifiable", r.Name, tt.ink, small, q.TooSmall())
		}
		if _, ok := imagehash.Verify(q, bitmap(filepath.Base(tt.ink))); !ok {
			t.Errorf("%s, %s: the copy is not verified", r.Name, tt.ink)
		}
		for _, other := range tt.others {
			if _, ok := imagehash.Verify(q, bitmap(other)); ok {
				t.Errorf("%s, %s: %s verified as its copy", r.Name, tt.ink, other)
			}
		}
	}
}

// bitmapPrint hashes the image at path as a training image.
func bitmapPrint(t *testing.T, path string) imagehash.Hashes {
	t.Helper()
	return bitmapHashes(t, path, false)
}

// bitmapQuery hashes the image at path as a query (with its probes).
func bitmapQuery(t *testing.T, path string) imagehash.Hashes {
	t.Helper()
	return bitmapHashes(t, path, true)
}

// bitmapHashes hashes the image at path, as a query when probe is set.
func bitmapHashes(t *testing.T, path string, probe bool) imagehash.Hashes {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	img, _, err := image.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	fp, err := imagehash.Compute(img, imagehash.Options{Kind: imagehash.PHash, Canvas: imagehash.Stretch, Probe: probe})
	if err != nil {
		t.Fatal(err)
	}
	return fp
}

// verifiedBy reports whether Verify verifies the pair only by the
// query's drawing by (imagehash.VerifyDrawing).
func verifiedBy(query, train imagehash.Hashes, by imagehash.Drawing) bool {
	_, ok, drawn := imagehash.VerifyDrawing(query, train)
	return ok && drawn == by
}

// inkQuery draws the InkML file at path with r and hashes it as a query.
func inkQuery(t *testing.T, r inkraster.Rasterizer, path string) imagehash.Hashes {
	t.Helper()
	enc, _, err := r.EncodeFile(path)
	if err != nil {
		t.Fatal(err)
	}
	img, _, err := image.Decode(bytes.NewReader(enc))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	q, err := imagehash.Compute(img, imagehash.Options{Kind: imagehash.PHash, Canvas: imagehash.Stretch, Probe: true})
	if err != nil {
		t.Fatal(err)
	}
	return q
}

// TestHostileThickerPenReal checks real handwriting (CROHME InkML, the
// shared data) whose pen the estimate puts too thin: the copy redrawn
// with the estimate has its strokes too thick on the canvas, each outline
// about a pixel out, and lies beyond VerifyInk from its bitmap. Its ink
// drawn with a thicker pen (thicker.go) verifies the copy, and no other
// bitmap of CROHME 2014 or train.
func TestHostileThickerPenReal(t *testing.T) {
	if testing.Short() {
		t.Skip("hashes the 9,820 CROHME bitmaps")
	}
	data := shareddata.Dir(t)
	tests := []struct {
		seed uint64 // inkraster.Random
		ink  string // under crohme-inkml
		own  string // under crohme
	}{
		// pen 4.6, 160 px high, margin 12, ×3.21 (a 14.8 px pen):
		// f ( t ) g ( t ), lying 0.90 px from its bitmap.
		{898010746, "2014/515_em_358", "2014"},
		// pen 5.2, 166×359 stretched, margin 1: the same formula.
		{2138547779, "2014/515_em_358", "2014"},
		// pen 4.4, 416×416, white on black, cut 2.2% right, ×1.36.
		{2326868523, "2014/28_em_148", "2014"},
		{2326868523, "2014/509_em_89", "2014"},
		// pen 4.5, 275×119, margin 5, ×1.97.
		{2383746991, "train-sample/HAMEX/formulaire003-equation030", "train"},
		// pen 1.0, 322×322, white on black, cut 0.2% right, JPEG 88: a
		// lone u.
		{3106024170, "train-sample/MathBrush/200922-949-5", "train"},
	}
	type bitmap struct {
		corpus, id string
		fp         imagehash.Hashes
	}
	var all []bitmap
	for _, corpus := range []string{"2014", "train"} {
		dir := filepath.Join(data, "crohme", corpus, "img")
		ents, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			id := strings.TrimSuffix(e.Name(), filepath.Ext(e.Name()))
			all = append(all, bitmap{corpus, id, bitmapPrint(t, filepath.Join(dir, e.Name()))})
		}
	}
	for _, tt := range tests {
		r := inkraster.Random(tt.seed)
		q := inkQuery(t, r, filepath.Join(data, "crohme-inkml", tt.ink+".inkml"))
		id := filepath.Base(tt.ink)
		found := false
		for _, b := range all {
			if b.corpus == tt.own && b.id == id {
				found = true
				_, ok, drawn := imagehash.VerifyDrawing(q, b.fp)
				thicker := ok && drawn == imagehash.ByThickerPen
				t.Logf("%s, %s: copy %v, ink %.2f, only by a thicker pen %v", r.Name, id, ok, imagehash.InkDistance(q, b.fp), thicker)
				if !thicker {
					t.Errorf("%s, %s: the copy is verified %v, by a thicker pen only %v; want both", r.Name, id, ok, thicker)
				}
				continue
			}
			if verifiedBy(q, b.fp, imagehash.ByThickerPen) {
				t.Errorf("%s, %s: %s/%s verified by a thicker pen", r.Name, id, b.corpus, b.id)
			}
		}
		if !found {
			t.Fatalf("%s: no bitmap in crohme/%s", id, tt.own)
		}
	}
}
