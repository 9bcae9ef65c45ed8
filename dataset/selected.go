package dataset

import "context"

// selectedBatch is how many items ScanSelected reads between two calls of
// its read function.
const selectedBatch = 4096

// A KeepLabel is an item's label as ScanSelected's keep sees it, valid
// only during the call.
type KeepLabel struct {
	// Label is the item's label.
	Label string
	// NoSpace is Label with every U+0020 removed when the reader made it
	// in its decoding pass (a JSON string list's labels without a \u
	// escape), so that the audit level's key needs no pass of its own;
	// otherwise "". A label that is kept or looked at is never all
	// spaces, so NoSpace is never "" when it was made.
	NoSpace string
}

// ScanSelected is ScanMapped for a caller that keeps few of the items, such
// as lookups of a test set's keys in a large training corpus: keep computes
// a value from an item's label alone, on workers goroutines (0: one per
// CPU), and says whether the item is kept; fn is called, in file order and
// one call at a time, with each kept item and its value. The label keep
// sees is valid only during the call (a JSON string list's labels are
// decoded into a buffer the worker reuses, and an item that is not kept
// costs no allocation); keep must be safe for concurrent use. read, when
// not nil, is told how many items were read since it was last called (the
// skipped ones are not counted), from fn's goroutine. The scan stops when
// ctx is cancelled or fn returns an error; the Stats are ScanMapped's.
func ScanSelected[T any](ctx context.Context, src Source, workers int, keep func(label KeepLabel) (T, bool), fn func(Item, T) error, read func(n int64)) (Stats, error) {
	type selected struct {
		v    T
		kept bool
	}
	n := int64(0)
	st, err := scanMapped(ctx, src, workers, func(it Item) selected {
		v, kept := keep(KeepLabel{Label: it.Label})
		return selected{v, kept}
	}, func(it Item, s selected) error {
		if n++; n >= selectedBatch && read != nil {
			read(n)
			n = 0
		}
		if !s.kept {
			return nil
		}
		return fn(it, s.v)
	}, func(label KeepLabel) (selected, bool) {
		v, kept := keep(label)
		return selected{v, kept}, kept
	}, func(k int) error {
		if n += int64(k); n >= selectedBatch && read != nil {
			read(n)
			n = 0
		}
		return nil
	})
	if n > 0 && read != nil {
		read(n)
	}
	return st, err
}
