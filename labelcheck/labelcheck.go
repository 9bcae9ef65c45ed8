// Package labelcheck decides whether two labels of one image are the same
// formula, and when they are not, says by how much they differ.
//
// Two labels of one handwritten sample often differ only in notation:
// `a_n` against `a _ { n }`, `\sum_{l}` against `\sum \limits _ { l }`,
// `\left( … \right)` against `( … )`, `$…$` wrappers, `\mathrm{kg}`
// against `k g`, `{v_1}^2` against `v_1^2`. Compare climbs the canonical
// ladder (package canon, docs/canonical-ladder.md) and stops at the first
// rung where the two agree:
//
//	ws       the same label up to whitespace and outer math wrappers
//	tokens   the same CDM tokens (synonyms, \limits, delimiter sizes)
//	render   the same render-level key (ink-free tokens, redundant braces)
//	typeset  leakaudit's TeX engine sets the same symbols at the same
//	         heights and sizes in the same left-to-right order (Typeset)
//
// Labels that agree at no rung are different formulas: Result gives the
// token edit distance between their token sequences and the CDM F1 of one
// rendered against the other (package metrics/cdm, UniMERNet profile).
//
// neardup, dedup, the audit's suspect rules and the report pages all use
// this one check. A label known only by its digests (a fingerprint made
// without labels) is compared with FromDigests at the strongest level both
// sides have.
package labelcheck

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/leakaudit/leakaudit/canon"
	"github.com/leakaudit/leakaudit/metrics"
	"github.com/leakaudit/leakaudit/metrics/cdm"
	"github.com/leakaudit/leakaudit/tex"
)

// Version is the version of the check's rules: bumped whenever a pair's
// verdict can change (a new rung, another tolerance).
const Version = 1

// The rungs at which two labels can agree, weakest change first.
const (
	LevelWS      = "ws"
	LevelTokens  = "tokens"
	LevelRender  = "render"
	LevelTypeset = "typeset"
)

// Bounds on what Compare spends on one pair: labels longer than
// maxTypesetBytes (ws form) skip the typeset rung, and two token
// sequences whose edit distance table would exceed maxEditCells get no
// distance (Diff.Edits -1).
const (
	maxTypesetBytes = 16 << 10
	maxEditCells    = 25_000_000
)

var errTooLong = errors.New("label too long for the typeset rung")

// Result is the check of one pair of labels.
type Result struct {
	// Same says the two labels are the same formula.
	Same bool `json:"same"`
	// Level is the first rung at which they agree (LevelWS …
	// LevelTypeset); "" when they differ. A pair compared by digests
	// names the level of the digests.
	Level string `json:"level,omitempty"`
	// Diff says by how much two different labels differ; nil when they
	// are the same or known only by digests.
	Diff *Diff `json:"diff,omitempty"`
	// Note adds what a reader should know: a LaTeX error TeX recovers
	// from, why CDM could not score the pair, or that only digests were
	// compared.
	Note string `json:"note,omitempty"`
}

// Diff is how far apart two different labels are.
type Diff struct {
	// Edits is the token edit distance (-1 for sequences too long to
	// compare: more than 25M cells), Tokens the token counts of each label
	// (the tokens level's sequences, or a plain split of a label the
	// tokenizer rejects).
	Edits  int    `json:"token_edits"`
	Tokens [2]int `json:"tokens"`
	// CDMF1 is the CDM F1 of the second label rendered against the first
	// (UniMERNet profile); nil when a side cannot be rendered.
	CDMF1 *float64 `json:"cdm_f1,omitempty"`
}

// Differ reports whether the labels are different formulas.
func (r Result) Differ() bool { return !r.Same }

// Reason says in one line what the check found, for pages and summaries.
func (r Result) Reason() string {
	var s string
	switch {
	case r.Same && r.Level == LevelWS:
		s = "same label (up to spacing and math wrappers)"
	case r.Same && r.Level == LevelTokens:
		s = "same formula in another notation: the same tokens (spacing, \\limits, synonyms, delimiter sizes)"
	case r.Same && r.Level == LevelRender:
		s = "same formula in another notation: the same rendering key (ink-free commands, redundant braces, render-identical symbols)"
	case r.Same && r.Level == LevelTypeset:
		s = "same formula in another notation: the TeX engine sets the same symbols in the same places (fonts such as \\mathrm, braces or spaces differ)"
	case r.Same:
		s = "same label at the " + r.Level + " level"
	case r.Diff == nil:
		s = "different labels"
		if r.Level != "" {
			s += " at the " + r.Level + " level"
		}
	default:
		d := r.Diff
		s = fmt.Sprintf("different formulas: %d token edit(s) (%d and %d tokens)", d.Edits, d.Tokens[0], d.Tokens[1])
		if d.Edits < 0 {
			s = fmt.Sprintf("different formulas (%d and %d tokens, too long for an edit distance)", d.Tokens[0], d.Tokens[1])
		}
		if d.CDMF1 != nil {
			s += fmt.Sprintf(", CDM F1 %.3f", *d.CDMF1)
		}
	}
	if r.Note != "" {
		s += "; " + r.Note
	}
	return s
}

// Compare checks two labels (raw, as read from their files).
func Compare(a, b string) Result {
	wa, wb := canon.WSKey(a), canon.WSKey(b)
	if wa == wb {
		return Result{Same: true, Level: LevelWS}
	}
	ta, errA := canon.TokensKey(a)
	tb, errB := canon.TokensKey(b)
	if errA == nil && errB == nil {
		if ta == tb {
			return Result{Same: true, Level: LevelTokens}
		}
		ra, _ := canon.RenderKey(a)
		rb, _ := canon.RenderKey(b)
		if ra == rb {
			return Result{Same: true, Level: LevelRender}
		}
	}
	// The TeX engine sets the ws form as the tokens rung reads it
	// (plainNotation).
	var la, lb *tex.Layout
	var ea, eb error = errTooLong, errTooLong
	if len(wa) <= maxTypesetBytes && len(wb) <= maxTypesetBytes {
		la, ea = tex.Typeset(plainNotation(wa))
		lb, eb = tex.Typeset(plainNotation(wb))
	}
	if ea == nil && eb == nil && SameTypeset(la, lb) {
		r := Result{Same: true, Level: LevelTypeset}
		var notes []string
		for i, l := range []*tex.Layout{la, lb} {
			if len(l.Recovered) > 0 {
				notes = append(notes, fmt.Sprintf("label %d has a LaTeX error TeX recovers from (%s)", i+1, l.Recovered[0]))
			}
		}
		r.Note = strings.Join(notes, "; ")
		return r
	}
	xa, xb := Tokens(a), Tokens(b)
	r := Result{Diff: &Diff{Edits: -1, Tokens: [2]int{len(xa), len(xb)}}}
	if len(xa)*len(xb) <= maxEditCells {
		r.Diff.Edits = metrics.Levenshtein(xa, xb)
	}
	sc := cdm.ScorePair(cdm.Pair{GT: a, Pred: b}, cdm.UniMERNet)
	if sc.Status == cdm.Scored {
		f := sc.F1
		r.Diff.CDMF1 = &f
	} else {
		r.Note = "no CDM score: " + sc.Reason
	}
	return r
}

// textCommands are the text boxes plainNotation sets as math fonts, so
// that they scale in scripts as the letters they stand for do, and the
// web renderers' names of relations LaTeX lacks.
var textCommands = map[string]string{
	"mbox": `\mathrm`, "hbox": `\mathrm`, "text": `\mathrm`, "textrm": `\mathrm`, "textnormal": `\mathrm`,
	"textit": `\mathit`, "textbf": `\mathbf`, "textsf": `\mathsf`, "texttt": `\mathtt`,
	// MathJax's and KaTeX's names that LaTeX does not define
	"gt": ">", "lt": "<",
}

// sizeCommands are the delimiter size commands and operator limit
// switches plainNotation drops.
var sizeCommands = map[string]bool{
	"limits": true, "nolimits": true,
	"left": true, "right": true, "middle": true,
	"big": true, "Big": true, "bigg": true, "Bigg": true,
	"bigl": true, "Bigl": true, "biggl": true, "Biggl": true,
	"bigr": true, "Bigr": true, "biggr": true, "Biggr": true,
	"bigm": true, "Bigm": true, "biggm": true, "Biggm": true,
}

// plainNotation rewrites a ws-level key as the tokens rung reads it
// before the TeX engine sets it: delimiter size commands are dropped with
// the null delimiter of \left. and \right. (the delimiters are then set at
// their natural size: \left( x \right) and ( x ) set the same symbols),
// \limits and \nolimits are dropped (the operator's scripts go where its
// default puts them), text boxes become math fonts (\mbox{i} in a
// subscript is set at script size, as the i it stands for), and \gt and
// \lt become > and <.
func plainNotation(ws string) string {
	if !strings.Contains(ws, `\`) {
		return ws
	}
	var b strings.Builder
	for i := 0; i < len(ws); {
		if ws[i] != '\\' || i+1 >= len(ws) {
			b.WriteByte(ws[i])
			i++
			continue
		}
		j := i + 1
		for j < len(ws) && (ws[j] >= 'a' && ws[j] <= 'z' || ws[j] >= 'A' && ws[j] <= 'Z') {
			j++
		}
		if j == i+1 { // a control symbol
			b.WriteString(ws[i : i+2])
			i += 2
			continue
		}
		if t, ok := textCommands[ws[i+1:j]]; ok {
			b.WriteString(t)
			i = j
			continue
		}
		if !sizeCommands[ws[i+1:j]] {
			b.WriteString(ws[i:j])
			i = j
			continue
		}
		for j < len(ws) && ws[j] == ' ' {
			j++
		}
		if j < len(ws) && ws[j] == '.' {
			j++ // \left. sets nothing
		}
		b.WriteByte(' ')
		i = j
	}
	return b.String()
}

// FromDigests is the check of two labels known by their digests at one
// level (the strongest both sides have): the same key there, or different
// labels whose distance cannot be told.
func FromDigests(level string, same bool) Result {
	if same {
		return Result{Same: true, Level: level}
	}
	return Result{Level: level, Note: "compared by digest (the labels are not in the fingerprint)"}
}

// Tokens is a label's token sequence for the edit distance: the tokens
// level's, or, for a label the tokenizer rejects, its ws form split into
// control sequences and characters.
func Tokens(label string) []string {
	if t := canon.TokenList(label); t != nil {
		return t
	}
	ws := canon.WSKey(label)
	var out []string
	for i := 0; i < len(ws); {
		c := ws[i]
		switch {
		case c == ' ':
			i++
		case c == '\\' && i+1 < len(ws):
			j := i + 1
			for j < len(ws) && (ws[j] >= 'a' && ws[j] <= 'z' || ws[j] >= 'A' && ws[j] <= 'Z') {
				j++
			}
			if j == i+1 {
				j++ // a control symbol
			}
			out = append(out, ws[i:j])
			i = j
		default:
			n := 1
			for n < 4 && i+n < len(ws) && ws[i+n]&0xC0 == 0x80 {
				n++
			}
			out = append(out, ws[i:i+n])
			i += n
		}
	}
	return out
}

// mark is one glyph or rule of a layout, as the typeset rung compares it.
type mark struct {
	id   string     // the symbol, blind to upright and italic letters
	size tex.Scaled // at-size (text, script, scriptscript)
	x, y tex.Scaled // reference point (a rule's bottom left corner)
}

// Tolerances of the typeset rung: a symbol may sit this much higher or
// lower (a subscript under a braced base, {v_1}^2, drops 1.2 pt less than
// under a bare one), and two symbols closer than xTie horizontally have
// no order (stacked scripts).
const (
	yTolerance = 2 * 65536
	xTie       = 65536
)

// SameTypeset reports whether two layouts set the same symbols in the same
// places, as a reader of the formulas sees them: the same multiset of
// glyphs (an upright and an italic letter or digit count as one symbol,
// \mathrm{d} as d) and rules, each at the same size and, within 2 pt, at
// the same height, in the same left-to-right order (symbols within 1 pt of
// each other horizontally are unordered). Horizontal spacing is not
// compared: spaces, operator spacing and braces move symbols sideways
// without changing the formula.
func SameTypeset(a, b *tex.Layout) bool {
	ma, mb := marks(a), marks(b)
	if len(ma) != len(mb) {
		return false
	}
	// Match each symbol to the same symbol in the other layout, in
	// left-to-right order within its identity and size.
	group := func(ms []mark) map[string][]int {
		g := map[string][]int{}
		for i, m := range ms {
			k := fmt.Sprintf("%s@%d", m.id, m.size)
			g[k] = append(g[k], i)
		}
		return g
	}
	ga, gb := group(ma), group(mb)
	if len(ga) != len(gb) {
		return false
	}
	pairOf := make([]int, len(ma))
	for k, ia := range ga {
		ib := gb[k]
		if len(ia) != len(ib) {
			return false
		}
		// Each symbol, left to right, takes the leftmost unmatched one of
		// the other layout at its height: stacked scripts of one symbol
		// (x_2^2 against {x_2}^2) pair by height, not by a tie's order.
		used := make([]bool, len(ib))
		for _, i := range ia {
			found := false
			for n, j := range ib {
				if d := ma[i].y - mb[j].y; !used[n] && d <= yTolerance && d >= -yTolerance {
					used[n], pairOf[i], found = true, j, true
					break
				}
			}
			if !found {
				return false
			}
		}
	}
	// The order: no two symbols clearly left and right of each other in
	// one layout and the other way round in the other.
	for i := range ma {
		for j := range ma {
			if ma[j].x-ma[i].x > xTie && mb[pairOf[i]].x-mb[pairOf[j]].x > xTie {
				return false
			}
		}
	}
	return true
}

// marks lists a layout's glyphs and rules, sorted left to right (then top
// to bottom), with font-blind identities for letters and digits.
func marks(l *tex.Layout) []mark {
	var ms []mark
	for _, g := range l.Glyphs {
		m := mark{id: glyphID(g.Font, g.Char), size: g.Size, x: g.X, y: g.Y}
		if m.id == "radical" {
			// TeX picks a radical sign's size and drop by its body's
			// height and depth, which a script moves a little.
			m.size, m.y = 0, 0
		}
		ms = append(ms, m)
	}
	for _, r := range l.Rules {
		ms = append(ms, mark{id: "rule", x: r.X, y: r.Y})
	}
	sort.SliceStable(ms, func(i, j int) bool {
		if ms[i].x != ms[j].x {
			return ms[i].x < ms[j].x
		}
		return ms[i].y < ms[j].y
	})
	return ms
}

// glyphID names a glyph: a Latin letter, digit or upper-case Greek letter
// from the roman, math italic or text italic fonts by its character alone
// (\mathrm{k} and k, log and \log, are one symbol to a reader of
// handwriting); a radical sign of any size as "radical"; any other glyph
// by its font family and character.
func glyphID(font string, char int) string {
	family := strings.TrimRight(font, "0123456789")
	if family == "cmsy" && char == 112 || family == "cmex" && char >= 112 && char <= 118 {
		return "radical"
	}
	switch family {
	case "cmr", "cmmi", "cmti", "cmsl":
		switch {
		case char >= 'a' && char <= 'z', char >= 'A' && char <= 'Z':
			return "letter " + string(rune(char))
		case char >= '0' && char <= '9' && family != "cmmi":
			return "digit " + string(rune(char))
		case char <= 10: // upper-case Greek in both fonts
			return fmt.Sprintf("Greek %d", char)
		}
	}
	return fmt.Sprintf("%s %d", family, char)
}
