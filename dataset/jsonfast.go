package dataset

import (
	"bufio"
	"bytes"
	"io"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"
	"unicode/utf8"
	"unsafe"
)

// The parallel reader of JSON string lists.
//
// A label list of tens of millions of strings is read faster than one core
// decodes it: one goroutine (the splitter) reads the file in blocks and
// finds each element's bytes, which for a string is the run up to the next
// quote not escaped by an odd run of backslashes (outside a string a valid
// JSON document has no backslash, so the run before a quote decides it);
// workers decode the elements of a block (unquote, UTF-8 and control
// character checks, the limits) on every core; the caller's goroutine
// delivers them in file order, with the same items, skips and positions as
// the serial reader. Anything but white space, commas and strings (the
// closing bracket, a number, an object, a fault, a string too long for a
// block) hands the rest of the file to the serial reader (arrayScanner) at
// the start of that element, so every message and offset stays the
// serial reader's.

// fastBlock is the size of the splitter's blocks (a variable for the tests).
var fastBlock = 1 << 20

// fastElem is one string element found by the splitter: its seq, its span
// in the file (with the separator before it) and its bytes in the block.
type fastElem struct {
	seq        int64
	start, end int64
	lo, hi     int
}

// fastBatch is a run of a block's elements, decoded by the workers.
type fastBatch struct {
	block   *fastBuf
	elems   []fastElem
	items   []Item
	reasons []string // a skip reason per element, or ""
	vals    any      // the mapped values (ScanMapped), or nil
	wg      sync.WaitGroup
}

// fastBuf is a block and the batches that use it, with the splitter: it
// goes back to the pool when the last lets it go. Its bytes are never
// written again once read (later reads only append past them), so the
// workers read them while the splitter fills the rest.
type fastBuf struct {
	b    []byte
	refs atomic.Int32
}

var fastBufs = sync.Pool{New: func() any { return &fastBuf{b: make([]byte, 0, fastBlock)} }}

// newFastBuf returns an empty block of at least size bytes, held once.
func newFastBuf(size int) *fastBuf {
	var f *fastBuf
	if size <= fastBlock {
		f = fastBufs.Get().(*fastBuf)
		if cap(f.b) != fastBlock { // fastBlock changed (tests)
			f = &fastBuf{b: make([]byte, 0, fastBlock)}
		}
	} else {
		f = &fastBuf{b: make([]byte, 0, size)}
	}
	f.b = f.b[:0]
	f.refs.Store(1)
	return f
}

// release lets a block go.
func (f *fastBuf) release() {
	if f.refs.Add(-1) == 0 && cap(f.b) == fastBlock {
		fastBufs.Put(f)
	}
}

// A mapHook computes values of the delivered items on the workers, for
// ScanMapped: alloc makes a batch's values, compute fills those of
// elements lo to hi that are not skipped, and deliver consumes one, in
// order, instead of emitter.fn.
type mapHook struct {
	workers int
	alloc   func(n int) any
	compute func(b *fastBatch, lo, hi int)
	deliver func(b *fastBatch, i int) error
	// label, when set, computes element i's value from its label alone,
	// in place of compute: the label is in a buffer the worker reuses,
	// and the element gets its ID and Label only when label returns true
	// (ScanSelected).
	label func(b *fastBatch, i int, label KeepLabel) bool
	// pass, with label, is told of n items in a row that label did not
	// keep, in place of n calls of deliver.
	pass func(n int) error
}

// fastHandoff is where the splitter stopped: the file offset of the next
// element's span, the bytes read beyond it, and the next seq.
type fastHandoff struct {
	off  int64
	rest []byte
	seq  int64
}

// scanJSONStringsParallel reads a JSON string list on every core; see the
// comment above. It returns what scanJSONStrings returns.
func scanJSONStringsParallel(r *bufio.Reader, e *emitter) error {
	s := &arrayScanner{r: r, max: e.limits.maxLabel() + 2}
	if err := s.start(); err != nil {
		return err
	}
	h, err := fastStrings(r, s.off, s.max, e)
	if err != nil {
		return err
	}
	rest := bufio.NewReaderSize(io.MultiReader(bytes.NewReader(h.rest), r), 64<<10)
	s = &arrayScanner{r: rest, off: h.off, max: e.limits.maxLabel() + 2}
	return s.elements(h.seq, e)
}

// fastStrings runs the splitter and the workers from file offset off (just
// after the opening bracket) and delivers the elements in order; it
// returns where the serial reader takes over, or the caller's error
// (errStop).
func fastStrings(r io.Reader, off int64, maxRaw int, e *emitter) (fastHandoff, error) {
	workers := runtime.GOMAXPROCS(0)
	if e.hook != nil && e.hook.workers > 0 {
		workers = e.hook.workers
	}
	ordered := make(chan *fastBatch, workers+1)
	free := make(chan *fastBatch, workers+2) // delivered batches, for reuse
	jobs := make(chan func(), 4*workers)
	quit := make(chan struct{})
	var handoff fastHandoff
	var wwg sync.WaitGroup
	for range workers {
		wwg.Add(1)
		go func() {
			defer wwg.Done()
			for j := range jobs {
				j()
			}
		}()
	}
	go func() {
		defer close(ordered)
		handoff = split(r, off, maxRaw, e, jobs, ordered, free, quit, workers)
	}()
	var err error
	for b := range ordered {
		if err != nil {
			continue // drain
		}
		b.wg.Wait()
		err = deliverBatch(b, e)
		b.block.release()
		b.block = nil
		if err != nil {
			close(quit)
		}
		select { // fn has its items and values by value: reuse the arrays
		case free <- b:
		default:
		}
	}
	close(jobs)
	wwg.Wait()
	return handoff, err
}

// deliverBatch delivers a decoded batch in order. Under mapHook.label the
// elements neither skipped nor kept (no reason, no ID) are only counted,
// and handed to hook.pass a run at a time, before the next delivery.
func deliverBatch(b *fastBatch, e *emitter) error {
	selecting := e.hook != nil && e.hook.label != nil
	passed := 0
	for i := range b.elems {
		if selecting && b.reasons[i] == "" && b.items[i].ID == "" {
			passed++
			continue
		}
		if passed > 0 {
			if err := passRun(e, passed); err != nil {
				return err
			}
			passed = 0
		}
		if reason := b.reasons[i]; reason != "" {
			id := b.items[i].ID
			e.skip(b.elems[i].seq, id, "element "+id, reason)
			continue
		}
		e.stats.Items++
		var err error
		if e.hook != nil {
			err = e.hook.deliver(b, i)
		} else {
			err = e.fn(b.items[i])
		}
		if err != nil {
			return errStop{err}
		}
	}
	if passed > 0 {
		return passRun(e, passed)
	}
	return nil
}

// passRun counts n items read and not kept, and tells hook.pass.
func passRun(e *emitter, n int) error {
	e.stats.Items += int64(n)
	if err := e.hook.pass(n); err != nil {
		return errStop{err}
	}
	return nil
}

// rawReason is why a raw JSON string element is skipped before it is
// decoded: longer than maxRaw bytes, or not valid UTF-8; "" when neither.
func rawReason(raw []byte, maxRaw int) string {
	switch {
	case len(raw) > maxRaw:
		return ReasonTooLong
	case !utf8.Valid(raw):
		return ReasonInvalidUTF8
	}
	return ""
}

// decodeElems decodes elements lo to hi of a batch.
func decodeElems(b *fastBatch, lo, hi, maxRaw int, e *emitter) {
	if e.hook != nil && e.hook.label != nil {
		selectElems(b, lo, hi, maxRaw, e)
		return
	}
	for i := lo; i < hi; i++ {
		el := &b.elems[i]
		raw := b.block.b[el.lo:el.hi]
		if e.spans {
			it := Item{Seq: el.seq, Start: el.start, End: el.end}
			reason := rawReason(raw, maxRaw)
			if reason == "" {
				reason = checkString(raw)
			}
			if reason != "" {
				it.ID = strconv.FormatInt(el.seq, 10)
			}
			b.items[i], b.reasons[i] = it, reason
			continue
		}
		id := strconv.FormatInt(el.seq, 10)
		it := Item{Seq: el.seq, ID: id, Start: el.start, End: el.end}
		reason := rawReason(raw, maxRaw)
		if reason == "" {
			if label, ok := unquoteFast(raw); !ok {
				reason = ReasonMalformed
			} else {
				// A decoded string is valid UTF-8 (its runs were, and
				// escapes encode whole runes): of e.check's tests, these
				// two can fail.
				it.Label = label
				if strings.TrimSpace(label) == "" {
					reason = ReasonEmpty
				} else if len(label) > e.limits.maxLabel() {
					reason = ReasonTooLong
				}
			}
		}
		b.items[i], b.reasons[i] = it, reason
	}
	if e.hook != nil {
		e.hook.compute(b, lo, hi)
	}
}

// selectElems is decodeElems for mapHook.label: each element's label is
// decoded into one buffer (with the label less its spaces into another, by
// decodeSelected), checked as decodeElems checks it, and handed to the
// hook; only a skipped element (its ID) and one the hook keeps (its ID and
// a copy of its label) cost an allocation.
func selectElems(b *fastBatch, lo, hi, maxRaw int, e *emitter) {
	buf := make([]byte, 0, 512)
	nosp := make([]byte, 0, 512)
	for i := lo; i < hi; i++ {
		el := &b.elems[i]
		raw := b.block.b[el.lo:el.hi]
		it := Item{Seq: el.seq, Start: el.start, End: el.end}
		var reason string
		var fused bool
		if len(raw) > maxRaw {
			reason = ReasonTooLong
		} else {
			buf, nosp, reason, fused = decodeSelected(buf, nosp, raw)
			if reason == "" && !blankFree(buf) && len(bytes.TrimSpace(buf)) == 0 {
				reason = ReasonEmpty
			} else if reason == "" && len(buf) > e.limits.maxLabel() {
				reason = ReasonTooLong
			}
		}
		kl := KeepLabel{Label: unsafe.String(unsafe.SliceData(buf), len(buf))}
		if fused {
			kl.NoSpace = unsafe.String(unsafe.SliceData(nosp), len(nosp))
		}
		switch {
		case reason != "":
			it.ID = strconv.FormatInt(el.seq, 10)
		case e.hook.label(b, i, kl):
			it.ID, it.Label = strconv.FormatInt(el.seq, 10), string(buf)
		}
		b.items[i], b.reasons[i] = it, reason
	}
}

// blankFree reports, in constant time, that a decoded label cannot be all
// white space: its first byte is ASCII and not a space. When it is false
// the label may still not be blank (the caller trims it to see).
func blankFree(label []byte) bool {
	return len(label) > 0 && label[0] > ' ' && label[0] < utf8.RuneSelf
}

// decodeSelected decodes the JSON string literal raw (quotes included, no
// longer than the limit) into label, and when fused, the same label with
// every U+0020 removed into nosp, in one pass over the bytes. Its reason is
// the one rawReason and appendUnquoted give together: invalid UTF-8 before
// malformed. The UTF-8 check runs only when a byte is not ASCII or the
// literal is malformed. A \u escape is left to appendUnquoted, and nosp is
// then not made (fused is false).
func decodeSelected(label, nosp, raw []byte) (_, _ []byte, reason string, fused bool) {
	body := raw[1 : len(raw)-1]
	l := slices.Grow(label[:0], len(body))[:len(body)]
	n := slices.Grow(nosp[:0], len(body))[:len(body)]
	li, ni := 0, 0
	ascii := true
	for i := 0; i < len(body); i++ {
		c := body[i]
		switch {
		case c == '\\':
			if i+1 == len(body) {
				return l[:0], n[:0], malformedOrUTF8(body), false
			}
			i++
			switch c = body[i]; c {
			case '"', '\\', '/':
			case 'b':
				c = '\b'
			case 'f':
				c = '\f'
			case 'n':
				c = '\n'
			case 'r':
				c = '\r'
			case 't':
				c = '\t'
			default: // \u and anything else
				if reason = rawReason(raw, len(raw)); reason != "" {
					return l[:0], n[:0], reason, false
				}
				out, ok := appendUnquoted(l[:0], raw)
				if !ok {
					return out, n[:0], ReasonMalformed, false
				}
				return out, n[:0], "", false
			}
		case c < 0x20:
			return l[:0], n[:0], malformedOrUTF8(body), false
		case c >= utf8.RuneSelf:
			ascii = false
		}
		l[li] = c
		li++
		n[ni] = c
		if c != ' ' {
			ni++
		}
	}
	if !ascii && !utf8.Valid(body) {
		return l[:0], n[:0], ReasonInvalidUTF8, false
	}
	return l[:li], n[:ni], "", true
}

// malformedOrUTF8 is the reason of a malformed literal: invalid UTF-8
// when its bytes are not valid UTF-8 (that check comes first), else
// malformed.
func malformedOrUTF8(body []byte) string {
	if !utf8.Valid(body) {
		return ReasonInvalidUTF8
	}
	return ReasonMalformed
}

// fastBatchLen is how many elements a batch holds at most.
const fastBatchLen = 4096

// split is the splitter: it reads r from file offset off, sends each run
// of string elements to the workers and the batch to ordered, and returns
// the handoff at the first element it does not take.
func split(r io.Reader, off int64, maxRaw int, e *emitter, jobs chan<- func(), ordered chan<- *fastBatch, free <-chan *fastBatch, quit <-chan struct{}, workers int) fastHandoff {
	buf := newFastBuf(fastBlock)
	defer func() { buf.release() }()
	base := off // file offset of buf.b[0]
	eof := false
	fill := func() {
		for !eof && len(buf.b) < cap(buf.b) {
			n, err := r.Read(buf.b[len(buf.b):cap(buf.b)])
			buf.b = buf.b[:len(buf.b)+n]
			if err != nil {
				eof = true
			}
		}
	}
	fill()
	seq := int64(0)
	pos := 0 // the next element's span starts here
	// A batch delivered before, or a new one; its arrays hold
	// fastBatchLen elements (values past the elements are stale, and
	// never read).
	newBatch := func() *fastBatch {
		select {
		case b := <-free:
			b.elems = b.elems[:0]
			return b
		default:
		}
		b := &fastBatch{elems: make([]fastElem, 0, fastBatchLen), items: make([]Item, fastBatchLen), reasons: make([]string, fastBatchLen)}
		if e.hook != nil {
			b.vals = e.hook.alloc(fastBatchLen)
		}
		return b
	}
	cur := newBatch()
	// emit sends the elements found so far with their block.
	emit := func() bool {
		if len(cur.elems) == 0 {
			return true
		}
		buf.refs.Add(1)
		b := cur
		b.block = buf
		cur = newBatch()
		step := max((len(b.elems)+workers-1)/workers, 256)
		for lo := 0; lo < len(b.elems); lo += step {
			hi := min(lo+step, len(b.elems))
			b.wg.Add(1)
			job := func() { decodeElems(b, lo, hi, maxRaw, e); b.wg.Done() }
			select {
			case jobs <- job:
			case <-quit:
				b.wg.Done()
				b.block.release()
				return false
			}
		}
		select {
		case ordered <- b:
			return true
		case <-quit:
			b.block.release()
			return false
		}
	}
	for {
		i, j := elementString(buf.b, pos, seq == 0)
		if j < 0 { // not a string element: the serial reader's
			break
		}
		if j == 0 { // runs past the block
			if eof || pos == 0 && len(buf.b) > maxRaw+fastBlock {
				break
			}
			if !emit() {
				return fastHandoff{}
			}
			// A new block, starting with the element's bytes so far.
			tail := buf.b[pos:]
			next := newFastBuf(max(fastBlock, 2*len(tail)))
			next.b = append(next.b, tail...)
			base += int64(pos)
			buf.release()
			buf, pos = next, 0
			fill()
			continue
		}
		cur.elems = append(cur.elems, fastElem{seq: seq, start: base + int64(pos), end: base + int64(j+1), lo: i, hi: j + 1})
		seq++
		pos = j + 1
		if len(cur.elems) == fastBatchLen && !emit() {
			return fastHandoff{}
		}
	}
	if !emit() {
		return fastHandoff{}
	}
	return fastHandoff{off: base + int64(pos), rest: append([]byte(nil), buf.b[pos:]...), seq: seq}
}

// elementString parses, from block[pos:], white space, a comma unless
// first, white space and a string. It returns the index of the opening
// quote and that of the closing one; a closing index of 0 means the
// element runs past the block, and -1 that it is not a string element
// (the closing bracket, another value, a fault).
func elementString(block []byte, pos int, first bool) (int, int) {
	i := skipWS(block, pos)
	if i == len(block) {
		return 0, 0
	}
	if !first {
		if block[i] != ',' {
			return 0, -1
		}
		if i = skipWS(block, i+1); i == len(block) {
			return 0, 0
		}
	}
	if block[i] != '"' {
		return 0, -1
	}
	for k := i + 1; ; {
		q := bytes.IndexByte(block[k:], '"')
		if q < 0 {
			return 0, 0
		}
		k += q
		n := 0
		for b := k - 1; b > i && block[b] == '\\'; b-- {
			n++
		}
		if n%2 == 0 {
			return i, k
		}
		k++
	}
}

func skipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\n' || b[i] == '\t' || b[i] == '\r') {
		i++
	}
	return i
}

// unquoteFast is unquote (which it calls for \u escapes) in one pass
// over the bytes, into one allocation.
func unquoteFast(raw []byte) (string, bool) {
	out, ok := appendUnquoted(make([]byte, 0, len(raw)-2), raw)
	if !ok || len(out) == 0 {
		return "", ok
	}
	return unsafe.String(&out[0], len(out)), true // out is not written again
}

// appendUnquoted appends the decoded JSON string literal raw (quotes
// included) to out, as unquote decodes it.
func appendUnquoted(out, raw []byte) ([]byte, bool) {
	body := raw[1 : len(raw)-1]
	start := len(out)
	for i := 0; i < len(body); {
		j := i
		for j < len(body) && body[j] >= 0x20 && body[j] != '\\' {
			j++
		}
		out = append(out, body[i:j]...)
		if j == len(body) {
			break
		}
		if body[j] < 0x20 || j+1 == len(body) {
			return out, false
		}
		switch c := body[j+1]; c {
		case '"', '\\', '/':
			out = append(out, c)
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		default:
			s, ok := unquote(raw)
			return append(out[:start], s...), ok
		}
		i = j + 2
	}
	return out, true
}

// checkString gives the skip reason the reader gives a JSON string literal
// of valid UTF-8 no longer than the limit, without decoding it: malformed
// (a control byte, an unknown or cut escape), empty (nothing but white
// space once decoded), or "". Its label cannot be over the limit, since
// decoding never makes a string longer.
func checkString(raw []byte) string {
	body := raw[1 : len(raw)-1]
	blank := true
	for i := 0; i < len(body); {
		c := body[i]
		switch {
		case c < 0x20:
			return ReasonMalformed
		case c == '\\':
			if i+1 == len(body) {
				return ReasonMalformed
			}
			switch body[i+1] {
			case '"', '\\', '/', 'b':
				blank = false
				i += 2
			case 'f', 'n', 'r', 't':
				i += 2
			default:
				// \u and anything else: unquote decides.
				label, ok := unquote(raw)
				if !ok {
					return ReasonMalformed
				}
				if strings.TrimSpace(label) == "" {
					return ReasonEmpty
				}
				return ""
			}
		case c < utf8.RuneSelf:
			if c != ' ' { // the other ASCII spaces are control bytes
				blank = false
			}
			i++
		default:
			r, n := utf8.DecodeRune(body[i:])
			if !unicode.IsSpace(r) {
				blank = false
			}
			i += n
		}
	}
	if blank {
		return ReasonEmpty
	}
	return ""
}
