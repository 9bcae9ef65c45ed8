package main

import (
	"encoding/json"
	"io"
)

// writeJSON writes v indented, without HTML escaping, as every --json
// that prints one document does.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// writeJSONLine writes v as one line of compact JSON, without HTML
// escaping: a record of a --json that prints one object per input
// (tokens), and imege's one-line result.
func writeJSONLine(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
