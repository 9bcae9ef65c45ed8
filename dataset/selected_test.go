package dataset

import (
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

// TestScanSelectedMatchesScan: ScanSelected over generated JSON string
// lists (escapes, invalid UTF-8, control characters, long labels, other
// values and faults; blocks small enough that elements straddle them) and
// over the same labels as JSON lines delivers, of the items Scan delivers,
// exactly those keep keeps, whole and in order, with Scan's skips and
// stats; keep sees every label Scan delivers, read counts every item, and
// the caller's error stops the scan.
func TestScanSelectedMatchesScan(t *testing.T) {
	defer func(b int) { fastBlock = b }(fastBlock)
	rng := rand.New(rand.NewPCG(13, 41))
	dir := t.TempDir()
	// keep keeps every label with an "a" in it (about half), and values
	// it by its bytes, copied: the label itself may be reused. Where the
	// reader made the label less its spaces, it must be exactly that.
	keep := func(l KeepLabel) (string, bool) {
		if l.NoSpace != "" && l.NoSpace != strings.ReplaceAll(l.Label, " ", "") {
			t.Errorf("label %q: NoSpace %q", l.Label, l.NoSpace)
		}
		return "v" + strings.Clone(l.Label), strings.Contains(l.Label, "a")
	}
	for n := range 200 {
		path := filepath.Join(dir, fmt.Sprintf("%d.json", n))
		os.WriteFile(path, []byte(genStringsDoc(rng, n)), 0o644)
		srcs := []Source{{Path: path, Format: JSONStrings, Limits: Limits{MaxLabelBytes: 200}}}
		if n%10 == 0 { // another reader: ScanMapped's path
			lines := filepath.Join(dir, fmt.Sprintf("%d.txt", n))
			os.WriteFile(lines, []byte("a\nb\n\nxa\n"+strings.Repeat("a", 300)+"\n"), 0o644)
			srcs = append(srcs, Source{Path: lines, Format: Lines, Limits: Limits{MaxLabelBytes: 200}})
		}
		for _, src := range srcs {
			for _, block := range []int{1 << 20, 32} {
				fastBlock = block
				var want, got []Item
				var wantSkips, gotSkips []Skip
				var read int64
				src.OnSkip = func(k Skip) { wantSkips = append(wantSkips, k) }
				wst, werr := Scan(src, func(it Item) error {
					if _, ok := keep(KeepLabel{Label: it.Label}); ok {
						want = append(want, it)
					}
					return nil
				})
				src.OnSkip = func(k Skip) { gotSkips = append(gotSkips, k) }
				gst, gerr := ScanSelected(context.Background(), src, 2, keep, func(it Item, v string) error {
					if v != "v"+it.Label {
						t.Fatalf("value %q for item %+v", v, it)
					}
					got = append(got, it)
					return nil
				}, func(k int64) { read += k })
				if werr != nil || gerr != nil || !reflect.DeepEqual(want, got) || !reflect.DeepEqual(wantSkips, gotSkips) || !reflect.DeepEqual(wst, gst) {
					t.Fatalf("document %s, block %d: Scan %v %+v %+v, ScanSelected %v %+v %+v", src.Path, block, werr, want, wst, gerr, got, gst)
				}
				if read != wst.Items {
					t.Fatalf("document %s, block %d: read %d items, Scan %d", src.Path, block, read, wst.Items)
				}
				if len(want) < 2 {
					continue
				}
				stop := errors.New("stop")
				got = nil
				_, gerr = ScanSelected(context.Background(), src, 2, keep, func(it Item, v string) error {
					got = append(got, it)
					if len(got) == 2 {
						return stop
					}
					return nil
				}, nil)
				if gerr != stop || !reflect.DeepEqual(got, want[:2]) {
					t.Fatalf("document %s: stopped with %v after %+v", src.Path, gerr, got)
				}
			}
		}
	}
}

// TestAppendUnquoted checks the decoder into a buffer against unquote on
// every escape, control byte and their neighbours, after bytes already in
// the buffer.
func TestAppendUnquoted(t *testing.T) {
	parts := []string{"a", "é", "\\\\", "\\\"", "\\/", "\\b", "\\f", "\\n", "\\r", "\\t", "\\u00e9", "\\ud83d\\ude00", "\\ud800", "\\q", "\\", "\t", "\x01", "\x7f", " ", "\\frac{1}{2}"}
	for _, a := range parts {
		for _, b := range parts {
			for _, c := range parts {
				raw := []byte(`"` + a + b + c + `"`)
				got, gok := appendUnquoted([]byte("pre"), raw)
				want, wok := unquote(raw)
				if gok != wok || wok && string(got) != "pre"+want {
					t.Errorf("%q: %q %v, unquote %q %v", raw, got, gok, want, wok)
				}
			}
		}
	}
}
