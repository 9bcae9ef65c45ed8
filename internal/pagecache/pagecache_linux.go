package pagecache

import (
	"errors"
	"io"
	"os"
	"runtime"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
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

// CopyRanges says whether CopyRange copies in the kernel: Linux's
// copy_file_range, which may still refuse some files.
const CopyRanges = true

// maxCopyRange is the most one copy_file_range call is asked for (Linux
// copies at most about 2 GiB at a time).
const maxCopyRange = 1 << 30

// copyRange copies with copy_file_range(2), going on after a short copy
// from where it stopped. A file system or kernel that cannot copy these
// files is ErrNoCopy; so is a copy of nothing from a range the file still
// holds (some file systems say nothing instead of failing), while one past
// the source's end is ErrShort.
func copyRange(dst, src *os.File, off, n int64) (int64, error) {
	rc, err := dst.SyscallConn()
	if err != nil {
		return 0, err
	}
	sc, err := src.SyscallConn()
	if err != nil {
		return 0, err
	}
	var total int64
	for total < n {
		var k int
		var errno error
		var werr error
		cerr := sc.Control(func(sfd uintptr) {
			werr = rc.Write(func(dfd uintptr) bool {
				for {
					o := off + total
					k, errno = unix.CopyFileRange(int(sfd), &o, int(dfd), nil, int(min(n-total, maxCopyRange)), 0)
					if errno != unix.EINTR {
						return errno != unix.EAGAIN
					}
				}
			})
		})
		switch {
		case cerr != nil:
			return total, cerr
		case werr != nil:
			return total, werr
		case errors.Is(errno, unix.ENOSYS), errors.Is(errno, unix.EXDEV), errors.Is(errno, unix.EINVAL),
			errors.Is(errno, unix.EOPNOTSUPP), errors.Is(errno, unix.EBADF), errors.Is(errno, unix.EPERM):
			return total, ErrNoCopy
		case errno != nil:
			return total, &os.PathError{Op: "copy_file_range", Path: dst.Name(), Err: errno}
		case k <= 0:
			if fi, err := src.Stat(); err == nil && fi.Size() >= off+n {
				return total, ErrNoCopy
			}
			return total, ErrShort
		}
		total += int64(k)
	}
	return total, nil
}
