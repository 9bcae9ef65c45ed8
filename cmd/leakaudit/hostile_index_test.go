package main

import (
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// snapshotFiles reads every file under dir, by relative path.
func snapshotFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			b, _ := os.ReadFile(p)
			rel, _ := filepath.Rel(dir, p)
			out[rel] = string(b)
		}
		return nil
	})
	return out
}

// TestHostileRebuildProjectFolder: a project folder, with the training
// input in it, given as --db (with --rebuild or without) to overlap and
// neardup is refused with a message naming it, and keeps every file.
func TestHostileRebuildProjectFolder(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	proj := t.TempDir()
	train := filepath.Join(proj, "train.json")
	test := filepath.Join(proj, "test.json")
	os.WriteFile(train, []byte(`["x ^ { 2 }", "\\alphab", "y"]`), 0o644)
	os.WriteFile(test, []byte(`["x^{2}", "z"]`), 0o644)
	os.WriteFile(filepath.Join(proj, "notes.md"), []byte("my notes"), 0o644)
	imgs := filepath.Join(proj, "imgs")
	os.MkdirAll(imgs, 0o755)
	g := image.NewGray(image.Rect(0, 0, 60, 20))
	for i := range g.Pix {
		if i%7 < 2 {
			g.Pix[i] = 255
		}
	}
	f, _ := os.Create(filepath.Join(imgs, "a.png"))
	png.Encode(f, g)
	f.Close()
	before := snapshotFiles(t, proj)
	for _, args := range [][]string{
		{"overlap", "--train", train, "--test", test, "--db", proj, "--rebuild"},
		{"overlap", "--train", train, "--test", test, "--db", proj},
		{"overlap", "--train", train, "--test", test, "--db", imgs, "--rebuild"},
		{"neardup", "--train", "tr=" + imgs, "--test", "te=" + imgs, "--db", proj, "--rebuild"},
		{"neardup", "--train", "tr=" + imgs, "--test", "te=" + imgs, "--db", proj},
		{"neardup", "--train", "tr=" + imgs, "--test", "te=" + imgs, "--db", imgs, "--rebuild"},
	} {
		_, stderr, code := runCode(t, args...)
		if code == exitOK || !strings.Contains(stderr, "not a leakaudit index") || !strings.Contains(stderr, args[len(args)-1]) && !strings.Contains(stderr, proj) {
			t.Errorf("%s: exit %d\n%s", strings.Join(args, " "), code, stderr)
		}
		after := snapshotFiles(t, proj)
		if len(after) != len(before) {
			t.Errorf("%s: %d files in the project folder, %d before", strings.Join(args, " "), len(after), len(before))
		}
		for name, content := range before {
			if after[name] != content {
				t.Errorf("%s: %s removed or changed", strings.Join(args, " "), name)
			}
		}
	}
	// An index folder is rebuilt as asked.
	db := filepath.Join(t.TempDir(), "db")
	for range 2 {
		if _, stderr, code := runCode(t, "overlap", "--train", train, "--test", test, "--db", db, "--rebuild"); code != exitOK {
			t.Fatalf("--rebuild of an index: exit %d\n%s", code, stderr)
		}
	}
}

// TestHostileDamagedIndexCLI: overlap on an index given with --db whose
// table block was overwritten exits with an error that names the folder
// and says to rebuild, never another count; --rebuild then gives the
// undamaged answer.
func TestHostileDamagedIndexCLI(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("[")
	for i := range 20000 {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`"x_{` + itoa(int64(i%5000)) + `}"`)
	}
	b.WriteString("]")
	train := filepath.Join(dir, "train.json")
	test := filepath.Join(dir, "test.json")
	os.WriteFile(train, []byte(b.String()), 0o644)
	os.WriteFile(test, []byte(b.String()), 0o644)
	db := filepath.Join(dir, "db")
	args := []string{"overlap", "--json", "--level", "ws", "--train", train, "--test", test, "--db", db}
	want, stderr, code := runCode(t, args...)
	if code != exitOK || !strings.Contains(want, `"found": 20000`) {
		t.Fatalf("exit %d\n%s%s", code, want, stderr)
	}
	ssts, _ := filepath.Glob(filepath.Join(db, "shard-*", "*.sst"))
	for _, p := range ssts {
		fh, err := os.OpenFile(p, os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		fh.WriteAt(make([]byte, 4096), 0) // the first data block
		fh.Close()
	}
	out, stderr, code := runCode(t, args...)
	if code == exitOK || strings.Contains(out, `"found"`) || !strings.Contains(stderr, db) || !strings.Contains(stderr, "damaged") || !strings.Contains(stderr, "--rebuild") {
		t.Errorf("a damaged index: exit %d\n%s%s", code, out, stderr)
	}
	got, stderr, code := runCode(t, append(args, "--rebuild")...)
	if code != exitOK || got != want {
		t.Errorf("--rebuild: exit %d\n%s", code, stderr)
	}
}
