package checksum

import (
	"errors"
	"hash"
	"io"
	"os"
	"runtime/debug"

	"github.com/leakaudit/leakaudit/internal/pagecache"
)

// mapWindow is how much of a file hashFile maps at a time: the mapped
// pages count in the process's resident memory while they are mapped.
const mapWindow = 8 << 20

// errChanged is the error of a file that shrank while it was hashed.
var errChanged = errors.New("the file shrank while it was read")

// hashFile writes the size bytes of f to h, read where it can be from the
// page cache without a copy (mapped, a window at a time), else with reads.
// A file that shrinks meanwhile is an error.
func hashFile(h hash.Hash, f *os.File, size int64) (err error) {
	if size < mapWindow {
		return copyAll(h, f)
	}
	// A mapped page gone (the file shrank) faults: a panic, recovered
	// here, for this goroutine's reads only.
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	var window []byte
	defer func() {
		if window != nil {
			pagecache.Unmap(window)
		}
		if r := recover(); r != nil {
			if !pagecache.IsFault(r) {
				panic(r)
			}
			err = errChanged
		}
	}()
	for off := int64(0); off < size; off += mapWindow {
		n := min(mapWindow, size-off)
		window, err = pagecache.Map(int(f.Fd()), off, int(n))
		if err != nil {
			if off > 0 {
				return err
			}
			window = nil
			return copyAll(h, f) // a file system without mappings
		}
		h.Write(window)
		err, window = pagecache.Unmap(window), nil
		if err != nil {
			return err
		}
	}
	return nil
}

// copyAll writes what f holds, from its offset to its end, to h.
func copyAll(h hash.Hash, f *os.File) error {
	_, err := io.Copy(h, f)
	return err
}
