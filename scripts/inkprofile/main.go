// Command inkprofile profiles the image matcher's misses on the same
// handwriting rasterized by other pipelines: for each test set (CROHME
// 2014 and train-sample InkML as leakaudit reads it, and rasterized by the
// five corner rasterizers of package internal/inkraster and random ones
// from seeds) it counts the items whose own CROHME bitmap is found at the
// default settings (searched as neardup searches: the pHash within the
// radius, the edge keys within imagehash.EdgeRadius and the cut variants
// within imagehash.CutRadius, verified by imagehash.VerifyCut), and splits
// the misses into retrieval misses (the bitmap is beyond the pHash and
// edge-key radii from the query and all its probes) and verification
// misses (found, but imagehash.Verify, or VerifyEdge for a pair the edge
// keys alone found, does not verify it), with the pHash and fine distances
// of each; a query
// whose ink is small is also searched by its small-ink keys
// (imagehash.Hashes.SmallKeys, within imagehash.SmallRadius, verified by
// imagehash.Verify), and one whose ink is too small to verify
// (imagehash.Hashes.TooSmall) is counted and searched by neither its edge
// keys nor the cut variants, as neardup does. Each set also counts its
// squeezed queries (imagehash.Hashes.Squeezed: also drawn with thinner
// pens) and those whose own bitmap only such a drawing verifies, and
// those whose own bitmap only a drawing with a thicker pen verifies
// (imagehash.ByThickerPen). Wrong
// pairs are counted as in neardup's TestHostileInkMatchRealData. After
// the sets, a summary line for each corpus and kind of rasterizer (the
// fixed ones: InkML as leakaudit reads it and the corners; the random
// ones) adds them up: how many sets reach the goal (at least 99% of
// their items found), the items found, the wrong pairs, the items too
// small to verify, and the items missed in at least half of the sets. With
// -control, CROHME train is also searched against itself and its verified
// pairs that are not pixel copies are listed. With -control-cut SEEDS, the
// cut control: for each seed, CROHME train searched against the bitmaps
// with each query's ink cut at a side drawn from the seed (up to 3% of
// its box lost, no margin left there; inkraster.ControlCut), so that the
// cut variants are searched; its pairs with other bitmaps than the
// query's own and its pixel copies are listed with the rules that verify
// them.
//
//	go run ./scripts/inkprofile -data DIR [-seeds 1,2,3] [-sets a,b] [-control] [-control-cut 1,2] [-misses FILE] [-list] [-edge=false] [-cut=false]
//
// -list only lists the sets with their rasterizers' parameters; -edge=false
// and -cut=false leave out the edge keys and the cut variants (the matcher
// before them).
// Hashing cost is reported as CPU time of the process (getrusage), per
// training image and per query (a query hashes nine canvases: its own and
// eight probes), so that a shared machine does not inflate it.
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"image"
	_ "image/jpeg"
	_ "image/png"
	"math/bits"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/leakaudit/leakaudit/dataset"
	"github.com/leakaudit/leakaudit/imagehash"
	"github.com/leakaudit/leakaudit/index"
	"github.com/leakaudit/leakaudit/internal/inkraster"
	"github.com/leakaudit/leakaudit/neardup"
)

// edgeKeys and cutKeys say whether queries also search by their edge keys
// and among the cut variants.
var edgeKeys, cutKeys bool

// searcher finds training bitmaps as neardup does: by the pHash within the
// radius, when edgeKeys is set by the edge keys within
// imagehash.EdgeRadius, when cutKeys is set among the cut variants within
// imagehash.CutRadius, and by the small-ink keys.
type searcher struct {
	mih, edge *index.Hamming
	train     []bitmap
	radius    int
	// cut is over the cut variants' keys (imagehash.Ink.CutVariantKeys);
	// cutPos[i] and cutSide[i] are the i-th key's bitmap and side.
	cut     *index.Hamming
	cutPos  []int
	cutSide []int
	// small holds the index of each small-ink level's keys
	// (imagehash.Ink.SmallKey), built when a query first needs it.
	smallMu sync.Mutex
	small   [imagehash.NumSmallLevels]*index.Hamming
}

// smallIndex returns the index of the training bitmaps' keys at a
// small-ink level, building it on first use.
func (s *searcher) smallIndex(level int) *index.Hamming {
	s.smallMu.Lock()
	defer s.smallMu.Unlock()
	if s.small[level] == nil {
		keys := make([]uint64, len(s.train))
		for i := range s.train {
			keys[i] = s.train[i].fp.Ink.SmallKey(level)
		}
		s.small[level] = index.NewHamming(keys)
	}
	return s.small[level]
}

func newSearcher(train []bitmap, radius int) *searcher {
	s := &searcher{train: train, radius: radius}
	hashes := make([]uint64, len(train))
	for i, b := range train {
		hashes[i] = b.fp.Hash
	}
	s.mih = index.NewHamming(hashes)
	if edgeKeys {
		keys := make([]uint64, len(train))
		for i := range train {
			keys[i] = train[i].fp.Ink.EdgeKey()
		}
		s.edge = index.NewHamming(keys)
	}
	if cutKeys {
		var keys []uint64
		for i := range train {
			for side, k := range train[i].fp.Ink.CutVariantKeys() {
				if k != 0 {
					keys = append(keys, k)
					s.cutPos = append(s.cutPos, i)
					s.cutSide = append(s.cutSide, side)
				}
			}
		}
		s.cut = index.NewHamming(keys)
	}
	return s
}

// search calls fn once for each verified candidate of fp: its position,
// pHash distance (from the query's nearest search hash) and fine distance.
func (s *searcher) search(fp imagehash.Hashes, fn func(p, d, fine int)) {
	seen := map[int]bool{} // found by the pHash, or verified by an edge key
	kept := map[int]bool{} // verified
	s.mih.SearchAny(fp.SearchHashes(), s.radius, func(p, d int) {
		seen[p] = true
		if fine, ok := imagehash.Verify(fp, s.train[p].fp); ok {
			kept[p] = true
			fn(p, d, fine)
		}
	})
	if s.edge != nil {
		s.edge.SearchAny(fp.EdgeKeys(), imagehash.EdgeRadius, func(p, _ int) {
			if seen[p] {
				return
			}
			// An edge candidate VerifyEdge refuses may still be a small
			// ink's copy (Verify, below), as in neardup.
			if fine, ok := imagehash.VerifyEdge(fp, s.train[p].fp); ok {
				seen[p], kept[p] = true, true
				fn(p, phashDistance(fp, s.train[p].fp), fine)
			}
		})
	}
	if s.cut != nil {
		// A pHash candidate Verify refused may be a cut copy, as in
		// neardup.
		s.cut.SearchAny(fp.CutKeys(), imagehash.CutRadius, func(i, _ int) {
			p := s.cutPos[i]
			if kept[p] {
				return
			}
			if _, ok := imagehash.VerifyCut(fp, s.train[p].fp, s.cutSide[i]); ok {
				kept[p] = true
				fn(p, phashDistance(fp, s.train[p].fp), imagehash.FineDistance(fp, s.train[p].fp))
			}
		})
	}
	for _, l := range fp.SmallLevels() {
		s.smallIndex(l).SearchAny(fp.SmallKeys(l), imagehash.SmallRadius, func(p, _ int) {
			if seen[p] || kept[p] {
				return
			}
			seen[p] = true
			if fine, ok := imagehash.Verify(fp, s.train[p].fp); ok {
				fn(p, phashDistance(fp, s.train[p].fp), fine)
			}
		})
	}
}

// phashDistance is the pHash distance of b from a's nearest search hash.
func phashDistance(a, b imagehash.Hashes) int {
	d := 64
	for _, h := range a.SearchHashes() {
		d = min(d, bits.OnesCount64(h^b.Hash))
	}
	return d
}

// bitmap is one training bitmap and its fingerprint.
type bitmap struct {
	corpus, id string
	fp         imagehash.Hashes
}

// testSet is one set of test images, each named by its InkML file's stem.
type testSet struct {
	name, own string // own: the corpus holding each item's bitmap
	desc      string // the rasterizer's parameters
	files     []string
	render    func(strokes []dataset.Stroke) (image.Image, error)
}

// tally is one set's outcome.
type tally struct {
	items, found, retrieval, verification, wrong int
	tooSmall                                     int         // items whose ink is too small to verify (imagehash.Hashes.TooSmall)
	squeezed                                     int         // items whose ink is squeezed (imagehash.Hashes.Squeezed)
	squeezedOnly                                 int         // items found only by their ink drawn with a thinner pen (imagehash.ByThinnerPen)
	thickerOnly                                  int         // items found only by their ink drawn with a thicker pen (imagehash.ByThickerPen)
	retrievalD                                   map[int]int // own pHash distance of retrieval misses
	verificationFine                             []int       // own fine distance of verification misses
	missed                                       []string
	missedIDs                                    []string // items whose own bitmap was not found
	cutOnly                                      []string // items found by the cut variants alone, with their distance (verifiedBy)
}

func main() {
	data := flag.String("data", "../shared/data", "the shared data folder")
	seeds := flag.String("seeds", "", "comma-separated seeds of random rasterizers")
	only := flag.String("sets", "", "comma-separated set names to run (default: all)")
	control := flag.Bool("control", false, "also search CROHME train against itself")
	controlCut := flag.String("control-cut", "", "comma-separated seeds: for each, also search CROHME train against the bitmaps with each query's ink cut at a side drawn from the seed (inkraster.ControlCut)")
	radius := flag.Int("radius", neardup.DefaultMaxDistance, "pHash search radius")
	flag.BoolVar(&edgeKeys, "edge", true, "also search by the edge keys (imagehash.EdgeKeys), as neardup does")
	flag.BoolVar(&cutKeys, "cut", true, "also search the cut variants (imagehash.Ink.CutVariantKeys), as neardup does")
	misses := flag.String("misses", "", "write each missed item (set, id, kind, distances) and each wrong pair (set, id, \"wrong pair\", the other bitmap) to this file")
	workers := flag.Int("workers", runtime.GOMAXPROCS(0), "hashing goroutines")
	list := flag.Bool("list", false, "only list the sets and their rasterizers' parameters")
	flag.Parse()
	if err := run(*data, *seeds, *only, *control, *controlCut, *list, *radius, *misses, *workers); err != nil {
		fmt.Fprintln(os.Stderr, "inkprofile:", err)
		os.Exit(1)
	}
}

func run(data, seeds, only string, control bool, controlCut string, list bool, radius int, missFile string, workers int) error {
	if list {
		sets, _, err := testSets(data, seeds)
		for _, s := range sets {
			fmt.Printf("%-28s %s\n", s.name, s.desc)
		}
		return err
	}
	opts := imagehash.Options{Kind: imagehash.PHash, Canvas: imagehash.Stretch}
	query := opts
	query.Probe = true
	corpora := map[string]string{"c14": filepath.Join(data, "crohme", "2014"), "tr": filepath.Join(data, "crohme", "train")}
	var train []bitmap
	for _, c := range []string{"c14", "tr"} {
		ents, err := os.ReadDir(filepath.Join(corpora[c], "img"))
		if err != nil {
			return err
		}
		for _, e := range ents {
			train = append(train, bitmap{corpus: c, id: stem(e.Name())})
		}
	}
	cpu0, t0 := cpuTime(), time.Now()
	var mu sync.Mutex
	var firstErr error
	parallel(len(train), workers, func(i int) {
		img, err := decodeFile(filepath.Join(corpora[train[i].corpus], "img", train[i].id+".png"))
		if err == nil {
			train[i].fp, err = imagehash.Compute(img, opts)
		}
		if err != nil {
			mu.Lock()
			firstErr = fmt.Errorf("%s %s: %w", train[i].corpus, train[i].id, err)
			mu.Unlock()
		}
	})
	if firstErr != nil {
		return firstErr
	}
	fmt.Printf("training bitmaps: %d, %.0f CPU-µs per image (decoding included), %v wall\n",
		len(train), 1e6*(cpuTime()-cpu0).Seconds()/float64(len(train)), time.Since(t0).Round(time.Millisecond))
	pos := map[string]int{}
	for i, b := range train {
		pos[b.corpus+":"+b.id] = i
	}
	cpu0 = cpuTime()
	srch := newSearcher(train, radius)
	fmt.Printf("search index: %.0f CPU-µs per training image (pHash, edge keys and cut variants)\n", 1e6*(cpuTime()-cpu0).Seconds()/float64(len(train)))
	// Two bitmaps are one sample when their pixels are identical or all
	// but (as in TestHostileInkMatchRealData).
	sameBitmap := func(i, j int) bool {
		a, b := train[i].fp, train[j].fp
		return a.Digest == b.Digest || bits.OnesCount64(a.Hash^b.Hash) <= 4 && imagehash.FineDistance(a, b) <= 12
	}
	sets, sigs, err := testSets(data, seeds)
	if err != nil {
		return err
	}
	var missOut *bufio.Writer
	if missFile != "" {
		f, err := os.Create(missFile)
		if err != nil {
			return err
		}
		defer f.Close()
		missOut = bufio.NewWriter(f)
		defer missOut.Flush()
	}
	want := map[string]bool{}
	for _, s := range strings.Split(only, ",") {
		if s = strings.TrimSpace(s); s != "" {
			want[s] = true
		}
	}
	fmt.Printf("%-28s %5s %14s %9s %12s %5s %12s\n", "set", "items", "found", "retrieval", "verification", "wrong", "CPU-µs/query")
	sums := map[string]*summary{}
	var sumKeys []string
	for _, s := range sets {
		if len(want) > 0 && !want[s.name] {
			continue
		}
		t := tally{retrievalD: map[int]int{}}
		cpu0 := cpuTime()
		parallel(len(s.files), workers, func(i int) {
			id := stem(s.files[i])
			img, err := renderFile(s.files[i], s.render)
			ownPos, hasOwn := pos[s.own+":"+id]
			if err != nil || !hasOwn {
				return // no image, or no bitmap of its own (not a query for recall)
			}
			fp, err := imagehash.Compute(img, query)
			if err != nil {
				return
			}
			own := train[ownPos].fp
			ownD := phashDistance(fp, own)
			ownFine, ownOK, drawn := imagehash.VerifyDrawing(fp, own)
			retrieved := ownD <= radius
			if !retrieved && srch.edge != nil {
				// Beyond the radius: found when an edge key is within
				// imagehash.EdgeRadius and VerifyEdge verifies it.
				k := own.Ink.EdgeKey()
				for _, h := range fp.EdgeKeys() {
					retrieved = retrieved || bits.OnesCount64(h^k) <= imagehash.EdgeRadius
				}
				if retrieved {
					ownFine, ownOK = imagehash.VerifyEdge(fp, own)
				}
			}
			smallD, smallInk := 64, -1.0
			if levels := fp.SmallLevels(); levels != nil {
				// Found at one of the query's small-ink levels when a key
				// is within imagehash.SmallRadius and Verify verifies it.
				smallInk = 9
				for _, l := range levels {
					k := own.Ink.SmallKey(l)
					for _, h := range fp.SmallKeys(l) {
						smallD = min(smallD, bits.OnesCount64(h^k))
					}
					smallInk = min(smallInk, imagehash.SmallInkDistance(fp, own, l))
				}
				if !(retrieved && ownOK) && smallD <= imagehash.SmallRadius {
					retrieved = true
					ownFine, _ = imagehash.Verify(fp, own)
				}
			}
			wrong, ownFound := 0, false
			var wrongIDs []string
			srch.search(fp, func(p, _, _ int) {
				if p == ownPos {
					ownFound = true
					return
				}
				if train[p].corpus == s.own && sigs[id] != "" && sigs[id] == sigs[train[p].id] || sameBitmap(p, ownPos) {
					return // the same strokes, or a pixel copy of its own bitmap
				}
				wrong++
				wrongIDs = append(wrongIDs, train[p].id)
			})
			mu.Lock()
			defer mu.Unlock()
			t.items++
			t.wrong += wrong
			for _, w := range wrongIDs {
				t.missed = append(t.missed, fmt.Sprintf("%s\t%s\twrong pair\t%s", s.name, id, w))
			}
			if fp.TooSmall() {
				t.tooSmall++
			}
			if fp.Squeezed() {
				t.squeezed++
				if ownFound && drawn == imagehash.ByThinnerPen {
					t.squeezedOnly++
				}
			}
			if ownFound && drawn == imagehash.ByThickerPen {
				t.thickerOnly++
			}
			switch {
			case ownFound: // as neardup finds it (the cut variants too)
				t.found++
				if by := srch.verifiedBy(fp, ownPos); strings.HasPrefix(by, "cut") {
					t.cutOnly = append(t.cutOnly, strings.TrimPrefix(by, "cut "))
				}
				return
			case !retrieved:
				t.retrieval++
				t.retrievalD[ownD]++
			default:
				t.verification++
				t.verificationFine = append(t.verificationFine, ownFine)
			}
			t.missedIDs = append(t.missedIDs, id)
			t.missed = append(t.missed, fmt.Sprintf("%s\t%s\t%s\tphash %d\tfine %d\tparts %d\tsmall key %d\tsmall ink %.2f\ttoo small %v", s.name, id, map[bool]string{true: "retrieval", false: "verification"}[!retrieved], ownD, ownFine, fp.Parts, smallD, smallInk, fp.TooSmall()))
		})
		cpu := cpuTime() - cpu0
		fmt.Printf("%-28s %5d %6d (%5.1f%%) %9d %12d %5d %12.0f\n", s.name, t.items, t.found, 100*float64(t.found)/float64(max(t.items, 1)),
			t.retrieval, t.verification, t.wrong, 1e6*cpu.Seconds()/float64(max(t.items, 1)))
		if t.squeezed > 0 {
			fmt.Printf("    squeezed queries (also drawn with thinner pens): %d, own bitmap verified only by a thinner pen: %d\n", t.squeezed, t.squeezedOnly)
		}
		if t.thickerOnly > 0 {
			fmt.Printf("    own bitmap verified only by the ink drawn with a thicker pen: %d\n", t.thickerOnly)
		}
		if len(t.cutOnly) > 0 {
			sort.Strings(t.cutOnly)
			fmt.Printf("    found by the cut variants alone: %d, at distances %v\n", len(t.cutOnly), t.cutOnly)
		}
		if t.retrieval+t.verification > 0 {
			sort.Ints(t.verificationFine)
			fmt.Printf("    retrieval misses by own pHash distance %v; verification misses' fine distances %v\n", sortedCounts(t.retrievalD), t.verificationFine)
			if t.tooSmall > 0 {
				fmt.Printf("    ink too small to verify (never verified but by identical pixels): %d\n", t.tooSmall)
			}
		}
		k := "fixed rasterizers (read, corners), " + corpusName[s.own]
		if strings.HasPrefix(s.name, "seed-") {
			k = "random rasterizers (seed-*), " + corpusName[s.own]
		}
		if sums[k] == nil {
			sums[k] = &summary{missedIn: map[string]int{}}
			sumKeys = append(sumKeys, k)
		}
		sums[k].add(&t)
		if missOut != nil {
			sort.Strings(t.missed)
			for _, m := range t.missed {
				fmt.Fprintln(missOut, m)
			}
		}
	}
	sort.Strings(sumKeys)
	for _, k := range sumKeys {
		sums[k].print(k)
	}
	if control {
		if err := runControl(srch, corpora["tr"], query, workers); err != nil {
			return err
		}
	}
	if controlCut != "" {
		for _, f := range strings.Split(controlCut, ",") {
			seed, err := strconv.ParseUint(strings.TrimSpace(f), 10, 64)
			if err != nil {
				return fmt.Errorf("-control-cut: %w", err)
			}
			if err := runControlCut(srch, corpora["tr"], query, seed, sameBitmap, workers); err != nil {
				return err
			}
		}
	}
	return nil
}

// corpusName names the corpus of a set by the corpus holding its items'
// bitmaps.
var corpusName = map[string]string{"c14": "2014", "tr": "train-sample"}

// summary adds up the sets of one kind (fixed or random rasterizers) and
// one corpus: the goal is at least 99% of each set found, so it counts
// the sets that reach it, and the items missed in most of them.
type summary struct {
	sets, met, items, found, wrong, tooSmall int
	missedIn                                 map[string]int // sets each item was missed in
}

// add counts one set's tally.
func (s *summary) add(t *tally) {
	s.sets++
	if 100*t.found >= 99*t.items {
		s.met++
	}
	s.items += t.items
	s.found += t.found
	s.wrong += t.wrong
	s.tooSmall += t.tooSmall
	for _, id := range t.missedIDs {
		s.missedIn[id]++
	}
}

// print writes the summary on a line, and the items missed in at least
// half of its sets (when it has two or more) on the next.
func (s *summary) print(name string) {
	fmt.Printf("summary, %s: %d sets, %d with at least 99%% found; found %d of %d (%.2f%%), wrong pairs %d, too small to verify %d\n",
		name, s.sets, s.met, s.found, s.items, 100*float64(s.found)/float64(max(s.items, 1)), s.wrong, s.tooSmall)
	if s.sets < 2 {
		return
	}
	var often []string
	for id, n := range s.missedIn {
		if 2*n >= s.sets {
			often = append(often, fmt.Sprintf("%s (%d)", id, n))
		}
	}
	if len(often) > 0 {
		sort.Strings(often)
		fmt.Printf("    missed in at least half of these sets: %s\n", strings.Join(often, ", "))
	}
}

// runControlCut searches CROHME train against the training bitmaps with
// each query's ink cut at a side (inkraster.ControlCut from seed,
// inkraster.CutImage: up to 3% of the ink box lost, no margin left there),
// so that the cut variants are searched, and lists every pair with a
// bitmap other than the query's own and its pixel copies: other writers'
// samples, wrong pairs, each counted from its query (a pair of two
// writers found from both is two). Each is marked with the rules that
// find and verify it (verifiedBy), and with "new" when the same query
// uncut does not make it (each query is also searched uncut, the
// baseline).
func runControlCut(srch *searcher, dir string, query imagehash.Options, seed uint64, sameBitmap func(i, j int) bool, workers int) error {
	train := srch.train
	var mu sync.Mutex
	queries, found, opened, byCutOnly, baseline, fresh := 0, 0, 0, 0, 0, 0
	var wrong []string
	eachTrainBitmap(train, dir, workers, func(i int, img image.Image) {
		side, share := inkraster.ControlCut(seed, train[i].id)
		whole, err := imagehash.Compute(img, query)
		if err != nil {
			return
		}
		fp, err := imagehash.Compute(inkraster.CutImage(img, side, share), query)
		if err != nil {
			return
		}
		before := map[int]bool{} // the uncut query's wrong pairs
		srch.search(whole, func(p, _, _ int) {
			if p != i && !sameBitmap(i, p) {
				before[p] = true
			}
		})
		own := false
		var mine []string
		cutOnly, isNew := 0, 0
		srch.search(fp, func(p, d, fine int) {
			if p == i {
				own = true
				return
			}
			if sameBitmap(i, p) {
				return
			}
			by := srch.verifiedBy(fp, p)
			if strings.HasPrefix(by, "cut") { // no other rule verifies it
				cutOnly++
			}
			mark := ""
			if !before[p] {
				mark = ", new"
				isNew++
			}
			mine = append(mine, fmt.Sprintf("%s~%s:%s (cut %.1f%% side %d, by %s, phash %d, fine %d, parts %d, ink %.2f%s)",
				train[i].id, train[p].corpus, train[p].id, 100*share, side, by, d, fine, fp.Parts, imagehash.InkDistance(fp, train[p].fp), mark))
		})
		mu.Lock()
		defer mu.Unlock()
		queries++
		if own {
			found++
		}
		if fp.CutKeys() != nil {
			opened++
		}
		byCutOnly += cutOnly
		baseline += len(before)
		fresh += isNew
		wrong = append(wrong, mine...)
	})
	sort.Strings(wrong)
	pct := func(n int) float64 { return 100 * float64(n) / float64(max(queries, 1)) }
	fmt.Printf("control with cut queries (seed %d), CROHME train against the bitmaps: %d queries, %d searched the cut variants, own bitmap found for %d (%.1f%%); wrong pairs %d (%.3f%%), %d of them verified only by a cut variant, %d not made uncut; uncut, the same queries make %d (%.3f%%)\n",
		seed, queries, opened, found, pct(found), len(wrong), pct(len(wrong)), byCutOnly, fresh, baseline, pct(baseline))
	for _, w := range wrong {
		fmt.Println("    " + w)
	}
	return nil
}

// verifiedBy names the rules that find training bitmap p for query fp
// and verify the pair, joined by "+": "phash" (within the radius,
// imagehash.Verify), "edge" (an edge key within imagehash.EdgeRadius,
// imagehash.VerifyEdge), "cut" (a cut variant at one of the query's open
// sides within imagehash.CutRadius, imagehash.VerifyCut; with its
// distance from the variant); "other" when
// none does (the small-ink keys).
func (s *searcher) verifiedBy(fp imagehash.Hashes, p int) string {
	tr := s.train[p].fp
	var by []string
	if _, ok := imagehash.Verify(fp, tr); ok && phashDistance(fp, tr) <= s.radius {
		by = append(by, "phash")
	}
	if s.edge != nil {
		k := tr.Ink.EdgeKey()
		for _, h := range fp.EdgeKeys() {
			if bits.OnesCount64(h^k) <= imagehash.EdgeRadius {
				if _, ok := imagehash.VerifyEdge(fp, tr); ok {
					by = append(by, "edge")
				}
				break
			}
		}
	}
	if s.cut != nil {
		keys := fp.CutKeys()
	sides:
		for side, k := range tr.Ink.CutVariantKeys() {
			for _, h := range keys {
				if k != 0 && bits.OnesCount64(h^k) <= imagehash.CutRadius {
					if d, ok := imagehash.VerifyCut(fp, tr, side); ok {
						by = append(by, fmt.Sprintf("cut %.3f", d))
						break sides
					}
					break
				}
			}
		}
	}
	if len(by) == 0 {
		return "other"
	}
	return strings.Join(by, "+")
}

// eachTrainBitmap calls f, on workers goroutines, with each CROHME train
// bitmap of the training side (corpus "tr", read from dir) that decodes,
// and its position in train.
func eachTrainBitmap(train []bitmap, dir string, workers int, f func(i int, img image.Image)) {
	first := 0
	for first < len(train) && train[first].corpus != "tr" {
		first++
	}
	parallel(len(train)-first, workers, func(k int) {
		i := first + k
		img, err := decodeFile(filepath.Join(dir, "img", train[i].id+".png"))
		if err != nil {
			return
		}
		f(i, img)
	})
}

// runControl searches CROHME train against itself and lists its verified
// pairs that are not pixel copies: other writers' samples of a formula,
// or copies with their points moved.
func runControl(srch *searcher, dir string, query imagehash.Options, workers int) error {
	train := srch.train
	var mu sync.Mutex
	identical := 0
	var others []string
	seen := map[[2]int]bool{}
	eachTrainBitmap(train, dir, workers, func(i int, img image.Image) {
		fp, err := imagehash.Compute(img, query)
		if err != nil {
			return
		}
		srch.search(fp, func(p, d, fine int) {
			if p == i || train[p].corpus != "tr" {
				return
			}
			key := [2]int{min(i, p), max(i, p)}
			mu.Lock()
			defer mu.Unlock()
			if seen[key] {
				return
			}
			seen[key] = true
			if fp.Digest == train[p].fp.Digest {
				identical++
				return
			}
			others = append(others, fmt.Sprintf("%s~%s (phash %d, fine %d, parts %d, ink %.2f)", train[i].id, train[p].id, d, fine, fp.Parts, imagehash.InkDistance(fp, train[p].fp)))
		})
	})
	sort.Strings(others)
	fmt.Printf("control, CROHME train against itself: %d pixel-identical pairs, %d other verified pairs\n", identical, len(others))
	for _, o := range others {
		fmt.Println("    " + o)
	}
	return nil
}

// testSets returns the sets to measure, and the stroke signature of each
// InkML file (the number of points of each trace: two files with the same
// signature hold the same strokes).
func testSets(data, seeds string) ([]testSet, map[string]string, error) {
	rs := inkraster.Corners()
	for _, s := range strings.Split(seeds, ",") {
		if s = strings.TrimSpace(s); s == "" {
			continue
		}
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return nil, nil, fmt.Errorf("-seeds: %w", err)
		}
		rs = append(rs, inkraster.Random(n))
	}
	sigs := map[string]string{}
	var sets []testSet
	for _, src := range []struct{ tag, dir, own string }{{"2014", "2014", "c14"}, {"train-sample", "train-sample", "tr"}} {
		files, err := inkFiles(filepath.Join(data, "crohme-inkml", src.dir), sigs)
		if err != nil {
			return nil, nil, err
		}
		sets = append(sets, testSet{"read-" + src.tag, src.own, "as leakaudit reads InkML", files, func(st []dataset.Stroke) (image.Image, error) {
			return dataset.RasterizeInk(st, dataset.InkOptions{})
		}})
		for _, r := range rs {
			sets = append(sets, testSet{r.Name + "-" + src.tag, src.own, r.String(), files, func(st []dataset.Stroke) (image.Image, error) {
				b, _, err := r.Encode(st)
				if err != nil {
					return nil, err
				}
				img, _, err := image.Decode(bytes.NewReader(b))
				return img, err
			}})
		}
	}
	return sets, sigs, nil
}

// inkFiles lists the InkML files under dir in lexical order, recording
// each one's stroke signature in sigs.
func inkFiles(dir string, sigs map[string]string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".inkml") {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		sigs[stem(p)] = inkraster.StrokeSignature(b)
		out = append(out, p)
		return nil
	})
	sort.Strings(out)
	return out, err
}

// renderFile reads an InkML file and draws its strokes with render.
func renderFile(p string, render func([]dataset.Stroke) (image.Image, error)) (image.Image, error) {
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, err
	}
	st, err := dataset.ParseInkTraces(b)
	if err != nil {
		return nil, err
	}
	if len(st) == 0 {
		return nil, fmt.Errorf("%s: no strokes", p)
	}
	return render(st)
}

func decodeFile(p string) (image.Image, error) {
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, err
	}
	img, _, err := image.Decode(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	return img, nil
}

func stem(p string) string { return strings.TrimSuffix(filepath.Base(p), filepath.Ext(p)) }

// parallel calls f(0…n-1) on workers goroutines.
func parallel(n, workers int, f func(i int)) {
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < max(1, workers); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				f(i)
			}
		}()
	}
	for i := 0; i < n; i++ {
		next <- i
	}
	close(next)
	wg.Wait()
}

// cpuTime is the CPU time (user and system) the process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// sortedCounts formats a distance histogram in distance order.
func sortedCounts(m map[int]int) string {
	var ks []int
	for k := range m {
		ks = append(ks, k)
	}
	sort.Ints(ks)
	var parts []string
	for _, k := range ks {
		parts = append(parts, fmt.Sprintf("%d:%d", k, m[k]))
	}
	return "{" + strings.Join(parts, " ") + "}"
}
