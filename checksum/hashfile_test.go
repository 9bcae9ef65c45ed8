package checksum

import (
	"crypto/sha256"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

// TestHashFile checks that a file hashed a window at a time gets
// the digest of its bytes, at sizes around the window's.
func TestHashFile(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 7))
	for _, size := range []int{0, 100, readWindow - 1, readWindow, readWindow + 1, 2*readWindow + 4097} {
		b := make([]byte, size)
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		path := filepath.Join(t.TempDir(), "f")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		h := sha256.New()
		err = hashFile(h, f, int64(size))
		f.Close()
		if err != nil {
			t.Fatalf("%d bytes: %v", size, err)
		}
		if want := sha256.Sum256(b); string(h.Sum(nil)) != string(want[:]) {
			t.Errorf("%d bytes: digest differs from the bytes'", size)
		}
	}
}

// TestHostileHashFileShrinks checks that a file that shrinks while it is
// hashed is an error, not the digest of fewer bytes.
func TestHostileHashFileShrinks(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	const size = 3 * readWindow
	if err := os.WriteFile(path, make([]byte, size), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	// Shrunk after its size was taken.
	if err := os.Truncate(path, readWindow+readWindow/2); err != nil {
		t.Fatal(err)
	}
	if err := hashFile(sha256.New(), f, size); !errors.Is(err, errChanged) {
		t.Fatalf("hashFile of a shrunk file: %v, want %v", err, errChanged)
	}
}
