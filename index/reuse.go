package index

import (
	"errors"

	"github.com/leakaudit/leakaudit/internal/setting"

	"github.com/leakaudit/leakaudit/checksum"
)

// Dir is the index folder of a run: db when the user named one, else the
// default folder of these corpora (DefaultDir).
func Dir(db string, sums []checksum.Input) (string, error) {
	if db != "" {
		return db, nil
	}
	return DefaultDir(sums)
}

// DropDamaged handles a damaged index (err wraps ErrDamaged) in dir, where
// db is the folder the user named ("" for the default folder): the
// default folder is the tool's own, so it is removed, after saying so
// through logf, to be built again; a folder the user named is left as it
// is and err is returned, whose message names the folder and says how to
// rebuild it.
func DropDamaged(err error, dir, db string, logf func(format string, args ...any)) error {
	if db != "" {
		return err
	}
	reason := err.Error()
	var de *DamagedError
	if errors.As(err, &de) {
		reason = de.Reason
	}
	logf("index %s is damaged (%s); it is the default index folder: building it again", dir, reason)
	return Remove(dir)
}

// Reuse returns the index in dir when one is there and complete says it
// serves the caller (an error from complete counts as the index's own),
// or nil when one must be built in dir: a damaged index in the default
// folder (db == "") has then been removed, after saying so through logf,
// and with rebuild the folder has been removed too. A locked index, and a
// damaged one in a folder the user named, are errors.
func Reuse(dir, db string, rebuild bool, opts Options, complete func(*DB) (bool, error), logf func(format string, args ...any)) (*DB, error) {
	if !rebuild {
		ix, err := OpenReadOnly(dir, opts)
		if err == nil {
			ok, cerr := complete(ix)
			if ok && cerr == nil {
				logf("using index %s", dir)
				return ix, nil
			}
			ix.Close()
			err = cerr
		}
		if errors.Is(err, ErrLocked) {
			return nil, err
		}
		if errors.Is(err, ErrDamaged) {
			if err := DropDamaged(err, dir, db, logf); err != nil {
				return nil, err
			}
		}
	}
	if rebuild {
		if err := Remove(dir); err != nil {
			return nil, setting.Errorf("%s: %w", setting.Rebuild, err)
		}
	}
	return nil, nil
}
