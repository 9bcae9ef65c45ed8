// Package imege computes IMEGE, the image-based math expression global
// error of Álvaro, Sánchez and Benedí (IbPRIA 2013), from two images of
// formulas: a recognition and its reference.
//
// IMEGE renders both formulas and matches them with BIDM, a bidirectional
// image distortion model. Each image becomes two planes of local
// derivative features (the slope of a Gaussian-weighted least-squares fit
// to the ink profile across a 7-pixel cell, quantised to 0…255). A test
// pixel is mapped to the reference pixel within ±w of its proportional
// position whose c×c context of features is nearest; the mapping costs
// are scaled to 0…255 and split by Otsu's threshold, and the share of the
// test image's ink pixels on the cheap side is the score. Precision is
// BIDM(recognition → reference), recall BIDM(reference → recognition),
// and IMEGE = 100·(1 − F) with F their harmonic mean.
//
// The results are the original program's to the printed digit
// (docs/metrics.md §8 and the goldens under testdata), including its quirks:
// single-precision arithmetic throughout, and the stored cost of a pixel
// being the possibly cut-short distance of the last candidate tried
// rather than the minimum. It is written from the paper and that
// behavioural description, not from the original's (GPL) code.
//
// The original tries every candidate of the (2w+1)² window, each over its
// c×c context, in single precision, stopping a sum once it exceeds the
// best so far: 15 s of CPU for its example pair. This package gets the
// same numbers in about 0.09 s of CPU (about 160 times faster on one core;
// the two directions and the rows run in parallel on more cores). It
// finds the earlier candidates' minimum with exact integer distances,
// passing over most candidates by lower bounds: the window cut into
// blocks at three levels (whole, 3×3, 6×6), each block summarised by its
// sums and centred norms per channel, from tables built once per
// reference, the distance between two windows' summaries never exceeding
// theirs. One pass over each row of candidates checks the first two
// levels; the few candidates left are summed band by band, largest test
// bands first, until the sum and the bound on the rest exceed the best
// so far. On amd64 the bounds and the sums run in SSE2 (bound_amd64.s,
// one block's four statistics or eight features per instruction); the
// bounds' rounding slack covers their other order of summation, so the
// output is the same, and the plain Go kernels (other architectures, or
// the purego build tag) are checked against them. Windows without ink need no sum (their distance is the test
// window's energy), and exact matches are found first, by energy and
// from the previous pixel's best offset. Only the candidates within
// single-precision rounding of the minimum are then summed the
// original's way, and the last candidate is cut short where the original
// cuts it. The output does not depend on the number of cores; a test
// checks it, bit for bit, against a plain implementation of the search as
// the behavioural description gives it (every candidate, every term) on
// random planes.
package imege

import (
	"fmt"
	"math"
	"runtime"
	"strconv"

	"github.com/leakaudit/leakaudit/internal/rounding"
)

// Result is one IMEGE comparison.
type Result struct {
	// Precision is BIDM(recognition → reference) and Recall
	// BIDM(reference → recognition), rounded to the six decimals the
	// original prints (and the released script reads back).
	Precision, Recall float64
	// IMEGE is 100·(1 − F), F = 2PR/(P+R) (0 when both are 0), from the
	// rounded P and R as the script computes it; the original prints it
	// with two decimals (see Format).
	IMEGE float64
}

// Compare scores a recognition image against its reference. Each image's
// features are derived once; with more than one core (and images of
// formula size) the two directions run at the same time.
func Compare(rec, ref *Image, p Params, l Limits) (Result, error) {
	if err := checkAll(rec, ref, p, l); err != nil {
		return Result{}, fmt.Errorf("precision: %w", err)
	}
	var recF, refF *features
	var pr, rc float64
	if runtime.GOMAXPROCS(0) > 1 && rec.W*rec.H+ref.W*ref.H <= concurrentPixels {
		done := make(chan struct{})
		go func() {
			refF = derive(ref, p.Size)
			close(done)
		}()
		recF = derive(rec, p.Size)
		<-done
		done = make(chan struct{})
		go func() {
			rc = bidm(ref, refF, recF, p)
			close(done)
		}()
		pr = bidm(rec, recF, refF, p)
		<-done
	} else {
		recF, refF = derive(rec, p.Size), derive(ref, p.Size)
		pr = bidm(rec, recF, refF, p)
		rc = bidm(ref, refF, recF, p)
	}
	// BIDM values as the original prints them (%8.6f: C's printf rounds
	// the exact binary value half to even, as Python's round does; NaN
	// stays NaN)
	r := Result{Precision: rounding.Python(pr, 6), Recall: rounding.Python(rc, 6)}
	r.IMEGE = Score(r.Precision, r.Recall)
	return r, nil
}

// concurrentPixels bounds the images (both together) whose two directions
// Compare runs at the same time, each direction's tables then being held
// at once.
const concurrentPixels = 1 << 20

// Score is IMEGE from precision and recall, as the released script
// combines them: 100·(1 − 2PR/(P+R)), and 100 when both are 0. A NaN
// (the original's value for an image without ink) counts as 0, as awk
// reads "nan".
func Score(p, r float64) float64 {
	if math.IsNaN(p) {
		p = 0
	}
	if math.IsNaN(r) {
		r = 0
	}
	f := 0.0
	if p != 0 || r != 0 {
		f = 2 * ((p * r) / (p + r))
	}
	return 100 * (1 - f)
}

// Format prints a result as the original tools do: P and R with six
// decimals, IMEGE with two.
func (r Result) Format() (p, rc, e string) {
	return strconv.FormatFloat(r.Precision, 'f', 6, 64), strconv.FormatFloat(r.Recall, 'f', 6, 64), strconv.FormatFloat(r.IMEGE, 'f', 2, 64)
}
