package audit

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/leakaudit/leakaudit/canon"
	"github.com/leakaudit/leakaudit/dataset"
	"github.com/leakaudit/leakaudit/index"
)

func TestOverlapNear(t *testing.T) {
	dir := t.TempDir()
	train := filepath.Join(dir, "train.json")
	test := filepath.Join(dir, "test.json")
	// t0: one edit from a training label; t1: the same tokens; t2: three
	// edits away; t3: too short; t4: near t0 only (the chance level).
	os.WriteFile(train, []byte(`["a + b + c + d + e", "x ^ { 2 } + y ^ { 2 } = z ^ { 2 }", "p + q + r + s + t"]`), 0o644)
	os.WriteFile(test, []byte(`["a + b + c + d + f", "x^{2}+y^{2}=z^{2}", "p + q + r + 1 + 2 + 3", "a", "a + b + c + d + g"]`), 0o644)
	levels, _ := canon.ParseLevels("ws")
	var rows []ItemMatch
	job := OverlapJob{
		Train:  []index.CorpusInput{{Name: "train", Source: dataset.Source{Path: train}}},
		Tests:  []Split{{Name: "test", Source: dataset.Source{Path: test}}},
		Levels: levels, DB: filepath.Join(dir, "db"), MaxRefs: 5, Near: 2, NearMin: 5,
		Item: func(m ItemMatch) error {
			if m.Level == "near2" {
				rows = append(rows, m)
			}
			return nil
		},
	}
	rep, err := RunOverlap(context.Background(), job)
	if err != nil {
		t.Fatal(err)
	}
	want := []NearSplit{{Name: "test", K: 2, MinTokens: 5, Total: 5, Considered: 4, Within: 3, Rate: 75, WithEdits: 2, ControlMatched: 2, ControlRate: 50}}
	if !reflect.DeepEqual(rep.Near, want) {
		t.Errorf("near %+v\nwant %+v", rep.Near, want)
	}
	found := map[string]bool{}
	for _, r := range rows {
		found[r.ID] = r.Found
		if r.ID == "0" && !reflect.DeepEqual(r.TrainIDs, []index.TrainRef{{Corpus: "train", ID: "0"}}) {
			t.Errorf("t0 refs %v", r.TrainIDs)
		}
	}
	if !reflect.DeepEqual(found, map[string]bool{"0": true, "1": true, "2": false, "4": true}) {
		t.Errorf("near rows %v", found)
	}
	// Without --near the report has no near section at all.
	job.Near, job.Item = 0, nil
	rep, err = RunOverlap(context.Background(), job)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(rep)
	var m map[string]any
	json.Unmarshal(b, &m)
	if _, ok := m["near"]; ok {
		t.Error("a near section without --near")
	}
}
