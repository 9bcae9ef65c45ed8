package canon

import (
	"strings"
	"sync"
	"testing"
)

func TestCanonAudit(t *testing.T) {
	tests := []struct{ in, want string }{
		{`\frac { 1 } { 2 }`, `\frac{1}{2}`},
		{`\[x^2\]`, `x^2`},
		{`\[\[x\]\]`, `\[x\]`},         // one strip only
		{` \[x\]`, `\[x\]`},            // no trim first: the strip is disabled
		{`\[x\] `, `\[x\]`},            // likewise at the end
		{"x\t+\u00a0y", "x\t+\u00a0y"}, // only U+0020 is deleted
		{"a\nb c", "a\nbc"},            // newlines kept
		{`$x$`, `$x$`},                 // $ is not handled
		{`\alpha b`, `\alphab`},        // the false merge of §1.4
		{`a \ b`, `a\b`},               // control space collapses
		{`\[\]`, ``},                   // empty inside
		{`\[]`, `\[]`},                 // too short to strip
		{`\(x\)`, `\(x\)`},             // \( is not handled
		{`\[ a \\]`, `a\`},             // the code strips by text, not by syntax
	}
	for _, tt := range tests {
		if got := AuditKey(tt.in); got != tt.want {
			t.Errorf("AuditKey(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestCanonWS(t *testing.T) {
	tests := []struct{ in, want string }{
		{`z \rightarrow x`, `z\rightarrow x`},
		{`\frac { 1 } { 2 }`, `\frac{1}{2}`},
		{"x\u00a0+\ty", "x+y"},
		{` \[x\]`, `x`},
		{`$x_k$`, `x_k`},
		{`$$x$$`, `x`},
		{`\(a\)`, `a`},
		{`\[ \[ x \] \]`, `x`}, // repeated strip
		{`$a$ and $b$`, `$a$and$b$`},
		{`\$x\$`, `\$x\$`}, // escaped dollars are not wrappers
		{`$x\$`, `$x\$`},   // the closing $ is escaped
		{`\begin{equation} a+b \end{equation}`, `a+b`},
		{`\begin{equation*}$x$\end{equation*}`, `x`},
		{`\begin{displaymath}x\end{displaymath}`, `x`},
		{`\[ a \\]`, `\[a\\]`}, // \\] is a line break and a bracket
		{`\alpha b`, `\alpha b`},
		{`\alpha  1`, `\alpha1`},
		{`\alpha _ { b }`, `\alpha_{b}`},
		{`a \ b`, `a\ b`},            // control space kept
		{"a\\\u3000\u3000b", `a\ b`}, // control space absorbs following spaces
		{`\, x`, `\,x`},
		{"x\u200b+\ufeffy", "x+y"},
		{"e\u0301", "\u00e9"}, // NFC
		{``, ``},
		{`\`, `\`},
	}
	for _, tt := range tests {
		if got := WSKey(tt.in); got != tt.want {
			t.Errorf("WSKey(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestLadderMerges checks the "first merged at" table
// (docs/canonical-ladder.md §5 and §7) for the levels registered so far.
func TestLadderMerges(t *testing.T) {
	raw, _ := LookupLevel("raw")
	audit, _ := LookupLevel("audit")
	ws, _ := LookupLevel("ws")
	tests := []struct {
		a, b        string
		raw, l1, l2 bool
	}{
		{`\frac { 1 } { 2 }`, `\frac{1}{2}`, false, true, true},
		{`\[x^2\]`, `x^2`, false, true, true},
		{` \[x\]`, `x`, false, false, true},
		{`$x_k$`, `x_k`, false, false, true},
		{"x\u00a0+y", "x+y", false, false, true},
		{`\alpha b`, `\alphab`, false, true, false},
		{`x^2`, `x^{2}`, false, false, false},
		{`x = 23`, `x = 32`, false, false, false},
		{`\pi`, `\Pi`, false, false, false},
	}
	eq := func(l Level, a, b string) bool {
		ka, _ := l.Canon(a)
		kb, _ := l.Canon(b)
		return ka == kb
	}
	for _, tt := range tests {
		if got := eq(raw, tt.a, tt.b); got != tt.raw {
			t.Errorf("raw(%q)==raw(%q): %v, want %v", tt.a, tt.b, got, tt.raw)
		}
		if got := eq(audit, tt.a, tt.b); got != tt.l1 {
			t.Errorf("audit(%q)==audit(%q): %v, want %v", tt.a, tt.b, got, tt.l1)
		}
		if got := eq(ws, tt.a, tt.b); got != tt.l2 {
			t.Errorf("ws(%q)==ws(%q): %v, want %v", tt.a, tt.b, got, tt.l2)
		}
	}
}

func TestParseLevels(t *testing.T) {
	ls, err := ParseLevels("ws, audit,ws")
	if err != nil {
		t.Fatal(err)
	}
	if len(ls) != 2 || ls[0].Name != "audit" || ls[1].Name != "ws" {
		t.Errorf("ParseLevels = %v, want [audit ws]", ls)
	}
	if _, err := ParseLevels("audit,bogus"); err == nil {
		t.Error("ParseLevels accepted an unknown level")
	}
	if _, err := ParseLevels(" , "); err == nil {
		t.Error("ParseLevels accepted an empty list")
	}
}

// FuzzCanonWS checks the invariants of the ws key on any input: the only
// whitespace left is U+0020, and each one either belongs to a control space
// or separates a control word from an ASCII letter. It also checks that the
// audit key has no U+0020 at all.
func FuzzCanonWS(f *testing.F) {
	for _, s := range []string{`\[x\]`, `$a$`, `\alpha b`, "a\\\tb", `\begin{math}x\end{math}`, "\\\u00a0x", `\\ a`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if strings.Contains(AuditKey(s), " ") {
			t.Fatalf("audit key of %q keeps a space", s)
		}
		k := []rune(WSKey(s))
		for i, r := range k {
			if !IsSpace(r) {
				continue
			}
			if r != ' ' {
				t.Fatalf("ws key of %q keeps %U", s, r)
			}
			if i > 0 && k[i-1] == '\\' && backslashRun(k, i-1)%2 == 1 {
				continue // control space
			}
			if i == 0 || i+1 >= len(k) || !isASCIILetter(k[i-1]) || !isASCIILetter(k[i+1]) || !endsControlWord(k, i) {
				t.Fatalf("ws key %q of %q has a stray space at %d", string(k), s, i)
			}
		}
	})
}

// backslashRun counts the backslashes ending at k[i].
func backslashRun(k []rune, i int) int {
	n := 0
	for ; i >= 0 && k[i] == '\\'; i-- {
		n++
	}
	return n
}

// endsControlWord reports whether the letters before k[i] are a control
// word: preceded by an odd run of backslashes.
func endsControlWord(k []rune, i int) bool {
	j := i - 1
	for j >= 0 && isASCIILetter(k[j]) {
		j--
	}
	return j >= 0 && k[j] == '\\' && backslashRun(k, j)%2 == 1
}

// TestTokenAndRenderLevels checks the "first merged at" table of the audit
// protocol (§3.4) for the tokens and render levels.
func TestTokenAndRenderLevels(t *testing.T) {
	tokens, _ := LookupLevel("tokens")
	render, _ := LookupLevel("render")
	eq := func(l Level, a, b string) bool {
		ka, _ := l.Canon(a)
		kb, _ := l.Canon(b)
		return ka == kb
	}
	tests := []struct {
		a, b   string
		l3, l4 bool
	}{
		{`x^2`, `x^{2}`, true, true},
		{`x_a^b`, `x^{b}_{a}`, true, true},
		{`\sum\limits_{i}`, `\sum_{i}`, true, true},
		{`a \le b`, `a \leq b`, true, true},
		{`y \gt z`, `y > z`, true, true},
		{`\left( x \right)`, `( x )`, true, true},
		{`\sin x`, `\operatorname{sin} x`, true, true},
		{`\sin x`, `\mathrm{sin} x`, true, true},
		{`{\rm d}x`, `\mathrm{d}x`, true, true},
		{`{\bf x}`, `\mathbf{x}`, true, true},
		{`\cdots`, `\ldots`, true, true},
		{`x'`, `x^{\prime}`, true, true},
		{`x''^{2}`, `x^{\prime\prime 2}`, true, true},
		{`\frac ab`, `\dfrac{a}{b}`, true, true},
		{`\big( x \big)`, `( x )`, true, true},
		{`a \ne b`, `a \neq b`, true, true},
		{`a\,b`, `ab`, false, true},
		{`-{\frac{1}{2}}`, `-\frac{1}{2}`, false, true},
		{`a \cdot b`, `a \cdotp b`, false, true},
		{`x = 23`, `x = 32`, false, false},
		{`\pi`, `\Pi`, false, false},
		{`\alpha b`, `\alphab`, false, false},
		{`\varepsilon`, `\epsilon`, false, false},
	}
	for _, tt := range tests {
		if got := eq(tokens, tt.a, tt.b); got != tt.l3 {
			ka, _ := tokens.Canon(tt.a)
			kb, _ := tokens.Canon(tt.b)
			t.Errorf("tokens(%q)==tokens(%q): %v, want %v (%q vs %q)", tt.a, tt.b, got, tt.l3, ka, kb)
		}
		if got := eq(render, tt.a, tt.b); got != tt.l4 {
			ka, _ := render.Canon(tt.a)
			kb, _ := render.Canon(tt.b)
			t.Errorf("render(%q)==render(%q): %v, want %v (%q vs %q)", tt.a, tt.b, got, tt.l4, ka, kb)
		}
	}
	// Failures equal only failures with the same ws key.
	k1, err1 := tokens.Canon(`\frac{a}`)
	k2, _ := tokens.Canon(`\frac {a}`)
	k3, _ := tokens.Canon(`\frac{b}`)
	if err1 == nil || !IsFailedKey(k1) || k1 != k2 || k1 == k3 {
		t.Errorf("failure keys %q %q %q (%v)", k1, k2, k3, err1)
	}
}

// TestTokenLevelsConcurrent computes the token levels of different labels
// from many goroutines (sharing the last-result cache) and checks every key
// against a sequential computation.
func TestTokenLevelsConcurrent(t *testing.T) {
	labels := []string{`x^2`, `\frac ab`, `\left( x \right)`, `\sin x`, `a\,b`, `\frac{a}`, `x''^{2}`, `{\bf x}`}
	want := map[string][2]string{}
	for _, s := range labels {
		a, _ := TokensKey(s)
		b, _ := RenderKey(s)
		want[s] = [2]string{a, b}
	}
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 500; i++ {
				s := labels[(g+i)%len(labels)]
				a, _ := TokensKey(s)
				b, _ := RenderKey(s)
				if w := want[s]; a != w[0] || b != w[1] {
					errs <- s
					return
				}
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for s := range errs {
		t.Errorf("concurrent keys of %q differ from sequential ones", s)
	}
}

func TestAppendKeyMatchesCanon(t *testing.T) {
	for _, l := range Levels() {
		for _, s := range []string{"", " ", `\[ x \]`, `\[x\]`, "a b  c", `\[ \]`, "\\alpha b", " x^{2} ", "\u00a0x y\t",
			"\\ \t x", "\\alpha\u3000b", "$ x \\in A $", "\\begin{equation} \\sin x \\end{equation}", "a\xffb \\c d", "\\\u00e9 x", "\\"} {
			want, _ := l.Canon(s)
			if got := string(l.Append([]byte("pre"), s)); got != "pre"+want {
				t.Errorf("%s: Append(%q) = %q, want %q", l.Name, s, got, "pre"+want)
			}
		}
	}
}

// TestDigests: one pass over a label gives every level's Digest and the
// TokenCount, with and without a salt, for labels the fast path takes,
// labels only the chain takes, labels the tokenizer refuses and more
// levels than Digests keeps on the stack.
func TestDigests(t *testing.T) {
	levels := Levels()
	many := append(append([]Level{}, levels...), levels...)
	many = append(many, levels...)
	for _, salt := range [][]byte{nil, []byte("s")} {
		for _, s := range []string{"", " ", `\[ x \]`, "a b  c", `\frac{a}{b}`, `x^{2`, `\frac{a}`, `}{`, `\left( x \right)`,
			`{\bf x} \not= y`, "a\xffb \\c d", `\begin{matrix} a & b \\ c & d \end{matrix}`, `\mathbb{R}`, `\sqrt[3]{x}`, `\\`} {
			for _, ls := range [][]Level{levels, many, nil} {
				out := make([]Digest, len(ls))
				n, ok := Digests(s, ls, salt, out)
				wantN, wantOK := TokenCount(s)
				if n != wantN || ok != wantOK {
					t.Errorf("Digests(%q) count = %d, %v; TokenCount = %d, %v", s, n, ok, wantN, wantOK)
				}
				for i, l := range ls {
					if want := l.Digest(s, salt); out[i] != want {
						t.Errorf("Digests(%q, salt %q) at %s = %x, want %x", s, salt, l.Name, out[i], want)
					}
				}
			}
		}
	}
}
