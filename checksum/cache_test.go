package checksum

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestHashCache(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	p := filepath.Join(t.TempDir(), "big.json")
	data := bytes.Repeat([]byte("x"), hashCacheMinSize+1)
	os.WriteFile(p, data, 0o644)
	sum := func(b []byte) string { s := sha256.Sum256(b); return hex.EncodeToString(s[:]) }
	for i := 0; i < 2; i++ { // a miss, then a hit
		got, err := fileSHA256(p)
		if err != nil || got != sum(data) {
			t.Fatalf("round %d: %s %v", i, got, err)
		}
	}
	if _, ok := readHashCache(hashCachePath())[mustAbs(p)]; !ok {
		t.Fatal("the large file's checksum was not cached")
	}
	// Rewritten in place with the same size: a new modification time, a
	// new checksum.
	data[0] = 'y'
	os.WriteFile(p, data, 0o644)
	os.Chtimes(p, time.Now().Add(time.Hour), time.Now().Add(time.Hour))
	if got, _ := fileSHA256(p); got != sum(data) {
		t.Errorf("a changed file kept its old checksum")
	}
	t.Setenv("LEAKAUDIT_NO_HASH_CACHE", "1")
	if hashCachePath() != "" {
		t.Error("LEAKAUDIT_NO_HASH_CACHE did not turn the cache off")
	}
}

func mustAbs(p string) string { a, _ := filepath.Abs(p); return a }
