package main

import (
	"encoding/json"
	"fmt"
	"image"
	_ "image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/leakaudit/leakaudit/canon"
	"github.com/leakaudit/leakaudit/dataset"
	"github.com/leakaudit/leakaudit/imagehash"
	"github.com/leakaudit/leakaudit/internal/shareddata"
)

// dedupJSON is the part of "dedup --json" the suite checks.
type dedupJSON struct {
	Releases []struct {
		Name     string           `json:"name"`
		Format   string           `json:"format"`
		Items    int64            `json:"items"`
		Kept     int64            `json:"kept"`
		Removed  int64            `json:"removed"`
		ByReason map[string]int64 `json:"by_reason"`
		ByLevel  map[string]int64 `json:"by_level"`
		Self     string           `json:"same_as_against"`
		Images   int64            `json:"images_compared"`
	} `json:"releases"`
	Complete bool `json:"complete"`
}

func runDedup(t *testing.T, want int, args ...string) dedupJSON {
	t.Helper()
	stdout, stderr, code := runCode(t, append([]string{"dedup", "--json"}, args...)...)
	if code != want {
		t.Fatalf("dedup %s: exit %d, want %d\n%s", strings.Join(args, " "), code, want, stderr)
	}
	var res dedupJSON
	if err := json.Unmarshal([]byte(stdout), &res); err != nil {
		t.Fatalf("--json: %v\n%s", err, stdout)
	}
	for _, r := range res.Releases {
		var sum int64
		for _, n := range r.ByReason {
			sum += n
		}
		if r.Items != r.Kept+r.Removed || sum != r.Removed {
			t.Errorf("%s: items %d ≠ kept %d + removed %d (by reason %d)", r.Name, r.Items, r.Kept, r.Removed, sum)
		}
	}
	return res
}

// wsKeys returns the ws keys of a source's labels.
func wsKeys(t *testing.T, src dataset.Source) map[string]bool {
	keys := map[string]bool{}
	if _, err := dataset.Scan(src, func(it dataset.Item) error {
		keys[canon.WSKey(it.Label)] = true
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return keys
}

// TestRealDedup: the CROHME training folder (captions and images) cleaned
// against the CROHME 2014/2016/2019 test folders, every label list against
// the CROHME 2014 and HME100K tests, the InkML sample (with its two
// defective files) and im2latex's validation list against its test list.
// Each output is re-read; the label removals are recounted independently;
// cleaning a cleaned release removes nothing.
func TestRealDedup(t *testing.T) {
	root := shareddata.Dir(t)
	dir := t.TempDir()
	crohme := filepath.Join(root, "crohme")
	against := []string{"--against", "2014=" + filepath.Join(crohme, "2014"), "--against", "2016=" + filepath.Join(crohme, "2016"), "--against", "2019=" + filepath.Join(crohme, "2019")}
	out := filepath.Join(dir, "crohme")
	res := runDedup(t, exitOK, append([]string{"--release", "train=" + filepath.Join(crohme, "train"), "--images", "--within", "--level", "audit,ws,tokens", "--out", out}, against...)...)
	tr := res.Releases[0]
	if tr.Items != 8834 || tr.Images != 8834 {
		t.Errorf("CROHME train: %d items, %d images compared, want 8834", tr.Items, tr.Images)
	}
	// Independent count: train items whose ws key is a test label's.
	test := map[string]bool{}
	for _, s := range []string{"2014", "2016", "2019"} {
		for k := range wsKeys(t, dataset.Source{Path: filepath.Join(crohme, s), Format: dataset.Caption}) {
			test[k] = true
		}
	}
	var atWS int64
	dataset.Scan(dataset.Source{Path: filepath.Join(crohme, "train"), Format: dataset.Caption}, func(it dataset.Item) error {
		if test[canon.WSKey(it.Label)] {
			atWS++
		}
		return nil
	})
	if got := tr.ByLevel["audit"] + tr.ByLevel["ws"]; got != atWS {
		t.Errorf("label removals at audit+ws %d, independent count at ws %d", got, atWS)
	}
	t.Logf("CROHME train: %d items, kept %d, removed %v, label by level %v", tr.Items, tr.Kept, tr.ByReason, tr.ByLevel)
	if n := countLines(t, filepath.Join(out, "train", "caption.txt")); int64(n) != tr.Kept {
		t.Errorf("caption.txt has %d lines, want %d", n, tr.Kept)
	}
	if imgs, _ := os.ReadDir(filepath.Join(out, "train", "img")); int64(len(imgs)) != tr.Kept {
		t.Errorf("img/ has %d files, want %d", len(imgs), tr.Kept)
	}
	if n := countLines(t, filepath.Join(out, "removed.jsonl")); int64(n) != tr.Removed {
		t.Errorf("removed.jsonl has %d lines, want %d", n, tr.Removed)
	}
	checkWithinVerified(t, filepath.Join(out, "removed.jsonl"), filepath.Join(crohme, "train", "img"))
	again := runDedup(t, exitOK, append([]string{"--release", "train=" + filepath.Join(out, "train"), "--images", "--within", "--level", "audit,ws,tokens", "--out", filepath.Join(dir, "again")}, against...)...)
	if again.Releases[0].Removed != 0 {
		t.Errorf("cleaning the clean release removed %v", again.Releases[0].ByReason)
	}

	// Every label list against two benchmark tests; the HME100K test list
	// is itself a release and is not compared with itself.
	args := []string{"--out", filepath.Join(dir, "lists"), "--level", "audit,ws",
		"--against", "crohme2014=" + filepath.Join(root, "labels", "crohme_2014_captions.json"),
		"--against", "hme100k_test=" + filepath.Join(root, "labels", "hme100k_test_captions.json")}
	entries, _ := os.ReadDir(filepath.Join(root, "labels"))
	for _, e := range entries {
		args = append(args, "--release", filepath.Join(root, "labels", e.Name()))
	}
	lists := runDedup(t, exitOK, args...)
	if len(lists.Releases) != 15 {
		t.Fatalf("%d releases, want 15", len(lists.Releases))
	}
	for _, r := range lists.Releases {
		src := dataset.Source{Path: filepath.Join(dir, "lists", r.Name, r.Name+".json")}
		st, err := dataset.Scan(src, func(dataset.Item) error { return nil })
		if err != nil || st.FileError != "" || st.Items+st.Skipped != r.Kept {
			t.Errorf("%s: rewritten list holds %d items (%v %s), want %d", r.Name, st.Items+st.Skipped, err, st.FileError, r.Kept)
		}
		switch r.Name {
		case "hme100k_test_captions", "crohme_2014_captions":
			if r.Self == "" {
				t.Errorf("%s was not recognized as an against input", r.Name)
			}
		case "hme100k_train_captions":
			t.Logf("HME100K train: %d items, removed %d %v", r.Items, r.Removed, r.ByLevel)
			if r.Removed == 0 {
				t.Error("HME100K train lost nothing against its test set")
			}
		}
	}

	// The InkML sample: its two defective files are removed as unreadable
	// and make the run partial.
	ink := []string{"--release", "ink=" + filepath.Join(root, "crohme-inkml", "train-sample"), "--against", "2014=" + filepath.Join(root, "crohme-inkml", "2014")}
	r := runDedup(t, exitPartial, append(ink, "--out", filepath.Join(dir, "ink"))...)
	if r.Complete || r.Releases[0].ByReason["unreadable"] != 2 {
		t.Errorf("InkML sample: %+v", r.Releases[0])
	}
	var files int64
	filepath.WalkDir(filepath.Join(dir, "ink", "ink"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			files++
		}
		return nil
	})
	if files != r.Releases[0].Kept {
		t.Errorf("InkML output has %d files, want %d", files, r.Releases[0].Kept)
	}
	runDedup(t, exitOK, append(ink, "--out", filepath.Join(dir, "ink2"), "--allow-partial")...)

	// im2latex: validation formulas against the test formulas (lines).
	im := runDedup(t, exitOK, "--release", "val="+filepath.Join(root, "im2latex", "formulas", "val.formulas.norm.txt"),
		"--against", "test="+filepath.Join(root, "im2latex", "formulas", "test.formulas.norm.txt"), "--within", "--out", filepath.Join(dir, "im2latex"))
	t.Logf("im2latex val: %d items, removed %v", im.Releases[0].Items, im.Releases[0].ByReason)

	// Image-only releases: im2latex's rendered test images and the CROHME
	// original BMPs (scans of 2014 and train items, which must all go as
	// verified copies).
	imgs := runDedup(t, exitOK, "--release", "im="+filepath.Join(root, "im2latex", "images", "test"), "--release", "bmp="+filepath.Join(crohme, "bmp-sample"),
		"--against", "2014="+filepath.Join(crohme, "2014"), "--against", "train="+filepath.Join(crohme, "train"), "--images", "--within", "--out", filepath.Join(dir, "images"))
	if im, bmp := imgs.Releases[0], imgs.Releases[1]; im.Items != 1000 || im.Format != "images" || bmp.Items != 40 || bmp.ByReason["image"] != 40 {
		t.Errorf("image-only releases: %+v", imgs.Releases)
	}

	// --report pages for dedup and neardup.
	runDedup(t, exitOK, "--release", filepath.Join(root, "labels", "crohme_2016_captions.json"), "--against", filepath.Join(root, "labels", "crohme_2014_captions.json"),
		"--out", filepath.Join(dir, "withpage"), "--report", filepath.Join(dir, "dpage"))
	checkPage(t, filepath.Join(dir, "dpage"), "items removed")
	if _, stderr, code := runCode(t, "neardup", "--train", filepath.Join(crohme, "train"), "--test", "bmp="+filepath.Join(crohme, "bmp-sample"), "--db", filepath.Join(dir, "nddb"), "--report", filepath.Join(dir, "npage")); code != exitOK {
		t.Fatalf("neardup --report: exit %d\n%s", code, stderr)
	}
	checkPage(t, filepath.Join(dir, "npage"), "20 test image(s) are verified copies")

	// The Markdown summary on stdout, and an existing --out refused.
	stdout, stderr, code := runCode(t, "dedup", "--release", filepath.Join(root, "labels", "crohme_2016_captions.json"), "--against", filepath.Join(root, "labels", "crohme_2014_captions.json"), "--out", filepath.Join(dir, "md"))
	if code != exitOK || !strings.Contains(stdout, "| crohme_2016_captions | json-strings | 1147 |") {
		t.Errorf("text summary: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if _, stderr, code := runCode(t, "dedup", "--release", filepath.Join(root, "labels", "crohme_2016_captions.json"), "--against", filepath.Join(root, "labels", "crohme_2014_captions.json"), "--out", filepath.Join(dir, "md")); code != exitError || !strings.Contains(stderr, "exists") {
		t.Errorf("existing --out: exit %d\n%s", code, stderr)
	}
}

// TestRealOverlapNear: overlap --near 2 of the HME100K and CROHME 2014
// test lists against HME100K train, with --json and --items; a fingerprint
// as the training corpus is refused (it has no token sequences).
func TestRealOverlapNear(t *testing.T) {
	root := shareddata.Dir(t)
	dir := t.TempDir()
	lab := filepath.Join(root, "labels")
	items := filepath.Join(dir, "items.jsonl")
	args := []string{"overlap", "--json", "--near", "2", "--level", "ws", "--db", filepath.Join(dir, "db"), "--items", items,
		"--train", filepath.Join(lab, "hme100k_train_captions.json"),
		"--test", filepath.Join(lab, "hme100k_test_captions.json"), "--test", filepath.Join(lab, "crohme_2014_captions.json")}
	stdout, stderr, code := runCode(t, args...)
	if code != exitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	var rep struct {
		Near []struct {
			Name              string
			Total, Considered int64
			Within            int64 `json:"within_k"`
			WithEdits         int64 `json:"with_edits"`
			ControlMatched    int64 `json:"control_matched"`
			Rate              float64
		} `json:"near"`
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil || len(rep.Near) != 2 {
		t.Fatalf("--json: %v %s", err, stdout[:min(len(stdout), 400)])
	}
	var rows int64
	for _, n := range rep.Near {
		t.Logf("%s: %d of %d considered within 2 edits (%.2f%%), %d with edits", n.Name, n.Within, n.Considered, n.Rate, n.WithEdits)
		if n.Within == 0 || n.Considered > n.Total || n.WithEdits > n.Within {
			t.Errorf("%s: %+v", n.Name, n)
		}
		rows += n.Total + n.Considered // one ws row per item, one near row per considered item
	}
	if got := int64(countLines(t, items)); got != rows {
		t.Errorf("--items has %d rows, want %d", got, rows)
	}
	page := filepath.Join(dir, "page")
	text, stderr, code := runCode(t, append([]string{"overlap", "--report", page}, args[2:]...)...)
	if code != exitOK || !strings.Contains(text, "Near labels") {
		t.Errorf("text output: exit %d\n%s\n%s", code, text, stderr)
	}
	checkPage(t, page, "23.25% of a test split")
	fp := filepath.Join(dir, "train.fp.parquet")
	if _, stderr, code := runCode(t, "fingerprint", "--input", filepath.Join(lab, "hme100k_train_captions.json"), "--out", fp, "--level", "ws"); code != exitOK {
		t.Fatalf("fingerprint: %s", stderr)
	}
	if _, stderr, code := runCode(t, "overlap", "--near", "2", "--level", "ws", "--db", filepath.Join(dir, "db2"), "--train", fp, "--test", filepath.Join(lab, "crohme_2014_captions.json")); code != exitError || !strings.Contains(stderr, "no token sequences") {
		t.Errorf("fingerprint with --near: exit %d\n%s", code, stderr)
	}
}

// TestRealAuditNear: the TexTeller audit on HME100K test with near: 2 has
// a near2 contamination-gap level beside audit and ws, and its near
// overlap with the chance level.
func TestRealAuditNear(t *testing.T) {
	root := shareddata.Dir(t)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "audit.yaml")
	os.WriteFile(cfg, []byte(fmt.Sprintf(`name: near
train:
  - {name: hme100k_train, path: %[1]s/labels/hme100k_train_captions.json}
splits:
  - {name: hme100k_test, benchmark: hme100k, role: test, predictions: %[1]s/predictions/texteller/hme100k_test.json}
near: 2
db: %[2]s/db
`, root, dir)), 0o644)
	if _, stderr, code := runCode(t, "audit", "--config", cfg, "--out", filepath.Join(dir, "out")); code != exitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	b, err := os.ReadFile(filepath.Join(dir, "out", "findings.json"))
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Gaps []struct {
			Split, Level string
			Contaminated int  `json:"n_contaminated"`
			Significant  bool `json:"significant"`
		} `json:"contamination"`
		Near []struct {
			Name   string
			Within int64 `json:"within_k"`
		} `json:"near"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	levels := map[string]int{}
	for _, g := range f.Gaps {
		levels[g.Level] = g.Contaminated
	}
	if len(f.Near) != 1 || f.Near[0].Within == 0 || levels["near2"] <= levels["ws"] {
		t.Errorf("near stratum: gaps %v, near %+v", levels, f.Near)
	}
}

// checkPage checks a --report page: self-contained (no script, nothing
// fetched) and answering in its first line.
func checkPage(t *testing.T, dir, answer string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	if !strings.Contains(s, answer) || strings.Contains(s, "<script") || strings.Contains(s, "http://") || strings.Contains(s, "https://") {
		t.Errorf("%s: not a self-contained page answering %q", dir, answer)
	}
}

// TestRealAuditLabelsOnly: a dataset provenance audit, test splits given
// by their labels alone (the HME100K list, the CROHME 2014 folder with its
// images): overlap and near-duplicates run, the model checks are reported
// as not run, and the test splits' own fingerprints are written.
func TestRealAuditLabelsOnly(t *testing.T) {
	root := shareddata.Dir(t)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "audit.yaml")
	os.WriteFile(cfg, []byte(fmt.Sprintf(`name: provenance
train:
  - {name: hme100k_train, path: %[1]s/labels/hme100k_train_captions.json}
  - {name: crohme_train, path: %[1]s/crohme/train}
train_images:
  - {name: crohme_train, path: %[1]s/crohme/train}
splits:
  - {name: hme100k_test, benchmark: hme100k, role: test, labels: %[1]s/labels/hme100k_test_captions.json}
  - {name: crohme2014, benchmark: crohme, role: test, labels: %[1]s/crohme/2014, images: %[1]s/crohme/2014}
db: %[2]s/db
`, root, dir)), 0o644)
	out := filepath.Join(dir, "out")
	if _, stderr, code := runCode(t, "audit", "--config", cfg, "--out", out); code != exitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	b, _ := os.ReadFile(filepath.Join(out, "findings.json"))
	var f struct {
		Verdicts []struct {
			Split, Class string
			LabelsOnly   bool `json:"labels_only"`
			Found        int64
		}
		Anomalies   []json.RawMessage
		Limitations []string
	}
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	if len(f.Verdicts) != 2 || !f.Verdicts[0].LabelsOnly || f.Verdicts[0].Class != "overlap" || f.Verdicts[0].Found == 0 || len(f.Anomalies) != 0 || len(f.Limitations) < 2 {
		t.Errorf("labels-only audit: %+v, %d anomalies, limitations %q", f.Verdicts, len(f.Anomalies), f.Limitations)
	}
	// The test splits' fingerprints stand in for them: overlap of the
	// HME100K training list against them finds the same items.
	fp := filepath.Join(out, "test-fingerprints.parquet")
	stdout, stderr, code := runCode(t, "overlap", "--json", "--level", "audit", "--train", fp, "--test", filepath.Join(root, "labels", "hme100k_train_captions.json"))
	if code != exitOK || !strings.Contains(stdout, `"found"`) {
		t.Errorf("overlap against the test fingerprints: exit %d\n%s", code, stderr)
	}
}

// checkWithinVerified: every item removed as a copy of another image of
// its release (reason within, level image) is a pair neardup's rule
// (imagehash.Verify, the removed item's image as the query) verifies; img is the release's image folder.
func checkWithinVerified(t *testing.T, removed, img string) {
	t.Helper()
	hash := func(id string, o imagehash.Options) imagehash.Hashes {
		f, err := os.Open(filepath.Join(img, id+".png"))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		m, _, err := image.Decode(f)
		if err != nil {
			t.Fatal(err)
		}
		h, err := imagehash.Compute(m, o)
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	data, err := os.ReadFile(removed)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for line := range strings.SplitSeq(strings.TrimSpace(string(data)), "\n") {
		var r struct {
			ID, Reason, Level string
			Matches           []string
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatal(err)
		}
		if r.Reason != "within" || r.Level != "image" || len(r.Matches) != 1 {
			continue
		}
		n++
		q := hash(r.ID, imagehash.Options{Kind: imagehash.PHash, Canvas: imagehash.Stretch, Probe: true})
		c := hash(strings.TrimPrefix(r.Matches[0], "train:"), imagehash.Options{Kind: imagehash.PHash, Canvas: imagehash.Stretch, Probe: true}) // a release's images are all hashed as queries
		if fine, ok := imagehash.Verify(q, c); !ok {
			t.Errorf("%s removed as a copy of %s, which neardup's rule does not verify (fine %d, ink %.2f)", r.ID, r.Matches[0], fine, imagehash.InkDistance(q, c))
		}
	}
	if n == 0 {
		t.Error("no item removed as an image copy inside the release")
	}
}
