package pagecache

import (
	"io"
	"os"
	"runtime"
	"syscall"
	"unsafe"
)

// populate asks Linux to read the whole mapping in at once.
const populate = syscall.MAP_POPULATE

// keepSize is FALLOC_FL_KEEP_SIZE: blocks are allocated past the file's
// end without changing its size.
const keepSize = 1

func reserve(fd int, n int64) {
	syscall.Fallocate(fd, keepSize, 0, n) // a hint: any error is ignored
}

// writeVectors writes bufs with writev(2), maxVectors at a time, going on
// after a short write from where it stopped.
func writeVectors(f *os.File, bufs [][]byte) (int64, error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return 0, err
	}
	var total int64
	iov := make([]syscall.Iovec, 0, min(len(bufs), maxVectors))
	for len(bufs) > 0 {
		iov = iov[:0]
		for _, b := range bufs {
			if len(iov) == maxVectors {
				break
			}
			if len(b) > 0 {
				iov = append(iov, syscall.Iovec{Base: &b[0], Len: uint64(len(b))})
			}
		}
		if len(iov) == 0 {
			return total, nil
		}
		var n uintptr
		var errno syscall.Errno
		werr := rc.Write(func(fd uintptr) bool {
			for {
				n, _, errno = syscall.Syscall(syscall.SYS_WRITEV, fd, uintptr(unsafe.Pointer(&iov[0])), uintptr(len(iov)))
				if errno != syscall.EINTR {
					return errno != syscall.EAGAIN
				}
			}
		})
		runtime.KeepAlive(bufs)
		switch {
		case werr != nil:
			return total, werr
		case errno == syscall.EFAULT:
			return total, ErrFault
		case errno != 0:
			return total, &os.PathError{Op: "writev", Path: f.Name(), Err: errno}
		case n == 0:
			return total, io.ErrShortWrite
		}
		total += int64(n)
		// Past the buffers written, and into the one written in part.
		for k := int64(n); k > 0; {
			if int64(len(bufs[0])) <= k {
				k -= int64(len(bufs[0]))
				bufs = bufs[1:]
				continue
			}
			bufs[0] = bufs[0][k:]
			k = 0
		}
		for len(bufs) > 0 && len(bufs[0]) == 0 {
			bufs = bufs[1:]
		}
	}
	return total, nil
}
