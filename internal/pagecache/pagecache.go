// Package pagecache reads and writes large files through the page cache
// with fewer copies: a byte range of a file mapped read-only (populated
// at once where the system can, so that reading it takes no page faults
// one page at a time), and blocks reserved for a file about to be written
// (so that the file system does not allocate them page by page). Both are
// optimizations: where the system lacks them, callers read and write as
// they would otherwise, with the same bytes.
package pagecache

import (
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
