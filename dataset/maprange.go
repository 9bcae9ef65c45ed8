package dataset

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/leakaudit/leakaudit/internal/pagecache"
)

// rangeReader gives a byte range of a file: mapped from the page cache
// when it can be (no copy), read into a buffer when not.
type rangeReader struct {
	in   io.ReaderAt
	fd   int   // -1: not a mappable file
	size int64 // the file's size when the reader was made
}

// newRangeReader returns a rangeReader of in, which maps ranges when in is
// a regular *os.File.
func newRangeReader(in io.ReaderAt) rangeReader {
	if f, ok := in.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
			return rangeReader{in: in, fd: int(f.Fd()), size: fi.Size()}
		}
	}
	return rangeReader{in: in, fd: -1}
}

// pageSize is the alignment of a mapping's file offset.
var pageSize = int64(os.Getpagesize())

// mapRanges says whether get maps ranges; tests turn it off to compare.
var mapRanges = true

// minMappedRange is the smallest range get maps: a smaller one is cheaper
// to copy than to map and unmap.
const minMappedRange = 256 << 10

// get returns the n bytes at off, the function that releases them (after
// which they must not be read), and whether they are mapped (else they are
// in scratch, which the next get with it overwrites). A mapped range is
// read from the page cache as it is; reading it after the file shrank
// faults, which the reading goroutine turns into a panic with
// debug.SetPanicOnFault (see faultError). buf is the scratch a range is
// read into when it is not mapped; get returns it, grown as needed.
func (r rangeReader) get(off, n int64, buf []byte) (b []byte, release func(), mapped bool, scratch []byte, err error) {
	if off < 0 || n < 0 {
		return nil, nil, false, buf, fmt.Errorf("range of %d bytes at %d", n, off)
	}
	// A range past the file's end is read, which fails as a read does.
	if mapRanges && r.fd >= 0 && n >= minMappedRange && n <= r.size-off {
		start := off &^ (pageSize - 1)
		m, err := pagecache.Map(r.fd, start, int(off-start+n))
		if err == nil {
			return m[off-start:], func() { pagecache.Unmap(m) }, true, buf, nil
		}
		// A file system without mappings is read.
	}
	if int64(cap(buf)) < n {
		buf = make([]byte, n)
	}
	b = buf[:n]
	if _, err := r.in.ReadAt(b, off); err != nil {
		return nil, nil, false, buf, err
	}
	return b, func() {}, false, buf, nil
}

// faultError is the error of a fault reading a mapped range (a panic
// under debug.SetPanicOnFault), or nil when r is another panic's value.
func faultError(r any) error {
	if pagecache.IsFault(r) {
		return errors.New("the file changed while it was read (a mapped page is gone)")
	}
	return nil
}
