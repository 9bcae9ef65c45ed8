// Package pagecache reads and writes large files through the page cache
// with fewer copies: a byte range of a file mapped read-only (populated
// at once where the system can, so that reading it takes no page faults
// one page at a time), blocks reserved for a file about to be written
// (so that the file system does not allocate them page by page), and
// buffers written with one system call (so that mapped ranges go to the
// output without a copy into a buffer first), and ranges of one file
// appended to another by the kernel (which copies them page to page,
// cheaper than from a mapping). All are
// optimizations: where the system lacks them, callers read and write as
// they would otherwise, with the same bytes.
package pagecache

import (
	"errors"
	"os"
	"syscall"
)

// Map maps n bytes of the file fd from off (a multiple of the page size)
// read-only. The mapping must be released with Unmap; reading it after the
// file shrank faults (see runtime/debug.SetPanicOnFault).
func Map(fd int, off int64, n int) ([]byte, error) {
	return syscall.Mmap(fd, off, n, syscall.PROT_READ, syscall.MAP_SHARED|populate)
}

// IsFault reports whether r, a recovered panic's value, is a fault: a
// mapped page read after its file shrank, under
// runtime/debug.SetPanicOnFault.
func IsFault(r any) bool {
	_, ok := r.(interface{ Addr() uintptr })
	return ok
}

// Unmap releases a mapping Map made.
func Unmap(b []byte) error { return syscall.Munmap(b) }

// Reserve reserves n bytes of blocks for f from its start, without
// changing its size; what is not written is given back by truncating f to
// its size when done. It is a hint: on a system or file system without it,
// or without the room, it does nothing.
func Reserve(f *os.File, n int64) {
	if n > 0 {
		reserve(int(f.Fd()), n)
	}
}

// ErrFault is the error of a write from a mapped page that is gone (its
// file shrank after it was mapped).
var ErrFault = errors.New("a mapped page is gone: its file shrank")

// maxVectors is how many buffers WriteVectors hands the system at a time
// (Linux's IOV_MAX).
const maxVectors = 1024

// WriteVectors writes bufs to f in order, as f.Write would one after the
// other, with as few system calls as it can (writev on Linux: the kernel
// copies each buffer, which may be a mapped range of another file, into
// f's pages without a copy in between). It returns the bytes written,
// and may change bufs' elements (to what was left to write); a
// buffer in a mapping whose page is gone is ErrFault.
func WriteVectors(f *os.File, bufs [][]byte) (int64, error) {
	return writeVectors(f, bufs)
}

// ErrNoCopy is CopyRange's error when the system cannot copy between the
// two files itself: the caller writes the bytes not copied as it would
// otherwise.
var ErrNoCopy = errors.New("no copy between these files in the kernel")

// ErrShort is CopyRange's error when the source ends before the range
// does (its file shrank).
var ErrShort = errors.New("the source file ends before the range: it shrank")

// CopyRange appends n bytes of src, from its offset off, to dst, at dst's
// offset, as dst.Write would, with the kernel copying them from src's
// pages into dst's (copy_file_range on Linux): a large range costs less
// than a write from a mapping of src, whose pages the kernel reaches
// through the process's page tables. It returns the bytes copied; the
// rest, after ErrNoCopy, is the caller's to write. src's own offset is
// not used or moved.
func CopyRange(dst, src *os.File, off, n int64) (int64, error) {
	if n <= 0 {
		return 0, nil
	}
	return copyRange(dst, src, off, n)
}
