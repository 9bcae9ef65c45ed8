package outpath

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	dir := t.TempDir()
	mk := func(p, data string) string {
		p = filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	in := mk("in.json", `["x"]`)
	inDir := filepath.Join(dir, "images")
	mk("images/a.png", "png")
	mk("proj/train.json", `["y"]`)
	user := mk("user.txt", "mine")
	prev := mk("prev.out", "PREVIOUS")
	mk("full/notes.txt", "mine")
	mk("ours/a.json", "{}")
	empty := filepath.Join(dir, "empty")
	os.Mkdir(empty, 0o755)
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink(in, link); err != nil {
		t.Fatal(err)
	}
	hard := filepath.Join(dir, "hard.json")
	if err := os.Link(in, hard); err != nil {
		t.Fatal(err)
	}
	dangling := filepath.Join(dir, "dangling")
	os.Symlink(filepath.Join(dir, "nowhere"), dangling)
	isPrev := func(p string) bool {
		b, err := os.ReadFile(p)
		return err == nil && string(b) == "PREVIOUS"
	}
	inputs := []string{in, inDir, filepath.Join(dir, "proj", "train.json")}
	cases := []struct {
		name  string
		o     Output
		want  string // "" for no error, else a part of the message
		force bool   // the same with Force passes
	}{
		{"new file", Output{Path: filepath.Join(dir, "new.out")}, "", true},
		{"no output", Output{}, "", true},
		{"the input", Output{Path: in}, "is the input", false},
		{"the input by another path", Output{Path: filepath.Join(dir, ".", "sub", "..", "in.json")}, "is the input", false},
		{"a link to the input", Output{Path: link}, "is the input", false},
		{"a hard link to the input", Output{Path: hard}, "is the input", false},
		{"the input folder", Output{Path: inDir, Dir: true}, "is the input folder", false},
		{"inside an input folder", Output{Path: filepath.Join(inDir, "fp.parquet")}, "inside the input folder", false},
		{"holds an input", Output{Path: filepath.Join(dir, "proj"), Dir: true}, "holds the input", false},
		{"a user's file", Output{Path: user, What: "a thing", Previous: isPrev}, "is a file that is not a thing", true},
		{"a user's file, nothing recognized", Output{Path: user}, "exists and is a file:", true},
		{"a previous output", Output{Path: prev, Previous: isPrev}, "", true},
		{"a non-empty folder", Output{Path: filepath.Join(dir, "full"), Dir: true, Previous: isPrev}, "folder of 1 entry that is not", true},
		{"a non-empty folder, nothing recognized", Output{Path: filepath.Join(dir, "full"), Dir: true}, "is a folder of 1 entry:", true},
		{"a folder for a file", Output{Path: empty}, "is a folder", true},
		{"an empty folder", Output{Path: empty, Dir: true}, "", true},
		{"a file for a folder", Output{Path: user, Dir: true}, "is a file (a folder", true},
		{"a folder of our names", Output{Path: filepath.Join(dir, "ours"), Dir: true, Previous: Names("*.json")}, "", true},
		{"a folder of other names", Output{Path: filepath.Join(dir, "full"), Dir: true, Previous: Names("*.json")}, "not an earlier output", true},
		{"a dangling link", Output{Path: dangling}, "symbolic link", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.o.Flag, c.o.Inputs = "--out", inputs
			err := Check(c.o)
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Fatalf("got %v, want an error with %q", err, c.want)
			}
			c.o.Force = true
			if err := Check(c.o); (err == nil) != c.force {
				t.Errorf("with Force: %v", err)
			}
		})
	}
}

func TestInstall(t *testing.T) {
	dir := t.TempDir()
	write := func(p, s string) {
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// A file over a file, a folder over a folder, a folder over a link to
	// a folder (the link goes, the folder it points to stays).
	write(filepath.Join(dir, "tmp1"), "new")
	write(filepath.Join(dir, "out1"), "old")
	write(filepath.Join(dir, "tmp2", "a"), "new")
	write(filepath.Join(dir, "out2", "b"), "old")
	write(filepath.Join(dir, "tmp3", "a"), "new")
	write(filepath.Join(dir, "target", "keep"), "mine")
	os.Symlink(filepath.Join(dir, "target"), filepath.Join(dir, "out3"))
	for i, want := range []string{"out1", "out2/a", "out3/a"} {
		n := string(rune('1' + i))
		if err := Install(filepath.Join(dir, "tmp"+n), filepath.Join(dir, "out"+n)); err != nil {
			t.Fatal(err)
		}
		if b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(want))); err != nil || string(b) != "new" {
			t.Errorf("%s: %q %v", want, b, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "out2", "b")); !os.IsNotExist(err) {
		t.Error("out2/b survived the install")
	}
	if _, err := os.Stat(filepath.Join(dir, "target", "keep")); err != nil {
		t.Errorf("the folder a replaced link pointed to lost its file: %v", err)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), "tmp") {
			t.Errorf("left behind: %s", e.Name())
		}
	}
}
