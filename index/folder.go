package index

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/leakaudit/leakaudit/internal/setting"
)

// An index folder holds only what an index writes in it: its manifest,
// the posting shards, the image database, the runs of a build in
// progress, or a format-1 Badger database. Nothing is ever written into,
// or removed from, a folder that holds anything else (a project folder
// given as --db by mistake): Open refuses it and Remove too, naming the
// folder and what it holds.

// ErrNotIndex is wrapped by the error of a folder that is not empty and
// not a leakaudit index.
var ErrNotIndex = errors.New("not a leakaudit index")

var (
	shardName = regexp.MustCompile(`^shard-[0-9]{2}$`)
	buildName = regexp.MustCompile(`^build-[0-9]+$`)
	runName   = regexp.MustCompile(`^run-[0-9]{5}$`)
)

// isIndexEntry reports whether name, an entry of an index folder, is one
// an index writes there.
func isIndexEntry(name string, dir bool) bool {
	if dir {
		return shardName.MatchString(name) || name == "images" || buildName.MatchString(name)
	}
	return name == manifestFile || name == manifestFile+".tmp" || isOldLayoutFile(name)
}

// isDatabaseFile reports whether name, a file in a shard or the image
// database, is one Badger or the index writes there.
func isDatabaseFile(name string) bool {
	return isOldLayoutFile(name) || strings.HasPrefix(name, "filter-") || strings.HasSuffix(name, ".tmp") || strings.Contains(name, "REWRITE")
}

// CheckFolder returns nil when dir does not exist, is empty, or holds a
// leakaudit index and nothing else; otherwise an error wrapping
// ErrNotIndex that names the folder and an entry an index does not have.
func CheckFolder(dir string) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read index folder %s: %w", dir, err)
	}
	if len(entries) == 0 {
		return nil
	}
	notIndex := func(what string) error {
		return setting.Errorf("%s is %w: it holds %s, which an index does not; nothing in it was changed (give %s an empty or new folder, or an index folder)", dir, ErrNotIndex, what, setting.DB)
	}
	recognised := false
	for _, e := range entries {
		name := e.Name()
		if !isIndexEntry(name, e.IsDir()) {
			return notIndex(fmt.Sprintf("%q", name))
		}
		switch {
		case name == manifestFile || name == "MANIFEST":
			recognised = true
		case e.IsDir():
			inner, err := os.ReadDir(filepath.Join(dir, name))
			if err != nil {
				return fmt.Errorf("read index folder %s: %w", dir, err)
			}
			for _, f := range inner {
				ok := !f.IsDir() && isDatabaseFile(f.Name())
				if buildName.MatchString(name) {
					ok = !f.IsDir() && runName.MatchString(f.Name())
				}
				if !ok {
					return notIndex(fmt.Sprintf("%q", filepath.Join(name, f.Name())))
				}
				recognised = recognised || f.Name() == "MANIFEST" || ok && buildName.MatchString(name)
			}
		}
	}
	if !recognised {
		return notIndex("no index manifest")
	}
	return nil
}

// Remove removes the index in dir, leaving the folder empty: only when
// dir holds an index and nothing else (CheckFolder), so that a folder
// given by mistake loses nothing. A folder that does not exist is no
// error.
func Remove(dir string) error {
	if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	lock, err := lockDir(dir, false) // no reader or writer has it open
	if err != nil {
		return err
	}
	defer lock.Close()
	if err := CheckFolder(dir); err != nil {
		return err
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
			return fmt.Errorf("remove index %s: %w", dir, err)
		}
	}
	syncDir(dir)
	return nil
}
