package main

import (
	"encoding/json"
	"io"
)

// writeJSON writes v indented, without HTML escaping, as every --json does.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
