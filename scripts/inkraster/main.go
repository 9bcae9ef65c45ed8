// Command inkraster writes the test sets the image matcher is measured on:
// InkML strokes rasterized by other pipelines (package internal/inkraster).
//
//	go run ./scripts/inkraster -ink DIR -out DIR [-seeds 1,2,3] [-corners]
//
// writes one folder per rasterizer under -out (corner-<name>/, seed-<n>/),
// each with one image per InkML file, and prints each rasterizer's
// parameters.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/leakaudit/leakaudit/internal/inkraster"
)

func main() {
	ink := flag.String("ink", "", "folder of InkML files")
	out := flag.String("out", "", "folder to write the sets into (must not exist)")
	seeds := flag.String("seeds", "", "comma-separated seeds of random rasterizers")
	corners := flag.Bool("corners", true, "also write the five corner rasterizers")
	flag.Parse()
	if *ink == "" || *out == "" {
		fmt.Fprintln(os.Stderr, "usage: inkraster -ink DIR -out DIR [-seeds 1,2,3] [-corners=false]")
		os.Exit(2)
	}
	if _, err := os.Stat(*out); err == nil {
		fmt.Fprintf(os.Stderr, "inkraster: %s exists; give a new folder\n", *out)
		os.Exit(2)
	}
	var rs []inkraster.Rasterizer
	if *corners {
		rs = inkraster.Corners()
	}
	for _, s := range strings.Split(*seeds, ",") {
		if s = strings.TrimSpace(s); s == "" {
			continue
		}
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			fmt.Fprintf(os.Stderr, "inkraster: -seeds: %v\n", err)
			os.Exit(2)
		}
		rs = append(rs, inkraster.Random(n))
	}
	for _, r := range rs {
		dir := filepath.Join(*out, r.Name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			fmt.Fprintln(os.Stderr, "inkraster:", err)
			os.Exit(1)
		}
		n, left, err := r.WriteSet(*ink, dir)
		if err != nil {
			fmt.Fprintln(os.Stderr, "inkraster:", err)
			os.Exit(1)
		}
		fmt.Printf("%s\t%d images\t%d left out %v\n", r, n, len(left), left)
	}
}
