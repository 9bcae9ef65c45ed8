// Package checksum identifies the bytes an input held when it was read: a
// file's or a folder's size and SHA-256 ([Of] gives a [File]), and
// [Input], the record of one input of a run (its role, its name and its
// File) that reports list and that an index keeps for each corpus, so that
// a changed input is never taken for the one it replaced.
//
// Hashing a multi-gigabyte training corpus takes longer than looking a test
// set up in its index, so the SHA-256 of a large file is remembered in a
// cache under the user cache directory (cache.go), by the file's path,
// size, modification time and inode. LEAKAUDIT_NO_HASH_CACHE=1 turns the
// cache off.
package checksum

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// File identifies the bytes of a file or folder.
type File struct {
	Path    string    `json:"path"` // as given by the user
	Size    int64     `json:"size"`
	ModTime time.Time `json:"-"`
	SHA256  string    `json:"sha256"`
}

// Input is one input of a run with its checksum: the record of an input in
// a report (its role there, such as "train", "test", "release" or
// "against", and its name) and of a corpus in an index.
type Input struct {
	Role string `json:"role"`
	Name string `json:"name"`
	File
}

// Of computes the checksum of a file or folder. For a folder the digest
// covers the sorted relative paths and contents of its regular files, and
// Size is the sum of their sizes.
func Of(path string) (File, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return File{}, err
	}
	f := File{Path: path, ModTime: fi.ModTime().UTC()}
	if !fi.IsDir() {
		f.Size = fi.Size()
		sum, err := fileSHA256(path)
		f.SHA256 = sum
		return f, err
	}
	h := sha256.New()
	err = filepath.WalkDir(path, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !d.Type().IsRegular() {
			return err
		}
		rel, _ := filepath.Rel(path, p)
		sum, err := fileSHA256(p)
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		f.Size += info.Size()
		fmt.Fprintf(h, "%s\x00%s\n", filepath.ToSlash(rel), sum)
		return nil
	})
	f.SHA256 = hex.EncodeToString(h.Sum(nil))
	return f, err
}
