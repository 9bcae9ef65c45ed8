package fingerprint

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHostileWriteOut: Write never writes over its input (by any path to
// it), never replaces a user's file or non-empty folder without Force,
// replaces its own earlier output, and leaves nothing but out behind.
func TestHostileWriteOut(t *testing.T) {
	dir := t.TempDir()
	in := corpus(t, dir)
	path := in[0].Source.Path
	os.Symlink(path, filepath.Join(dir, "link.json"))
	user := filepath.Join(dir, "user.parquet")
	os.WriteFile(user, []byte("mine"), 0o644)
	full := filepath.Join(dir, "full")
	os.Mkdir(full, 0o755)
	os.WriteFile(filepath.Join(full, "notes.txt"), []byte("mine"), 0o644)
	// A file named as the old fixed temporary name: never touched.
	bystander := filepath.Join(dir, "fp.parquet.tmp")
	os.WriteFile(bystander, []byte("mine"), 0o644)
	o := Options{Levels: levels(t, "ws")}
	for _, c := range []struct {
		name       string
		out        string
		partitions int
		force      bool
		want       string
	}{
		{"the input", path, 0, true, "is the input"},
		{"a link to the input", filepath.Join(dir, "link.json"), 0, true, "is the input"},
		{"the input by another name", filepath.Join(dir, "x", "..", "train.json"), 0, true, "is the input"},
		{"a user's file", user, 0, false, "not a fingerprint"},
		{"a non-empty folder", full, 0, false, "is a folder"},
		{"a non-empty folder, partitions", full, 4, false, "not a fingerprint"},
		{"new", filepath.Join(dir, "fp.parquet"), 0, false, ""},
		{"again over its previous output", filepath.Join(dir, "fp.parquet"), 0, false, ""},
		{"partitions", filepath.Join(dir, "parts"), 4, false, ""},
		{"partitions again", filepath.Join(dir, "parts"), 4, false, ""},
		{"a file over its previous partitions", filepath.Join(dir, "parts"), 0, false, ""},
		{"a user's file, forced", user, 0, true, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			before, _ := os.ReadFile(path)
			oc := o
			oc.Partitions, oc.Force = c.partitions, c.force
			_, err := Write(c.out, in, oc)
			switch {
			case c.want == "" && err != nil:
				t.Fatal(err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Fatalf("got %v, want an error with %q", err, c.want)
			}
			if after, _ := os.ReadFile(path); string(after) != string(before) {
				t.Fatal("the input changed")
			}
			if c.want == "" && !isPrevious(c.out) {
				t.Errorf("%s is not recognized as a fingerprint", c.out)
			}
		})
	}
	if b, _ := os.ReadFile(filepath.Join(full, "notes.txt")); string(b) != "mine" {
		t.Error("the user's folder lost its file")
	}
	if b, _ := os.ReadFile(bystander); string(b) != "mine" {
		t.Error("a file named like a temporary output was removed")
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			t.Errorf("left behind: %s", e.Name())
		}
	}
}

// TestHostileWriteInterrupted: a cancelled Write returns an error, writes
// nothing to out and leaves no temporary file or folder.
func TestHostileWriteInterrupted(t *testing.T) {
	dir := t.TempDir()
	in := []Input{{Name: "train", Source: corpus(t, dir)[0].Source}}
	in[0].Source.Path = labelsFile(t, dir, "big", 20000, 100)
	for _, parts := range []int{0, 4} {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		out := filepath.Join(dir, "fp")
		_, err := WriteContext(ctx, out, in, Options{Levels: levels(t, "ws"), Partitions: parts})
		if err == nil || !strings.Contains(err.Error(), "interrupted") {
			t.Errorf("partitions %d: %v", parts, err)
		}
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if e.Name() != "train.json" && e.Name() != "big.json" {
				t.Errorf("partitions %d: left behind: %s", parts, e.Name())
			}
		}
	}
}
