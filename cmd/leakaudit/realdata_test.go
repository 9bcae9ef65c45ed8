package main

// The real-data suite: every command over every applicable file of the
// shared data (../shared/data, or $LEAKAUDIT_DATA), with every output
// option, as a user runs them. Each run asserts its exit status, that it did
// not panic, and that every item is accounted for: items in = counted +
// skipped with a reason. It skips with a message when the data is absent.
// The big files run once, not once per level, to stay inside CI's time.

import (
	"archive/zip"
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/leakaudit/leakaudit/internal/shareddata"
)

// runCode executes the CLI in process and returns stdout, stderr and the
// exit status main would give; a panic fails the test with its input.
func runCode(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			t.Fatalf("leakaudit %s: panic: %v", strings.Join(args, " "), r)
		}
	}()
	stdout, stderr, err := execute(args...)
	if err != nil {
		stderr += "leakaudit: " + err.Error() + "\n"
	}
	return stdout, stderr, exitCode(err)
}

// countLines counts the lines of a file.
func countLines(t *testing.T, path string) int {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	n := 0
	for sc.Scan() {
		n++
	}
	return n
}

// scoreJSON is the part of "score --json" the suite checks.
type scoreJSON struct {
	Missing int `json:"missing_predictions"`
	CDM     struct {
		Pairs       int `json:"pairs"`
		Counted     int `json:"counted"`
		Scored      int `json:"scored"`
		PredFailed  int `json:"pred_failed"`
		GTFailed    int `json:"gt_failed"`
		Unsupported int `json:"unsupported"`
	} `json:"cdm"`
	Read struct {
		Items   int64 `json:"items"`
		Skipped int64 `json:"skipped"`
	} `json:"read"`
	GTRead *struct {
		Items   int64 `json:"items"`
		Skipped int64 `json:"skipped"`
	} `json:"gt_read"`
	Complete bool `json:"complete"`
}

// TestRealScore: every shipped prediction file through "score --out --json
// --metrics cdm,exprate@audit": exit 0, and every pair is in the summary
// once, in items.jsonl once, and in metrics_res.json when it is counted.
func TestRealScore(t *testing.T) {
	root := shareddata.Dir(t)
	type input struct {
		args      []string
		wantItems int
	}
	var inputs []input
	for _, split := range []string{"crohme_train", "crohme_2014", "crohme_2016", "crohme_2019", "crohme2023_train", "crohme2023_val", "crohme2023_test", "hme100k_test", "mathwriting_valid", "mathwriting_test"} {
		inputs = append(inputs, input{[]string{"--input", filepath.Join(root, "predictions", "texteller", split+".json")}, -1})
	}
	inputs = append(inputs,
		input{[]string{"--input", filepath.Join(root, "predictions", "tamer", "hme100k_test.json")}, 24607},
		input{[]string{"--input", filepath.Join(root, "predictions", "san", "crohme_2014_bad_cases.json")}, 473},
		input{[]string{"--input", filepath.Join(root, "predictions", "can", "crohme_2014_bad_cases.json")}, 471},
		// WAP's decode output holds predictions alone: the ground truths
		// come from the CROHME 2014 caption folder; 505_em_51 has none.
		input{[]string{"--input", filepath.Join(root, "predictions", "wap", "crohme_2014.txt"), "--gt", filepath.Join(root, "crohme", "2014")}, 986},
		// The reference CDM's own inputs: its 600 TexTeller pairs and the
		// 39 probe pairs.
		input{[]string{"--input", filepath.Join(root, "refcdm", "reference_600", "pairs.json")}, 600},
		input{[]string{"--input", filepath.Join(root, "refcdm", "probe_pairs.jsonl")}, 39},
	)
	for _, in := range inputs {
		name := filepath.Base(in.args[1])
		t.Run(filepath.Base(filepath.Dir(in.args[1]))+"/"+name, func(t *testing.T) {
			dir := t.TempDir()
			args := append([]string{"score", "--json", "--out", dir, "--metrics", "cdm,exprate@audit"}, in.args...)
			vis := ""
			if name == "crohme_2014.json" || name == "crohme_2014.txt" {
				vis = filepath.Join(dir, "vis")
				args = append(args, "--vis", vis, "--vis-max", "5")
			}
			stdout, stderr, code := runCode(t, args...)
			if code != exitOK {
				t.Fatalf("exit %d:\n%s", code, stderr)
			}
			var res scoreJSON
			if err := json.Unmarshal([]byte(stdout), &res); err != nil {
				t.Fatalf("%v\n%s", err, stdout)
			}
			s := res.CDM
			items := int(res.Read.Items)
			if res.GTRead != nil {
				items = int(res.GTRead.Items)
			}
			if in.wantItems >= 0 && items != in.wantItems {
				t.Errorf("%d items read, want %d", items, in.wantItems)
			}
			if s.Pairs != items || s.Scored+s.PredFailed+s.GTFailed+s.Unsupported != s.Pairs || s.Counted != s.Scored+s.PredFailed {
				t.Errorf("items %d, summary %+v: an item is unaccounted for", items, s)
			}
			if res.Read.Skipped != 0 || !res.Complete {
				t.Errorf("%d records skipped, complete %v", res.Read.Skipped, res.Complete)
			}
			if n := countLines(t, filepath.Join(dir, "items.jsonl")); n != s.Pairs {
				t.Errorf("items.jsonl has %d rows, want %d", n, s.Pairs)
			}
			var mr struct {
				Details map[string]json.RawMessage `json:"details"`
			}
			b, err := os.ReadFile(filepath.Join(dir, "metrics_res.json"))
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(b, &mr); err != nil {
				t.Fatal(err)
			}
			if len(mr.Details) > s.Counted {
				t.Errorf("metrics_res.json has %d details for %d counted pairs", len(mr.Details), s.Counted)
			}
			if fi, err := os.Stat(filepath.Join(dir, "items.parquet")); err != nil || fi.Size() == 0 {
				t.Errorf("items.parquet: %v", err)
			}
			if vis != "" {
				if pngs, _ := filepath.Glob(filepath.Join(vis, "*.png")); len(pngs) != 5 {
					t.Errorf("--vis drew %d items, want 5", len(pngs))
				}
			}
			t.Logf("%d pairs: %d counted, %d pred failed, %d GT failed, %d unsupported, %d without prediction", s.Pairs, s.Counted, s.PredFailed, s.GTFailed, s.Unsupported, res.Missing)
		})
	}
}

// overlapJSON is the part of "overlap --json" the suite checks.
type overlapJSON struct {
	Splits []struct {
		Name  string `json:"name"`
		Level string `json:"level"`
		Total int64  `json:"total"`
		Found int64  `json:"found"`
	} `json:"splits"`
	Train []struct {
		Name  string `json:"name"`
		Stats struct {
			Items   int64 `json:"items"`
			Skipped int64 `json:"skipped"`
		} `json:"stats"`
	} `json:"train_inputs"`
	TestInputs []struct {
		Name  string `json:"name"`
		Stats struct {
			Items   int64            `json:"items"`
			Skipped int64            `json:"skipped"`
			Reasons map[string]int64 `json:"skip_reasons"`
		} `json:"stats"`
		Error string `json:"error"`
	} `json:"test_inputs"`
	Complete   bool `json:"complete"`
	Incomplete []struct {
		Input  string `json:"input"`
		Reason string `json:"reason"`
	} `json:"incomplete"`
}

// TestRealOverlap: every label list, caption folder, InkML folder and
// im2latex formula file as a test split against three training corpora
// (one a caption folder), with --json and --items, then the text output.
// The InkML training sample holds a malformed and an empty file: exit 3,
// both named; --allow-partial makes it 0.
func TestRealOverlap(t *testing.T) {
	root := shareddata.Dir(t)
	args := []string{"overlap", "--json", "--level", "audit,ws", "--db", t.TempDir(),
		"--train", "crohme_train=" + filepath.Join(root, "crohme", "train"),
		"--train", filepath.Join(root, "labels", "hme100k_train_captions.json"),
		"--train", filepath.Join(root, "labels", "crohme2023_train_captions.json")}
	entries, err := os.ReadDir(filepath.Join(root, "labels"))
	if err != nil {
		t.Fatal(err)
	}
	var lists int
	for _, e := range entries {
		args = append(args, "--test", filepath.Join(root, "labels", e.Name()))
		lists++
	}
	if lists != 15 {
		t.Errorf("%d label lists, want the 15 of the data README", lists)
	}
	for _, s := range []string{"2014", "2016", "2019"} {
		args = append(args, "--test", "folder"+s+"="+filepath.Join(root, "crohme", s))
	}
	args = append(args,
		"--test", "inkml2014="+filepath.Join(root, "crohme-inkml", "2014"),
		"--test", "inkmltrain="+filepath.Join(root, "crohme-inkml", "train-sample"),
		"--test", "im2latex_test="+filepath.Join(root, "im2latex", "formulas", "test.formulas.norm.txt"),
		"--test", "im2latex_val="+filepath.Join(root, "im2latex", "formulas", "val.formulas.norm.txt"))
	items := filepath.Join(t.TempDir(), "items.jsonl")
	stdout, stderr, code := runCode(t, append(args, "--items", items)...)
	if code != exitPartial {
		t.Fatalf("exit %d, want %d (the InkML sample's two defective files):\n%s", code, exitPartial, stderr)
	}
	var rep overlapJSON
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Complete || len(rep.Incomplete) != 1 || rep.Incomplete[0].Input != "test inkmltrain" ||
		!strings.Contains(rep.Incomplete[0].Reason, "MfrDB0104.inkml") || !strings.Contains(rep.Incomplete[0].Reason, "MfrDB3088.inkml") {
		t.Errorf("incomplete: %+v", rep.Incomplete)
	}
	if !strings.Contains(stderr, "partial input: test inkmltrain") {
		t.Errorf("stderr does not name the partial input:\n%s", stderr)
	}
	want := map[string]int64{"crohme_2014_captions": 986, "hme100k_test_captions": 24607, "folder2014": 986, "inkml2014": 986, "inkmltrain": 198, "im2latex_test": 9443, "im2latex_val": 8475, "mathwriting_valid_captions": 15670}
	total := map[string]int64{}
	for _, s := range rep.Splits {
		if s.Level == "audit" {
			total[s.Name] = s.Total
		}
	}
	var rows int64
	for _, in := range rep.TestInputs {
		if in.Error != "" {
			t.Errorf("%s not read: %s", in.Name, in.Error)
		}
		if total[in.Name] != in.Stats.Items {
			t.Errorf("%s: %d items read, %d in the overlap total", in.Name, in.Stats.Items, total[in.Name])
		}
		var reasons int64
		for _, n := range in.Stats.Reasons {
			reasons += n
		}
		if reasons != in.Stats.Skipped {
			t.Errorf("%s: %d skipped, %d with a reason", in.Name, in.Stats.Skipped, reasons)
		}
		if w, ok := want[in.Name]; ok && in.Stats.Items+in.Stats.Skipped != w+map[bool]int64{true: 2}[in.Name == "inkmltrain"] {
			t.Errorf("%s: %d items + %d skipped, want %d records", in.Name, in.Stats.Items, in.Stats.Skipped, w)
		}
		rows += 2 * in.Stats.Items
	}
	if n := countLines(t, items); int64(n) != rows {
		t.Errorf("--items wrote %d rows, want %d (items × levels)", n, rows)
	}
	for _, tr := range rep.Train {
		if tr.Stats.Items == 0 || tr.Stats.Skipped != 0 {
			t.Errorf("train %s: %+v", tr.Name, tr.Stats)
		}
	}
	// The text output, with the index reused, accepted as partial.
	text, stderr, code := runCode(t, append(append([]string{}, args...), "--allow-partial")...)
	if code != exitOK {
		t.Fatalf("--allow-partial: exit %d:\n%s", code, stderr)
	}
	for _, s := range []string{"crohme_2014_captions", "folder2019", "inkmltrain", "im2latex_val"} {
		if !strings.Contains(text, s) {
			t.Errorf("text output lacks %s", s)
		}
	}
}

// TestRealNearDup: every image source of the data (CROHME split folders,
// the original BMPs, im2latex's PNGs, rasterized InkML) against the CROHME
// training images, with --json and --gallery.
func TestRealNearDup(t *testing.T) {
	if testing.Short() {
		t.Skip("hashes 14,000 images")
	}
	root := shareddata.Dir(t)
	gallery := t.TempDir()
	stdout, stderr, code := runCode(t, "neardup", "--json", "--db", t.TempDir(), "--gallery", gallery,
		"--train", filepath.Join(root, "crohme", "train"),
		"--test", filepath.Join(root, "crohme", "2014"), "--test", filepath.Join(root, "crohme", "2016"), "--test", filepath.Join(root, "crohme", "2019"),
		"--test", "bmp2014="+filepath.Join(root, "crohme", "bmp-sample", "2014"), "--test", "bmptrain="+filepath.Join(root, "crohme", "bmp-sample", "train"),
		"--test", "im2latex="+filepath.Join(root, "im2latex", "images", "test"),
		"--test", "ink2014="+filepath.Join(root, "crohme-inkml", "2014"), "--test", "inktrain="+filepath.Join(root, "crohme-inkml", "train-sample"),
		"--allow-partial")
	if code != exitOK {
		t.Fatalf("exit %d:\n%s", code, stderr)
	}
	var rep struct {
		Summary []struct {
			Split   string `json:"test_split"`
			Items   int64  `json:"items"`
			Skipped int64  `json:"skipped"`
		} `json:"summary"`
		Inputs []struct {
			Role, Name string
			Stats      struct {
				Items   int64 `json:"items"`
				Skipped int64 `json:"skipped"`
			}
		} `json:"inputs"`
		Complete   bool              `json:"complete"`
		Incomplete []json.RawMessage `json:"incomplete"`
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	want := map[string]int64{"2014": 986, "2016": 1147, "2019": 1199, "bmp2014": 20, "bmptrain": 20, "im2latex": 1000, "ink2014": 986, "inktrain": 200}
	for _, s := range rep.Summary {
		if s.Items+s.Skipped != want[s.Split] {
			t.Errorf("%s: %d hashed + %d skipped, want %d", s.Split, s.Items, s.Skipped, want[s.Split])
		}
	}
	if len(rep.Summary) != len(want) {
		t.Errorf("%d splits in the summary, want %d", len(rep.Summary), len(want))
	}
	if rep.Complete || len(rep.Incomplete) != 1 {
		t.Errorf("complete %v, incomplete %s: want the InkML sample alone", rep.Complete, rep.Incomplete)
	}
	if _, err := os.Stat(filepath.Join(gallery, "index.html")); err != nil {
		t.Errorf("gallery: %v", err)
	}
}

// TestRealAudit: the TexTeller_en audit through the command, as a user
// writes its configuration (paths relative to it, a caption folder as a
// training corpus), with --out and --json.
func TestRealAudit(t *testing.T) {
	if testing.Short() {
		t.Skip("scores 100,000 pairs")
	}
	root, err := filepath.Abs(shareddata.Dir(t))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cfg := fmt.Sprintf(`name: TexTeller_en audit
model: TexTeller_en
reported_source: TexTeller technical report
db: %s
train:
  - {name: crohme_train, path: %[2]s/crohme/train}
  - {name: crohme2023_train, path: %[2]s/labels/crohme2023_train_captions.json}
  - {name: hme100k_train, path: %[2]s/labels/hme100k_train_captions.json}
splits:
  - {name: crohme_train, benchmark: crohme, role: train, predictions: %[2]s/predictions/texteller/crohme_train.json}
  - {name: crohme_2014, benchmark: crohme, role: test, predictions: %[2]s/predictions/texteller/crohme_2014.json, reported_exprate: 88.0}
  - {name: crohme2023_train, benchmark: crohme2023, role: train, predictions: %[2]s/predictions/texteller/crohme2023_train.json}
  - {name: crohme2023_val, benchmark: crohme2023, role: val, predictions: %[2]s/predictions/texteller/crohme2023_val.json}
  - {name: crohme2023_test, benchmark: crohme2023, role: test, predictions: %[2]s/predictions/texteller/crohme2023_test.json, reported_exprate: 61.8}
  - {name: hme100k_test, benchmark: hme100k, role: test, predictions: %[2]s/predictions/texteller/hme100k_test.json, reported_exprate: 90.7}
  - {name: mathwriting_test, benchmark: mathwriting, role: test, predictions: %[2]s/predictions/texteller/mathwriting_test.json, reported_exprate: 81.0}
`, filepath.Join(dir, "db"), root)
	path := filepath.Join(dir, "audit.yaml")
	if err := os.WriteFile(path, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "report")
	stdout, stderr, code := runCode(t, "audit", "--config", path, "--out", out, "--json")
	if code != exitOK {
		t.Fatalf("exit %d:\n%s", code, stderr)
	}
	var f struct {
		Splits []struct {
			Name       string `json:"name"`
			N          int    `json:"n"`
			CDMCounted int    `json:"cdm_counted"`
		} `json:"splits"`
		Inputs []struct {
			Role, Name string
			Items      int64            `json:"items"`
			Skipped    map[string]int64 `json:"skipped"`
		} `json:"inputs"`
		Anomalies []struct {
			Kind  string `json:"kind"`
			Split string `json:"split"`
		} `json:"anomalies"`
		Complete bool `json:"complete"`
	}
	if err := json.Unmarshal([]byte(stdout), &f); err != nil {
		t.Fatal(err)
	}
	items := map[string]int64{}
	for _, in := range f.Inputs {
		if in.Role == "predictions" {
			items[in.Name] = in.Items
			if len(in.Skipped) > 0 {
				t.Errorf("%s: skipped %v", in.Name, in.Skipped)
			}
		}
	}
	for _, s := range f.Splits {
		if int64(s.N) != items[s.Name] || s.N == 0 {
			t.Errorf("%s: %d items in the findings, %d read", s.Name, s.N, items[s.Name])
		}
	}
	kinds := map[string]bool{}
	for _, a := range f.Anomalies {
		kinds[a.Kind+" "+a.Split] = true
	}
	for _, k := range []string{"split_inversion crohme2023_train", "cdm_reversal hme100k_test", "cdm_reversal mathwriting_test"} {
		if !kinds[k] {
			t.Errorf("finding %q missing: %v", k, kinds)
		}
	}
	if !f.Complete {
		t.Error("audit not complete")
	}
	for _, name := range []string{"findings.json", "report.md", "report.html", "items.parquet", "items.jsonl"} {
		if fi, err := os.Stat(filepath.Join(out, name)); err != nil || fi.Size() == 0 {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestBrokenInputs: a deliberately broken input of every reader makes a
// non-zero exit, with a message naming the file and the byte, line, element
// or entry where it broke.
func TestBrokenInputs(t *testing.T) {
	root := shareddata.Dir(t)
	dir := t.TempDir()
	cut := func(name, src string, n int) string {
		b, err := os.ReadFile(filepath.Join(root, src))
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, name)
		os.WriteFile(p, b[:n], 0o644)
		return p
	}
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(body), 0o644)
		return p
	}
	// An InkML folder with one good and one broken file.
	write("ink/a.inkml", `<ink xmlns="http://www.w3.org/2003/InkML"><annotation type="truth">$x$</annotation><trace>0 0, 1 1</trace></ink>`)
	write("ink/b.inkml", `<ink><annotation type="truth">$y$</annotation><trace>0 0</tra`)
	inkFolder := filepath.Join(dir, "ink")
	for _, tc := range []struct {
		path, want string
	}{
		{cut("strings.json", "labels/crohme_2014_captions.json", 3000), "invalid JSON near byte 3000"},
		{cut("objects.json", "predictions/texteller/crohme_2014.json", 3000), "invalid JSON near byte"},
		{cut("map.json", "predictions/tamer/hme100k_test.json", 3000), "invalid JSON near byte"},
		{write("bad.jsonl", "{\"gt\":\"x\"}\n{\"gt\": broken\n{\"gt\":\"y\"}\n"), "malformed record: 1 (first at line 2)"},
		{write("quote.csv", "id,label\n1,x\n2,\"y\n3,z\n"), "line"},
		{write("nolabel.csv", "id,foo\n1,x\n"), "no label column"},
		{write("object.json", `{"data": ["a", "b"]}`), "malformed record"},
		{write("cap/caption.txt", "a\tx\nnoseparator\nb\ty\n"), "no separator between name and label: 1 (first at line 2)"},
		{write("lines.txt", "x\n\xff\xfe\ny\n"), "invalid UTF-8: 1 (first at line 2)"},
		{write("junk.parquet", strings.Repeat("not parquet ", 100)), "not a readable Parquet file"},
		{inkFolder, "malformed XML: 1 (first at file b.inkml"},
	} {
		_, stderr, code := runCode(t, "overlap", "--train", filepath.Join(root, "labels", "crohme_2014_captions.json"), "--test", tc.path, "--db", filepath.Join(dir, "db"))
		if code == exitOK {
			t.Errorf("%s: exit 0", tc.path)
			continue
		}
		if !strings.Contains(stderr, tc.path) || !strings.Contains(stderr, tc.want) {
			t.Errorf("%s: exit %d; stderr does not name the file and %q:\n%s", tc.path, code, tc.want, stderr)
		}
	}
}

// TestBrokenImages: a truncated image in a folder, and a truncated zip
// archive, make neardup exit non-zero naming the file or entry.
func TestBrokenImages(t *testing.T) {
	root := shareddata.Dir(t)
	dir := t.TempDir()
	src := filepath.Join(root, "crohme", "2014", "img")
	names, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	folder := filepath.Join(dir, "imgs")
	os.MkdirAll(folder, 0o755)
	var zipBody bytes.Buffer
	for i, e := range names[:3] {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if i == 1 {
			b = b[:len(b)/2] // cut in the middle of its pixel data
		}
		os.WriteFile(filepath.Join(folder, e.Name()), b, 0o644)
	}
	zw := zip.NewWriter(&zipBody)
	for _, e := range names[:3] {
		b, _ := os.ReadFile(filepath.Join(src, e.Name()))
		w, _ := zw.CreateHeader(&zip.FileHeader{Name: e.Name(), Method: zip.Store})
		w.Write(b)
	}
	zw.Close()
	cutZip := filepath.Join(dir, "cut.zip")
	os.WriteFile(cutZip, zipBody.Bytes()[:zipBody.Len()*2/3], 0o644)
	for _, tc := range []struct{ path, want string }{
		{folder, "image cannot be decoded: png: invalid format: not enough pixel data: 1 (first at file " + names[1].Name()},
		{cutZip, "not a readable zip archive"},
	} {
		_, stderr, code := runCode(t, "neardup", "--train", filepath.Join(root, "crohme", "bmp-sample", "train"), "--test", tc.path, "--db", filepath.Join(dir, "db"))
		if code == exitOK || !strings.Contains(stderr, tc.path) || !strings.Contains(stderr, tc.want) {
			t.Errorf("%s: exit %d; stderr does not name the file and %q:\n%s", tc.path, code, tc.want, stderr)
		}
	}
}

// TestRealFingerprint: fingerprints of CROHME train (a caption folder) and
// HME100K train stand in for the corpora: overlap gives the same counts
// and byte-identical per-item evidence (training ids included). A salted
// fingerprint matches only with its salt.
func TestRealFingerprint(t *testing.T) {
	root := shareddata.Dir(t)
	dir := t.TempDir()
	train := []string{"crohme_train=" + filepath.Join(root, "crohme", "train"), "hme100k_train=" + filepath.Join(root, "labels", "hme100k_train_captions.json")}
	tests := []string{"--test", filepath.Join(root, "labels", "crohme_2014_captions.json"), "--test", filepath.Join(root, "labels", "hme100k_test_captions.json")}
	fp := filepath.Join(dir, "train.fp.parquet")
	if _, stderr, code := runCode(t, "fingerprint", "--input", train[0], "--input", train[1], "--out", fp, "--level", "audit,ws,tokens"); code != exitOK {
		t.Fatalf("fingerprint: exit %d\n%s", code, stderr)
	}
	overlap := func(name string, trainArgs ...string) (string, string) {
		items := filepath.Join(dir, name+".jsonl")
		args := append(append([]string{"overlap", "--json", "--level", "audit,ws,tokens", "--db", filepath.Join(dir, "db-"+name), "--items", items}, trainArgs...), tests...)
		out, stderr, code := runCode(t, args...)
		if code != exitOK {
			t.Fatalf("overlap %s: exit %d\n%s", name, code, stderr)
		}
		b, err := os.ReadFile(items)
		if err != nil {
			t.Fatal(err)
		}
		var rep struct {
			Splits json.RawMessage `json:"splits"`
		}
		json.Unmarshal([]byte(out), &rep)
		return string(rep.Splits), string(b)
	}
	splitsA, itemsA := overlap("corpus", "--train", train[0], "--train", train[1])
	splitsB, itemsB := overlap("fingerprint", "--train", fp)
	if splitsA != splitsB {
		t.Errorf("overlap differs:\ncorpus      %s\nfingerprint %s", splitsA, splitsB)
	}
	if itemsA != itemsB {
		t.Error("per-item evidence differs between the corpora and their fingerprint")
	}
	// A fingerprint of one corpus: the items named as the corpus names
	// them (its postings numbered by the items' positions).
	one := filepath.Join(dir, "one.fp.parquet")
	if _, stderr, code := runCode(t, "fingerprint", "--input", train[1], "--out", one, "--level", "audit,ws,tokens"); code != exitOK {
		t.Fatalf("fingerprint: exit %d\n%s", code, stderr)
	}
	splitsA, itemsA = overlap("corpus-one", "--train", train[1])
	splitsB, itemsB = overlap("fingerprint-one", "--train", one)
	if splitsA != splitsB || itemsA != itemsB || !strings.Contains(itemsB, `"corpus":"hme100k_train"`) {
		t.Errorf("overlap or per-item evidence differs between a corpus and its fingerprint:\ncorpus      %s\nfingerprint %s", splitsA, splitsB)
	}
	// Salted: the same counts with the salt, refused without it.
	salted := filepath.Join(dir, "salted.parquet")
	if _, stderr, code := runCode(t, "fingerprint", "--input", train[1], "--out", salted, "--level", "ws", "--salt", "for-reviewer-2"); code != exitOK {
		t.Fatalf("fingerprint --salt: exit %d\n%s", code, stderr)
	}
	base := []string{"overlap", "--json", "--level", "ws", "--test", filepath.Join(root, "labels", "hme100k_test_captions.json")}
	_, stderr, code := runCode(t, append(base, "--train", salted, "--db", filepath.Join(dir, "db-s1"))...)
	if code == exitOK || !strings.Contains(stderr, "give the salt") {
		t.Errorf("a salted fingerprint without --salt: exit %d\n%s", code, stderr)
	}
	var plain, withSalt struct {
		Splits json.RawMessage `json:"splits"`
	}
	out, stderr, code := runCode(t, append(base, "--train", train[1], "--db", filepath.Join(dir, "db-s3"))...)
	json.Unmarshal([]byte(out), &plain)
	out, stderr2, code2 := runCode(t, append(base, "--train", salted, "--salt", "for-reviewer-2", "--db", filepath.Join(dir, "db-s2"))...)
	json.Unmarshal([]byte(out), &withSalt)
	if code != exitOK || code2 != exitOK || string(plain.Splits) != string(withSalt.Splits) || !strings.Contains(string(plain.Splits), `"found": 5721`) {
		t.Errorf("salted fingerprint with its salt (exit %d) against the corpus (exit %d): %s / %s\n%s%s", code2, code, withSalt.Splits, plain.Splits, stderr, stderr2)
	}
}
