// Package synth makes synthetic formula-recognition benchmarks: random but
// realistic LaTeX labels, training corpora, and test splits with planted
// copies whose number is known in advance. The demo uses it so that the
// first command on a fresh machine does real work with a checkable answer,
// and the benchmarks use it to build corpora of millions of labels.
//
// Everything is a deterministic function of a seed.
package synth

import (
	"math/rand/v2"
	"strings"
)

// Generator produces random formulas in the space-tokenized convention of
// the public benchmark lists (\frac { 1 } { 2 }, one token per digit).
type Generator struct {
	r *rand.Rand
}

// New returns a generator seeded with seed.
func New(seed uint64) *Generator {
	return &Generator{r: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
}

var (
	letters = strings.Fields("a b c d x y z n m k t u v p q r s i j f g h A B C F P Q R S T X Y")
	greek   = strings.Fields(`\alpha \beta \gamma \delta \theta \lambda \mu \pi \sigma \phi \omega \epsilon`)
	rels    = strings.Fields(`= = = < > \leq \geq \neq \approx`)
	bins    = strings.Fields(`+ + - - \times \cdot \pm`)
	funcs   = strings.Fields(`\sin \cos \tan \log \ln \exp`)
)

func (g *Generator) pick(list []string) string { return list[g.r.IntN(len(list))] }

// atom returns a short operand.
func (g *Generator) atom(depth int) []string {
	switch n := g.r.IntN(20); {
	case n < 6:
		return []string{g.pick(letters)}
	case n < 10:
		d := 1 + g.r.IntN(3)
		out := make([]string, d)
		for i := range out {
			out[i] = string(rune('0' + g.r.IntN(10)))
		}
		if out[0] == "0" && d > 1 {
			out[0] = "1"
		}
		return out
	case n < 12:
		return []string{g.pick(greek)}
	case n < 14 && depth < 2:
		return g.wrap(`\frac`, g.expr(depth+1, 3), g.expr(depth+1, 3))
	case n < 15 && depth < 2:
		return g.wrap(`\sqrt`, g.expr(depth+1, 3))
	case n < 17:
		base := []string{g.pick(letters)}
		out := append(base, "^", "{")
		out = append(out, g.atom(depth+1)...)
		return append(out, "}")
	case n < 19:
		out := []string{g.pick(letters), "_", "{"}
		out = append(out, g.atom(depth+1)...)
		return append(out, "}")
	default:
		out := []string{g.pick(funcs), "("}
		out = append(out, g.expr(depth+1, 2)...)
		return append(out, ")")
	}
}

func (g *Generator) wrap(cmd string, args ...[]string) []string {
	out := []string{cmd}
	for _, a := range args {
		out = append(out, "{")
		out = append(out, a...)
		out = append(out, "}")
	}
	return out
}

// expr returns up to n operands joined by binary operators.
func (g *Generator) expr(depth, n int) []string {
	out := g.atom(depth)
	for k := 1 + g.r.IntN(n); k > 1; k-- {
		out = append(out, g.pick(bins))
		out = append(out, g.atom(depth)...)
	}
	return out
}

// Formula returns one random formula, space-tokenized. Lengths follow the
// handwritten benchmarks: mostly 5–40 tokens, now and then longer.
func (g *Generator) Formula() string {
	toks := g.expr(0, 4)
	if g.r.IntN(3) > 0 {
		toks = append(toks, g.pick(rels))
		toks = append(toks, g.expr(0, 3)...)
	}
	return strings.Join(toks, " ")
}

// GlueFormula returns a formula in which a control word is followed by a
// space and a letter (\alpha b …), the case where deleting spaces creates a
// false match.
func (g *Generator) GlueFormula() string {
	return g.pick(greek) + " " + g.pick(letters) + " " + g.pick(bins) + " " + g.Formula()
}

// Compact rewrites a tokenized formula the way untokenized sources write
// it: no spaces, except one between a control word and a following letter.
func Compact(f string) string {
	toks := strings.Fields(f)
	var b strings.Builder
	for i, t := range toks {
		if i > 0 && isControlWord(toks[i-1]) && isLetter(t[0]) {
			b.WriteByte(' ')
		}
		b.WriteString(t)
	}
	return b.String()
}

// Glued deletes every space, the audit protocol's transformation.
func Glued(f string) string { return strings.ReplaceAll(f, " ", "") }

func isControlWord(t string) bool { return len(t) > 1 && t[0] == '\\' && isLetter(t[len(t)-1]) }
func isLetter(c byte) bool        { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// Intn returns a random int in [0, n) from the generator's stream.
func (g *Generator) Intn(n int) int { return g.r.IntN(n) }
