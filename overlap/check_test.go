package overlap

import (
	"context"
	"encoding/csv"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/leakaudit/leakaudit/canon"
	"github.com/leakaudit/leakaudit/checksum"
	"github.com/leakaudit/leakaudit/dataset"
	"github.com/leakaudit/leakaudit/index"
	"github.com/leakaudit/leakaudit/internal/shareddata"
)

func TestNewPercent(t *testing.T) {
	tests := []struct {
		num, den int64
		want     string
	}{
		{5721, 24607, "23.25"},
		{30, 986, "3.04"},
		{913, 986, "92.60"},
		{24607, 24607, "100.00"},
		{1, 8, "12.50"},  // 12.5 exactly
		{1, 800, "0.12"}, // 0.125 exactly: half to even
		{3, 800, "0.38"}, // 0.375 exactly: half to even
		{0, 0, "0.00"},
	}
	for _, tt := range tests {
		if got := NewPercent(tt.num, tt.den).String(); got != tt.want {
			t.Errorf("NewPercent(%d, %d) = %s, want %s", tt.num, tt.den, got, tt.want)
		}
	}
}

// TestPublishedRates recomputes every overlap_rate of the audit's published
// log from its own total and overlaps columns. The CSV holds Python's
// shortest repr of round(x, 2), so compare as numbers.
func TestPublishedRates(t *testing.T) {
	if testing.Short() {
		t.Skip("real data at full size: not in -short (the race pass)")
	}
	f, err := os.Open(shareddata.Path(t, "overlap_log_published.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 24 {
		t.Fatalf("%d rows, want a header and 23", len(rows))
	}
	for _, r := range rows[1:] {
		total, _ := strconv.ParseInt(r[2], 10, 64)
		found, _ := strconv.ParseInt(r[3], 10, 64)
		want, _ := strconv.ParseFloat(r[4], 64)
		if got := float64(NewPercent(found, total)); got != want {
			t.Errorf("%s vs %s: %d/%d gives %v, log says %s", r[0], r[5], found, total, got, r[4])
		}
	}
}

// memIndex is a Lookuper over an in-memory map, for unit tests.
type memIndex map[string][]index.TrainRef

func (m memIndex) Lookup(l canon.Level, key string, max int) (index.Match, error) {
	refs := m[l.Name+"\x00"+key]
	return index.Match{Count: int64(len(refs)), Refs: refs[:min(max, len(refs))]}, nil
}

func memOf(labels ...string) memIndex {
	m := memIndex{}
	for i, s := range labels {
		for _, l := range canon.Levels() {
			k, _ := l.Canon(s)
			m[l.Name+"\x00"+k] = append(m[l.Name+"\x00"+k], index.TrainRef{Corpus: "t", ID: strconv.Itoa(i)})
		}
	}
	return m
}

func writeJSON(t *testing.T, labels string) string {
	p := filepath.Join(t.TempDir(), "split.json")
	if err := os.WriteFile(p, []byte(labels), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestOverlapCounting(t *testing.T) {
	ix := memOf(`x ^ { 2 }`, `\alphab`, `y`)
	path := writeJSON(t, `["x ^ { 2 }", "x ^ { 2 }", "x^{2}", "$y$", "\\alpha b", "z", ""]`)
	lv, _ := canon.ParseLevels("raw,audit,ws")
	var items []ItemMatch
	res, err := Check(context.Background(), ix, []Split{{Name: "s", Source: dataset.Source{Path: path}}},
		Options{Levels: lv, MaxRefs: 5, Item: func(m ItemMatch) error { items = append(items, m); return nil }})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][2]int64{"raw": {2, 1}, "audit": {4, 2}, "ws": {4, 2}}
	for _, r := range res.Splits {
		w := want[r.Level]
		if r.Total != 6 || r.Found != w[0] || r.UniqueFound != w[1] {
			t.Errorf("%s: total %d found %d unique found %d; want 6 %d %d", r.Level, r.Total, r.Found, r.UniqueFound, w[0], w[1])
		}
	}
	if res.Inputs[0].Stats.Skipped != 1 {
		t.Errorf("the empty label was not counted as skipped: %+v", res.Inputs[0].Stats)
	}
	if len(items) != 18 || items[0].Level != "raw" || items[1].Level != "audit" || !items[1].Found {
		t.Errorf("per-item evidence: %d rows, first %+v", len(items), items[:2])
	}
	if len(res.AuditOnly) != 1 || res.AuditOnly[0].Label != `\alpha b` || res.AuditOnly[0].Reason != GlueControlWord {
		t.Errorf("audit-only: %+v", res.AuditOnly)
	}
}

func TestGlueReason(t *testing.T) {
	for k, want := range map[string]string{`\alpha b`: GlueControlWord, `a\ b`: GlueControlSpace, `ab`: GlueOther} {
		if got := glueReason(k); got != want {
			t.Errorf("glueReason(%q) = %q, want %q", k, got, want)
		}
	}
}

// TestWithinBenchmarkOverlap reproduces the within-benchmark overlap table (docs/canonical-ladder.md §7)
// from the shared label lists, at every level it states (L0 = L1 = L2).
func TestWithinBenchmarkOverlap(t *testing.T) {
	if testing.Short() {
		t.Skip("real data at full size: not in -short (the race pass)")
	}
	dir := shareddata.Dir(t)
	lv, _ := canon.ParseLevels("raw,audit,ws,tokens,render")
	type row struct {
		test, train  string
		found, total int64
		rate         string
		uniqueFound  int64
		uniqueLabels int64 // 0: not stated
	}
	rows := []row{
		{"crohme_2014", "crohme_train", 30, 986, "3.04", 29, 973},
		{"crohme_2016", "crohme_train", 20, 1147, "1.74", 18, 1140},
		{"crohme_2019", "crohme_train", 4, 1199, "0.33", 3, 1190},
		{"crohme2023_test", "crohme2023_train", 47, 2300, "2.04", 39, 1807},
		{"crohme2023_val", "crohme2023_train", 166, 555, "29.91", 166, 554},
		{"hme100k_test", "hme100k_train", 5721, 24607, "23.25", 3223, 21382},
		{"mathwriting_test", "mathwriting_valid", 325, 7644, "4.25", 229, 3973},
		{"N1", "crohme_train", 18, 1875, "0.96", 17, 1835},
		{"N2", "crohme_train", 2, 304, "0.66", 2, 302},
		{"N3", "crohme_train", 430, 1464, "29.37", 60, 985},
		{"unimer_net_hwe", "hme100k_test", 3003, 6332, "47.43", 2885, 6126},
		{"unimer_net_hwe", "hme100k_train", 690, 6332, "10.90", 583, 6126},
		{"unimer_net_hwe", "crohme_train", 59, 6332, "0.93", 53, 6126},
		{"crohme_2014", "hme100k_train", 17, 986, "1.72", 16, 973},
		{"crohme_train", "crohme2023_train", 260, 8834, "2.94", 145, 0},
		{"crohme_2014", "crohme2023_train", 28, 986, "2.84", 27, 973},
		{"crohme_2016", "crohme2023_train", 37, 1147, "3.23", 35, 1140},
		{"crohme_2019", "crohme2023_train", 146, 1199, "12.18", 145, 1190},
	}
	label := func(name string) string {
		return filepath.Join(dir, "labels", name+"_captions.json")
	}
	indexes := map[string]*index.DB{}
	defer func() {
		for _, ix := range indexes {
			ix.Close()
		}
	}()
	for _, r := range rows {
		ix := indexes[r.train]
		if ix == nil {
			path := label(r.train)
			fp, err := checksum.Of(path)
			if err != nil {
				t.Skipf("%s: %v", path, err)
			}
			ix, err = index.Open(filepath.Join(t.TempDir(), r.train), index.Options{})
			if err != nil {
				t.Fatal(err)
			}
			indexes[r.train] = ix
			in := index.CorpusInput{Name: r.train, Source: dataset.Source{Path: path}}
			if _, err := ix.Build(context.Background(), []index.CorpusInput{in}, []checksum.Input{{Name: r.train, File: fp}}, lv, "test", nil); err != nil {
				t.Fatal(err)
			}
		}
		res, err := Check(context.Background(), ix, []Split{{Name: r.test, Source: dataset.Source{Path: label(r.test)}}}, Options{Levels: lv})
		if err != nil {
			t.Fatal(err)
		}
		var ws, tok, ren int64
		for _, got := range res.Splits {
			switch got.Level {
			case "ws":
				ws = got.Found
			case "tokens":
				tok = got.Found
				continue
			case "render":
				ren = got.Found
				continue
			}
			if got.Found != r.found || got.Total != r.total || got.Rate.String() != r.rate || got.UniqueFound != r.uniqueFound ||
				(r.uniqueLabels > 0 && got.Unique != r.uniqueLabels) {
				t.Errorf("%s vs %s at %s: %d/%d (%s%%), unique %d/%d; want %d/%d (%s%%), unique %d/%d",
					r.test, r.train, got.Level, got.Found, got.Total, got.Rate, got.UniqueFound, got.Unique,
					r.found, r.total, r.rate, r.uniqueFound, r.uniqueLabels)
			}
		}
		if len(res.AuditOnly) > 0 {
			t.Errorf("%s vs %s: %d audit-only matches on same-convention lists", r.test, r.train, len(res.AuditOnly))
		}
		// The stronger levels never find fewer.
		if tok < ws || ren < tok {
			t.Errorf("%s vs %s: ws %d, tokens %d, render %d: a stronger level found fewer", r.test, r.train, ws, tok, ren)
		}
		t.Logf("%-16s vs %-17s ws %5d  tokens %5d  render %5d  of %d", r.test, r.train, ws, tok, ren, r.total)
	}
}

// TestAuditOnlyOnPredictions uses TexTeller's untokenized predictions on
// CROHME 2023 as a "training corpus": the protocol's space deletion merges
// some of them with ground-truth labels that ws keeps apart. Every such
// item must be of the control-word kind, never "other".
func TestAuditOnlyOnPredictions(t *testing.T) {
	if testing.Short() {
		t.Skip("real data at full size: not in -short (the race pass)")
	}
	path := shareddata.Path(t, "predictions/texteller/crohme2023_test.json")
	lv, _ := canon.ParseLevels("audit,ws")
	// Index the predictions as the corpus, check the ground truth.
	preds := filepath.Join(t.TempDir(), "preds.jsonl")
	var b strings.Builder
	if _, err := dataset.Scan(dataset.Source{Path: path}, func(it dataset.Item) error {
		b.WriteString(`{"id":` + strconv.Quote(it.ID) + `,"latex":` + strconv.Quote(it.Pred) + "}\n")
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(preds, []byte(b.String()), 0o644)
	fp, _ := checksum.Of(preds)
	ix, err := index.Open(filepath.Join(t.TempDir(), "ix"), index.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	in := index.CorpusInput{Name: "preds", Source: dataset.Source{Path: preds}}
	if _, err := ix.Build(context.Background(), []index.CorpusInput{in}, []checksum.Input{{Name: "preds", File: fp}}, lv, "test", nil); err != nil {
		t.Fatal(err)
	}
	res, err := Check(context.Background(), ix, []Split{{Name: "gt", Source: dataset.Source{Path: path}}}, Options{Levels: lv})
	if err != nil {
		t.Fatal(err)
	}
	if res.Splits[1].Found > res.Splits[0].Found {
		t.Logf("ws finds more than audit here: %d > %d", res.Splits[1].Found, res.Splits[0].Found)
	}
	if len(res.AuditOnly) == 0 {
		t.Fatal("no audit-only item; the spec counts 17 such predictions on this split")
	}
	for _, a := range res.AuditOnly {
		if a.Reason == GlueOther {
			t.Errorf("audit-only item %s of kind other: %q vs ws %q", a.ID, a.AuditKey, a.WSKey)
		}
	}
	t.Logf("%d audit-only items, e.g. %q", len(res.AuditOnly), res.AuditOnly[0].Label)
}
