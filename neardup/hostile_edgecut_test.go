package neardup_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/leakaudit/leakaudit/dataset"
	"github.com/leakaudit/leakaudit/imagehash"
	"github.com/leakaudit/leakaudit/index"
	"github.com/leakaudit/leakaudit/internal/inkraster"
	"github.com/leakaudit/leakaudit/internal/shareddata"
	"github.com/leakaudit/leakaudit/neardup"
)

// TestHostileEdgeCut: CROHME 2014 expressions rasterized by the
// stretch-256 corner rasterizer, whose ink is cut by 3% at the right edge,
// are found against their own bitmaps although each one's pHash is beyond
// the default radius from the query and from every probe: the edge keys
// find them (Pair.EdgeKey) and the ink verifies them. Without the edge
// keys none of them is found.
func TestHostileEdgeCut(t *testing.T) {
	data := shareddata.Dir(t)
	c14, ink14 := filepath.Join(data, "crohme", "2014", "img"), filepath.Join(data, "crohme-inkml", "2014")
	// Retrieval misses of the pHash search on stretch-256 (stop 42).
	// (32_em_220c was one: the 3% its box is pushed past the edge holds
	// only a point the pen draws as nothing, so no ink of it reaches the
	// edge, and since queries whose ink reaches no edge do not search by
	// edge keys it is not found.)
	ids := []string{"20_em_29", "20_em_34", "23_em_65", "26_em_91", "27_em_124", "28_em_147", "36_em_28"}
	var r inkraster.Rasterizer
	for _, c := range inkraster.Corners() {
		if c.Name == "stretch-256" {
			r = c
		}
	}
	tmp := t.TempDir()
	train, test := filepath.Join(tmp, "train"), filepath.Join(tmp, "test")
	for _, d := range []string{train, test} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, id := range ids {
		b, err := os.ReadFile(filepath.Join(c14, id+".png"))
		if err != nil {
			t.Skipf("shared data: %v", err)
		}
		if err := os.WriteFile(filepath.Join(train, id+".png"), b, 0o644); err != nil {
			t.Fatal(err)
		}
		ink, err := os.ReadFile(filepath.Join(ink14, id+".inkml"))
		if err != nil {
			t.Skipf("shared data: %v", err)
		}
		st, err := dataset.ParseInkTraces(ink)
		if err != nil {
			t.Fatal(err)
		}
		img, ext, err := r.Encode(st)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(test, id+ext), img, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rep, err := neardup.Run(context.Background(), neardup.Job{MaxDistance: neardup.DefaultMaxDistance, DB: filepath.Join(tmp, "db"),
		Hash:  imagehash.Options{Kind: imagehash.PHash, Canvas: imagehash.Stretch},
		Train: []index.ImageCorpusInput{{Name: "c14", Source: dataset.ImageSource{Path: train}}},
		Tests: []neardup.ImageSplit{{Name: "cut", Source: dataset.ImageSource{Path: test}}}})
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]bool{}
	for _, p := range rep.Pairs {
		switch {
		case p.TestID != p.TrainID:
			t.Errorf("%s paired with %s (distance %d, fine %d)", p.TestID, p.TrainID, p.Distance, p.FineDistance)
		case !p.Verified || !p.EdgeKey || p.Distance <= neardup.DefaultMaxDistance:
			t.Errorf("%s: pair verified %v, edge key %v, distance %d; want verified, by the edge key, beyond radius %d",
				p.TestID, p.Verified, p.EdgeKey, p.Distance, neardup.DefaultMaxDistance)
		default:
			found[p.TestID] = true
		}
	}
	for _, id := range ids {
		if !found[id] {
			t.Errorf("%s cut at the right edge: its own bitmap not found", id)
		}
	}
}
