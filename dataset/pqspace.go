package dataset

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sort"
)

// pageSpace is a page's uncompressed bytes as the splice reads them:
// held whole (b: stored uncompressed, or decompressed), or read through
// the elements of its Snappy stream (el, when the stream is mostly long
// literals: the bytes of incompressible data such as images are then
// never decompressed, only copied once, from the stream to the output).
type pageSpace struct {
	b     []byte
	whole bool // b holds the bytes
	el    []snappyElem
	n     int
	cur   int // the element last read
	hops  int // copy elements followed back, in all
}

// maxSpaceHops bounds the copies followed back to read one page's bytes
// through its stream (a run of one byte is a chain of copies); past it
// the page is decompressed instead.
const maxSpaceHops = 1 << 16

// errSpaceHops says a page's stream is too deep to read without
// decompressing it.
var errSpaceHops = errors.New("snappy: too many copies to follow")

func (ps *pageSpace) len() int {
	if ps.whole {
		return len(ps.b)
	}
	return ps.n
}

// find returns the index of the element that makes byte p (< ps.n).
func (ps *pageSpace) find(p int) int {
	el := ps.el
	c := ps.cur
	if c < len(el) && el[c].u0 <= p {
		for j := 0; j < 4 && c < len(el); j, c = j+1, c+1 {
			if p < el[c].u1 {
				ps.cur = c
				return c
			}
		}
	}
	c = sort.Search(len(el), func(j int) bool { return el[j].u1 > p })
	ps.cur = c
	return c
}

// literal returns the bytes of the literal that holds byte p, from p on
// (following copies back to it).
func (ps *pageSpace) literal(p int) ([]byte, error) {
	for {
		e := &ps.el[ps.find(p)]
		if e.off == 0 {
			data := e.raw[len(e.raw)-(e.u1-e.u0):]
			return data[p-e.u0:], nil
		}
		if ps.hops++; ps.hops > maxSpaceHops {
			return nil, errSpaceHops
		}
		// A copy shorter than its distance repeats it: byte p is the one
		// that many bytes back, before the copy.
		p = e.u0 - e.off + (p-e.u0)%e.off
	}
}

// bytes returns the bytes [a, b), a slice of the page or of its stream's
// literal when it can, else appended to buf.
func (ps *pageSpace) bytes(a, b int, buf []byte) (out, rest []byte, err error) {
	if ps.whole {
		return ps.b[a:b], buf, nil
	}
	if e := &ps.el[ps.find(a)]; e.off == 0 && b <= e.u1 {
		data := e.raw[len(e.raw)-(e.u1-e.u0):]
		return data[a-e.u0 : b-e.u0], buf, nil
	}
	start := len(buf)
	for p := a; p < b; {
		e := &ps.el[ps.find(p)]
		if e.off == 0 { // a literal: up to its end
			data := e.raw[len(e.raw)-(e.u1-e.u0):]
			end := min(b, e.u1)
			buf = append(buf, data[p-e.u0:end-e.u0]...)
			p = end
			continue
		}
		l, err := ps.literal(p) // a copy: byte by byte
		if err != nil {
			return nil, buf, err
		}
		buf = append(buf, l[0])
		p++
	}
	return buf[start:], buf, nil
}

// u32 reads the little-endian uint32 at p.
func (ps *pageSpace) u32(p int, buf []byte) (uint32, []byte, error) {
	if ps.whole {
		if p < 0 || len(ps.b)-p < 4 {
			return 0, buf, errors.New("page ends in a length")
		}
		return binary.LittleEndian.Uint32(ps.b[p:]), buf, nil
	}
	if p < 0 || ps.n-p < 4 {
		return 0, buf, errors.New("page ends in a length")
	}
	// Most often in the literal read last (one value's length after
	// another's bytes): read there.
	if c := ps.cur; c < len(ps.el) {
		if e := &ps.el[c]; e.off == 0 && e.u0 <= p && p+4 <= e.u1 {
			return binary.LittleEndian.Uint32(e.raw[len(e.raw)-(e.u1-p):]), buf, nil
		}
	}
	b, buf, err := ps.bytes(p, p+4, buf[:0])
	if err != nil {
		return 0, buf, err
	}
	return binary.LittleEndian.Uint32(b), buf, nil
}

// snappyElems reads every element of a Snappy stream.
func snappyElems(el []snappyElem, src []byte) ([]snappyElem, int, error) {
	n, i, err := snappyLen(src)
	if err != nil {
		return el, 0, err
	}
	el = el[:0]
	u := 0
	for u < n {
		var e snappyElem
		if e, i, err = nextSnappyElem(src, i, u, n); err != nil {
			return el, n, err
		}
		el = append(el, e)
		u = e.u1
	}
	if i != len(src) {
		return el, n, fmt.Errorf("snappy: %d bytes after the stream's end", len(src)-i)
	}
	return el, n, nil
}
