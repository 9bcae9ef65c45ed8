package imagehash

import (
	"context"
	"runtime"
	"sync"

	"github.com/leakaudit/leakaudit/dataset"
)

// Version is the version of the normalization and hashing code; it is
// bumped whenever either changes, so that hashes stored by one version
// (an index, a fingerprint) are never compared with another's.
const Version = 5

// HashItems decodes and hashes items on all cores, returning results
// in input order; failed[i] holds the reason item i could not be hashed.
func HashItems(items []dataset.ImageItem, lim dataset.ImageLimits, o Options, workers int) (prints []Hashes, failed []string) {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	prints = make([]Hashes, len(items))
	failed = make([]string, len(items))
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				img, err := items[i].Decode(lim)
				if err == nil {
					prints[i], err = Compute(img, o)
				}
				if err != nil {
					failed[i] = err.Error()
				}
			}
		}()
	}
	for i := range items {
		next <- i
	}
	close(next)
	wg.Wait()
	return prints, failed
}

// Scan reads an image source and hashes every image, calling fn in
// source order with batches hashed on all cores; progress, when set, is
// told how many items each batch held. Images that cannot be decoded are
// counted in the returned stats with their reason (never fatal) and, like
// the images the scan skips, passed to src.OnSkip when it is set. The
// second result is the number of images hashed.
func Scan(ctx context.Context, src dataset.ImageSource, o Options, workers int, progress func(n int64), fn func(dataset.ImageItem, Hashes) error) (dataset.Stats, int64, error) {
	var batch []dataset.ImageItem
	var hashed int64
	var undecodable []dataset.Skip
	flush := func() error {
		if err := ctx.Err(); err != nil {
			return err
		}
		prints, failed := HashItems(batch, src.Limits, o, workers)
		for i, it := range batch {
			if failed[i] != "" {
				k := dataset.Skip{Seq: it.Seq, ID: it.ID, Where: it.Where, Reason: failed[i]}
				undecodable = append(undecodable, k)
				if src.OnSkip != nil {
					src.OnSkip(k)
				}
				continue
			}
			hashed++
			if err := fn(it, prints[i]); err != nil {
				return err
			}
		}
		if progress != nil {
			progress(int64(len(batch)))
		}
		batch = batch[:0]
		return nil
	}
	st, err := dataset.ScanImages(src, func(it dataset.ImageItem) error {
		batch = append(batch, it)
		if len(batch) >= 256 {
			return flush()
		}
		return nil
	})
	if err == nil && len(batch) > 0 {
		err = flush()
	}
	for _, k := range undecodable {
		st.AddSkip(k)
	}
	st.Items -= int64(len(undecodable))
	return st, hashed, err
}
