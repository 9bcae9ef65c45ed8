package dedup

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/leakaudit/leakaudit/dataset"
	"github.com/leakaudit/leakaudit/imagehash"
	"github.com/leakaudit/leakaudit/index"
	"github.com/leakaudit/leakaudit/internal/inkraster"
	"github.com/leakaudit/leakaudit/internal/shareddata"
	"github.com/leakaudit/leakaudit/neardup"
)

// TestHostileCutCopiesRealData: a release whose images are CROHME 2014
// expressions rasterized by the stretch-256 corner rasterizer (ink cut by
// 3% at the right edge) loses every one of them against the 2014 bitmaps,
// as neardup pairs them: the copies whose pHash lies beyond the radius
// are found by the edge keys and the cut variants, and those Verify
// refuses within it by a cut variant. Inside a release holding both the
// bitmap and its copy, the copy goes as a duplicate the same way. (When
// dedup searched by the pHash and Verify alone, none of them was removed,
// against the bitmaps or inside the release.)
func TestHostileCutCopiesRealData(t *testing.T) {
	data := shareddata.Dir(t)
	// From neardup's TestHostileEdgeCut (edge keys) and
	// TestHostileCutVariantRealData (cut variants, beyond the radius and
	// within it).
	ids := []string{"20_em_29", "23_em_65", "28_em_147", "20_em_44", "31_em_177", "504_em_37", "RIT_2014_125", "28_em_137", "RIT_2014_1", "RIT_2014_98"}
	r, ok := inkraster.Corner("stretch-256")
	if !ok {
		t.Fatal("no stretch-256 corner rasterizer")
	}
	tmp := t.TempDir()
	bench, rel, both := filepath.Join(tmp, "bench"), filepath.Join(tmp, "rel"), filepath.Join(tmp, "both")
	var captions []string
	for _, id := range ids {
		bmp, err := os.ReadFile(filepath.Join(data, "crohme", "2014", "img", id+".png"))
		if err != nil {
			t.Skipf("shared data: %v", err)
		}
		img, ext, err := r.EncodeFile(filepath.Join(data, "crohme-inkml", "2014", id+".inkml"))
		if err != nil {
			t.Skipf("shared data: %v", err)
		}
		write(t, filepath.Join(bench, id+".png"), bmp)
		write(t, filepath.Join(rel, id+ext), img)
		write(t, filepath.Join(both, "img", id+".png"), bmp)
		write(t, filepath.Join(both, "img", id+"_copy"+ext), img)
		captions = append(captions, id+"\tx_{"+id+"}", id+"_copy\ty_{"+id+"}")
	}
	write(t, filepath.Join(both, "caption.txt"), []byte(strings.Join(captions, "\n")+"\n"))

	// What neardup pairs, at the default settings.
	rep, err := neardup.Run(context.Background(), neardup.Job{MaxDistance: neardup.DefaultMaxDistance, DB: filepath.Join(tmp, "db"),
		Hash:  imagehash.Options{Kind: imagehash.PHash, Canvas: imagehash.Stretch},
		Train: []index.ImageCorpusInput{{Name: "c14", Source: dataset.ImageSource{Path: bench}}},
		Tests: []neardup.ImageSplit{{Name: "cut", Source: dataset.ImageSource{Path: rel}}}})
	if err != nil {
		t.Fatal(err)
	}
	var paired []string
	beyond := 0
	for _, p := range rep.Pairs {
		if p.Verified && strings.TrimSuffix(p.TestID, filepath.Ext(p.TestID)) == p.TrainID {
			paired = append(paired, p.TrainID)
			if p.Distance > neardup.DefaultMaxDistance {
				beyond++
			}
		}
	}
	sort.Strings(paired)
	if len(paired) != len(ids) || beyond == 0 {
		t.Fatalf("neardup pairs %d of the %d copies with their bitmaps (%d beyond the radius): %v", len(paired), len(ids), beyond, paired)
	}

	res, err := Run(context.Background(), Job{Releases: []Input{{Name: "r", Source: dataset.Source{Path: rel}}},
		Against: []Input{{Name: "c14", Source: dataset.Source{Path: bench}}}, Out: filepath.Join(tmp, "out"),
		Levels: ws(t), Images: true, MaxDistance: neardup.DefaultMaxDistance, Tool: "leakaudit test"})
	if err != nil {
		t.Fatal(err)
	}
	var removed []string
	for _, r := range res.Removed {
		if r.Reason != ReasonImage || len(r.Matches) != 1 || r.Matches[0] != "c14:"+strings.TrimSuffix(r.ID, filepath.Ext(r.ID)) {
			t.Errorf("%s removed as %s, matching %v; want an image copy of its own bitmap", r.ID, r.Reason, r.Matches)
		}
		removed = append(removed, strings.TrimSuffix(r.ID, filepath.Ext(r.ID)))
	}
	sort.Strings(removed)
	if !reflect.DeepEqual(removed, paired) {
		t.Errorf("against the bitmaps, dedup removes %v; neardup pairs %v", removed, paired)
	}

	res, err = Run(context.Background(), Job{Releases: []Input{{Name: "b", Source: dataset.Source{Path: both, Format: dataset.Caption}}},
		Out: filepath.Join(tmp, "out-within"), Levels: ws(t), Within: true, MaxDistance: neardup.DefaultMaxDistance, Tool: "leakaudit test"})
	if err != nil {
		t.Fatal(err)
	}
	removed = removed[:0]
	for _, r := range res.Removed {
		id := strings.TrimSuffix(r.ID, "_copy")
		if r.Reason != ReasonWithin || r.Level != "image" || len(r.Matches) != 1 || r.Matches[0] != "b:"+id {
			t.Errorf("%s removed as %s (%s), matching %v; want a copy of b:%s inside the release", r.ID, r.Reason, r.Level, r.Matches, id)
		}
		removed = append(removed, id)
	}
	sort.Strings(removed)
	if !reflect.DeepEqual(removed, paired) {
		t.Errorf("inside the release, dedup removes the copies of %v; neardup pairs %v", removed, paired)
	}
}
