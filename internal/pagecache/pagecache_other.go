//go:build !linux

package pagecache

import "os"

// populate is 0: other systems fault a mapping in page by page.
const populate = 0

// reserve does nothing: other systems allocate blocks as they are written.
func reserve(fd int, n int64) {}

// writeVectors writes each buffer in turn.
func writeVectors(f *os.File, bufs [][]byte) (int64, error) {
	var total int64
	for _, b := range bufs {
		n, err := f.Write(b)
		total += int64(n)
		if err != nil {
			return total, err
		}
	}
	return total, nil
}

// CopyRanges says whether CopyRange copies in the kernel: not here.
const CopyRanges = false

// copyRange copies nothing: the caller writes the bytes.
func copyRange(dst, src *os.File, off, n int64) (int64, error) { return 0, ErrNoCopy }
