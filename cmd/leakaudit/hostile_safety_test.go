package main

// Hostile outputs: every command that writes a file or folder, pointed at
// its own inputs (by their names, through links, or at folders holding
// them), at a user's files and folders, and at its own earlier output; and
// interrupted runs. Every hostile file is made in t.TempDir(); each case
// asserts the exit status, the message, and that nothing it was not asked
// to write changed.

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/leakaudit/leakaudit/internal/shareddata"
)

// snapshot maps every file under dir (links not followed) to a digest of
// its content, or of its link target.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	m := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			m[rel] = "link to " + target
		case d.IsDir():
			m[rel+"/"] = "dir"
		default:
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			m[rel] = fmt.Sprintf("%x", sha256.Sum256(b))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// changed lists what differs between two snapshots.
func changed(a, b map[string]string) []string {
	var out []string
	for k, v := range a {
		if b[k] != v {
			out = append(out, k)
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			out = append(out, k+" (new)")
		}
	}
	return out
}

// hostilePNG writes a small image with one stroke at x.
func hostilePNG(t *testing.T, path string, x int) {
	t.Helper()
	img := image.NewGray(image.Rect(0, 0, 64, 32))
	for i := range img.Pix {
		img.Pix[i] = 255
	}
	for dx := 0; dx < 6; dx++ {
		for y := 4; y < 28; y++ {
			img.SetGray(x+dx, y, color.Gray{})
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestHostileOutputs: no command writes over or into an input, or
// replaces a user's file or folder without --force; each rewrites its own
// earlier output. The hostile folder is compared file by file after every
// refused run.
func TestHostileOutputs(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", filepath.Join(t.TempDir(), "cache"))
	put := func(rel, data string) string {
		p := filepath.Join(dir, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	train := put("proj/train.json", `["x ^ { 2 }", "a + b", "c"]`)
	test := put("proj/test.json", `["x ^ { 2 }", "d"]`)
	preds := put("preds.json", `[{"img_id": "1", "gt": "x ^ { 2 }", "pred": "x ^ { 2 }"}]`)
	user := put("notes.txt", "the user's notes")
	userPNG := put("photo.txt", "not a png")
	put("mine/notes.txt", "the user's folder")
	cfg := put("cfgdir/audit.yaml", fmt.Sprintf("splits:\n  - {name: s, role: test, labels: %s}\ntrain:\n  - {name: t, path: %s}\n", test, train))
	hostilePNG(t, filepath.Join(dir, "imgs", "a.png"), 10)
	hostilePNG(t, filepath.Join(dir, "imgs", "b.png"), 40)
	imgs := filepath.Join(dir, "imgs")
	link := filepath.Join(dir, "link.json")
	os.Symlink(train, link)
	mine := filepath.Join(dir, "mine")
	proj := filepath.Join(dir, "proj")

	overlap := []string{"overlap", "--train", train, "--test", test}
	neardup := []string{"neardup", "--train", imgs, "--test", imgs, "--db", filepath.Join(t.TempDir(), "db")}
	dedupArgs := []string{"dedup", "--release", "r=" + train, "--against", test}
	fp := []string{"fingerprint", "--input", "t=" + train}
	score := []string{"score", "--input", preds, "--metrics", "exprate@raw"}
	refused := []struct {
		name string
		args []string
		want string
	}{
		{"fingerprint over its input", append(fp, "--out", train), "is the input"},
		{"fingerprint over its input, forced", append(fp, "--out", train, "--force"), "is the input"},
		{"fingerprint over a link to its input", append(fp, "--out", link), "is the input"},
		{"fingerprint into a folder holding its input", append(fp, "--out", proj, "--partitions", "2", "--force"), "holds the input"},
		{"fingerprint over a user's file", append(fp, "--out", user), "not a fingerprint"},
		{"fingerprint partitions over a user's folder", append(fp, "--out", mine, "--partitions", "2"), "not a fingerprint"},
		{"fingerprint over a user's folder", append(fp, "--out", mine), "is a folder"},
		{"overlap --items over its test split", append(overlap, "--items", test), "is the input"},
		{"overlap --items over a user's file", append(overlap, "--items", user), "not a per-item evidence file"},
		{"overlap --report into a user's folder", append(overlap, "--report", mine), "not a report page folder"},
		{"overlap --report into the inputs' folder", append(overlap, "--report", proj, "--force"), "holds the input"},
		{"neardup --gallery inside its image folder", append(neardup, "--gallery", filepath.Join(imgs, "pairs")), "inside the input folder"},
		{"neardup --report into a user's folder", append(neardup, "--report", mine), "not a report page folder"},
		{"dedup --out over a user's folder", append(dedupArgs, "--out", mine), "is a folder of 1 entry"},
		{"dedup --out over its input", append(dedupArgs, "--out", proj, "--force"), "holds the input"},
		{"dedup --report into a user's folder", append(dedupArgs, "--out", filepath.Join(t.TempDir(), "clean"), "--report", mine), "not a report page folder"},
		{"score --out into a user's folder", append(score, "--out", mine), "not a score folder"},
		{"score --out into its input's folder", append(score, "--out", dir, "--force"), "holds the input"},
		{"score --vis into a user's folder", append(score, "--vis", mine), "not a folder of drawings"},
		{"audit --out into a user's folder", []string{"audit", "--config", cfg, "--out", mine}, "not an audit report"},
		{"audit --out into its inputs' folder", []string{"audit", "--config", cfg, "--out", proj, "--force"}, "holds the input"},
		{"audit --out into its configuration's folder", []string{"audit", "--config", cfg, "--out", filepath.Dir(cfg), "--force"}, "holds the input"},
		{"render -o over a user's file", []string{"render", "x^2", "-o", userPNG}, "not a PNG image"},
		{"demo --dir into a user's folder", []string{"demo", "--dir", mine}, "not a demo folder"},
	}
	for _, c := range refused {
		t.Run(c.name, func(t *testing.T) {
			before := snapshot(t, dir)
			_, stderr, code := runCode(t, c.args...)
			if code != exitError || !strings.Contains(stderr, c.want) {
				t.Errorf("exit %d, want %d with %q:\n%s", code, exitError, c.want, stderr)
			}
			if d := changed(before, snapshot(t, dir)); len(d) > 0 {
				t.Errorf("changed: %v", d)
			}
		})
	}

	// Their own earlier outputs are rewritten without --force; --force
	// replaces a user's file.
	out := t.TempDir()
	again := []struct {
		name string
		args []string
	}{
		{"fingerprint", append(fp, "--out", filepath.Join(out, "t.fp.parquet"))},
		{"fingerprint partitions", append(fp, "--out", filepath.Join(out, "parts"), "--partitions", "2")},
		{"overlap items and report", append(overlap, "--items", filepath.Join(out, "items.jsonl"), "--report", filepath.Join(out, "page"))},
		{"overlap parquet items", append(overlap, "--items", filepath.Join(out, "items.parquet"))},
		{"neardup gallery and report", append(neardup, "--gallery", filepath.Join(out, "gallery"), "--report", filepath.Join(out, "ndpage"))},
		{"score out", append(score, "--out", filepath.Join(out, "score"))},
		{"audit", []string{"audit", "--config", cfg, "--out", filepath.Join(out, "audit")}},
		{"render", []string{"render", "x^2", "-o", filepath.Join(out, "x.png")}},
	}
	for _, c := range again {
		for run := 1; run <= 2; run++ {
			if _, stderr, code := runCode(t, c.args...); code != exitOK {
				t.Errorf("%s, run %d: exit %d\n%s", c.name, run, code, stderr)
			}
		}
	}
	if _, stderr, code := runCode(t, append(fp, "--out", user, "--force")...); code != exitOK {
		t.Errorf("fingerprint --force over a user's file: exit %d\n%s", code, stderr)
	}
	// An empty folder is a place to write.
	empty := filepath.Join(out, "empty")
	os.Mkdir(empty, 0o755)
	if _, stderr, code := runCode(t, append(dedupArgs, "--out", empty)...); code != exitOK {
		t.Errorf("dedup into an empty folder: exit %d\n%s", code, stderr)
	}
}

// TestHostileHelperProcess is not a test: run by the interruption tests
// as a child process, it runs main with the arguments after "--".
func TestHostileHelperProcess(t *testing.T) {
	if os.Getenv("LEAKAUDIT_HOSTILE_CHILD") != "1" {
		t.Skip("a helper for the interruption tests")
	}
	args := os.Args
	for i, a := range args {
		if a == "--" {
			args = args[i+1:]
			break
		}
	}
	os.Args = append([]string{"leakaudit"}, args...)
	main()
	os.Exit(0)
}

// TestHostileInterrupt: SIGINT or SIGTERM while fingerprint writes stops
// it with a non-zero status, nothing at --out and no temporary file left.
func TestHostileInterrupt(t *testing.T) {
	dir := t.TempDir()
	// A corpus big enough to be caught writing: 2M labels.
	var b strings.Builder
	b.WriteString("[")
	for i := range 2_000_000 {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `"x_{%d} + \\frac{%d}{y}"`, i%997, i)
	}
	b.WriteString("]")
	in := filepath.Join(dir, "big.json")
	if err := os.WriteFile(in, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			out := filepath.Join(dir, "big.fp.parquet")
			cmd := exec.Command(os.Args[0], "-test.run=^TestHostileHelperProcess$", "--",
				"fingerprint", "--input", "big="+in, "--out", out, "--max-file-bytes", "1000000000")
			cmd.Env = append(os.Environ(), "LEAKAUDIT_HOSTILE_CHILD=1")
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// Wait for something beside the input: the child is writing.
			deadline := time.Now().Add(60 * time.Second)
			for {
				entries, _ := os.ReadDir(dir)
				if len(entries) > 1 || time.Now().After(deadline) {
					break
				}
				time.Sleep(5 * time.Millisecond)
			}
			cmd.Process.Signal(sig)
			err := cmd.Wait()
			code := -1
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			} else if err == nil {
				code = 0
			}
			if code == 0 {
				t.Errorf("exit 0 after %v\n%s", sig, stderr.String())
			}
			if !strings.Contains(stderr.String(), "interrupted") {
				t.Errorf("stderr does not say interrupted:\n%s", stderr.String())
			}
			entries, _ := os.ReadDir(dir)
			for _, e := range entries {
				if e.Name() != "big.json" {
					t.Errorf("left behind: %s", e.Name())
				}
			}
		})
	}
}

// TestHostileDedupRelease: the CLI's exit statuses for item 11 of the
// hostile review: a label over --max-label-bytes (the 5 MB default) is
// dropped from the release, so the exit status is 3, or 0 with
// --allow-partial; a caption.txt linking out of the release is refused.
func TestHostileDedupRelease(t *testing.T) {
	dir := t.TempDir()
	big := strings.Repeat("y ", 3<<20) // 6 MB
	b, _ := json.Marshal([]string{"x ^ { 2 }", "a + b", big, "c"})
	rel := filepath.Join(dir, "rel.json")
	os.WriteFile(rel, b, 0o644)
	bench := filepath.Join(dir, "bench.json")
	os.WriteFile(bench, []byte(`["x ^ { 2 }"]`), 0o644)
	args := []string{"dedup", "--release", "r=" + rel, "--against", bench, "--json", "--force"}
	stdout, stderr, code := runCode(t, append(args, "--out", filepath.Join(dir, "o1"))...)
	if code != exitPartial || !strings.Contains(stderr, "label too long: 1") || !strings.Contains(stdout, `"complete": false`) {
		t.Errorf("a label over the limit: exit %d\n%s", code, stderr)
	}
	if _, stderr, code := runCode(t, append(args, "--out", filepath.Join(dir, "o2"), "--allow-partial")...); code != exitOK {
		t.Errorf("--allow-partial: exit %d\n%s", code, stderr)
	}
	if _, stderr, code := runCode(t, append(args, "--out", filepath.Join(dir, "o3"), "--max-label-bytes", "10000000")...); code != exitOK {
		t.Errorf("a raised limit: exit %d\n%s", code, stderr)
	}

	os.MkdirAll(filepath.Join(dir, "secret"), 0o755)
	os.WriteFile(filepath.Join(dir, "secret", "caption.txt"), []byte("a\tx ^ { 2 }\nb\tz\n"), 0o644)
	os.MkdirAll(filepath.Join(dir, "rel2"), 0o755)
	os.Symlink(filepath.Join("..", "secret", "caption.txt"), filepath.Join(dir, "rel2", "caption.txt"))
	_, stderr, code = runCode(t, "dedup", "--release", "r="+filepath.Join(dir, "rel2"), "--against", bench, "--out", filepath.Join(dir, "o4"))
	if code != exitError || !strings.Contains(stderr, "leads out of") {
		t.Errorf("caption.txt linking out: exit %d\n%s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "o4")); !os.IsNotExist(err) {
		t.Error("o4 was written")
	}
}

// TestHostileAuditDB: an audit's db: X keeps the image hashes inside X
// (nothing is written beside it), and a second run reuses both.
func TestHostileAuditDB(t *testing.T) {
	root, err := filepath.Abs(shareddata.Dir(t))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cfg := filepath.Join(dir, "audit.yaml")
	os.WriteFile(cfg, []byte(fmt.Sprintf(`db: %[1]s/db
train:
  - {name: crohme_2016, path: %[2]s/labels/crohme_2016_captions.json}
train_images:
  - {name: crohme_2016_images, path: %[2]s/crohme/2016}
splits:
  - {name: crohme_2014, role: test, labels: %[2]s/crohme/2014/caption.txt, images: %[2]s/crohme/2014}
`, dir, root)), 0o644)
	var first string
	for run := 1; run <= 2; run++ {
		stdout, stderr, code := runCode(t, "audit", "--config", cfg, "--out", filepath.Join(dir, "report"), "--json")
		if code != exitOK {
			t.Fatalf("run %d: exit %d\n%s", run, code, stderr)
		}
		if run == 1 {
			first = stdout
		} else if stdout != first {
			t.Error("the second run's findings differ")
		}
	}
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if strings.Join(names, " ") != "audit.yaml db report" {
		t.Errorf("the audit's folder holds %v, want audit.yaml, db and report", names)
	}
	if _, err := os.Stat(filepath.Join(dir, "db", "images")); err != nil {
		t.Errorf("no image hashes in db: %v", err)
	}
}

// TestHostileWAPReadme: the README's DenseNet-WAP figures, by its own
// commands: 38.24% (377/986) on crohme/2014/caption.txt as it is, 40.67%
// (401/986) with \limits stripped from it first, 40.97% (404) at the
// tokens level.
func TestHostileWAPReadme(t *testing.T) {
	root := shareddata.Dir(t)
	pred := filepath.Join(root, "predictions", "wap", "crohme_2014.txt")
	caption := filepath.Join(root, "crohme", "2014", "caption.txt")
	b, err := os.ReadFile(caption)
	if err != nil {
		t.Fatal(err)
	}
	stripped := filepath.Join(t.TempDir(), "caption_nolimits.txt")
	os.WriteFile(stripped, []byte(strings.ReplaceAll(string(b), ` \limits`, "")), 0o644)
	for _, c := range []struct {
		gt, metric string
		want       float64
	}{{caption, "exprate@raw", 377}, {stripped, "exprate@raw", 401}, {caption, "exprate@tokens", 404}} {
		stdout, stderr, code := runCode(t, "score", "--input", pred, "--gt", c.gt, "--metrics", c.metric, "--json")
		var res struct {
			Metrics []struct {
				Value float64 `json:"value"`
				N     int     `json:"n"`
			} `json:"text_metrics"`
		}
		if code != exitOK || json.Unmarshal([]byte(stdout), &res) != nil || len(res.Metrics) != 1 {
			t.Fatalf("score %s: exit %d\n%s%s", c.metric, code, stdout, stderr)
		}
		m := res.Metrics[0]
		if got := m.Value * float64(m.N); m.N != 986 || got < c.want-0.01 || got > c.want+0.01 {
			t.Errorf("%s on %s: %.4f of %d, want %v of 986", c.metric, filepath.Base(c.gt), m.Value, m.N, c.want)
		}
	}
}

// TestHostileItemsKept: an overlap that fails or is interrupted leaves
// --items as it was (an earlier evidence file is not truncated) and no
// temporary file beside it.
func TestHostileItemsKept(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", filepath.Join(t.TempDir(), "cache"))
	train := filepath.Join(dir, "train.json")
	test := filepath.Join(dir, "test.json")
	os.WriteFile(train, []byte(`["x ^ { 2 }", "a + b"]`), 0o644)
	os.WriteFile(test, []byte(`["x ^ { 2 }", "d"]`), 0o644)
	items := filepath.Join(dir, "out", "items.jsonl")
	os.Mkdir(filepath.Dir(items), 0o755)
	if _, stderr, code := runCode(t, "overlap", "--train", train, "--test", test, "--items", items); code != exitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	before := snapshot(t, filepath.Dir(items))
	// A training corpus that does not exist: the run fails.
	_, stderr, code := runCode(t, "overlap", "--train", train, "--train", filepath.Join(dir, "missing.json"), "--test", test, "--items", items)
	if code != exitError {
		t.Errorf("a missing training corpus: exit %d\n%s", code, stderr)
	}
	if d := changed(before, snapshot(t, filepath.Dir(items))); len(d) > 0 {
		t.Errorf("a failed run changed: %v", d)
	}

	// Interrupted: a long run on the shared data, in a child process.
	root := shareddata.Dir(t)
	cmd := exec.Command(os.Args[0], "-test.run=^TestHostileHelperProcess$", "--", "overlap",
		"--train", filepath.Join(root, "labels", "hme100k_train_captions.json"), "--train", filepath.Join(root, "labels", "mathwriting_valid_captions.json"),
		"--test", filepath.Join(root, "labels", "hme100k_test_captions.json"), "--level", "audit,ws,tokens", "--near", "2", "--items", items)
	cmd.Env = append(os.Environ(), "LEAKAUDIT_HOSTILE_CHILD=1")
	var errBuf bytes.Buffer
	cmd.Stderr = &errBuf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second)
	cmd.Process.Signal(syscall.SIGINT)
	err := cmd.Wait()
	if err == nil {
		t.Skipf("the run ended before the signal:\n%s", errBuf.String())
	}
	if d := changed(before, snapshot(t, filepath.Dir(items))); len(d) > 0 {
		t.Errorf("an interrupted run changed: %v\n%s", d, errBuf.String())
	}
}
