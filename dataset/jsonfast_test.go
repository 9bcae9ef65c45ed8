package dataset

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// scanWith reads a JSON string list with the serial or the parallel reader
// and returns everything the caller sees: the items, the skips (OnSkip) in
// order, and Stats.
func scanWith(t *testing.T, doc []byte, parallel bool, limits Limits) ([]Item, []Skip, Stats) {
	return scanWithSpans(t, doc, parallel, false, limits)
}

// scanWithSpans is scanWith, in the rewrite's mode (items with their
// places only) when spans is set.
func scanWithSpans(t *testing.T, doc []byte, parallel, spans bool, limits Limits) ([]Item, []Skip, Stats) {
	t.Helper()
	var items []Item
	var skips []Skip
	st := Stats{Format: JSONStrings}
	e := &emitter{stats: &st, limits: limits, onSkip: func(k Skip) { skips = append(skips, k) }, spans: spans,
		fn: func(it Item) error {
			if spans {
				it = Item{Seq: it.Seq, Start: it.Start, End: it.End}
			}
			items = append(items, it)
			return nil
		}}
	r := bufio.NewReaderSize(bytes.NewReader(doc), 1<<20)
	var err error
	if parallel {
		err = e.finish(scanJSONStringsParallel(r, e))
	} else {
		err = e.finish(scanJSONStrings(r, e))
	}
	if err != nil {
		t.Fatal(err)
	}
	return items, skips, st
}

// TestParallelStringsMatchSerial checks that the parallel JSON string
// list reader delivers exactly what the serial one does (items with their
// spans, skips in order, file faults with their offsets) on generated
// documents with escapes, quotes after backslash runs, non-ASCII, invalid
// UTF-8, control characters, long labels, other values and faults, cut at
// every kind of place, with blocks small enough that elements straddle
// them.
func TestParallelStringsMatchSerial(t *testing.T) {
	defer func(b int) { fastBlock = b }(fastBlock)
	rng := rand.New(rand.NewPCG(7, 37))
	for n := range 400 {
		doc := genStringsDoc(rng, n)
		for _, block := range []int{1 << 20, 16, 64} {
			fastBlock = block
			limits := Limits{MaxLabelBytes: 200}
			si, ss, sst := scanWith(t, []byte(doc), false, limits)
			pi, ps, pst := scanWith(t, []byte(doc), true, limits)
			if !reflect.DeepEqual(si, pi) || !reflect.DeepEqual(ss, ps) || !reflect.DeepEqual(sst, pst) {
				t.Fatalf("document %d, block %d: %q\nserial   %d items, skips %v, stats %+v\nparallel %d items, skips %v, stats %+v",
					n, block, doc, len(si), ss, sst, len(pi), ps, pst)
			}
			// The rewrite's mode: the same places, skips and stats.
			ri, rs, rst := scanWithSpans(t, []byte(doc), true, true, limits)
			for i := range si {
				si[i] = Item{Seq: si[i].Seq, Start: si[i].Start, End: si[i].End}
			}
			if !reflect.DeepEqual(si, ri) || !reflect.DeepEqual(ss, rs) || !reflect.DeepEqual(sst, rst) {
				t.Fatalf("document %d, block %d, places only: %q\nserial   %d items, skips %v, stats %+v\nparallel %d items, skips %v, stats %+v",
					n, block, doc, len(si), ss, sst, len(ri), rs, rst)
			}
		}
	}
}

// TestParallelStringsLarge: 200,000 generated labels, over many blocks,
// read by both readers, and a caller error part-way through.
func TestParallelStringsLarge(t *testing.T) {
	var doc bytes.Buffer
	doc.WriteString("[")
	for i := range 200000 {
		if i > 0 {
			doc.WriteString(",\n    ")
		}
		fmt.Fprintf(&doc, "%q", strings.Repeat(`\alpha `, i%9)+fmt.Sprint(i))
	}
	doc.WriteString("]")
	si, ss, sst := scanWith(t, doc.Bytes(), false, Limits{})
	pi, ps, pst := scanWith(t, doc.Bytes(), true, Limits{})
	if len(si) != 200000 || !reflect.DeepEqual(si, pi) || !reflect.DeepEqual(ss, ps) || !reflect.DeepEqual(sst, pst) {
		t.Fatalf("serial %d items %+v, parallel %d items %+v", len(si), sst, len(pi), pst)
	}
	path := filepath.Join(t.TempDir(), "big.json")
	os.WriteFile(path, doc.Bytes(), 0o644)
	var n int64
	stop := fmt.Errorf("stop")
	_, err := Scan(Source{Path: path}, func(it Item) error {
		if n++; n == 150000 {
			return stop
		}
		return nil
	})
	if err != stop || n != 150000 {
		t.Errorf("the caller's error: %v after %d items", err, n)
	}
}

// TestUnquoteFast checks the one-pass decoder against unquote on every
// escape, control byte and their neighbours.
func TestUnquoteFast(t *testing.T) {
	parts := []string{"a", "é", "\\\\", "\\\"", "\\/", "\\b", "\\f", "\\n", "\\r", "\\t", "\\u00e9", "\\ud83d\\ude00", "\\ud800", "\\q", "\\", "\t", "\x01", "\x7f", " "}
	for _, a := range parts {
		for _, b := range parts {
			for _, c := range parts {
				raw := []byte(`"` + a + b + c + `"`)
				got, gok := unquoteFast(raw)
				want, wok := unquote(raw)
				if got != want || gok != wok {
					t.Errorf("%q: %q %v, unquote %q %v", raw, got, gok, want, wok)
				}
			}
		}
	}
}

// TestParallelStringsMapped: ScanMapped over a JSON string list (f on the
// reader's workers) gives what Scan and f one item at a time give, and
// stops at the caller's error with nothing delivered after it.
func TestParallelStringsMapped(t *testing.T) {
	defer func(b int) { fastBlock = b }(fastBlock)
	rng := rand.New(rand.NewPCG(11, 37))
	dir := t.TempDir()
	f := func(it Item) string { return fmt.Sprintf("%d:%s:%d-%d", it.Seq, it.Label, it.Start, it.End) }
	for n := range 200 {
		path := filepath.Join(dir, fmt.Sprintf("%d.json", n))
		os.WriteFile(path, []byte(genStringsDoc(rng, n)), 0o644)
		src := Source{Path: path, Format: JSONStrings, Limits: Limits{MaxLabelBytes: 200}}
		for _, block := range []int{1 << 20, 32} {
			fastBlock = block
			var want, got []string
			var wantSkips, gotSkips []Skip
			src.OnSkip = func(k Skip) { wantSkips = append(wantSkips, k) }
			wst, werr := Scan(src, func(it Item) error { want = append(want, f(it)); return nil })
			src.OnSkip = func(k Skip) { gotSkips = append(gotSkips, k) }
			gst, gerr := ScanMapped(context.Background(), src, 2, f, func(it Item, v string) error {
				if v != f(it) {
					t.Fatalf("value %q for item %s", v, f(it))
				}
				got = append(got, v)
				return nil
			})
			if werr != nil || gerr != nil || !reflect.DeepEqual(want, got) || !reflect.DeepEqual(wantSkips, gotSkips) || !reflect.DeepEqual(wst, gst) {
				t.Fatalf("document %d, block %d: Scan %v %q %+v, ScanMapped %v %q %+v", n, block, werr, want, wst, gerr, got, gst)
			}
			if len(want) < 3 {
				continue
			}
			stop := errors.New("stop")
			got = nil
			_, gerr = ScanMapped(context.Background(), src, 2, f, func(it Item, v string) error {
				got = append(got, v)
				if len(got) == 3 {
					return stop
				}
				return nil
			})
			if gerr != stop || !reflect.DeepEqual(got, want[:3]) {
				t.Fatalf("document %d: stopped with %v after %q", n, gerr, got)
			}
		}
	}
}

// genStringsDoc makes the n-th generated JSON string list: strings with
// escapes, quotes after backslash runs, non-ASCII, invalid UTF-8, control
// characters and long runs, a few other values, and by n, cut short, with
// a second document after it or a byte changed.
func genStringsDoc(rng *rand.Rand, n int) string {
	pieces := []string{`a`, ` `, `\\`, `\"`, `\\\"`, `\\\\`, `\n`, `\u00e9`, `\ud83d\ude00`, `é`, "\xff", "\t", `\q`, `,`, `]`, `[`, `"`, `{`, `\frac { 1 } { 2 }`, `\t`, `\f`, `\r`, `\b`, `\/`, `\u2003`, "\u00a0", "\u3000", "\v"}
	str := func() string {
		var b strings.Builder
		b.WriteByte('"')
		for range rng.IntN(12) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		if rng.IntN(50) == 0 {
			b.WriteString(strings.Repeat("x", 300)) // over the limit below
		}
		b.WriteByte('"')
		return b.String()
	}
	others := []string{`1.5`, `null`, `true`, `{"k":"]"}`, `["x",[]]`, `"   "`, `""`, `nope`}
	seps := []string{",", ", ", ",\n    ", " ,", "\n,\t"}
	var b strings.Builder
	if n%7 == 0 {
		b.WriteString("\xef\xbb\xbf")
	}
	b.WriteString(" [\n    ")
	count := rng.IntN(40)
	for i := range count {
		if i > 0 {
			b.WriteString(seps[rng.IntN(len(seps))])
		}
		if rng.IntN(30) == 0 {
			b.WriteString(others[rng.IntN(len(others))])
		} else {
			b.WriteString(str())
		}
	}
	b.WriteString("\n]\n")
	doc := b.String()
	switch n % 5 {
	case 1: // cut short
		doc = doc[:rng.IntN(len(doc)+1)]
	case 2: // something after the array
		doc += `["again"]`
	case 3: // a byte changed
		i := rng.IntN(len(doc))
		doc = doc[:i] + string(`",[] \x`[rng.IntN(7)]) + doc[i+1:]
	}
	return doc
}
