package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/leakaudit/leakaudit/internal/shareddata"
)

// nearDupJSON is the part of "neardup --json" compared between runs.
type nearDupJSON struct {
	Pairs   []map[string]any `json:"pairs"`
	Summary []map[string]any `json:"summary"`
}

// TestRealImageFingerprint: "fingerprint --images" of the CROHME train
// images (a caption folder) stands in for them as "neardup --train",
// against CROHME 2014, 2016, 2019 and train itself at the default radius:
// the same summaries and pairs, training ids included (the training labels
// are not in the file; their mismatch flags are, by digest). A folder with
// an image that cannot be decoded is fingerprinted with that image counted
// and named, and the command exits partial.
func TestRealImageFingerprint(t *testing.T) {
	if testing.Short() {
		t.Skip("hashes 24,000 images")
	}
	root := shareddata.Dir(t)
	dir := t.TempDir()
	crohme := filepath.Join(root, "crohme")
	fp := filepath.Join(dir, "train.img.fp.parquet")
	out, stderr, code := runCode(t, "fingerprint", "--images", "--with-ink", "--json", "--input", "train="+filepath.Join(crohme, "train"), "--out", fp)
	if code != exitOK {
		t.Fatalf("fingerprint --images: exit %d\n%s", code, stderr)
	}
	var res struct {
		Inputs []struct {
			Rows, Images, Blank int64
		} `json:"inputs"`
		ImageHash string `json:"image_hash"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || len(res.Inputs) != 1 || res.Inputs[0].Rows != 8834 || res.Inputs[0].Images != 8834 {
		t.Fatalf("fingerprint --images --json: %v\n%s", err, out)
	}
	var tests []string
	for _, s := range []string{"train", "2014", "2016", "2019"} {
		tests = append(tests, "--test", s+"="+filepath.Join(crohme, s))
	}
	neardup := func(train string) nearDupJSON {
		out, stderr, code := runCode(t, append([]string{"neardup", "--json", "--db", filepath.Join(dir, "db"), "--train", train}, tests...)...)
		if code != exitOK {
			t.Fatalf("neardup --train %s: exit %d\n%s", train, code, stderr)
		}
		var r nearDupJSON
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatal(err)
		}
		return r
	}
	want, got := neardup("train="+filepath.Join(crohme, "train")), neardup(fp)
	// Labels known only by digest are compared at the digests' level,
	// with no distance: the checks themselves are not compared (the
	// label_mismatch flags are).
	for _, p := range want.Pairs {
		p["train_label"] = ""
		delete(p, "label_check")
	}
	for _, p := range got.Pairs {
		delete(p, "label_check")
	}
	if len(want.Pairs) == 0 || !reflect.DeepEqual(got, want) {
		t.Errorf("neardup from the fingerprint: %d pairs %v; from the images: %d pairs %v", len(got.Pairs), got.Summary, len(want.Pairs), want.Summary)
	}
	t.Logf("%d pairs identical from the images and from their fingerprint", len(want.Pairs))

	// An undecodable image: counted with its reason, the rest written.
	src := filepath.Join(crohme, "2014", "img")
	names, _ := os.ReadDir(src)
	folder := filepath.Join(dir, "imgs")
	os.MkdirAll(folder, 0o755)
	for i, e := range names[:4] {
		b, _ := os.ReadFile(filepath.Join(src, e.Name()))
		if i == 2 {
			b = b[:len(b)/2]
		}
		os.WriteFile(filepath.Join(folder, e.Name()), b, 0o644)
	}
	out, stderr, code = runCode(t, "fingerprint", "--images", "--json", "--input", folder, "--out", filepath.Join(dir, "imgs.fp.parquet"))
	if code != exitPartial || !strings.Contains(out, `"rows": 3`) || !strings.Contains(out, "image cannot be decoded") || !strings.Contains(stderr, names[2].Name()) {
		t.Errorf("a truncated image: exit %d\n%s\n%s", code, out, stderr)
	}
}
