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
// output is written (stable: a mapped column chunk), referred to instead
// of copied, so that they go from the input's pages to the output's with
// one copy, the kernel's.
type gather struct {
	own    []byte
	segs   []gatherSeg
	stable []byte // what ref may refer to; nil: ref copies
	n      int
}

// gatherSeg is a piece of a gather: ext, or own[a:b] when ext is nil.
type gatherSeg struct {
	ext  []byte
	a, b int
}

// minGatherRef is the smallest range ref refers to: a shorter one is
// cheaper to copy than to hand the kernel as a buffer of its own.
const minGatherRef = 512

// reset empties g for another output, keeping its room (and no
// reference to input bytes).
func (g *gather) reset() {
	clear(g.segs)
	g.own, g.segs, g.stable, g.n = g.own[:0], g.segs[:0], nil, 0
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
func (g *gather) ref(p []byte) {
	if len(p) < minGatherRef || !within(p, g.stable) {
		g.add(p)
		return
	}
	g.segs = append(g.segs, gatherSeg{ext: p})
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

// buffers appends g's pieces, in order, to dst.
func (g *gather) buffers(dst [][]byte) [][]byte {
	for _, s := range g.segs {
		if s.ext != nil {
			dst = append(dst, s.ext)
		} else {
			dst = append(dst, g.own[s.a:s.b])
		}
	}
	return dst
}

// vectorWriter is a writer of several buffers at a time.
type vectorWriter interface {
	io.Writer
	writeVectors(bufs [][]byte) error
}

// vectorFile writes to a file, several buffers at a time (see
// pagecache.WriteVectors).
type vectorFile struct{ f *os.File }

func (v vectorFile) Write(p []byte) (int, error) { return v.f.Write(p) }

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
