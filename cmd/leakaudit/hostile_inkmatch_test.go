package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/leakaudit/leakaudit/internal/shareddata"
)

// inkPairs copies the first n CROHME 2014 expressions into dir, as InkML
// (dir/ink) and as bitmaps with their captions (dir/bm, a caption folder).
func inkPairs(t *testing.T, dir string, n int) []string {
	t.Helper()
	data := shareddata.Dir(t)
	bm, ink := filepath.Join(data, "crohme", "2014"), filepath.Join(data, "crohme-inkml", "2014")
	f, err := os.Open(filepath.Join(bm, "caption.txt"))
	if err != nil {
		t.Skipf("shared data: %v", err)
	}
	defer f.Close()
	for _, d := range []string{"ink", "bm/img"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	var names []string
	var caps strings.Builder
	sc := bufio.NewScanner(f)
	for sc.Scan() && len(names) < n {
		name, _, _ := strings.Cut(sc.Text(), "\t")
		for _, c := range [][2]string{
			{filepath.Join(ink, name+".inkml"), filepath.Join(dir, "ink", name+".inkml")},
			{filepath.Join(bm, "img", name+".png"), filepath.Join(dir, "bm", "img", name+".png")},
		} {
			b, err := os.ReadFile(c[0])
			if err != nil {
				t.Skipf("shared data: %v", err)
			}
			if err := os.WriteFile(c[1], b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		caps.WriteString(sc.Text() + "\n")
		names = append(names, name)
	}
	if err := os.WriteFile(filepath.Join(dir, "bm", "caption.txt"), []byte(caps.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return names
}

// ownPairs counts the test items paired with the training item of the same
// name, and the pairs with another one.
func ownPairs(t *testing.T, out string) (own, other int) {
	t.Helper()
	var rep struct {
		Pairs []struct {
			TestID  string `json:"test_id"`
			TrainID string `json:"train_id"`
		} `json:"pairs"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("neardup --json: %v\n%s", err, out)
	}
	seen := map[string]bool{}
	for _, p := range rep.Pairs {
		switch {
		case p.TestID == p.TrainID && !seen[p.TestID]:
			seen[p.TestID] = true
			own++
		case p.TestID != p.TrainID:
			other++
		}
	}
	return own, other
}

// TestHostileInkEitherSide: an InkML folder is read as images on either
// side of neardup, by fingerprint --images and by dedup --images, through
// the same normalization, and finds the bitmaps of the same strokes: the
// first 100 CROHME 2014 expressions, as InkML and as the released bitmaps
// (another rasterizer, white on black).
func TestHostileInkEitherSide(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", filepath.Join(dir, "cache"))
	names := inkPairs(t, dir, 100)
	ink, bm := filepath.Join(dir, "ink"), filepath.Join(dir, "bm")
	want := len(names) * 99 / 100
	for _, c := range []struct{ name, train, test string }{
		{"InkML as training set", "ink=" + ink, "bm=" + bm},
		{"InkML as test set", "bm=" + bm, "ink=" + ink},
	} {
		out, err := run(t, "neardup", "--train", c.train, "--test", c.test, "--json", "--db", filepath.Join(dir, "db-"+strings.Fields(c.name)[2]))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		own, other := ownPairs(t, out)
		t.Logf("%s: %d of %d found, %d other pairs", c.name, own, len(names), other)
		if own < want || other > 1 {
			t.Errorf("%s: %d of %d items paired with their own bitmap (want ≥ %d), %d other pairs (want ≤ 1)", c.name, own, len(names), want, other)
		}
	}
	// Only verified pairs are reported, unless --unverified: at a wide
	// radius the bitmaps have candidates among themselves (other
	// formulas), none of them verified.
	for _, flag := range []string{"--unverified", ""} {
		args := []string{"neardup", "--train", "bm=" + bm, "--test", "bm=" + bm, "--max-distance", "22", "--json", "--db", filepath.Join(dir, "db-self")}
		if flag != "" {
			args = append(args, flag)
		}
		out, err := run(t, args...)
		if err != nil {
			t.Fatalf("neardup %v: %v", args, err)
		}
		var rep struct {
			Pairs []struct{ Verified bool } `json:"pairs"`
		}
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatal(err)
		}
		unverified := 0
		for _, p := range rep.Pairs {
			if !p.Verified {
				unverified++
			}
		}
		if (flag != "") != (unverified > 0) {
			t.Errorf("neardup %s at radius 22: %d unverified pairs of %d", flag, unverified, len(rep.Pairs))
		}
	}
	// fingerprint --images of the InkML stands in for it.
	fp := filepath.Join(dir, "ink.fp.parquet")
	if _, err := run(t, "fingerprint", "--images", "--with-ink", "--input", "ink="+ink, "--out", fp); err != nil {
		t.Fatalf("fingerprint --images of InkML: %v", err)
	}
	out, err := run(t, "neardup", "--train", fp, "--test", "bm="+bm, "--json")
	if err != nil {
		t.Fatalf("neardup against the InkML fingerprint: %v", err)
	}
	if own, other := ownPairs(t, out); own < want || other > 1 {
		t.Errorf("from the InkML fingerprint: %d of %d found, %d other pairs", own, len(names), other)
	}
	// dedup --images, bitmaps (an image folder: images only, so every
	// removal is an image copy) against InkML, and InkML against bitmaps
	// with captions (a label or an image copy).
	for _, c := range []struct {
		release, against string
		images           bool
	}{{"bm=" + filepath.Join(bm, "img"), "ink=" + ink, true}, {"ink=" + ink, "bm=" + bm, false}} {
		outDir := filepath.Join(dir, "clean-"+strings.Split(c.release, "=")[0])
		if _, err := run(t, "dedup", "--release", c.release, "--against", c.against, "--images", "--out", outDir); err != nil {
			t.Fatalf("dedup --release %s --against %s --images: %v", c.release, c.against, err)
		}
		b, err := os.ReadFile(filepath.Join(outDir, "removed.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		removed, images := 0, 0
		for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			var r struct{ Reason string }
			if err := json.Unmarshal([]byte(line), &r); err != nil {
				t.Fatal(err)
			}
			removed++
			if r.Reason == "image" {
				images++
			}
		}
		t.Logf("dedup --release %s: %d removed (%d as image copies)", c.release, removed, images)
		if removed < want || c.images && images < want {
			t.Errorf("dedup --release %s --against %s: %d of %d removed (%d as image copies), want ≥ %d", c.release, c.against, removed, len(names), images, want)
		}
	}
}
