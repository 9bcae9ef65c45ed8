package main

import (
	"bytes"
	"encoding/json"
	"testing"
)

// TestJSONWriters pins the bytes of the two --json writers: writeJSON
// indents by two spaces, writeJSONLine writes one compact line; neither
// escapes HTML characters, and both end in one newline.
func TestJSONWriters(t *testing.T) {
	v := map[string]any{"label": `a<b & c>d`, "n": json.Number("27.73"), "none": nil}
	for _, c := range []struct {
		name  string
		write func(*bytes.Buffer) error
		want  string
	}{
		{"writeJSON", func(b *bytes.Buffer) error { return writeJSON(b, v) },
			"{\n  \"label\": \"a<b & c>d\",\n  \"n\": 27.73,\n  \"none\": null\n}\n"},
		{"writeJSONLine", func(b *bytes.Buffer) error { return writeJSONLine(b, v) },
			"{\"label\":\"a<b & c>d\",\"n\":27.73,\"none\":null}\n"},
	} {
		var b bytes.Buffer
		if err := c.write(&b); err != nil {
			t.Fatal(err)
		}
		if b.String() != c.want {
			t.Errorf("%s wrote %q, want %q", c.name, b.String(), c.want)
		}
	}
}
