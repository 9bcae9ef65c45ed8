package dataset

import (
	"encoding/json"
	"testing"
)

// TestUnquoteMatchesEncodingJSON checks the JSON string decoder against
// encoding/json on escapes, surrogate pairs, lone surrogates and malformed
// literals.
func TestUnquoteMatchesEncodingJSON(t *testing.T) {
	for _, lit := range []string{
		`""`, `"x"`, `"\\frac{a}{b}"`, `"a\"b"`, `"\/\b\f\n\r\t"`, `"\u00e9\u4e2d"`, `"\ud83d\ude00"`,
		`"\ud83d"`, `"\ude00x"`, `"\ud83d\u0041"`, `"tail\\"`, `"x\u0000y"`, `"\\\\alpha"`,
		`"bad\q"`, `"bad\u12"`, `"bad\u12zz"`, "\"ctrl\x01\"", `"trailing\"`,
	} {
		var want string
		werr := json.Unmarshal([]byte(lit), &want)
		got, ok := unquote([]byte(lit))
		if (werr == nil) != ok || ok && got != want {
			t.Errorf("unquote(%s) = %q, %v; encoding/json %q, %v", lit, got, ok, want, werr)
		}
	}
}

func TestHasControl(t *testing.T) {
	for n := 0; n < 40; n++ {
		for pos := -1; pos < n; pos++ {
			for _, c := range []byte{0x00, 0x1f, 0x20, 0x7f, 0x80, 0x9f, 0xff} {
				b := make([]byte, n)
				for i := range b {
					b[i] = 'a' + byte(i%26)
				}
				if pos >= 0 {
					b[pos] = c
				}
				want := pos >= 0 && c < 0x20
				if got := hasControl(b); got != want {
					t.Fatalf("hasControl(%q) = %v", b, got)
				}
			}
		}
	}
}

// TestCoerceStringMatchesEncodingJSON: coerceString's string fast path
// gives what encoding/json gives, invalid UTF-8 included.
func TestCoerceStringMatchesEncodingJSON(t *testing.T) {
	for _, lit := range []string{
		`""`, `"x"`, `"\\frac{a}{b}"`, `"a\"b"`, `"\/\b\f\n\r\t"`, `"\u00e9\u4e2d"`, `"\ud83d\ude00"`,
		`"\ud83d"`, `"\ude00x"`, `"\ud83d\u0041"`, `"tail\\"`, `"x\u0000y"`, "\"bad \xff byte\"", "\"cut \xe2\x82\"",
	} {
		var want string
		if err := json.Unmarshal([]byte(lit), &want); err != nil {
			t.Fatalf("%s: %v", lit, err)
		}
		if got, ok := coerceString(json.RawMessage(lit)); !ok || got != want {
			t.Errorf("coerceString(%s) = %q, %v; encoding/json %q", lit, got, ok, want)
		}
	}
}
