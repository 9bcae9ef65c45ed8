package dataset

import (
	"io"
	"os"

	"github.com/leakaudit/leakaudit/internal/pagecache"
)

// preallocate reserves n bytes of blocks for a file about to be written
// from its start, past its end (its size stays that of what is written):
// writing into allocated blocks spares the file system its delayed
// allocation, page by page. It is a hint: a file system without it, or
// without the room, is written as it would be. trimPrealloc gives back
// what was not written.
func preallocate(f *os.File, n int64) {
	pagecache.Reserve(f, n)
}

// trimPrealloc frees the blocks preallocate reserved past what was
// written, at f's offset (its end): the file's size is that offset
// already, and truncating to it frees the blocks past it.
func trimPrealloc(f *os.File) error {
	end, err := f.Seek(0, io.SeekCurrent)
	if err != nil {
		return err
	}
	return f.Truncate(end)
}
