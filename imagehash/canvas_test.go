package imagehash

import "testing"

func TestParseCanvas(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Canvas
		ok   bool
	}{
		{"stretch", Stretch, true},
		{"aspect", Aspect, true},
		{"", "", false},
		{"Stretch", "", false},
		{"square", "", false},
		{"aspect ", "", false},
	} {
		got, err := ParseCanvas(c.in)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("ParseCanvas(%q) = %q, %v; want %q, ok %v", c.in, got, err, c.want, c.ok)
		}
	}
}
