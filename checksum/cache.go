package checksum

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"syscall"
)

// The checksum cache: the SHA-256 of a large file is remembered by its
// path, size, modification time and inode, as build tools remember what
// they compiled. A file rewritten in place gets a new modification time and
// is hashed again. LEAKAUDIT_NO_HASH_CACHE=1 turns the cache off.
const (
	hashCacheMinSize = 16 << 20 // smaller files are hashed every time
	hashCacheMax     = 4096     // entries kept; the cache starts over beyond
)

type hashEntry struct {
	Size    int64  `json:"size"`
	ModTime int64  `json:"mtime_ns"`
	Inode   uint64 `json:"inode"`
	SHA256  string `json:"sha256"`
}

var hashCacheMu sync.Mutex

func hashCachePath() string {
	if os.Getenv("LEAKAUDIT_NO_HASH_CACHE") != "" {
		return ""
	}
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "leakaudit", "sha256-cache.json")
}

func statEntry(fi os.FileInfo) hashEntry {
	e := hashEntry{Size: fi.Size(), ModTime: fi.ModTime().UnixNano()}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		e.Inode = uint64(st.Ino)
	}
	return e
}

// fileSHA256 returns the hex SHA-256 of a file, from the checksum cache when
// the file is large and unchanged since it was hashed.
func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", err
	}
	cache, key, want := "", "", statEntry(fi)
	if fi.Size() >= hashCacheMinSize {
		if cache = hashCachePath(); cache != "" {
			if abs, err := filepath.Abs(path); err == nil {
				key = abs
			}
		}
	}
	if key != "" {
		if e, ok := readHashCache(cache)[key]; ok && e.Size == want.Size && e.ModTime == want.ModTime && e.Inode == want.Inode {
			return e.SHA256, nil
		}
	}
	h := sha256.New()
	if err := hashFile(h, f, fi.Size()); err != nil {
		return "", fmt.Errorf("read %s: %w", path, err)
	}
	sum := hex.EncodeToString(h.Sum(nil))
	if key != "" {
		want.SHA256 = sum
		writeHashCache(cache, key, want)
	}
	return sum, nil
}

func readHashCache(path string) map[string]hashEntry {
	hashCacheMu.Lock()
	defer hashCacheMu.Unlock()
	m := map[string]hashEntry{}
	if b, err := os.ReadFile(path); err == nil {
		json.Unmarshal(b, &m) // a damaged cache is an empty one
	}
	return m
}

// writeHashCache records one entry, replacing the file atomically; a
// failure only costs a hash next time.
func writeHashCache(path, key string, e hashEntry) {
	m := readHashCache(path)
	hashCacheMu.Lock()
	defer hashCacheMu.Unlock()
	if len(m) >= hashCacheMax {
		m = map[string]hashEntry{}
	}
	m[key] = e
	b, err := json.Marshal(m)
	if err != nil {
		return
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".sha256-cache-*")
	if err != nil {
		return
	}
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return
	}
	tmp.Close()
	if os.Rename(tmp.Name(), path) != nil {
		os.Remove(tmp.Name())
	}
}
