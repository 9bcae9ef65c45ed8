package compare_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/leakaudit/leakaudit/compare"
	"github.com/leakaudit/leakaudit/internal/synth"
)

// TestSeenByImage: a model whose training images hold copies of test
// images has those items seen (and out of the clean subset) though no
// training label is given; the model demo's 120 test items copied from
// its training corpus are drawn alike in both image sets.
func TestSeenByImage(t *testing.T) {
	if testing.Short() {
		t.Skip("renders 3,600 formulas")
	}
	dir := t.TempDir()
	md, err := synth.GenerateModelDemo(dir, 20250812)
	if err != nil {
		t.Fatal(err)
	}
	_ = md
	cfg := `splits: [{name: demo-test, images: test-images}]
models:
  - {name: imaged, train_images: [{name: tr, path: train-images}], predictions: [{split: demo-test, path: demo-test.json}]}
  - {name: blind, predictions: [{split: demo-test, path: demo-test.json}]}
`
	path := filepath.Join(dir, "compare.yaml")
	os.WriteFile(path, []byte(cfg), 0o644)
	c, err := compare.LoadConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	c.DB = filepath.Join(t.TempDir(), "db")
	res, err := compare.Run(context.Background(), compare.Job{Config: c, Tool: "test"})
	if err != nil {
		t.Fatal(err)
	}
	s := res.Splits[0]
	im, blind := s.Models[0], s.Models[1]
	if im.SeenImage < 120 || im.SeenLabel != 0 || blind.SeenImage != 0 || s.SeenAny != im.SeenImage || s.Clean != s.Items-im.SeenImage {
		t.Errorf("seen by image %d (label %d), blind %d; split: %d seen, %d clean of %d", im.SeenImage, im.SeenLabel, blind.SeenImage, s.SeenAny, s.Clean, s.Items)
	}
	t.Logf("%d of %d test items seen by image; clean %d", im.SeenImage, s.Items, s.Clean)
}
