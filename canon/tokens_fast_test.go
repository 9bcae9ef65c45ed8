package canon

import (
	"bytes"
	"flag"
	"go/format"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/leakaudit/leakaudit/dataset"
	"github.com/leakaudit/leakaudit/internal/shareddata"
)

// checkFast compares the fast path with the chain on one label and
// reports whether the fast path took it (wrote its tokens or told that
// the chain fails).
func checkFast(t *testing.T, s string) bool {
	t.Helper()
	ws := WSKey(s)
	got, r := fastTokens(ws, nil)
	if r == fastDeclined {
		return false
	}
	want, wok := chainComputeTokens(ws)
	switch {
	case r == fastFails && wok:
		t.Errorf("fast path says the chain fails on %q, but it writes %q", ws, strings.Join(want, " "))
	case r == fastTook && (!wok || !equalTokens(got, want)):
		t.Errorf("fast path on %q:\n got %q\nwant %q (chain ok %v)", ws, strings.Join(got, " "), strings.Join(want, " "), wok)
	}
	return true
}

// TestFastTokensCases: formulas the fast path must take, decline, or
// tell the chain fails on; where it takes one, it agrees with the chain.
func TestFastTokensCases(t *testing.T) {
	take := []string{`x^2`, `x_a^b`, `x^b_a`, `\frac12`, `\frac{a}{b}`, `{x}`, `\sqrt[3]{x}`, `\sqrt x`, `\left(x\right)`,
		`\sin x`, `\alpha\beta`, `1.5`, `\{a\}`, `|x|`, `a\,b`, `\cdots`, `\lim_{x\to0}`, `\sum_{i=1}^n`, `\int_0^1`,
		`\left.\frac{a}{b}\right|_{x=0}`, `x \leq y`, `\neq`, `\bigcup_{i}A_i`, `a-b`, `{}^{14}C`, `\mathrm{d}x`, `\hat x`,
		`\overline{ab}`, `\sum\limits_{i=1}^{n}`, `\lim\limits_{x\to0}`, `\mathbf{x}^2`, `\textcircled{1}`,
		`x^a^b`, `x_a_b`, `x^`, `x_a^b_c`, `x^{2}^`, `\frac12^`, `\sum\limits^`, `x^{{\prime}}^2`, `x^^`, `x_^2`, `x^_^`, `^2`, `{_}`, `{^2}`, `^{2}x`, `x^\frac12`, `x_\frac{a}{b}^2`}
	// A "}" where the top level expects an atom.
	fails := []string{`}`, `x}`, `x}y`, `{x}}`, `x^{a}}`, `}{2}`, `\frac{a}{b}}=\pi`, `\left(x\right)}`, `\sqrt[3]{x}}^2`,
		`a}\sqrt`, `a}\over b`,
		// a group or \left…\right left open, and a "}" read as a script or
		// \frac argument, then one too many
		`{x^}`, `\left(x`, `x\right)`, `{x`, `\left(x}\right)`, `{x\right)}`, `x^}2}`, `\frac{a}}}`, `\sqrt}}`, `T_{1^}`,
		// \limits after what is not an operator
		`x\limits_2`, `{\sum}\limits`, `\frac12\nolimits`, `\left(x\right)\limits`,
		// even when a script of the base holds one (tokens version 1 took these)
		`x_{\min}\limits`, `f(x)_{\min}\limits f(2)`, `{\arcsin}\limits`, `x^{\sum_a}\nolimits`}
	decline := []string{`x'`, `x^\prime^2`, `x^{\prime}^2`, `x^{\prime a}^{b}`, `a--b`, `x^--`, `\not=`,
		`\lim\nolimits_{x}`, `\sqrt[\textrm a]{x}`, `\sum\limits\nolimits_i`, `\mathrm{\alpha}`, `\mathrm{x^2}`, `\hat{}`, `\hat\hat x`,
		`\sqrt[[a]]{x}`, `\sqrt[\mathrm{[}]{x}`, `\sqrt[\mathrm{]}]{x}`, `a \over b`, `\begin{matrix}a\end{matrix}`, `tabular`, `SSSSSS`, `\sqrt SSSSSS`, `\frac SS SSSS`, `α`, ``, `\left.\right.`,
		`\left<x\right>`, `\ `, `~`, `a&b`, `a\\b`, `\%`, `a$x`,
		strings.Repeat("{", 100) + "x" + strings.Repeat("}", 100),
		// A "}" the fast path cannot tell about: as a script or \frac
		// argument (the chain reads it as a symbol), after a construct
		// outside the subset, or where a preparing pass acts.
		`x^}`, `x_}^2`, `\frac{a}}{2}`, `\sqrt}`, `\frac\frac12 3`, `x'}`, `a \over b}`, `{\textbf}`, `x}α`, `x}%`, `x}$`, `x}\\y`, `x}\label{a}`, `x}\begin{matrix}a\end{matrix}`}
	for _, c := range []struct {
		want fastResult
		in   []string
	}{{fastTook, take}, {fastFails, fails}, {fastDeclined, decline}} {
		for _, s := range c.in {
			if _, got := fastTokens(WSKey(s), nil); got != c.want {
				t.Errorf("fastTokens(%q) = %v, want %v", s, got, c.want)
			}
			checkFast(t, s)
		}
	}
}

// TestFastTokensMatchChain runs every label and prediction of the shared
// data through both paths: wherever the fast path takes a formula, its
// tokens must be the chain's.
func TestFastTokensMatchChain(t *testing.T) {
	dir := shareddata.Dir(t)
	files, _ := filepath.Glob(filepath.Join(dir, "labels", "*.json"))
	preds, _ := filepath.Glob(filepath.Join(dir, "predictions", "*", "*.json"))
	files = append(files, preds...)
	more, _ := filepath.Glob(filepath.Join(dir, "im2latex", "formulas", "*"))
	files = append(files, more...)
	seen := map[string]bool{}
	var n, took int
	for _, f := range files {
		_, err := dataset.Scan(dataset.Source{Path: f}, func(it dataset.Item) error {
			for _, s := range []string{it.Label, it.Pred} {
				if s == "" || seen[s] {
					continue
				}
				seen[s] = true
				n++
				if checkFast(t, s) {
					took++
				}
			}
			return nil
		})
		if err != nil {
			t.Logf("%s: %v", f, err)
		}
	}
	t.Logf("%d distinct formulas, the fast path took %d (%.1f%%)", n, took, 100*float64(took)/float64(n))
	if n > 100000 && took < n/2 {
		t.Errorf("the fast path took only %d of %d", took, n)
	}
}

// TestFastTokensRandom: random formulas over the fast path's symbols and
// constructs, and random mutations of them (which the fast path must
// either decline or write as the chain does).
func TestFastTokensRandom(t *testing.T) {
	tab := fastSymbols()
	var syms []string
	for name := range tab.cmds {
		syms = append(syms, name)
	}
	for c := range tab.chars {
		if tab.chars[c] != nil {
			syms = append(syms, string(rune(c)))
		}
	}
	var delims, cmds []string
	for d := range tab.delims {
		delims = append(delims, d)
	}
	for name := range tab.oneArg {
		cmds = append(cmds, name)
	}
	sortStrings(cmds)
	// Deterministic order for the seeded generator.
	sortStrings(syms)
	sortStrings(delims)
	seed, _ := strconv.ParseUint(os.Getenv("LEAKAUDIT_FAST_SEED"), 10, 64)
	r := rand.New(rand.NewPCG(1, 2+seed))
	var gen func(depth int) string
	gen = func(depth int) string {
		var b strings.Builder
		for range 1 + r.IntN(5) {
			k := r.IntN(23)
			if depth > 3 {
				k = 0
			}
			switch {
			case k < 11:
				writeJoined(&b, syms[r.IntN(len(syms))])
			case k < 13:
				writeJoined(&b, "{"+gen(depth+1)+"}")
			case k < 14:
				writeJoined(&b, `\frac{`+gen(depth+1)+"}{"+gen(depth+1)+"}")
			case k < 15:
				writeJoined(&b, `\frac`)
				writeJoined(&b, syms[r.IntN(len(syms))])
				writeJoined(&b, syms[r.IntN(len(syms))])
			case k < 16:
				writeJoined(&b, `\sqrt`)
				if r.IntN(2) == 0 {
					writeJoined(&b, "["+gen(depth+1)+"]")
				}
				writeJoined(&b, "{"+gen(depth+1)+"}")
			case k < 17:
				writeJoined(&b, `\left`)
				writeJoined(&b, delims[r.IntN(len(delims))])
				writeJoined(&b, gen(depth+1))
				writeJoined(&b, `\right`)
				writeJoined(&b, delims[r.IntN(len(delims))])
			case k < 19:
				writeJoined(&b, cmds[r.IntN(len(cmds))])
				if r.IntN(3) == 0 {
					writeJoined(&b, syms[r.IntN(len(syms))])
				} else {
					writeJoined(&b, "{"+gen(depth+1)+"}")
				}
			default:
				writeJoined(&b, syms[r.IntN(len(syms))])
				if r.IntN(4) == 0 {
					writeJoined(&b, []string{`\limits`, `\nolimits`}[r.IntN(2)])
				}
				for range 1 + r.IntN(3) {
					writeJoined(&b, []string{"^", "_"}[r.IntN(2)])
					switch r.IntN(6) {
					case 5:
						writeJoined(&b, []string{"^", "_"}[r.IntN(2)])
					case 0, 1:
						writeJoined(&b, syms[r.IntN(len(syms))])
					case 2:
						writeJoined(&b, `{\prime `+gen(depth+1)+"}")
					default:
						writeJoined(&b, "{"+gen(depth+1)+"}")
					}
				}
			}
		}
		return b.String()
	}
	n := 200000
	if v, err := strconv.Atoi(os.Getenv("LEAKAUDIT_FAST_RANDOM")); err == nil {
		n = v // a longer run
	}
	if testing.Short() {
		n = 20000
	}
	var took, mutTook int
	for i := range n {
		s := gen(0)
		if r.IntN(8) == 0 {
			s += []string{"^", "_", " ^", "^{x}_"}[r.IntN(4)] // a script at the end
		}
		if checkFast(t, s) {
			took++
		}
		// A mutation: delete, duplicate or insert a byte.
		m := []byte(s)
		j := r.IntN(len(m))
		switch r.IntN(3) {
		case 0:
			m = append(m[:j], m[j+1:]...)
		case 1:
			m = append(m[:j+1], m[j:]...)
		default:
			m = append(m[:j], append([]byte{"{}^_[]\\ '-"[r.IntN(10)]}, m[j:]...)...)
		}
		if checkFast(t, string(m)) {
			mutTook++
		}
		if t.Failed() && i > 100 {
			break
		}
	}
	t.Logf("%d random formulas: the fast path took %d; of their mutations %d", n, took, mutTook)
}

func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// FuzzFastTokens: on any input, the fast path declines or writes the
// chain's tokens.
func FuzzFastTokens(f *testing.F) {
	for _, s := range []string{`x^2`, `\frac{a}{b}_c^d`, `\sqrt[3]{x}`, `\left(x\right)^2`, `\sum_{i=1}^n a_i`, `x^{a}_{b}`,
		`\sqrt[\frac ab]{]}`, `a--b`, `{}^{14}C`, `\lim_{x\to0}\frac{\sin x}{x}=1`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { checkFast(t, s) })
}

var update = flag.Bool("update", false, "rewrite tokens_fast_table.go from the chain")

// TestFastTableCurrent: the stored table is the one the checks derive
// from the chain now; -update rewrites it.
func TestFastTableCurrent(t *testing.T) {
	src, err := format.Source([]byte(fastTableSource(buildFastTable())))
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile("tokens_fast_table.go", src, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	have, err := os.ReadFile("tokens_fast_table.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(have, src) {
		t.Fatal("tokens_fast_table.go is stale: go test ./canon -run TestFastTableCurrent -update")
	}
}
