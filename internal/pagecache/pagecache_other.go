//go:build !linux

package pagecache

// populate is 0: other systems fault a mapping in page by page.
const populate = 0

// reserve does nothing: other systems allocate blocks as they are written.
func reserve(fd int, n int64) {}
