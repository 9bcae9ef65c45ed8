package checksum

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestOf: a file's checksum is its SHA-256 and size; a folder's covers its
// regular files' relative paths and contents, and its size is theirs.
func TestOf(t *testing.T) {
	t.Setenv("LEAKAUDIT_NO_HASH_CACHE", "1")
	dir := t.TempDir()
	write := func(name, body string) {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("d/a.txt", "x")
	write("d/sub/b.txt", "yz")
	hex256 := func(s string) string { h := sha256.Sum256([]byte(s)); return hex.EncodeToString(h[:]) }
	for _, tc := range []struct {
		path string
		size int64
		sum  string
	}{
		{filepath.Join(dir, "d/a.txt"), 1, hex256("x")},
		{filepath.Join(dir, "d"), 3, hex256("a.txt\x00" + hex256("x") + "\nsub/b.txt\x00" + hex256("yz") + "\n")},
	} {
		f, err := Of(tc.path)
		if err != nil {
			t.Fatal(err)
		}
		if f.Path != tc.path || f.Size != tc.size || f.SHA256 != tc.sum || f.ModTime.IsZero() {
			t.Errorf("Of(%s) = %+v, want size %d, sha256 %s", tc.path, f, tc.size, tc.sum)
		}
	}
	if _, err := Of(filepath.Join(dir, "missing")); !os.IsNotExist(err) {
		t.Errorf("a missing input: %v", err)
	}
}

// TestInputJSON: an Input is written as reports have always written their
// inputs: role, name, path, size, sha256, in that order, without the
// modification time.
func TestInputJSON(t *testing.T) {
	f := File{Path: "a.json", Size: 3, SHA256: "ab"}
	f.ModTime = f.ModTime.AddDate(2020, 0, 0)
	b, err := json.Marshal(Input{Role: "release", Name: "train", File: f})
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"role":"release","name":"train","path":"a.json","size":3,"sha256":"ab"}`
	if string(b) != want {
		t.Errorf("got %s, want %s", b, want)
	}
}
