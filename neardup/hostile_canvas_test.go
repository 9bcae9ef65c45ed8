package neardup

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/leakaudit/leakaudit/dataset"
	"github.com/leakaudit/leakaudit/imagehash"
	"github.com/leakaudit/leakaudit/index"
	"github.com/leakaudit/leakaudit/internal/setting"
)

// TestHostileUnknownCanvas: a job whose hash names a canvas imagehash does
// not know is refused before any image is hashed, naming the setting,
// rather than hashed as if it were a known canvas.
func TestHostileUnknownCanvas(t *testing.T) {
	dir := t.TempDir()
	train := captionSplit(t, filepath.Join(dir, "train"), []string{"a", "b"}, []string{"x", "y"}, []int{1, 2}, false)
	test := captionSplit(t, filepath.Join(dir, "test"), []string{"t"}, []string{"x"}, []int{1}, false)
	job := Job{
		Train:       []index.ImageCorpusInput{{Name: "train", Source: dataset.ImageSource{Path: train}}},
		Tests:       []ImageSplit{{Name: "test", Source: dataset.ImageSource{Path: test}}},
		MaxDistance: DefaultMaxDistance, DB: filepath.Join(dir, "db"),
	}
	for _, c := range []struct {
		canvas imagehash.Canvas
		want   string // "": no error
	}{
		{"", ""},
		{imagehash.Aspect, ""},
		{"bogus", `--canvas: unknown canvas "bogus" (stretch or aspect)`},
	} {
		j := job
		j.Hash.Canvas = c.canvas
		_, err := Run(context.Background(), j)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("canvas %q: %v", c.canvas, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("canvas %q: got %v, want an error with %q", c.canvas, err, c.want)
		case c.want != "" && !errors.As(err, new(*setting.Error)):
			t.Errorf("canvas %q: the error %v does not carry the setting", c.canvas, err)
		}
	}
}
