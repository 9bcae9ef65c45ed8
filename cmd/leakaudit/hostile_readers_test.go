package main

// Hostile inputs for the readers, through the commands: caption files under
// other names, JSON cut short, empty inputs of every kind. Each test makes
// its files in t.TempDir() and runs the commands in process.

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/leakaudit/leakaudit/internal/shareddata"
)

// hostileFile writes content to dir/name and returns its path.
func hostileFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// overlapReport is the part of overlap --json the tests read.
type overlapReport struct {
	Splits []struct {
		Name  string          `json:"name"`
		Level string          `json:"level"`
		Total int64           `json:"total"`
		Found int64           `json:"found"`
		Rate  json.RawMessage `json:"rate"`
	} `json:"splits"`
	Train []struct {
		Stats struct {
			Format     string `json:"format"`
			Items      int64  `json:"items"`
			Empty      bool   `json:"empty"`
			FormatNote string `json:"format_note"`
		} `json:"stats"`
	} `json:"train_inputs"`
	Test []struct {
		Stats struct {
			Format     string `json:"format"`
			Items      int64  `json:"items"`
			Empty      bool   `json:"empty"`
			FormatNote string `json:"format_note"`
		} `json:"stats"`
	} `json:"test_inputs"`
	Complete   bool `json:"complete"`
	Incomplete []struct {
		Reason string `json:"reason"`
	} `json:"incomplete"`
}

func decodeOverlap(t *testing.T, out string) overlapReport {
	t.Helper()
	var r overlapReport
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v in %q", err, out)
	}
	return r
}

// TestHostileCaptionFiles: caption files not named caption.txt, with ids
// that have no letter or with a repeated id, are read as captions; the
// repeated id is said on stderr and in the JSON.
func TestHostileCaptionFiles(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	dir := t.TempDir()
	var train, test strings.Builder
	for i := range 30 {
		fmt.Fprintf(&train, "200922-%d-%d\t\\frac { %d } { 3 }\n", 900+i, i%7, i) // CROHME train ids
	}
	for i := range 20 {
		fmt.Fprintf(&test, "%d_em_%d\t\\frac { %d } { 3 }\n", 18+i/10, i, i+20) // 10 of them in train
	}
	testText := strings.SplitAfter(test.String(), "\n")[0] + test.String() // the first line twice
	trainPath := hostileFile(t, dir, "train_caps.txt", train.String())
	testPath := hostileFile(t, dir, "crohme2014.txt", testText)
	out, stderr, code := runCode(t, "overlap", "--train", trainPath, "--test", "t="+testPath, "--json", "--level", "audit")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	r := decodeOverlap(t, out)
	if len(r.Splits) != 1 || r.Splits[0].Total != 21 || r.Splits[0].Found != 11 || string(r.Splits[0].Rate) != "52.38" {
		t.Errorf("splits %+v, want 11 of 21 found", r.Splits)
	}
	if r.Train[0].Stats.Format != "caption" || r.Train[0].Stats.FormatNote != "" {
		t.Errorf("train read as %+v", r.Train[0].Stats)
	}
	note := r.Test[0].Stats.FormatNote
	if r.Test[0].Stats.Format != "caption" || !strings.Contains(note, `repeat (first: "18_em_0")`) {
		t.Errorf("test read as %+v", r.Test[0].Stats)
	}
	if !strings.Contains(stderr, "leakaudit: format: test t ("+testPath+"): "+note) {
		t.Errorf("stderr lacks the note: %s", stderr)
	}
	// The audit says it too, in findings.json's inputs.
	cfg := hostileFile(t, dir, "audit.yaml", "name: t\nmodel: m\ntrain:\n  - {name: tr, path: train_caps.txt}\nsplits:\n  - {name: s, benchmark: b, role: test, labels: crohme2014.txt}\n")
	out, stderr, code = runCode(t, "audit", "--config", cfg, "--out", filepath.Join(dir, "audit"), "--json")
	if code != 0 || !strings.Contains(stderr, "leakaudit: format: labels s") || !strings.Contains(out, `"format_note": "read as captions`) {
		t.Errorf("audit: exit %d: %s", code, stderr)
	}
	// Asked for, a format is never second-guessed.
	db := filepath.Join(dir, "db")
	out, _, code = runCode(t, "overlap", "--train", trainPath, "--test", "t="+testPath, "--json", "--level", "audit", "--format", "lines", "--db", db)
	if r := decodeOverlap(t, out); code != 0 || r.Splits[0].Found != 0 || r.Test[0].Stats.FormatNote != "" {
		t.Errorf("--format lines: exit %d, %+v", code, r)
	}
	// An index built reading the corpus otherwise (another --format, or an
	// earlier version's detection) is refused, not reused.
	_, stderr, code = runCode(t, "overlap", "--train", trainPath, "--test", "t="+testPath, "--level", "audit", "--db", db)
	if code != exitError || !strings.Contains(stderr, "read as lines, but it is read as caption now") || !strings.Contains(stderr, "--rebuild") {
		t.Errorf("index read as lines, reused for captions: exit %d: %s", code, stderr)
	}
	out, _, code = runCode(t, "overlap", "--train", trainPath, "--test", "t="+testPath, "--json", "--level", "audit", "--db", db, "--rebuild")
	if r := decodeOverlap(t, out); code != 0 || r.Splits[0].Found != 11 {
		t.Errorf("--rebuild: exit %d, %+v", code, r)
	}
}

// TestHostileCaptionFilesReal is the case on the CROHME release:
// train captions renamed find 30 of CROHME 2014; 2014 renamed with one line
// repeated gives 30 of 987, 3.04%.
func TestHostileCaptionFilesReal(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	trainCaps := shareddata.Path(t, "crohme/train/caption.txt")
	capt2014 := shareddata.Path(t, "crohme/2014/caption.txt")
	labels2014 := shareddata.Path(t, "labels/crohme_2014_captions.json")
	dir := t.TempDir()
	train, _ := os.ReadFile(trainCaps)
	test, _ := os.ReadFile(capt2014)
	first, _, _ := strings.Cut(string(test), "\n")
	trainPath := hostileFile(t, dir, "train_caps.txt", string(train))
	testPath := hostileFile(t, dir, "crohme2014.txt", first+"\n"+string(test))
	for _, c := range []struct {
		test         string
		total, found int64
		rate         string
	}{{labels2014, 986, 30, "3.04"}, {testPath, 987, 30, "3.04"}} {
		out, stderr, code := runCode(t, "overlap", "--train", trainPath, "--test", "t="+c.test, "--json", "--level", "audit")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		r := decodeOverlap(t, out)
		if s := r.Splits[0]; s.Total != c.total || s.Found != c.found || string(s.Rate) != c.rate {
			t.Errorf("%s: %+v, want %d of %d (%s%%)", c.test, s, c.found, c.total, c.rate)
		}
	}
}

// TestHostileJSONCutShort: a JSON array of objects without its final ] and
// a JSON map without its final } are partial inputs for every command
// (exit 3, complete false; --allow-partial gives 0), and dedup refuses to
// rewrite them, as it refuses any input read only in part.
func TestHostileJSONCutShort(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	dir := t.TempDir()
	files := map[string]string{
		"objects.json": "[\n  {\"img_id\": \"a\", \"gt\": \"x + 1\", \"pred\": \"x+1\"},\n  {\"img_id\": \"b\", \"gt\": \"y ^ 2\", \"pred\": \"y^2\"}\n",
		"map.json":     "{\n  \"a\": {\"gt\": \"x + 1\", \"pred\": \"x+1\"},\n  \"b\": {\"gt\": \"y ^ 2\", \"pred\": \"y^2\"}\n",
		"map1.json":    `{"a": {"gt": "x + 1", "pred": "x+1"}, "b": {"gt": "y ^ 2", "pred": "y^2"}` + "\n",
	}
	train := hostileFile(t, dir, "train.json", `["x + 1", "z"]`)
	for name, content := range files {
		p := hostileFile(t, dir, name, content)
		cfg := hostileFile(t, dir, name+".yaml", fmt.Sprintf("name: t\nmodel: m\ntrain:\n  - {name: tr, path: train.json}\nsplits:\n  - {name: s, benchmark: b, role: test, predictions: %s}\n", name))
		runs := map[string][]string{
			"score":       {"score", "--input", p, "--json"},
			"overlap":     {"overlap", "--train", train, "--test", p, "--json"},
			"fingerprint": {"fingerprint", "--input", p, "--out", filepath.Join(dir, name+".fp.parquet"), "--json"},
			"audit":       {"audit", "--config", cfg, "--out", filepath.Join(dir, name+".audit"), "--json"},
		}
		for cmd, args := range runs {
			out, stderr, code := runCode(t, args...)
			if code != exitPartial || !strings.Contains(stderr, "without the closing") {
				t.Errorf("%s %s: exit %d, want 3: %s", cmd, name, code, stderr)
			}
			if !strings.Contains(out, `"complete": false`) {
				t.Errorf("%s %s: JSON says complete: %s", cmd, name, out)
			}
			if cmd == "overlap" {
				if r := decodeOverlap(t, out); r.Splits[0].Total != 2 || r.Splits[0].Found != 1 {
					t.Errorf("overlap %s: %+v", name, r.Splits)
				}
				if _, _, code := runCode(t, append(args, "--allow-partial")...); code != 0 {
					t.Errorf("overlap %s --allow-partial: exit %d", name, code)
				}
			}
		}
		// dedup refuses to rewrite what was read only in part, and reads
		// the same file as an against input as every command does.
		_, stderr, code := runCode(t, "dedup", "--release", p, "--against", train, "--out", filepath.Join(dir, name+".clean"))
		if code != exitError || !strings.Contains(stderr, "read only partly") || !strings.Contains(stderr, "without the closing") {
			t.Errorf("dedup --release %s: exit %d: %s", name, code, stderr)
		}
		_, stderr, code = runCode(t, "dedup", "--release", train, "--against", p, "--out", filepath.Join(dir, name+".clean2"))
		if code != exitPartial || !strings.Contains(stderr, "without the closing") {
			t.Errorf("dedup --against %s: exit %d: %s", name, code, stderr)
		}
	}
}

// TestHostileEmptyInputs: an input with no record at all, in any format,
// is reported as empty by every command: partial (exit 3, --allow-partial
// accepts it) where the command has other inputs to report on, an error
// (exit 1) saying which input was empty where it is left with nothing to
// compute (score, fingerprint).
func TestHostileEmptyInputs(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	dir := t.TempDir()
	train := hostileFile(t, dir, "train.json", `["x + 1", "z"]`)
	hostileFile(t, dir, "capfolder/caption.txt", "")
	os.MkdirAll(filepath.Join(dir, "capfolder", "img"), 0o755)
	os.MkdirAll(filepath.Join(dir, "images"), 0o755)
	empties := []string{
		hostileFile(t, dir, "e.json", ""),
		hostileFile(t, dir, "a.json", "[]\n"),
		hostileFile(t, dir, "m.json", "{}\n"),
		hostileFile(t, dir, "e.jsonl", "\n\n"),
		hostileFile(t, dir, "h.csv", "id,gt,pred\n"),
		hostileFile(t, dir, "e.csv", ""),
		hostileFile(t, dir, "e.parquet", ""),
		hostileFile(t, dir, "e.txt", "  \n"),
		filepath.Join(dir, "capfolder"),
		filepath.Join(dir, "images"),
	}
	for i, p := range empties {
		name := filepath.Base(p)
		out, stderr, code := runCode(t, "overlap", "--train", train, "--test", p, "--json")
		r := decodeOverlap(t, out)
		if code != exitPartial || r.Complete || len(r.Test) != 1 || !r.Test[0].Stats.Empty || !strings.Contains(stderr, "empty input") {
			t.Errorf("overlap --test %s: exit %d, %+v: %s", name, code, r, stderr)
		}
		if _, _, code := runCode(t, "overlap", "--train", train, "--test", p, "--allow-partial"); code != 0 {
			t.Errorf("overlap --test %s --allow-partial: exit %d", name, code)
		}
		_, stderr, code = runCode(t, "overlap", "--train", p, "--test", train)
		if code != exitPartial || !strings.Contains(stderr, "empty input") {
			t.Errorf("overlap --train %s: exit %d: %s", name, code, stderr)
		}
		_, stderr, code = runCode(t, "score", "--input", p)
		if code != exitError || !strings.Contains(stderr, "no items to score: the input is empty") {
			t.Errorf("score %s: exit %d: %s", name, code, stderr)
		}
		_, stderr, code = runCode(t, "fingerprint", "--input", p, "--out", filepath.Join(dir, fmt.Sprintf("fp%d.parquet", i)))
		if code != exitError || !strings.Contains(stderr, "no item to fingerprint: input") || !strings.Contains(stderr, "is empty") {
			t.Errorf("fingerprint %s: exit %d: %s", name, code, stderr)
		}
		if name == "images" {
			continue // an image folder is a release only with --images: below
		}
		_, stderr, code = runCode(t, "dedup", "--release", p, "--against", train, "--out", filepath.Join(dir, fmt.Sprintf("clean%d", i)))
		if code != exitPartial || !strings.Contains(stderr, "empty input") {
			t.Errorf("dedup --release %s: exit %d: %s", name, code, stderr)
		}
		_, stderr, code = runCode(t, "dedup", "--release", train, "--against", p, "--out", filepath.Join(dir, fmt.Sprintf("clean-a%d", i)))
		if code != exitPartial || !strings.Contains(stderr, "empty input") {
			t.Errorf("dedup --against %s: exit %d: %s", name, code, stderr)
		}
	}
	// Image sources: an empty image folder.
	img := filepath.Join(dir, "images")
	_, stderr, code := runCode(t, "neardup", "--train", img, "--test", img, "--db", filepath.Join(dir, "imgdb"))
	if code != exitPartial || !strings.Contains(stderr, "empty input") {
		t.Errorf("neardup on an empty folder: exit %d: %s", code, stderr)
	}
	_, stderr, code = runCode(t, "fingerprint", "--images", "--input", img, "--out", filepath.Join(dir, "img.fp.parquet"))
	if code != exitError || !strings.Contains(stderr, "is empty") {
		t.Errorf("fingerprint --images on an empty folder: exit %d: %s", code, stderr)
	}
	// The audit with an empty split among others: partial.
	hostileFile(t, dir, "preds.jsonl", `{"img_id": "a", "gt": "x + 1", "pred": "x+1"}`+"\n")
	cfg := hostileFile(t, dir, "audit.yaml", "name: t\nmodel: m\ntrain:\n  - {name: tr, path: train.json}\nsplits:\n  - {name: s, benchmark: b, role: test, predictions: preds.jsonl}\n  - {name: e, benchmark: b, role: val, predictions: a.json}\n")
	_, stderr, code = runCode(t, "audit", "--config", cfg, "--out", filepath.Join(dir, "audit"))
	if code != exitPartial || !strings.Contains(stderr, "empty input") {
		t.Errorf("audit with an empty split: exit %d: %s", code, stderr)
	}
}

// TestHostileNoItems: score and fingerprint, left with no item, say why:
// the label field looked for and the fields the records have.
func TestHostileNoItems(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	dir := t.TempDir()
	p := hostileFile(t, dir, "p.json", `[{"image": "a", "tex": "x", "pred": "x"}, {"image": "b", "tex": "y", "pred": "y"}]`)
	want := []string{"all 2 record(s) (read as json-objects) were skipped", "looked for as gt, label", "the fields image, pred, tex", "--field"}
	_, stderr, code := runCode(t, "score", "--input", p)
	for _, w := range append(want, "no items to score") {
		if code != exitError || !strings.Contains(stderr, w) {
			t.Errorf("score: exit %d, %q lacks %q", code, stderr, w)
		}
	}
	_, stderr, code = runCode(t, "fingerprint", "--input", p, "--out", filepath.Join(dir, "fp.parquet"))
	for _, w := range append(want, "no item to fingerprint: input p") {
		if code != exitError || !strings.Contains(stderr, w) {
			t.Errorf("fingerprint: exit %d, %q lacks %q", code, stderr, w)
		}
	}
	// The field named gives the items.
	if _, stderr, code := runCode(t, "score", "--input", p, "--field", "tex", "--metrics", "exprate@raw"); code != 0 {
		t.Errorf("score --field tex: exit %d: %s", code, stderr)
	}
}

// TestHostileJSONCutShortReal is the case on published files: the
// TexTeller CROHME 2014 predictions without their final ] and the TAMER
// HME100K map without its final } are partial for score and overlap, and
// dedup refuses to rewrite them (main rewrote the TAMER map without its
// closing brace, exit 0).
func TestHostileJSONCutShortReal(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	dir := t.TempDir()
	labels := shareddata.Path(t, "labels/crohme_2014_captions.json")
	for _, c := range []struct {
		src, closing string
		items        int
	}{
		{"predictions/texteller/crohme_2014.json", "]", 986},
		{"predictions/tamer/hme100k_test.json", "}", 24607},
	} {
		b, err := os.ReadFile(shareddata.Path(t, c.src))
		if err != nil {
			t.Fatal(err)
		}
		body := strings.TrimRight(string(b), " \r\n")
		p := hostileFile(t, dir, filepath.Base(filepath.Dir(c.src))+".json", strings.TrimSuffix(body, c.closing))
		out, stderr, code := runCode(t, "score", "--input", p, "--metrics", "exprate@raw", "--json")
		if code != exitPartial || !strings.Contains(out, `"complete": false`) || !strings.Contains(out, fmt.Sprintf(`"items": %d`, c.items)) {
			t.Errorf("score %s: exit %d: %s", c.src, code, stderr)
		}
		if _, stderr, code := runCode(t, "overlap", "--train", labels, "--test", p, "--level", "audit"); code != exitPartial {
			t.Errorf("overlap %s: exit %d: %s", c.src, code, stderr)
		}
		_, stderr, code = runCode(t, "dedup", "--release", p, "--against", labels, "--out", filepath.Join(dir, "clean"))
		if code != exitError || !strings.Contains(stderr, "without the closing "+strconv.Quote(c.closing)) {
			t.Errorf("dedup %s: exit %d: %s", c.src, code, stderr)
		}
	}
}
