package main

import (
	"bytes"
	"encoding/json"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/leakaudit/leakaudit/overlap"
)

// run executes the CLI with args and returns stdout and the error.
func run(t *testing.T, args ...string) (string, error) {
	t.Helper()
	out, _, err := execute(args...)
	return out, err
}

// execute runs the CLI in process with args.
func execute(args ...string) (stdout, stderr string, err error) {
	root := newRoot()
	var out, errOut bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&errOut)
	root.SetArgs(args)
	err = root.Execute()
	return out.String(), errOut.String(), err
}

func fixtures(t *testing.T) (train, test string) {
	dir := t.TempDir()
	train = filepath.Join(dir, "train.json")
	test = filepath.Join(dir, "test.json")
	os.WriteFile(train, []byte(`["x ^ { 2 }", "\\alphab", "y"]`), 0o644)
	os.WriteFile(test, []byte(`["x ^ { 2 }", "x^{2}", "x ^ { 2 }", "$y$", "\\alpha b", "z", ""]`), 0o644)
	return train, test
}

func TestOverlapJSON(t *testing.T) {
	train, test := fixtures(t)
	args := []string{"overlap", "--train", train, "--test", "mine=" + test, "--level", "audit,ws", "--json", "--allow-partial"}
	out1, err := run(t, append(args, "--db", filepath.Join(t.TempDir(), "a"))...)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Splits []struct {
			Name  string          `json:"name"`
			Level string          `json:"level"`
			Total int64           `json:"total"`
			Found int64           `json:"found"`
			Rate  json.RawMessage `json:"rate"`
		} `json:"splits"`
		AuditOnly []overlap.AuditOnly `json:"audit_only"`
	}
	if err := json.Unmarshal([]byte(out1), &got); err != nil {
		t.Fatalf("%v in %s", err, out1)
	}
	want := []string{"mine audit 6 4 66.67", "mine ws 6 4 66.67"}
	for i, s := range got.Splits {
		line := strings.Join([]string{s.Name, s.Level, itoa(s.Total), itoa(s.Found), string(s.Rate)}, " ")
		if i >= len(want) || line != want[i] {
			t.Errorf("split row %d = %q, want %q", i, line, want[i])
		}
	}
	if len(got.AuditOnly) != 1 {
		t.Errorf("audit_only: %+v", got.AuditOnly)
	}
	// Same inputs, another index folder and a reused index: same bytes.
	dbb := filepath.Join(t.TempDir(), "b")
	run(t, append(args, "--db", dbb)...)
	out2, err := run(t, append(args, "--db", dbb)...)
	if err != nil || out2 != out1 {
		t.Errorf("second run differs (err %v):\n%s\n---\n%s", err, out1, out2)
	}
}

func itoa(n int64) string {
	return strings.TrimSpace(strings.ReplaceAll(string(must(json.Marshal(n))), `"`, ""))
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

func TestOverlapText(t *testing.T) {
	train, test := fixtures(t)
	out, err := run(t, "overlap", "--train", train, "--test", test, "--db", t.TempDir(), "--allow-partial")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"test   audit", "66.67", "1 record(s) skipped (empty label: 1)", "match at audit but not at ws"} {
		if !strings.Contains(out, want) {
			t.Errorf("text output lacks %q:\n%s", want, out)
		}
	}
}

// TestExitPartial: an input with a record skipped for a reason other than
// a limit exits 3 after printing its results, says so in --json, and
// --allow-partial makes it 0; a skip by a limit alone exits 0.
func TestExitPartial(t *testing.T) {
	train, test := fixtures(t) // test holds an empty label
	db := t.TempDir()
	out, err := run(t, "overlap", "--train", train, "--test", test, "--db", db, "--json")
	if exitCode(err) != exitPartial {
		t.Fatalf("exit %d (%v), want %d", exitCode(err), err, exitPartial)
	}
	var rep struct {
		Complete   bool `json:"complete"`
		Incomplete []struct {
			Input, Path, Reason string
		} `json:"incomplete"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Complete || len(rep.Incomplete) != 1 || rep.Incomplete[0].Path != test || !strings.Contains(rep.Incomplete[0].Reason, "empty label: 1 (first at element 6)") {
		t.Errorf("JSON says %+v", rep)
	}
	if _, err := run(t, "overlap", "--train", train, "--test", test, "--db", db, "--allow-partial"); err != nil {
		t.Errorf("--allow-partial: %v", err)
	}
	// Only over-long labels skipped: complete.
	long := filepath.Join(t.TempDir(), "long.json")
	os.WriteFile(long, []byte(`["x", "`+strings.Repeat("y", 100)+`"]`), 0o644)
	if _, err := run(t, "overlap", "--train", train, "--test", long, "--db", db, "--max-label-bytes", "50"); err != nil {
		t.Errorf("a limit the user set made the input partial: %v", err)
	}
}

func TestOverlapMissingTrain(t *testing.T) {
	train, test := fixtures(t)
	missing := filepath.Join(t.TempDir(), "nope.json")
	_, err := run(t, "overlap", "--train", train, "--train", missing, "--test", test, "--db", t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "--allow-missing") {
		t.Fatalf("missing training corpus: %v", err)
	}
	out, err := run(t, "overlap", "--train", train, "--train", missing, "--test", test, "--db", t.TempDir(), "--allow-missing", "--json", "--allow-partial")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, `"missing": true`) {
		t.Errorf("the missing corpus is not reported:\n%s", out)
	}
}

func TestOverlapUnreadableSplit(t *testing.T) {
	train, test := fixtures(t)
	out, err := run(t, "overlap", "--train", train, "--test", test, "--test", "gone=/nonexistent/x.json", "--db", t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "1 test split(s) could not be read") {
		t.Errorf("unreadable split: %v", err)
	}
	if !strings.Contains(out, "test   audit") {
		t.Errorf("the readable split was not reported:\n%s", out)
	}
}

func TestOverlapItemsParquet(t *testing.T) {
	train, test := fixtures(t)
	items := filepath.Join(t.TempDir(), "items.parquet")
	if _, err := run(t, "overlap", "--train", train, "--test", test, "--db", t.TempDir(), "--items", items, "--allow-partial"); err != nil {
		t.Fatal(err)
	}
	rows, err := parquet.ReadFile[overlap.ItemMatch](items)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 12 || !rows[1].Found || rows[1].Level != "ws" || len(rows[1].TrainIDs) != 1 || rows[1].TrainIDs[0].ID != "0" {
		t.Errorf("%d rows; second %+v", len(rows), rows[1])
	}
}

func TestHelpAndVersion(t *testing.T) {
	out, err := run(t, "overlap", "--help")
	if err != nil || !strings.Contains(out, "Examples:") || !strings.Contains(out, "audit   (L1)") {
		t.Errorf("overlap --help: %v\n%s", err, out)
	}
	out, err = run(t, "version")
	if err != nil || !strings.HasPrefix(out, "leakaudit ") {
		t.Errorf("version: %v %q", err, out)
	}
	if _, err := run(t, "completion", "bash"); err != nil {
		t.Errorf("completion: %v", err)
	}
}

func TestSplitNamed(t *testing.T) {
	for arg, want := range map[string]string{
		"a=b.json":            "a b.json",
		"dir/test.json":       "test dir/test.json",
		"x/2014/caption.txt":  "2014 x/2014/caption.txt",
		"./weird=name/x.json": "x ./weird=name/x.json",
	} {
		n, p := splitNamed(arg)
		if n+" "+p != want {
			t.Errorf("splitNamed(%q) = %q %q, want %q", arg, n, p, want)
		}
	}
}

func TestNearDupJSON(t *testing.T) {
	// Two identical images in one folder, given as both train and test:
	// one pair, never an image with itself.
	dir := t.TempDir()
	g := image.NewGray(image.Rect(0, 0, 60, 20))
	for i := range g.Pix {
		if i%7 < 2 {
			g.Pix[i] = 255
		}
	}
	for _, name := range []string{"a.png", "b.png"} {
		f, _ := os.Create(filepath.Join(dir, name))
		png.Encode(f, g)
		f.Close()
	}
	out, err := run(t, "neardup", "--train", "tr="+dir, "--test", "te="+dir, "--db", t.TempDir(), "--json")
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Pairs   []map[string]any `json:"pairs"`
		Summary []map[string]any `json:"summary"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Pairs) != 1 || len(rep.Summary) != 1 || rep.Pairs[0]["test_id"] != "a" || rep.Pairs[0]["train_id"] != "b" {
		t.Fatalf("%s", out)
	}
	for _, k := range []string{"test_split", "test_id", "train_split", "train_id", "distance", "identical", "test_label", "train_label"} {
		if _, ok := rep.Pairs[0][k]; !ok {
			t.Errorf("pair lacks %q", k)
		}
	}
	for _, k := range []string{"test_split", "items", "with_near_duplicate", "identical"} {
		if _, ok := rep.Summary[0][k]; !ok {
			t.Errorf("summary lacks %q", k)
		}
	}
}

func TestTokensCommand(t *testing.T) {
	out, err := run(t, "tokens", "--json", `x^2 + \frac ab`, `\frac{a}`)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d lines:\n%s", len(lines), out)
	}
	var first, second struct {
		KaTeXOK bool              `json:"katex_ok"`
		Tokens  []string          `json:"tokens"`
		Levels  map[string]string `json:"levels"`
	}
	json.Unmarshal([]byte(lines[0]), &first)
	json.Unmarshal([]byte(lines[1]), &second)
	if !first.KaTeXOK || strings.Join(first.Tokens, " ") != `x 2 + \frac a b` || first.Levels["tokens"] != `x ^ { 2 } + \frac { a } { b }` {
		t.Errorf("first: %+v", first)
	}
	if second.KaTeXOK || second.Levels["tokens"] != "⊥ (tokenizer fails)" {
		t.Errorf("second: %+v", second)
	}
	text, err := run(t, "tokens", `\mathbf{x}`)
	if err != nil || !strings.Contains(text, "not drawn:  \\mathbf (font)") {
		t.Errorf("text output: %v\n%s", err, text)
	}
}
