package dataset

// IsLimit reports whether a skip reason comes from a limit the user sets
// (--max-label-bytes, --max-pixels, --max-image-bytes). Most commands
// count such records without calling the input partial; dedup, which
// would drop them from the release it writes, calls it partial.
func IsLimit(reason string) bool { return isLimit(reason) }
