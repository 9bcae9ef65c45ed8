package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/leakaudit/leakaudit/canon"
	"github.com/leakaudit/leakaudit/dataset"
	"github.com/leakaudit/leakaudit/internal/shareddata"
	"github.com/leakaudit/leakaudit/metrics"
	"github.com/leakaudit/leakaudit/overlap"
)

// nearJSON is the near part of "overlap --json".
type nearJSON struct {
	Near         []overlap.NearSplit `json:"near"`
	NearControls []overlap.NearSplit `json:"near_controls"`
}

func TestOverlapNearFlags(t *testing.T) {
	train, test := fixtures(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--near", "-1"}, "want 0 (off) or a positive number"},
		{[]string{"--near-control", test}, "need --near K"},
		{[]string{"--near-min", "5"}, "need --near K"},
	} {
		args := append([]string{"overlap", "--train", train, "--test", test, "--db", t.TempDir(), "--allow-partial"}, tc.args...)
		if _, err := run(t, args...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want an error with %q", tc.args, err, tc.want)
		}
	}
}

func TestOverlapNearCLI(t *testing.T) {
	dir := t.TempDir()
	train := filepath.Join(dir, "train.json")
	test := filepath.Join(dir, "test.json")
	control := filepath.Join(dir, "control.json")
	os.WriteFile(train, []byte(`["a + b + c + d + e", "x ^ { 2 } + y ^ { 2 } = z ^ { 2 }"]`), 0o644)
	os.WriteFile(test, []byte(`["a + b + c + d + f", "x^{2}+y^{2}=z^{2}", "q"]`), 0o644)
	os.WriteFile(control, []byte(`["a + b + c + x + y", "m n o p q r s t u"]`), 0o644)
	base := []string{"overlap", "--train", train, "--test", "t=" + test, "--db", filepath.Join(dir, "db"), "--near", "2", "--near-min", "5",
		"--near-control", "c=" + control}
	out, err := run(t, append(base, "--json")...)
	if err != nil {
		t.Fatal(err)
	}
	var rep nearJSON
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Near) != 1 || rep.Near[0].Considered != 2 || rep.Near[0].BelowMin != 1 || rep.Near[0].Exact != 1 || rep.Near[0].WithEdits != 1 ||
		len(rep.Near[0].Controls) != 1 || rep.Near[0].Controls[0].Rate != 50 {
		t.Errorf("near %+v", rep.Near)
	}
	if len(rep.NearControls) != 1 || rep.NearControls[0].Name != "c" || rep.NearControls[0].Within != 1 {
		t.Errorf("near controls %+v", rep.NearControls)
	}
	items := filepath.Join(dir, "items.parquet")
	out, err = run(t, append(base, "--items", items)...)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"Near labels: a training label within 2 token edits", "chance % (c)", "c (control)"} {
		if !strings.Contains(out, s) {
			t.Errorf("text output without %q:\n%s", s, out)
		}
	}
	rows, err := parquet.ReadFile[overlap.NearItemMatch](items)
	if err != nil {
		t.Fatal(err)
	}
	var near []overlap.NearItemMatch
	for _, r := range rows {
		if r.Level == "near2" {
			near = append(near, r)
		} else if r.Distance != nil || r.Exact != nil || len(r.TrainDistances) > 0 {
			t.Errorf("a level row with near fields: %+v", r)
		}
	}
	if len(rows) != 3*2+2 || len(near) != 2 || *near[0].Distance != 1 || *near[1].Distance != 0 || *near[1].Exact != 1 {
		t.Errorf("%d rows, near rows %+v", len(rows), near)
	}
}

// TestRealOverlapNearControls: HME100K test against HME100K train at K=2, the
// three CROHME test sets pooled and MathWriting test as controls. The
// near rows agree with the tokens level (an item has a training label at
// distance 0 exactly when the tokens level finds it), every reported
// nearest training label is recomputed at its distance with a plain
// edit distance, and the counts are the ones measured.
func TestRealOverlapNearControls(t *testing.T) {
	root := shareddata.Dir(t)
	labels := filepath.Join(root, "labels")
	dir := t.TempDir()
	items := filepath.Join(dir, "items.jsonl")
	trainPath := filepath.Join(labels, "hme100k_train_captions.json")
	stdout, stderr, code := runCode(t, "overlap", "--json", "--level", "tokens", "--db", filepath.Join(dir, "db"),
		"--train", "hme100k_train="+trainPath,
		"--test", "hme100k_test="+filepath.Join(labels, "hme100k_test_captions.json"),
		"--near", "2", "--items", items,
		"--near-control", "crohme_tests="+filepath.Join(labels, "crohme_2014_captions.json"),
		"--near-control", "crohme_tests="+filepath.Join(labels, "crohme_2016_captions.json"),
		"--near-control", "crohme_tests="+filepath.Join(labels, "crohme_2019_captions.json"),
		"--near-control", "mathwriting_test="+filepath.Join(labels, "mathwriting_test_captions.json"))
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	var rep nearJSON
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	s := rep.Near[0]
	got := []int64{s.Total, s.BelowMin, s.TokenFailed, s.Considered, s.Within, s.Exact, s.WithEdits}
	want := []int64{24607, 5627, 0, 18980, 6886, 3680, 3206}
	if !slices.Equal(got, want) || s.MinTokens != 12 || len(s.Controls) != 2 {
		t.Errorf("hme100k_test: total, below min, untokenized, considered, within, exact, with edits = %v, want %v (%+v)", got, want, s)
	}
	for _, c := range s.Controls {
		t.Logf("chance level from %s: %s%% within 2, %s%% with edits (coverage %s%%)", c.Control, c.Rate, c.EditsRate, c.Coverage)
		if c.Rate > 5 {
			t.Errorf("control %s: chance level %s%%, measured 1.54%% and 0.17%%", c.Control, c.Rate)
		}
	}
	// The training labels' token sequences by id, for the recount.
	train := map[string][]string{}
	if _, err := dataset.Scan(dataset.Source{Path: trainPath}, func(it dataset.Item) error {
		train[it.ID] = canon.TokenList(it.Label)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	f, err := os.ReadFile(items)
	if err != nil {
		t.Fatal(err)
	}
	tokensFound := map[string]bool{}
	var nearRows, checked int
	for _, line := range strings.Split(strings.TrimSpace(string(f)), "\n") {
		var r overlap.NearItemMatch
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatal(err)
		}
		switch r.Level {
		case "tokens":
			tokensFound[r.ID] = r.Found
		case "near2":
			nearRows++
			if exact := r.Distance != nil && *r.Distance == 0; exact != tokensFound[r.ID] {
				t.Errorf("item %s: near distance %v, found at tokens %v", r.ID, r.Distance, tokensFound[r.ID])
			}
			for i, ref := range r.TrainIDs {
				if d := metrics.Levenshtein(strings.Fields(r.Key), train[ref.ID]); d != r.TrainDistances[i] {
					t.Fatalf("item %s: training %s at distance %d, reported %d", r.ID, ref.ID, d, r.TrainDistances[i])
				}
				checked++
			}
		}
	}
	if int64(nearRows) != s.Considered {
		t.Errorf("%d near rows, %d considered", nearRows, s.Considered)
	}
	t.Logf("%d near rows; %d reported training labels recomputed at their distance", nearRows, checked)
}
