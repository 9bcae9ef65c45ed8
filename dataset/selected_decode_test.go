package dataset

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// slowSelected is what selectElems computed before decodeSelected: the
// raw checks, then the decoder into a buffer.
func slowSelected(raw []byte) (string, string) {
	if reason := rawReason(raw, len(raw)); reason != "" {
		return "", reason
	}
	out, ok := appendUnquoted(nil, raw)
	if !ok {
		return "", ReasonMalformed
	}
	return string(out), ""
}

// checkDecodeSelected compares decodeSelected with slowSelected on one
// literal, decoding into buffers that hold bytes already.
func checkDecodeSelected(t *testing.T, raw []byte) {
	t.Helper()
	want, wantReason := slowSelected(raw)
	label, nosp, reason, fused := decodeSelected([]byte("stale bytes"), []byte("stale"), raw)
	if reason != wantReason || reason == "" && string(label) != want {
		t.Fatalf("%q: decodeSelected %q %q, want %q %q", raw, label, reason, want, wantReason)
	}
	if fused && (reason != "" || string(nosp) != strings.ReplaceAll(want, " ", "")) {
		t.Fatalf("%q: label less its spaces %q (reason %q), want %q", raw, nosp, reason, strings.ReplaceAll(want, " ", ""))
	}
	if !fused && reason == "" && !strings.Contains(string(raw), `\u`) {
		t.Fatalf("%q: not fused without a \\u escape", raw)
	}
}

// TestDecodeSelected: the one-pass decoder gives the reasons and labels of
// the raw checks and appendUnquoted on every kind of element, and the
// label less its spaces whenever it says it made it.
func TestDecodeSelected(t *testing.T) {
	for _, body := range []string{
		``, ` `, `   `, `x`, ` x `, `\\frac { a } { b }`, `\\[ x \\]`, `\\[\\]`,
		`a\"b`, `\\\\`, `a\/b`, `\b\f\n\r\t`, `x\ty`, `\n`,
		`\u0041`, `\u0020x\u0020`, `a b\u00e9 c`, `\ud83d\ude00 x`, `\ud83d`, `\ude00 y`, `\u12`, `\uzzzz`,
		`\q`, `\`, `a\`, "a\x01b", "\x1f", "tab\tin", "é α ∑", "\u00a0", "\u3000x",
		"\xff", "a\xffb c", "\xff\x01", "\xc3", "\xed\xa0\x80", "\xff\\u0041", "\xff\\q", "\xff\\",
		"x\u2028y", "\x7f",
	} {
		checkDecodeSelected(t, []byte(`"`+body+`"`))
	}
	// Each byte that is not plain at each place of two words, among
	// spaces or not.
	for _, text := range []string{"abcdefghijklmnopqrs", "a b c d e f g h i j", "        x        "} {
		for _, odd := range []string{`\\`, `\n`, `\u0020`, `\q`, "\x01", "\x7f", "\xff", "é", " "} {
			for p := range len(text) + 1 {
				checkDecodeSelected(t, []byte(`"`+text[:p]+odd+text[p:]+`"`))
			}
		}
	}
	// Random literals over the bytes that matter.
	rng := rand.New(rand.NewPCG(37, 41))
	alphabet := []string{"a", " ", `\\`, `\"`, `\/`, `\n`, `\t`, `\b`, `\f`, `\r`, `\u0020`, `\u00e9`, `\ud83d`, `\ude00`, `\x`, `\`, "\x01", "\t", "é", "\xff", "\xc3", "[", "]"}
	for range 20000 {
		var b strings.Builder
		b.WriteByte('"')
		for range rng.IntN(12) {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		b.WriteByte('"')
		checkDecodeSelected(t, []byte(b.String()))
	}
}
