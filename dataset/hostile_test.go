package dataset

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestHostileInputs: each hostile input gets a bounded-time, counted
// error, and the items around it are kept.
func TestHostileInputs(t *testing.T) {
	dir := t.TempDir()
	bounded := func(name string, f func()) {
		t.Helper()
		start := time.Now()
		f()
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("%s: %v", name, d)
		}
	}
	// A zip whose end record declares 1M entries (the directory is not
	// there): refused from the record, before anything is allocated.
	zpath := filepath.Join(dir, "million.zip")
	eocd := make([]byte, 22)
	copy(eocd, "PK\x05\x06")
	binary.LittleEndian.PutUint16(eocd[8:], 0xFFFF)
	binary.LittleEndian.PutUint16(eocd[10:], 0xFFFF)
	loc := make([]byte, 20)
	copy(loc, "PK\x06\x07")
	binary.LittleEndian.PutUint64(loc[8:], 0)
	rec := make([]byte, 56)
	copy(rec, "PK\x06\x06")
	binary.LittleEndian.PutUint64(rec[32:], 1_000_000)
	os.WriteFile(zpath, append(append(rec, loc...), eocd...), 0o644)
	bounded("zip with 1M entries", func() {
		st, err := ScanImages(ImageSource{Path: zpath}, func(ImageItem) error { return nil })
		if err == nil && st.FileError == "" {
			t.Error("a zip declaring 1M entries was accepted")
		}
		if !strings.Contains(st.FileError+errString(err), "1000000 entries") {
			t.Errorf("zip: %v / %q", err, st.FileError)
		}
	})
	// An image header claiming 100000×100000.
	bounded("100000×100000 header", func() {
		_, err := ImageItem{Data: bombPNG()}.Decode(ImageLimits{})
		if err == nil || !strings.HasPrefix(err.Error(), ReasonImageTooLarge) {
			t.Errorf("bomb: %v", err)
		}
	})
	// Labels: a 100k-character label, invalid UTF-8 and NUL bytes.
	lpath := filepath.Join(dir, "labels.json")
	os.WriteFile(lpath, []byte(`["ok", "`+strings.Repeat("x", 100_000)+`", "a\u0000b", "fine"]`), 0o644)
	bounded("hostile labels", func() {
		var got []string
		st, err := Scan(Source{Path: lpath}, func(it Item) error { got = append(got, it.Label); return nil })
		if err != nil || st.Reasons[ReasonTooLong] != 1 || len(got) != 3 {
			t.Errorf("labels: %v, delivered %q, stats %+v", err, got, st.Reasons)
		}
	})
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// FuzzImageDecode: no bytes make decoding panic or exceed its limits.
func FuzzImageDecode(f *testing.F) {
	f.Add(bombPNG())
	f.Add([]byte("\x89PNG\r\n\x1a\n"))
	f.Add([]byte("BM"))
	f.Fuzz(func(t *testing.T, data []byte) {
		lim := ImageLimits{MaxPixels: 1 << 20, MaxSide: 4096, MaxBytes: 1 << 20}
		img, err := ImageItem{Data: data}.Decode(lim)
		if err == nil && int64(img.Bounds().Dx())*int64(img.Bounds().Dy()) > lim.MaxPixels {
			t.Fatalf("decoded %v beyond the limit", img.Bounds())
		}
	})
}

// FuzzScanParquet: a damaged Parquet file is a file error, never a
// crash, and the count of delivered items is right.
func FuzzScanParquet(f *testing.F) {
	path := filepath.Join(f.TempDir(), "seed.parquet")
	if err := writeTestParquet(path, []string{"a", "", "b \\alpha", "x ^ { 2 }"}); err != nil {
		f.Fatal(err)
	}
	seed, _ := os.ReadFile(path)
	f.Add(seed)
	f.Add(seed[:len(seed)/2])
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(t.TempDir(), "in.parquet")
		os.WriteFile(p, data, 0o644)
		var n int64
		st, err := Scan(Source{Path: p, Format: Parquet}, func(it Item) error { n++; return nil })
		if err == nil && st.Items != n {
			t.Fatalf("Stats.Items %d, delivered %d", st.Items, n)
		}
	})
}
