package neardup_test

import (
	"context"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"

	"github.com/leakaudit/leakaudit/dataset"
	"github.com/leakaudit/leakaudit/index"
	"github.com/leakaudit/leakaudit/neardup"
)

// Run finds a test image that is a copy of a training image, here
// with its polarity inverted, as CROHME's white-on-black scans are.
func ExampleRun() {
	dir, _ := os.MkdirTemp("", "neardup")
	defer os.RemoveAll(dir)
	stroke := func(x, y int, invert bool) bool {
		ink := (x-40)*(x-40)+(y-20)*(y-20) < 200 || (x > 70 && x < 110 && y > 15 && y < 22)
		return ink != invert
	}
	for _, f := range []struct {
		path   string
		invert bool
	}{{"train/a.png", false}, {"test/b.png", true}} {
		img := image.NewGray(image.Rect(0, 0, 120, 40))
		for y := range 40 {
			for x := range 120 {
				if !stroke(x, y, f.invert) {
					img.Pix[y*120+x] = 255
				}
			}
		}
		p := filepath.Join(dir, f.path)
		os.MkdirAll(filepath.Dir(p), 0o755)
		w, _ := os.Create(p)
		png.Encode(w, img)
		w.Close()
	}
	rep, err := neardup.Run(context.Background(), neardup.Job{
		Train:       []index.ImageCorpusInput{{Name: "train", Source: dataset.ImageSource{Path: filepath.Join(dir, "train")}}},
		Tests:       []neardup.ImageSplit{{Name: "test", Source: dataset.ImageSource{Path: filepath.Join(dir, "test")}}},
		MaxDistance: neardup.DefaultMaxDistance, DB: filepath.Join(dir, "db")})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, p := range rep.Pairs {
		fmt.Printf("%s/%s ~ %s/%s distance %d identical %v\n", p.TestSplit, p.TestID, p.TrainSplit, p.TrainID, p.Distance, p.Identical)
	}
	// Output:
	// test/b ~ train/a distance 0 identical true
}
