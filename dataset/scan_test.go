package dataset

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/leakaudit/leakaudit/internal/shareddata"
)

// collect scans src and returns the items and stats.
func collect(t *testing.T, src Source) ([]Item, Stats) {
	t.Helper()
	var items []Item
	st, err := Scan(src, func(it Item) error {
		items = append(items, it)
		return nil
	})
	if err != nil {
		t.Fatalf("Scan(%s): %v", src.Path, err)
	}
	return items, st
}

func labels(items []Item) []string {
	var out []string
	for _, it := range items {
		out = append(out, it.ID+"="+it.Label)
	}
	return out
}

func TestScanFixtures(t *testing.T) {
	tests := []struct {
		path      string
		format    Format
		want      []string
		skipped   map[string]int64
		fileError string
	}{
		{"strings.json", JSONStrings,
			[]string{"0=a + b", "2=42", "3=None", `5=\frac { 1 } { 2 }`},
			map[string]int64{ReasonEmpty: 1, ReasonNotString: 1}, ""},
		{"badutf8.json", JSONStrings, []string{"0=ok", "2=fine"},
			map[string]int64{ReasonInvalidUTF8: 1}, ""},
		{"truncated.json", JSONStrings, []string{"0=one", "1=two"},
			map[string]int64{ReasonNotString: 0}, "invalid JSON"},
		{"caption.txt", Caption, []string{"img_1=x ^ { 2 }", "img_2=a + b"},
			map[string]int64{ReasonNoSeparator: 1, ReasonEmpty: 1}, ""},
		{"multi.csv", CSV, []string{"1=a\nb", "2=plain", `3=c "quoted"`}, nil, ""},
		{"preds.jsonl", JSONL, []string{"p1=a", "p4=d"},
			map[string]int64{ReasonNull: 1, ReasonNoLabel: 1, ReasonMalformed: 1}, ""},
		{"tamer.json", JSONMap, []string{"x.jpg=a", "y.jpg=c"}, nil, ""},
		{"inkml", InkML, []string{"a=$x^2$", `b=\frac{a}{b}`},
			map[string]int64{ReasonEmptyFile: 1, ReasonBadXML: 1, ReasonNoTruth: 1}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			path := filepath.Join("testdata", tt.path)
			got, err := Detect(path)
			if err != nil || got != tt.format {
				t.Errorf("Detect = %q, %v; want %q", got, err, tt.format)
			}
			items, st := collect(t, Source{Path: path})
			if !reflect.DeepEqual(labels(items), tt.want) {
				t.Errorf("items = %q, want %q", labels(items), tt.want)
			}
			for reason, n := range tt.skipped {
				if st.Reasons[reason] != n {
					t.Errorf("skipped for %q = %d, want %d (all: %v)", reason, st.Reasons[reason], n, st.Reasons)
				}
			}
			if st.Items != int64(len(items)) {
				t.Errorf("Stats.Items = %d, delivered %d", st.Items, len(items))
			}
			if int64(len(st.Examples)) != min(st.Skipped, maxExamples) {
				t.Errorf("%d examples for %d skips", len(st.Examples), st.Skipped)
			}
			if tt.fileError == "" && st.FileError != "" || !strings.Contains(st.FileError, tt.fileError) {
				t.Errorf("FileError = %q, want it to contain %q", st.FileError, tt.fileError)
			}
		})
	}
}

func TestScanPredictions(t *testing.T) {
	items, _ := collect(t, Source{Path: "testdata/preds.jsonl"})
	if !items[0].HasPred || items[0].Pred != "b" {
		t.Errorf("first prediction = %+v, want pred b", items[0])
	}
	items, _ = collect(t, Source{Path: "testdata/tamer.json"})
	if !items[1].HasPred || items[1].Pred != "" {
		t.Errorf("empty TAMER prediction lost: %+v", items[1])
	}
}

func TestScanFieldOverride(t *testing.T) {
	items, st := collect(t, Source{Path: "testdata/preds.jsonl", Field: "pred"})
	if got := labels(items); !reflect.DeepEqual(got, []string{"p1=b", "p4=e"}) {
		t.Errorf("with --field pred: %q", got)
	}
	if st.Field != "pred" {
		t.Errorf("Stats.Field = %q", st.Field)
	}
}

func TestScanLimits(t *testing.T) {
	_, st := collect(t, Source{Path: "testdata/strings.json", Limits: Limits{MaxLabelBytes: 6}})
	if st.Reasons[ReasonTooLong] != 1 { // \frac { 1 } { 2 }
		t.Errorf("too-long skips = %d, want 1 (%v)", st.Reasons[ReasonTooLong], st.Reasons)
	}
	// A line longer than the limit is skipped, not held in memory whole.
	dir := t.TempDir()
	long := filepath.Join(dir, "caption.txt")
	os.WriteFile(long, []byte("a\t"+strings.Repeat("x", 3<<20)+"\nb\tok\n"), 0o644)
	items, st := collect(t, Source{Path: long})
	if len(items) != 1 || items[0].ID != "b" || st.Reasons[ReasonTooLong] != 1 {
		t.Errorf("long line: items %q, skips %v", labels(items), st.Reasons)
	}
}

func TestScanCallerError(t *testing.T) {
	stop := errors.New("stop")
	_, err := Scan(Source{Path: "testdata/strings.json"}, func(Item) error { return stop })
	if !errors.Is(err, stop) {
		t.Errorf("Scan returned %v, want the caller's error", err)
	}
}

func TestScanUnreadable(t *testing.T) {
	if _, err := Scan(Source{Path: "testdata/nonexistent.json"}, func(Item) error { return nil }); err == nil {
		t.Error("Scan of a missing file succeeded")
	}
}

func TestParquetRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "corpus.parquet")
	if err := writeTestParquet(path, []string{"a", "", nullLabel, "b \\alpha"}); err != nil {
		t.Fatal(err)
	}
	if f, _ := Detect(path); f != Parquet {
		t.Errorf("Detect = %q", f)
	}
	items, st := collect(t, Source{Path: path})
	if got := labels(items); !reflect.DeepEqual(got, []string{"ra=a", `rd=b \alpha`}) {
		t.Errorf("items %q", got)
	}
	if st.Field != "latex_formula" || st.IDField != "id" || st.Reasons[ReasonEmpty] != 1 || st.Reasons[ReasonNull] != 1 {
		t.Errorf("stats %+v", st)
	}
	// A truncated file is a file fault, not a crash.
	data, _ := os.ReadFile(path)
	os.WriteFile(path, data[:len(data)/2], 0o644)
	_, st = collect(t, Source{Path: path, Format: Parquet})
	if st.FileError == "" {
		t.Error("truncated Parquet gave no file error")
	}
}

// TestParquetImageStruct reads a Hugging Face image dataset layout: the
// label column beside an image struct {bytes, path}, whose path names rows.
func TestParquetImageStruct(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hf.parquet")
	rows := []hfRow{
		{hfImage{[]byte("\x89PNG..."), "train/0001.png"}, `\\frac{a}{b}`},
		{hfImage{nil, "train/0002.png"}, `x^2`},
	}
	if err := writeHFParquet(path, rows); err != nil {
		t.Fatal(err)
	}
	items, st := collect(t, Source{Path: path})
	if got := labels(items); !reflect.DeepEqual(got, []string{`train/0001.png=\\frac{a}{b}`, "train/0002.png=x^2"}) {
		t.Errorf("items %q", got)
	}
	if st.IDField != "image.path" {
		t.Errorf("id field %q", st.IDField)
	}
	if _, err := Scan(Source{Path: path, Field: "image.bytes"}, func(Item) error { return nil }); err != nil {
		t.Errorf("reading a nested column: %v", err)
	}
	if _, err := Scan(Source{Path: path, Field: "nope"}, func(Item) error { return nil }); err == nil || !strings.Contains(err.Error(), "latex_formula") {
		t.Errorf("unknown column: %v (want the list of columns)", err)
	}
}

// TestSharedData reads every format in the shared data and checks the counts
// its README states.
func TestSharedData(t *testing.T) {
	dir := shareddata.Dir(t)
	tests := []struct {
		path    string
		format  Format
		items   int64
		skipped int64
		firstID string
	}{
		{"labels/crohme_2014_captions.json", JSONStrings, 986, 0, "0"},
		{"labels/hme100k_train_captions.json", JSONStrings, 74502, 0, "0"},
		{"predictions/texteller/crohme_2014.json", JSONObjects, 986, 0, "514_em_341"},
		{"predictions/texteller/mathwriting_test.json", JSONObjects, 7643, 0, ""},
		{"predictions/tamer/hme100k_test.json", JSONMap, 24607, 0, ""},
		{"predictions/wap/crohme_2014.txt", Caption, 985, 0, "RIT_2014_29"},
		{"predictions/san/crohme_2014_bad_cases.json", JSONMap, 473, 0, ""},
		{"predictions/can/crohme_2014_bad_cases.json", JSONMap, 471, 0, ""},
		{"crohme/train", Caption, 8834, 0, ""},
		{"crohme/2014/caption.txt", Caption, 986, 0, "23_em_52"},
		{"im2latex/formulas/test.formulas.norm.txt", Lines, 9443, 0, "0"},
		{"crohme-inkml/2014", InkML, 986, 0, "18_em_0"},
		{"crohme-inkml/train-sample", InkML, 198, 2, ""},
		{"refcdm/probe_pairs.jsonl", JSONL, 39, 0, "p01_identical_simple"},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			path := filepath.Join(dir, tt.path)
			if _, err := os.Stat(path); err != nil {
				t.Skipf("%s absent", path)
			}
			items, st := collect(t, Source{Path: path})
			if st.Format != tt.format || st.Items != tt.items || st.Skipped != tt.skipped || st.FileError != "" {
				t.Errorf("format %s items %d skipped %d (%s) fileError %q; want %s %d %d",
					st.Format, st.Items, st.Skipped, st.ReasonSummary(), st.FileError, tt.format, tt.items, tt.skipped)
			}
			if tt.firstID != "" && (len(items) == 0 || items[0].ID != tt.firstID) {
				t.Errorf("first id %q, want %q", items[0].ID, tt.firstID)
			}
		})
	}
}

// TestSharedInkMLDefects checks the two known defective CROHME files are
// reported by name with the right reasons.
func TestSharedInkMLDefects(t *testing.T) {
	path := shareddata.Path(t, "crohme-inkml/train-sample")
	_, st := collect(t, Source{Path: path})
	got := map[string]string{}
	for _, ex := range st.Examples {
		got[ex.ID] = ex.Reason
	}
	if got["MfrDB0104"] != ReasonBadXML || got["MfrDB3088"] != ReasonEmptyFile {
		t.Errorf("defects reported as %v", got)
	}
}

func FuzzScan(f *testing.F) {
	for _, p := range []string{"strings.json", "caption.txt", "multi.csv", "preds.jsonl", "tamer.json", "inkml/a.inkml"} {
		data, _ := os.ReadFile(filepath.Join("testdata", p))
		f.Add(data, string(must(Detect(filepath.Join("testdata", p)))))
	}
	f.Fuzz(func(t *testing.T, data []byte, format string) {
		fm, err := ParseFormat(format)
		if err != nil || fm == Parquet || fm == "" {
			return
		}
		path := filepath.Join(t.TempDir(), "in")
		if fm == InkML {
			path += ".inkml"
		}
		os.WriteFile(path, data, 0o644)
		var n int64
		st, err := Scan(Source{Path: path, Format: fm}, func(it Item) error {
			n++
			if it.Label == "" {
				t.Fatal("empty label delivered")
			}
			return nil
		})
		if err == nil && st.Items != n {
			t.Fatalf("Stats.Items %d, delivered %d", st.Items, n)
		}
	})
}

func must[T any](v T, _ error) T { return v }

// TestJSONStringsEscapes checks the JSON label-list scanner against
// encoding/json on escapes, odd values and layout.
func TestJSONStringsEscapes(t *testing.T) {
	doc := "\xef\xbb\xbf [ \"a\\\\\\\"b\" ,\"\\u00e9\\ud83d\\ude00\\n\\/\",\"\\\\\",\n1.5e3, true ,{\"k\":\"]\"}, [\"x\",[]] , \"\\\\\\\\\"]"
	path := filepath.Join(t.TempDir(), "esc.json")
	os.WriteFile(path, []byte(doc), 0o644)
	items, st := collect(t, Source{Path: path, Format: JSONStrings})
	want := []string{"0=a\\\"b", "1=é😀\n/", "2=\\", "3=1.5e3", "4=True", `7=\\`}
	if !reflect.DeepEqual(labels(items), want) || st.Reasons[ReasonNotString] != 2 || st.FileError != "" {
		t.Errorf("items %q, stats %+v", labels(items), st)
	}
	for _, bad := range []string{`["a" "b"]`, `["a",`, `["a`, `{"a":1}`, `[nope]`} {
		os.WriteFile(path, []byte(bad), 0o644)
		_, st := collect(t, Source{Path: path, Format: JSONStrings})
		if st.FileError == "" {
			t.Errorf("%s: no file error", bad)
		}
	}
	os.WriteFile(path, []byte("[\"tab\there\", \"bad \\q escape\", \"ok\"]"), 0o644)
	items, st = collect(t, Source{Path: path, Format: JSONStrings})
	if len(items) != 1 || st.Reasons[ReasonMalformed] != 2 {
		t.Errorf("malformed strings: items %q, stats %+v", labels(items), st.Reasons)
	}
}

func TestDetectRefusesBinary(t *testing.T) {
	dir := t.TempDir()
	for name, data := range map[string][]byte{
		"a.zip":    []byte("PK\x03\x04\x14\x00\x00\x00\x08\x00"),
		"b.png":    []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"),
		"c.tar.gz": []byte("\x1f\x8b\x08\x00\x00\x00\x00\x00"),
	} {
		p := filepath.Join(dir, name)
		os.WriteFile(p, data, 0o644)
		if f, err := Detect(p); err == nil {
			t.Errorf("%s detected as %s", name, f)
		}
	}
}
