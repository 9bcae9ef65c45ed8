package overlap

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sync"
	"testing"

	"github.com/leakaudit/leakaudit/canon"
	"github.com/leakaudit/leakaudit/dataset"
	"github.com/leakaudit/leakaudit/index"
)

func TestOverlapNear(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// Training labels 0…4. Test items: t0 one edit from train 0 and two
	// from train 4; t1 the same tokens as train 1 (and two edits from
	// train 3); t2 three edits away from train 2; t3 too short; t4 a
	// label the tokenizer rejects; t5 one edit from train 0.
	train := write("train.json", `["a + b + c + d + e", "x ^ { 2 } + y ^ { 2 } = z ^ { 2 }", "p + q + r + s + t",
		"x ^ { 2 } + y ^ { 2 } = z ^ { 3 } +", "a + b + c + d - e"]`)
	test := write("test.json", `["a + b + c + d + f", "x^{2}+y^{2}=z^{2}", "p + q + r + 1 + 2 + 3", "a", "\\frac{", "a + b + c + e + e"]`)
	// The control, in two files pooled under one name: c0 one edit from
	// train 2, c1 far from everything, c2 long and far.
	control := write("control.json", `["p + q + r + s + u", "m n o m n o m n o"]`)
	control2 := write("control2.json", `["u v w u v w u v w u v w u v w"]`)
	levels, _ := canon.ParseLevels("ws")
	var rows []NearItemMatch
	job := Job{
		Train:        []index.CorpusInput{{Name: "train", Source: dataset.Source{Path: train}}},
		Tests:        []Split{{Name: "test", Source: dataset.Source{Path: test}}},
		NearControls: []Split{{Name: "control", Source: dataset.Source{Path: control}}, {Name: "control", Source: dataset.Source{Path: control2}}},
		Levels:       levels, DB: filepath.Join(dir, "db"), MaxRefs: 1, Near: 2, NearMin: 5,
		NearItem: func(m NearItemMatch) error {
			rows = append(rows, m)
			return nil
		},
	}
	rep, err := Run(context.Background(), job)
	if err != nil {
		t.Fatal(err)
	}
	// Bands from the minimum 5: [5,9) [9,13) [13,21) [21,∞). Test items
	// considered: t0 (9 tokens), t1 (17), t2 (11), t5 (9): bands 1, 2,
	// 1, 1. Control: c0 (9, band 1, within 1), c1 (9, band 1, not within),
	// c2 (15, band 2, not within): band 1 rate 1/2, band 2 rate 0, so the
	// test split's standardized rate is (3·½ + 1·0)/4 = 37.5%.
	want := []NearSplit{{Name: "test", K: 2, MinTokens: 5, Total: 6, BelowMin: 1, TokenFailed: 1, Considered: 4,
		Within: 3, Rate: 75, ByDistance: []int64{1, 2, 0}, Exact: 1, WithEdits: 2, EditsRate: 50,
		Controls: []NearControl{{Control: "control", Rate: 37.5, EditsRate: 37.5, Coverage: 100}}}}
	if !reflect.DeepEqual(rep.Near, want) {
		t.Errorf("near %+v\nwant %+v", rep.Near, want)
	}
	wantControl := []NearSplit{{Name: "control", K: 2, MinTokens: 5, Total: 3, Considered: 3, Within: 1, Rate: 33.33,
		ByDistance: []int64{0, 1, 0}, WithEdits: 1, EditsRate: 33.33}}
	if !reflect.DeepEqual(rep.NearControls, wantControl) {
		t.Errorf("near controls %+v\nwant %+v", rep.NearControls, wantControl)
	}
	// One near row per considered test item, in item order, the nearest
	// training id first.
	type row struct {
		id, key  string
		found    bool
		matches  int64
		dist     int
		exact    int64
		refs     []index.TrainRef
		refDists []int
	}
	var got []row
	for _, r := range rows {
		if r.Level != "near2" || r.Split != "test" {
			t.Fatalf("row %+v", r)
		}
		g := row{id: r.ID, key: r.Key, found: r.Found, matches: r.Matches, dist: -1, exact: *r.Exact, refs: r.TrainIDs, refDists: r.TrainDistances}
		if r.Distance != nil {
			g.dist = *r.Distance
		}
		got = append(got, g)
	}
	ref := func(id string) []index.TrainRef { return []index.TrainRef{{Corpus: "train", ID: id}} }
	wantRows := []row{
		{"0", "a + b + c + d + f", true, 2, 1, 0, ref("0"), []int{1}},
		{"1", "x ^ { 2 } + y ^ { 2 } = z ^ { 2 }", true, 2, 0, 1, ref("1"), []int{0}},
		{"2", "p + q + r + 1 + 2 + 3", false, 0, -1, 0, []index.TrainRef{}, nil},
		{"5", "a + b + c + e + e", true, 2, 1, 0, ref("0"), []int{1}},
	}
	if !reflect.DeepEqual(got, wantRows) {
		t.Errorf("near rows\n%+v\nwant\n%+v", got, wantRows)
	}
	// Without --near the report has no near section at all.
	job.Near, job.NearItem = 0, nil
	rep, err = Run(context.Background(), job)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(rep)
	var m map[string]any
	json.Unmarshal(b, &m)
	for _, k := range []string{"near", "near_controls"} {
		if _, ok := m[k]; ok {
			t.Errorf("a %s section without --near", k)
		}
	}
}

// TestNearRowJSON: a level row widened to the near schema marshals as the
// level row does.
func TestNearRowJSON(t *testing.T) {
	m := ItemMatch{Split: "s", ID: "7", Seq: 7, Level: "ws", Label: "x", Key: "x", Found: true, Matches: 2,
		TrainIDs: []index.TrainRef{{Corpus: "c", ID: "1"}}}
	a, _ := json.Marshal(m)
	b, _ := json.Marshal(NearRow(m))
	if string(a) != string(b) {
		t.Errorf("level row\n%s\nwidened\n%s", a, b)
	}
}

func TestNearStandardize(t *testing.T) {
	tests := []struct {
		name           string
		split, control []nearBandCount
		want           NearControl
	}{
		{"same bands", []nearBandCount{{n: 10}, {n: 30}}, []nearBandCount{{n: 100, within: 50, edits: 40}, {n: 10, within: 1}},
			NearControl{Control: "c", Rate: 20, EditsRate: 10, Coverage: 100}}, // (10·.5 + 30·.1)/40, (10·.4)/40
		{"a band the control lacks", []nearBandCount{{n: 10}, {n: 30}}, []nearBandCount{{n: 4, within: 1, edits: 1}, {}},
			NearControl{Control: "c", Rate: 25, EditsRate: 25, Coverage: 25}},
		{"no overlap", []nearBandCount{{n: 10}, {}}, []nearBandCount{{}, {n: 3, within: 3}},
			NearControl{Control: "c"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := standardize("c", tt.split, tt.control); got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

// TestNearItemRefs: an item keeps its nearest training ids, ties in the
// order they came, and counts every match.
func TestNearItemRefs(t *testing.T) {
	it := &nearItem{best: -1}
	for i, d := range []int{2, 1, 2, 0, 1, 0} {
		it.add(index.TrainRef{Corpus: "c", ID: string(rune('a' + i))}, d, 3)
	}
	var ids []string
	for _, r := range it.refs {
		ids = append(ids, r.ref.ID)
	}
	if !reflect.DeepEqual(ids, []string{"d", "f", "b"}) || it.best != 0 || it.count != 6 || it.exact != 2 {
		t.Errorf("refs %v best %d count %d exact %d", ids, it.best, it.count, it.exact)
	}
}

// TestNearCache: the cache answers what it was given, from any goroutine,
// and stops remembering at its size.
func TestNearCache(t *testing.T) {
	c := newNearCache(100)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 50 {
				label := fmt.Sprint(g*50 + i)
				c.put(label, []index.NearMatch{{ID: g*50 + i}})
				if ms, ok := c.get(label); ok && ms[0].ID != g*50+i {
					t.Errorf("label %s: %v", label, ms)
				}
			}
		}()
	}
	wg.Wait()
	n := 0
	for i := range 200 {
		if ms, ok := c.get(fmt.Sprint(i)); ok {
			n++
			if ms[0].ID != i {
				t.Errorf("label %d: %v", i, ms)
			}
		}
	}
	if n != 100 {
		t.Errorf("%d labels remembered, want the size 100", n)
	}
}

func TestWarnControls(t *testing.T) {
	var logged []string
	job := Job{
		Tests: []Split{{Name: "test", Source: dataset.Source{Path: "d/test.json"}}},
		NearControls: []Split{
			{Name: "same-as-test", Source: dataset.Source{Path: "d/./test.json"}},
			{Name: "same-as-train", Source: dataset.Source{Path: "d/train.json"}},
			{Name: "fine", Source: dataset.Source{Path: "d/other.json"}},
		},
		Log: func(f string, a ...any) { logged = append(logged, fmt.Sprintf(f, a...)) },
	}
	warnControls(job, []index.CorpusInput{{Name: "train", Source: dataset.Source{Path: "d/train.json"}}})
	want := []string{
		"warning: near control same-as-test (d/./test.json) is also the test split test: its chance level includes that split's own matches",
		"warning: near control same-as-train (d/train.json) is also the training corpus train: it cannot serve as a control",
	}
	if !slices.Equal(logged, want) {
		t.Errorf("warnings:\n%q\nwant\n%q", logged, want)
	}
}
