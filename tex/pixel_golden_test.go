package tex

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/leakaudit/leakaudit/internal/shareddata"
	"github.com/leakaudit/leakaudit/latex"
)

type refBox struct {
	BBox  []int  `json:"bbox"`
	Token string `json:"token"`
}

func readRefBoxes(path string) ([]refBox, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []refBox
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var b refBox
		if err := json.Unmarshal(sc.Bytes(), &b); err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, sc.Err()
}

// pixelStats compares leakaudit's token boxes with the reference
// pipeline's own (pdflatex + Ghostscript at 200 dpi) on the 600 reference
// pairs.
type pixelStats struct {
	formulas, compared, unsupported, tokMismatch int
	boxes, within2, within1, exactSize           int
	emptyAgree, emptyDiffer                      int
	worst                                        []string
	hist                                         [4]map[int]int
	sizeDiff                                     map[[2]int]int
	why                                          map[string]int
}

// referencePair is one of the reference's 600 TexTeller pairs.
type referencePair struct {
	ID   string `json:"img_id"`
	GT   string `json:"gt"`
	Pred string `json:"pred"`
}

// referencePairs reads refcdm/reference_600/pairs.json from the shared
// data, and returns the data's folder too.
func referencePairs(tb testing.TB) (string, []referencePair) {
	root := shareddata.Dir(tb)
	data, err := os.ReadFile(filepath.Join(root, "refcdm", "reference_600", "pairs.json"))
	if err != nil {
		tb.Fatal(err)
	}
	var pairs []referencePair
	if err := json.Unmarshal(data, &pairs); err != nil {
		tb.Fatal(err)
	}
	return root, pairs
}

func comparePixels(tb testing.TB, r Raster) pixelStats {
	root, pairs := referencePairs(tb)
	st := pixelStats{why: map[string]int{}, sizeDiff: map[[2]int]int{}}
	for i := range st.hist {
		st.hist[i] = map[int]int{}
	}
	for _, pr := range pairs {
		for _, side := range []struct{ dir, formula string }{{"gt", pr.GT}, {"pred", pr.Pred}} {
			st.formulas++
			ref, err := readRefBoxes(filepath.Join(root, "refcdm", "bbox_golden", side.dir, pr.ID+".jsonl"))
			if err != nil {
				st.why["no reference boxes"]++
				continue
			}
			res, err := latex.TokenizeCDM(side.formula)
			if err != nil {
				st.why["tokenizer: "+err.Error()]++
				continue
			}
			if len(res.Tokens) != len(ref) {
				st.tokMismatch++
				continue
			}
			l, err := Typeset(res.Rendered())
			if err != nil {
				if errors.Is(err, ErrUnsupported) {
					st.unsupported++
				}
				st.why[err.Error()]++
				continue
			}
			st.compared++
			boxes, w, h := l.PixelBoxes(len(res.Tokens), PageFor(len(res.Tokens)), r)
			if f, err := os.Open(filepath.Join(root, "refcdm", "bbox_golden", "render_"+side.dir, pr.ID+".png")); err == nil {
				if cfg, err := png.DecodeConfig(f); err == nil {
					if cfg.Width == w && cfg.Height == h {
						st.exactSize++
					}
					st.sizeDiff[[2]int{w - cfg.Width, h - cfg.Height}]++
				}
				f.Close()
			}
			worst := 0
			for i, b := range boxes {
				rb := ref[i].BBox
				if len(rb) == 0 || b.Empty {
					if len(rb) == 0 && b.Empty {
						st.emptyAgree++
					} else {
						st.emptyDiffer++
						st.boxes++
						worst = 99
					}
					continue
				}
				st.boxes++
				st.hist[0][b.X1-rb[0]]++
				st.hist[1][b.Y1-rb[1]]++
				st.hist[2][b.X2-rb[2]]++
				st.hist[3][b.Y2-rb[3]]++
				d := max(iabs(b.X1-rb[0]), iabs(b.Y1-rb[1]), iabs(b.X2-rb[2]), iabs(b.Y2-rb[3]))
				if d <= 2 {
					st.within2++
				}
				if d <= 1 {
					st.within1++
				}
				worst = max(worst, d)
			}
			if worst > 2 {
				st.worst = append(st.worst, fmt.Sprintf("%s/%s (worst %d px): %s", side.dir, pr.ID, worst, side.formula))
			}
		}
	}
	return st
}

func iabs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

func TestPixelBoxesAgainstReference(t *testing.T) {
	st := comparePixels(t, ReferenceRaster)
	t.Logf("%d formulas: %d compared, %d unsupported, %d with another token list, %d crop sizes identical", st.formulas, st.compared, st.unsupported, st.tokMismatch, st.exactSize)
	t.Logf("%d token boxes: %d (%.2f%%) within 2 px on every side, %d (%.2f%%) within 1 px; empty boxes: %d agree, %d differ",
		st.boxes, st.within2, 100*float64(st.within2)/float64(st.boxes), st.within1, 100*float64(st.within1)/float64(st.boxes), st.emptyAgree, st.emptyDiffer)
	var keys []string
	for k := range st.why {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		t.Logf("  %4d %s", st.why[k], k)
	}
	for _, w := range st.worst[:min(10, len(st.worst))] {
		t.Logf("off: %s", w)
	}
	if float64(st.within2) < 0.95*float64(st.boxes) {
		t.Errorf("%.2f%% of token boxes within 2 px; the bar is 95%%", 100*float64(st.within2)/float64(st.boxes))
	}
}
