// Command hashdump checks that a change to package imagehash leaves every
// result as it was: it hashes each PNG, BMP and JPEG image under the
// folders it is given (in lexical order) as a training image and as a
// query, and prints one line per image, its path and a SHA-256 of what
// the package computed for it: the hashes, digest, ink and pieces of both,
// the query's probes, search hashes, small-ink, edge and cut keys, and its
// verification (VerifyDrawing, InkDistance, SmallInkDistance at each level)
// against its own training hashes and the previous image's. Standard error
// gets the number of images and a digest of all the lines.
//
//	go run ./scripts/hashdump DIR... > before.txt  # on main
//	go run ./scripts/hashdump DIR... > after.txt   # with the change
//	cmp before.txt after.txt
//
// An image that cannot be decoded is listed as such. Stop 55 used it to
// show that the faster pen normalization (package imagehash) changes no
// result on the 13,206 CROHME and im2latex images of ../shared/data.
package main

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"image"
	_ "image/jpeg"
	_ "image/png"
	"os"
	"path/filepath"
	"sort"
	"strings"

	_ "golang.org/x/image/bmp"

	"github.com/leakaudit/leakaudit/imagehash"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: hashdump DIR...")
		os.Exit(2)
	}
	var files []string
	for _, d := range os.Args[1:] {
		err := filepath.WalkDir(d, func(p string, e os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			switch strings.ToLower(filepath.Ext(p)) {
			case ".png", ".bmp", ".jpg", ".jpeg":
				if !e.IsDir() {
					files = append(files, p)
				}
			}
			return nil
		})
		if err != nil {
			fmt.Fprintln(os.Stderr, "hashdump:", err)
			os.Exit(1)
		}
	}
	sort.Strings(files)
	all := sha256.New()
	var prev imagehash.Hashes
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			fmt.Fprintln(os.Stderr, "hashdump:", err)
			os.Exit(1)
		}
		img, _, err := image.Decode(bytes.NewReader(b))
		if err != nil {
			fmt.Println(p, "not decoded")
			continue
		}
		h := sha256.New()
		var train imagehash.Hashes
		for _, o := range []imagehash.Options{{Kind: imagehash.PHash, Canvas: imagehash.Stretch}, {Kind: imagehash.PHash, Canvas: imagehash.Stretch, Probe: true}} {
			fp, err := imagehash.Compute(img, o)
			if !o.Probe {
				train = fp
			}
			fmt.Fprintf(h, "%v|%x|%x|%x|%v|%d|%d|%d|%v|", err, fp.Hash, fp.Fine, fp.Digest, fp.Blank, fp.Width, fp.Height, fp.Parts, fp.AtEdge)
			h.Write(fp.Ink.Bytes())
			if fp.Probes != nil {
				for _, pr := range fp.Probes {
					fmt.Fprintf(h, "%x|%x|", pr.Hash, pr.Fine)
					h.Write(pr.Ink.Bytes())
				}
				fmt.Fprintf(h, "%x|%v|%v|", fp.SearchHashes(), fp.TooSmall(), fp.Squeezed())
				for _, l := range fp.SmallLevels() {
					fmt.Fprintf(h, "%d:%x|", l, fp.SmallKeys(l))
				}
				fmt.Fprintf(h, "%x|%x|%x", fp.EdgeKeys(), fp.CutKeys(), fp.Ink.CutVariantKeys())
				for _, t := range []imagehash.Hashes{prev, train} {
					d, ok, by := imagehash.VerifyDrawing(fp, t)
					fmt.Fprintf(h, "|%d %v %d %.6f", d, ok, by, imagehash.InkDistance(fp, t))
					for _, l := range fp.SmallLevels() {
						fmt.Fprintf(h, " %.6f", imagehash.SmallInkDistance(fp, t, l))
					}
				}
			}
		}
		prev = train
		s := fmt.Sprintf("%x", h.Sum(nil))
		fmt.Fprintln(all, p, s)
		fmt.Println(p, s)
	}
	fmt.Fprintf(os.Stderr, "%d files, all %x\n", len(files), all.Sum(nil))
}
