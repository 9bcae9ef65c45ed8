package cdm

import (
	"bufio"
	"encoding/json"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/leakaudit/leakaudit/internal/shareddata"
	"github.com/leakaudit/leakaudit/tex"
)

// TestRansacSamplesNumpy: the sampler draws what numpy 1.24's
// default_rng(42).choice(n, k, replace=False) draws, the 51 samples of
// one ransac call for each n and k of testdata/numpy/choice42.json
// (written by choice42.py with Debian's python3-numpy).
func TestRansacSamplesNumpy(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "numpy", "choice42.json"))
	if err != nil {
		t.Fatal(err)
	}
	var golden struct {
		Cases []struct {
			N, K  int
			Draws [][]int
		}
	}
	if err := json.Unmarshal(data, &golden); err != nil {
		t.Fatal(err)
	}
	if len(golden.Cases) < 90 {
		t.Fatalf("%d cases in the golden", len(golden.Cases))
	}
	for _, c := range golden.Cases {
		g := newRansacRNG()
		got := make([]int, c.K)
		for d, want := range c.Draws {
			g.choice(c.N, got)
			if !slices.Equal(got, want) {
				t.Errorf("n=%d k=%d, draw %d: %v, numpy %v", c.N, c.K, d, got, want)
				break
			}
		}
	}
}

// refSide reads one formula of the reference's own output: its boxes
// (bbox/<id>.jsonl) and its crop's size (the render's PNG).
func refSide(tb testing.TB, bboxFile, pngFile string) Side {
	tb.Helper()
	f, err := os.Open(bboxFile)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var s Side
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var l struct {
			BBox  []int  `json:"bbox"`
			Token string `json:"token"`
		}
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			tb.Fatal(err)
		}
		s.Tokens = append(s.Tokens, l.Token)
		if len(l.BBox) == 4 {
			s.Boxes = append(s.Boxes, tex.PixelBox{X1: l.BBox[0], Y1: l.BBox[1], X2: l.BBox[2], Y2: l.BBox[3]})
		} else {
			s.Boxes = append(s.Boxes, tex.PixelBox{Empty: true})
		}
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	pf, err := os.Open(pngFile)
	if err != nil {
		tb.Fatal(err)
	}
	defer pf.Close()
	cfg, err := png.DecodeConfig(pf)
	if err != nil {
		tb.Fatal(err)
	}
	s.W, s.H = cfg.Width, cfg.Height
	if !slices.ContainsFunc(s.Boxes, func(b tex.PixelBox) bool { return !b.Empty }) {
		s.Failure = FailNoBoxes
	}
	return s
}

// TestMatchingOnReferenceBoxes isolates the matching from the layout:
// given the reference's own token boxes and crop sizes for the 600
// reference pairs (refcdm/bbox_golden), the cost, the assignment, the
// RANSAC rounds and the counting give the reference's F1 on every pair.
func TestMatchingOnReferenceBoxes(t *testing.T) {
	dir := shareddata.Path(t, filepath.Join("refcdm", "bbox_golden"))
	ref600 := shareddata.Path(t, filepath.Join("refcdm", "reference_600"))
	pairs := readPairs(t, filepath.Join(ref600, "pairs.json"))
	ref := readRefMetrics(t, filepath.Join(ref600, "metrics_res.json"))
	n, same := 0, 0
	for _, p := range pairs {
		want, ok := ref.Details[p.ID]
		if !ok {
			continue
		}
		g := refSide(t, filepath.Join(dir, "gt", p.ID+".jsonl"), filepath.Join(dir, "render_gt", p.ID+".png"))
		pr := refSide(t, filepath.Join(dir, "pred", p.ID+".jsonl"), filepath.Join(dir, "render_pred", p.ID+".png"))
		r := Score(g, pr, UniMERNet)
		n++
		if math.Abs(r.F1-want.F1) == 0 {
			same++
		} else {
			t.Errorf("%s: F1 %.3f on the reference's boxes, reference %.3f (%s)\n  gt:   %s\n  pred: %s", p.ID, r.F1, want.F1, r, p.GT, p.Pred)
		}
	}
	t.Logf("F1 identical on %d of %d pairs scored on the reference's boxes", same, n)
	if n < 590 {
		t.Errorf("only %d pairs compared", n)
	}
}
