package index

import (
	"errors"

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
