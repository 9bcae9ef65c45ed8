package neardup

import (
	"sync"

	"github.com/leakaudit/leakaudit/imagehash"
	"github.com/leakaudit/leakaudit/index"
)

// smallKeys searches a Matcher's images at the small-ink levels
// (imagehash.Hashes.SmallLevels): a query whose ink a thick pen merged
// on a small canvas is keyed against each image's stored ink closed at
// the query's level. A level's index is built the first time a query
// needs it, so a search without small ink costs nothing more.
type smallKeys struct {
	print  func(i int) *imagehash.Hashes
	pos    []int // the positions of the images with ink
	once   [imagehash.NumSmallLevels]sync.Once
	levels [imagehash.NumSmallLevels]*index.Hamming
}

// newSmallKeys prepares the small-ink search over n images, the i-th's
// hashes print(i); nil when no image has ink.
func newSmallKeys(n int, print func(i int) *imagehash.Hashes) *smallKeys {
	s := &smallKeys{print: print}
	for i := range n {
		if !print(i).Ink.IsZero() {
			s.pos = append(s.pos, i)
		}
	}
	if len(s.pos) == 0 {
		return nil
	}
	return s
}

// level returns the index of the images' keys at a small level.
func (s *smallKeys) level(l int) *index.Hamming {
	s.once[l].Do(func() {
		keys := make([]uint64, len(s.pos))
		for i, p := range s.pos {
			keys[i] = s.print(p).Ink.SmallKey(l)
		}
		s.levels[l] = index.NewHamming(keys)
	})
	return s.levels[l]
}

// search calls fn with the position of each image a query's small-ink
// keys find within imagehash.SmallRadius at one of its levels, once
// each; nothing for a query whose ink is not small.
func (s *smallKeys) search(fp imagehash.Hashes, fn func(pos int)) {
	if s == nil {
		return
	}
	levels := fp.SmallLevels()
	if len(levels) == 0 {
		return
	}
	seen := map[int]bool{}
	for _, l := range levels {
		s.level(l).SearchAny(fp.SmallKeys(l), imagehash.SmallRadius, func(i, _ int) {
			if p := s.pos[i]; !seen[p] {
				seen[p] = true
				fn(p)
			}
		})
	}
}
