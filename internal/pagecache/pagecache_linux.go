package pagecache

import "syscall"

// populate asks Linux to read the whole mapping in at once.
const populate = syscall.MAP_POPULATE

// keepSize is FALLOC_FL_KEEP_SIZE: blocks are allocated past the file's
// end without changing its size.
const keepSize = 1

func reserve(fd int, n int64) {
	syscall.Fallocate(fd, keepSize, 0, n) // a hint: any error is ignored
}
