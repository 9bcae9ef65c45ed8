package dataset

import (
	"errors"
	"fmt"
	"io"
	"os"
	"unsafe"

	"github.com/leakaudit/leakaudit/internal/pagecache"
)

// gather is output bytes in order, held as pieces: bytes made for the
// output (own), and ranges of input bytes that stay valid until the
// output is written (stable: a mapped column chunk, or one read into a
// buffer kept until then), referred to instead
// of copied, so that they go from the input's pages to the output's with
// one copy, the kernel's.
type gather struct {
	own    []byte
	segs   []gatherSeg
	stable []byte // what ref may refer to; nil: ref copies
	// stableAt is the input file offset of stable's first byte, -1 when
	// it has none (the bytes are not the file's as they are).
	stableAt int64
	n        int
}

// gatherSeg is a piece of a gather: ext (the input's bytes from offset
// at, or at -1 when unknown), or own[a:b] when ext is nil.
type gatherSeg struct {
	ext  []byte
	at   int64
	a, b int
}

// minGatherRef is the smallest range ref refers to: a shorter one is
// cheaper to copy than to hand the kernel as a buffer of its own.
const minGatherRef = 512

// reset empties g for another output, keeping its room (and no
// reference to input bytes).
func (g *gather) reset() {
	clear(g.segs)
	g.own, g.segs, g.stable, g.stableAt, g.n = g.own[:0], g.segs[:0], nil, -1, 0
}

// len is the output's length so far.
func (g *gather) len() int { return g.n }

// add appends a copy of p.
func (g *gather) add(p []byte) {
	if len(p) == 0 {
		return
	}
	a := len(g.own)
	g.own = append(g.own, p...)
	if k := len(g.segs); k > 0 && g.segs[k-1].ext == nil && g.segs[k-1].b == a {
		g.segs[k-1].b = len(g.own)
	} else {
		g.segs = append(g.segs, gatherSeg{a: a, b: len(g.own)})
	}
	g.n += len(p)
}

// ref appends p: referred to when it lies in g.stable and is long enough,
// else copied.
// A range that continues the last one referred to in the stable bytes,
// however short, lengthens it: a kept run of pieces stays one range.
func (g *gather) ref(p []byte) {
	if len(p) == 0 || !within(p, g.stable) {
		g.add(p)
		return
	}
	i := int(uintptr(unsafe.Pointer(unsafe.SliceData(p))) - uintptr(unsafe.Pointer(unsafe.SliceData(g.stable))))
	if k := len(g.segs); k > 0 && g.segs[k-1].ext != nil && within(g.segs[k-1].ext, g.stable) {
		last := &g.segs[k-1]
		j := int(uintptr(unsafe.Pointer(unsafe.SliceData(last.ext))) - uintptr(unsafe.Pointer(unsafe.SliceData(g.stable))))
		if j+len(last.ext) == i {
			last.ext = g.stable[j : i+len(p)]
			g.n += len(p)
			return
		}
	}
	if len(p) < minGatherRef {
		g.add(p)
		return
	}
	at := int64(-1)
	if g.stableAt >= 0 {
		at = g.stableAt + int64(i)
	}
	g.segs = append(g.segs, gatherSeg{ext: p, at: at})
	g.n += len(p)
}

// within reports whether p's bytes lie inside b's.
func within(p, b []byte) bool {
	if len(p) == 0 || len(p) > len(b) {
		return false
	}
	ps, bs := uintptr(unsafe.Pointer(unsafe.SliceData(p))), uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	return ps >= bs && ps-bs <= uintptr(len(b)-len(p))
}

// minCopyRange is the shortest piece of input write has the kernel copy
// from the input file (see pagecache.CopyRange): a shorter one is written
// with its neighbours, from memory, which costs less than a system call
// of its own.
const minCopyRange = 16 << 10

// write writes g's pieces in order to w: those of at least minCopyRange
// bytes at a known offset of the input file in copied there by the kernel
// when w is a rangeCopier, the others several at a time (see
// writeBuffers). bufs is scratch, returned for the next write, without
// references to g's pieces.
func (g *gather) write(w io.Writer, in *os.File, bufs [][]byte) ([][]byte, error) {
	rc, _ := w.(rangeCopier)
	bufs = bufs[:0]
	flush := func() error {
		err := writeBuffers(w, bufs)
		clear(bufs) // no reference to a mapping once it is released
		bufs = bufs[:0]
		return err
	}
	for _, s := range g.segs {
		if s.ext == nil {
			bufs = append(bufs, g.own[s.a:s.b])
			continue
		}
		if rc != nil && in != nil && s.at >= 0 && len(s.ext) >= minCopyRange {
			if err := flush(); err != nil {
				return bufs, err
			}
			n, err := rc.copyRange(in, s.at, len(s.ext))
			if err != nil {
				return bufs, err
			}
			if n == len(s.ext) {
				continue
			}
			// The rest is written from memory.
			bufs = append(bufs, s.ext[n:])
			continue
		}
		bufs = append(bufs, s.ext)
	}
	err := flush()
	return bufs, err
}

// rangeCopier is a writer that can append a range of a file, copied by
// the kernel.
type rangeCopier interface {
	// copyRange appends n bytes of in from offset at, and returns how
	// many it did: all of them, or the ones before what it could not copy
	// (the caller writes the rest).
	copyRange(in *os.File, at int64, n int) (int, error)
}

// vectorWriter is a writer of several buffers at a time.
type vectorWriter interface {
	io.Writer
	writeVectors(bufs [][]byte) error
}

// vectorFile writes to a file, several buffers at a time (see
// pagecache.WriteVectors), and ranges of another file copied by the kernel
// (see pagecache.CopyRange).
type vectorFile struct{ f *os.File }

func (v vectorFile) Write(p []byte) (int, error) { return v.f.Write(p) }

// copyRange has the kernel copy want bytes of in from at (see
// pagecache.CopyRange); a system that cannot leaves the bytes to the
// caller, and a file that shrank is an error saying it changed.
func (v vectorFile) copyRange(in *os.File, at int64, want int) (int, error) {
	n, err := pagecache.CopyRange(v.f, in, at, int64(want))
	switch {
	case errors.Is(err, pagecache.ErrNoCopy):
		return int(n), nil
	case errors.Is(err, pagecache.ErrShort):
		return int(n), fmt.Errorf("the file changed while it was read (it shrank): %w", err)
	}
	return int(n), err
}

func (v vectorFile) writeVectors(bufs [][]byte) error {
	_, err := pagecache.WriteVectors(v.f, bufs)
	if errors.Is(err, pagecache.ErrFault) {
		return fmt.Errorf("the file changed while it was read (a mapped page is gone): %w", err)
	}
	return err
}

// writeBuffers writes bufs to w in order: several at a time when w is a
// vectorWriter, else one Write each. A mapped input page gone meanwhile
// (the file shrank) is an error saying so.
func writeBuffers(w io.Writer, bufs [][]byte) error {
	if v, ok := w.(vectorWriter); ok {
		return v.writeVectors(bufs)
	}
	for _, b := range bufs {
		if _, err := w.Write(b); err != nil {
			return err
		}
	}
	return nil
}
