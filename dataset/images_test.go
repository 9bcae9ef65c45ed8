package dataset

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/leakaudit/leakaudit/internal/shareddata"
)

func pngBytes(t *testing.T, w, h int) []byte {
	g := image.NewGray(image.Rect(0, 0, w, h))
	for i := range g.Pix {
		g.Pix[i] = uint8(i)
	}
	var b bytes.Buffer
	if err := png.Encode(&b, g); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// bombPNG is a valid PNG header declaring 100000×100000 pixels with no data.
func bombPNG() []byte {
	var b bytes.Buffer
	b.WriteString("\x89PNG\r\n\x1a\n")
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], 100000)
	binary.BigEndian.PutUint32(ihdr[4:], 100000)
	ihdr[8], ihdr[9] = 8, 0 // 8-bit grayscale
	binary.Write(&b, binary.BigEndian, uint32(len(ihdr)))
	chunk := append([]byte("IHDR"), ihdr...)
	b.Write(chunk)
	binary.Write(&b, binary.BigEndian, crc32.ChecksumIEEE(chunk))
	return b.Bytes()
}

func collectImages(t *testing.T, src ImageSource) ([]ImageItem, Stats) {
	t.Helper()
	var items []ImageItem
	st, err := ScanImages(src, func(it ImageItem) error {
		items = append(items, it)
		return nil
	})
	if err != nil {
		t.Fatalf("ScanImages(%s): %v", src.Path, err)
	}
	return items, st
}

func TestImageSources(t *testing.T) {
	dir := t.TempDir()
	good := pngBytes(t, 30, 10)
	// A CROHME-style split: captions, images, one missing.
	split := filepath.Join(dir, "split")
	os.MkdirAll(filepath.Join(split, "img"), 0o755)
	os.WriteFile(filepath.Join(split, "caption.txt"), []byte("b\tx ^ { 2 }\na\t1 + 1\nc\tmissing\n"), 0o644)
	os.WriteFile(filepath.Join(split, "img", "a.png"), good, 0o644)
	os.WriteFile(filepath.Join(split, "img", "b.png"), good, 0o644)
	items, st := collectImages(t, ImageSource{Path: split})
	if len(items) != 2 || items[0].ID != "a" || items[0].Label != "1 + 1" || !items[0].HasLabel || st.Skipped != 1 {
		t.Errorf("CROHME split: %d items, first %+v, skipped %d", len(items), items[0].ID, st.Skipped)
	}
	// A plain folder with a bomb and a truncated file: they are delivered
	// and refused at decoding, with reasons.
	folder := filepath.Join(dir, "folder")
	os.MkdirAll(filepath.Join(folder, "sub"), 0o755)
	os.WriteFile(filepath.Join(folder, "ok.png"), good, 0o644)
	os.WriteFile(filepath.Join(folder, "sub", "bomb.png"), bombPNG(), 0o644)
	os.WriteFile(filepath.Join(folder, "trunc.png"), good[:len(good)/2], 0o644)
	os.WriteFile(filepath.Join(folder, "notes.txt"), []byte("ignored"), 0o644)
	items, _ = collectImages(t, ImageSource{Path: folder})
	var ids []string
	reasons := map[string]string{}
	for _, it := range items {
		ids = append(ids, it.ID)
		if _, err := it.Decode(ImageLimits{}); err != nil {
			reasons[it.ID] = err.Error()
		}
	}
	if strings.Join(ids, ",") != "ok,sub/bomb,trunc" {
		t.Errorf("folder ids %v", ids)
	}
	if !strings.HasPrefix(reasons["sub/bomb"], ReasonImageTooLarge) || !strings.HasPrefix(reasons["trunc"], ReasonUndecodable) || reasons["ok"] != "" {
		t.Errorf("decode reasons %v", reasons)
	}
	// zip and tar.gz archives.
	zpath := filepath.Join(dir, "imgs.zip")
	zf, _ := os.Create(zpath)
	zw := zip.NewWriter(zf)
	for _, n := range []string{"z/2.png", "z/1.png", "readme.md"} {
		w, _ := zw.Create(n)
		w.Write(good)
	}
	zw.Close()
	zf.Close()
	items, _ = collectImages(t, ImageSource{Path: zpath})
	if len(items) != 2 || items[0].ID != "z/1" {
		t.Errorf("zip: %d items", len(items))
	}
	tpath := filepath.Join(dir, "imgs.tar.gz")
	tf, _ := os.Create(tpath)
	gz := gzip.NewWriter(tf)
	tw := tar.NewWriter(gz)
	for _, n := range []string{"t/a.png", "t/b.bmp"} {
		tw.WriteHeader(&tar.Header{Name: n, Mode: 0o644, Size: int64(len(good)), Typeflag: tar.TypeReg})
		tw.Write(good)
	}
	tw.Close()
	gz.Close()
	tf.Close()
	items, _ = collectImages(t, ImageSource{Path: tpath})
	if len(items) != 2 || items[1].ID != "t/b" {
		t.Errorf("tar: %d items", len(items))
	}
	// Archive entry limit.
	if _, err := ScanImages(ImageSource{Path: zpath, Limits: ImageLimits{MaxItems: 2}}, func(ImageItem) error { return nil }); err != nil {
		t.Fatal(err)
	}
	st, _ = ScanImages(ImageSource{Path: zpath, Limits: ImageLimits{MaxItems: 1}}, func(ImageItem) error { return nil })
	if st.FileError == "" {
		t.Error("zip entry limit not enforced")
	}
}

func TestParquetImages(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hf.parquet")
	good := pngBytes(t, 8, 8)
	if err := writeHFParquet(path, []hfRow{{hfImage{good, "x/one.png"}, "a"}, {hfImage{nil, "x/two.png"}, "b"}}); err != nil {
		t.Fatal(err)
	}
	items, st := collectImages(t, ImageSource{Path: path})
	if len(items) != 1 || items[0].ID != "x/one" || items[0].Label != "a" || st.Skipped != 1 {
		t.Errorf("parquet images: %+v, skipped %d", items, st.Skipped)
	}
	if _, err := items[0].Decode(ImageLimits{}); err != nil {
		t.Error(err)
	}
}

func TestRasterizeInk(t *testing.T) {
	strokes, err := ParseInkTraces([]byte(`<ink><trace>0 0, 10 10, 20 0</trace><trace id="1">30 5 0.1, 30 5 0.2</trace><trace>bad</trace></ink>`))
	if err != nil || len(strokes) != 2 {
		t.Fatalf("%d strokes, %v", len(strokes), err)
	}
	img, err := RasterizeInk(strokes, InkOptions{})
	if err != nil {
		t.Fatal(err)
	}
	dark := 0
	for _, p := range img.Pix {
		if p < 128 {
			dark++
		}
	}
	if b := img.Bounds(); b.Dy() != 64+2*4+1 || dark == 0 {
		t.Errorf("raster %v with %d dark pixels", b, dark)
	}
	if _, err := RasterizeInk(nil, InkOptions{}); err == nil {
		t.Error("no strokes rasterized without error")
	}
}

// TestBMPMatchesPNG decodes the 40 original CROHME BMPs and compares them
// with their lossless PNG conversions, pixel for pixel.
func TestBMPMatchesPNG(t *testing.T) {
	dir := shareddata.Path(t, "crohme/bmp-sample")
	files, _ := filepath.Glob(filepath.Join(dir, "*", "*.bmp"))
	if len(files) != 40 {
		t.Fatalf("%d BMP files, want 40", len(files))
	}
	crohme := filepath.Dir(dir)
	for _, f := range files {
		split := filepath.Base(filepath.Dir(f))
		name := strings.TrimSuffix(filepath.Base(f), ".bmp")
		b, _ := os.ReadFile(f)
		p, _ := os.ReadFile(filepath.Join(crohme, split, "img", name+".png"))
		bi, err1 := ImageItem{Data: b}.Decode(ImageLimits{})
		pi, err2 := ImageItem{Data: p}.Decode(ImageLimits{})
		if err1 != nil || err2 != nil {
			t.Fatalf("%s: %v %v", name, err1, err2)
		}
		if bi.Bounds() != pi.Bounds() {
			t.Fatalf("%s: %v vs %v", name, bi.Bounds(), pi.Bounds())
		}
		r := bi.Bounds()
		for y := r.Min.Y; y < r.Max.Y; y++ {
			for x := r.Min.X; x < r.Max.X; x++ {
				a, _, _, _ := bi.At(x, y).RGBA()
				c, _, _, _ := pi.At(x, y).RGBA()
				if a != c {
					t.Fatalf("%s: pixel (%d,%d) differs", name, x, y)
				}
			}
		}
	}
}
