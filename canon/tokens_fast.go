package canon

import (
	"strings"
	"sync"

	"github.com/leakaudit/leakaudit/latex"
)

// The tokens level's fast path.
//
// The tokens level runs a formula through the whole CDM preprocessing
// chain (latex.NormalizeKeepingPrimes: the KaTeX parse and printer, then
// normalize_latex's passes) and maps the result (chainComputeTokens). That
// costs about 9 µs a label on one core, which dominated the near-label
// search and fingerprinting of tens of millions of training labels. Most
// labels, though, are made only of letters, digits, operator characters,
// symbol commands, groups, scripts, \frac, \sqrt, \left…\right,
// \limits and commands of one argument (accents, fonts, \overline …), and
// for those the chain's output can be written down directly: each
// symbol's tokens, "{ … }" around every script, fraction and root
// argument, the last subscript and superscript of a base kept and the
// subscript printed first. fastTokens does that in one pass, writing only
// strings that live as long as the program into the caller's buffer. Any
// byte, command or construct outside that subset (primes, environments,
// \over, \not, "--", brackets inside a root's index, six or more S
// letters, non-ASCII text, …) makes it decline, and the chain runs as
// before. It never guesses: what it accepts it writes exactly as the
// chain does. It also tells, from the structure it has read, where the
// chain's parser must fail (a stray "}" above all, the commonest reason
// an edited label fails), so the chain is not run on those either.
// TestFastTokensMatchChain checks both over every label, prediction and
// im2latex formula of the shared data (the fast path takes or tells 94%
// of them), TestFastTokensRandom over random formulas of the subset and
// their mutations, and FuzzFastTokens on any input.
//
// The symbols are not listed with their outputs by hand. buildFastTable,
// in the package's tests, takes lists of candidates (characters, symbol
// commands, commands of one argument, \left delimiters) and keeps those whose chain output, alone
// and in a set of contexts (between other symbols, as a base and an
// argument of scripts, in a group, as an argument of \frac and \sqrt,
// in a root's index, inside \left…\right, before \limits), is the
// composition the fast path writes; a candidate that behaves otherwise in
// any of those contexts is left to the chain. So the table follows the
// chain's rules rather than a copy of them: \lim takes \limits but not
// \nolimits (the chain spells it \lim then, not \mathrm{lim}), and
// \textrm, which the chain treats as a switch, is not a command of one
// argument. The derived table is stored in tokens_fast_table.go.

// fastSymbol is what the chain writes for one symbol.
type fastSymbol struct {
	toks []string
	// arg: the symbol may stand alone as a script, \frac or \sqrt argument
	// (its output is one token and every such context checked).
	arg bool
	// limits, nolimits: \limits, \nolimits may follow it (an operator).
	limits, nolimits bool
}

// fastCommand is what the chain writes for a command of one argument (an
// accent, a font, \overline, \boldsymbol …): its head token, then the
// argument in braces.
type fastCommand struct {
	head string
	// wrapped: a group argument keeps its own braces inside the
	// command's ("\overline { { a b } }").
	wrapped bool
	// single: the argument may be one symbol without braces.
	single bool
	// chars: the argument may hold only characters (the chain spells
	// symbols out letter by letter under \mathrm).
	chars bool
}

// fastTable is the fast path's symbol table: commands by name with their
// backslash ("\alpha", "\{"), characters by byte.
type fastTable struct {
	cmds  map[string]fastSymbol
	chars [128]*fastSymbol
	// oneArg holds the commands of one argument.
	oneArg map[string]*fastCommand
	// delims maps a \left/\right delimiter as written to its tokens (none
	// for ".").
	delims map[string][]string
}

var (
	fastOnce sync.Once
	fast     *fastTable
)

// fastSymbols returns the fast path's table. buildFastTable
// (tokens_fast_derive_test.go) derives it from the chain, which takes
// about 0.1 s; the result is stored in tokens_fast_table.go, which
// TestFastTableCurrent keeps equal to a fresh derivation, so programs load
// it instead.
func fastSymbols() *fastTable {
	fastOnce.Do(func() { fast = loadFastTable(fastTableEntries) })
	return fast
}

// fastEntry is one row of the stored table: kind 's' a symbol (a
// command or a character), 'c' a command of one argument, 'd' a
// delimiter; toks the chain's tokens (for 'c', the head token); flags as
// in fastSymbol and fastCommand.
type fastEntry struct {
	kind                   byte
	name                   string
	toks                   []string
	arg, limits, nolimits  bool
	wrapped, single, chars bool
}

// loadFastTable builds the table from its stored rows.
func loadFastTable(rows []fastEntry) *fastTable {
	t := &fastTable{cmds: map[string]fastSymbol{}, delims: map[string][]string{}, oneArg: map[string]*fastCommand{}}
	for _, r := range rows {
		switch r.kind {
		case 's':
			sym := fastSymbol{toks: r.toks, arg: r.arg, limits: r.limits, nolimits: r.nolimits}
			if r.name[0] == '\\' {
				t.cmds[r.name] = sym
			} else {
				t.chars[r.name[0]] = &sym
			}
		case 'c':
			t.oneArg[r.name] = &fastCommand{head: r.toks[0], wrapped: r.wrapped, single: r.single, chars: r.chars}
		case 'd':
			t.delims[r.name] = r.toks
		}
	}
	return t
}

// fastMaxDepth bounds the fast path's recursion; deeper formulas go to the
// chain, which has its own limit.
const fastMaxDepth = 64

// fastParser is one run of the fast path over a ws-level string.
type fastParser struct {
	t     *fastTable
	s     string
	i     int
	out   []string
	depth int
	// opt is set inside a \sqrt's optional argument, where the chain
	// pairs brackets differently.
	opt bool
	// esses counts the S characters read: the chain turns six S tokens
	// in a row of its printed string into "$" (the reference's
	// placeholder for a dollar sign), which the braces it adds later can
	// hide, so formulas with six or more are left to it.
	esses int
	bad   bool
	// fails: the chain's parser fails at p.i (and p.bad is set).
	fails bool
	// unsure: the chain reads the formula as the fast path does, but
	// the fast path cannot tell what it prints (a "}" read as an
	// argument), so it may tell a failure but not the tokens.
	unsure bool
	// tmp holds an atom's scripts while they are put in the chain's
	// order.
	tmp []string
}

// Structural tokens, shared.
const (
	tokOpen, tokClose = "{", "}"
	tokSup, tokSub    = "^", "_"
	tokFrac, tokSqrt  = `\frac`, `\sqrt`
	tokLBrack         = "["
	tokRBrack         = "]"
)

// fastResult is the fast path's verdict on a ws-level string.
type fastResult uint8

const (
	// fastDeclined: the string is outside the fast path's subset; the
	// chain decides.
	fastDeclined fastResult = iota
	// fastTook: the tokens are written.
	fastTook
	// fastFails: the chain fails on the string: its parser, reading the
	// same atoms as the fast path up to there, meets a token where the
	// structure needs another (a "}" or \right at the top level, the
	// end of the input or \right before a group's "}", the end of the
	// input or a "}" before \right), and the passes that prepare the
	// line change nothing in it (latex.ParsedAsIs). A stray brace is the
	// commonest reason edited labels fail.
	fastFails
)

// fastTokens appends the tokens level of a ws-level string to dst when
// the string is in the fast path's subset (fastTook), or reports that it
// is not (fastDeclined) or that the chain fails on it (fastFails).
func fastTokens(ws string, dst []string) ([]string, fastResult) {
	if len(ws) > 4096 || strings.Contains(ws, "tabular") {
		return dst, fastDeclined
	}
	p := fastParser{t: fastSymbols(), s: ws, out: dst}
	p.expr(0)
	if !p.bad && p.i < len(p.s) {
		p.fail() // the top level ends before the input
	}
	switch {
	case p.fails && latex.ParsedAsIs(ws):
		return dst, fastFails
	case p.bad || p.unsure || p.esses >= 6:
		return dst, fastDeclined
	case len(p.out) == len(dst):
		return dst, fastDeclined // the chain fails on an empty formula
	}
	return p.out, fastTook
}

// fail records that the chain's parser fails where the fast path is, and
// stops the fast path.
func (p *fastParser) fail() {
	p.fails, p.bad = true, true
}

// expr parses atoms up to the end of the string or the byte stop ('}' or
// ']'), or, when stop is 0 and right is set, up to \right.
func (p *fastParser) expr(stop byte) {
	for !p.bad {
		p.skipSpace()
		if p.i >= len(p.s) {
			return
		}
		c := p.s[p.i]
		if stop != 0 && c == stop {
			return
		}
		if c == '}' || c == ']' && stop == ']' {
			return
		}
		if c == '\\' && strings.HasPrefix(p.s[p.i:], `\right`) && (p.i+6 == len(p.s) || !isASCIILetter(rune(p.s[p.i+6]))) {
			return
		}
		p.atom()
	}
}

func (p *fastParser) skipSpace() {
	for p.i < len(p.s) && p.s[p.i] == ' ' {
		p.i++
	}
}

// controlWord reads the command at p.i (a backslash there): a control word
// or a control symbol, and skips the spaces after a control word.
func (p *fastParser) controlWord() string {
	start := p.i
	j := p.i + 1
	if j < len(p.s) && isASCIILetter(rune(p.s[j])) {
		for j < len(p.s) && isASCIILetter(rune(p.s[j])) {
			j++
		}
		p.i = j
		name := p.s[start:j]
		p.skipSpace()
		return name
	}
	if j >= len(p.s) || p.s[j] >= 0x80 {
		p.bad = true
		return ""
	}
	p.i = j + 1
	return p.s[start : j+1]
}

// atom parses a base and its scripts.
//
// The chain keeps one subscript and one superscript per base, the last of
// each written ("x^a^b" is "x ^ { b }"; but a superscript group opening
// with \prime is joined with the next, which the fast path leaves to the
// chain), and a script with nothing after it at the end of the input has
// no argument and removes its kind ("x^{2}^" is "x"); it prints the
// subscript first.
func (p *fastParser) atom() {
	if p.depth++; p.depth > fastMaxDepth {
		p.bad = true
		return
	}
	defer func() { p.depth-- }()
	kind := p.base()
	if p.bad {
		return
	}
	baseEnd := len(p.out)
	var sup, sub [2]int // each script's tokens in p.out; {0, 0} for none
	limitsSeen := false
	for !p.bad {
		p.skipSpace()
		if p.i >= len(p.s) {
			break
		}
		c := p.s[p.i]
		if c == '\\' {
			if w := p.peekWord(); w == `\limits` || w == `\nolimits` {
				switch {
				case kind == baseNotOp:
					p.fail() // limit controls follow only an operator
					return
				case limitsSeen || kind == baseUnknown ||
					w == `\limits` && kind == baseNolimits || w == `\nolimits` && kind == baseLimits:
					p.bad = true
					return
				}
				p.i += len(w)
				limitsSeen = true
				continue
			}
		}
		if c != '^' && c != '_' {
			if c == '\'' {
				p.bad = true
			}
			break
		}
		p.i++
		span := &sup
		if c == '_' {
			span = &sub
		} else if sup[1] > sup[0]+2 && p.out[sup[0]+2] == `\prime` {
			// The chain joins a superscript group opening with
			// \prime and the next superscript (it reads x''^2 so).
			p.bad = true
			return
		}
		start := len(p.out)
		p.skipSpace()
		if p.i >= len(p.s) {
			*span = [2]int{}
			break
		}
		if c == '^' {
			p.out = append(p.out, tokSup)
		} else {
			p.out = append(p.out, tokSub)
		}
		p.argument(argScript)
		*span = [2]int{start, len(p.out)}
	}
	nsub, nsup := sub[1]-sub[0], sup[1]-sup[0]
	if p.bad || len(p.out) == baseEnd+nsub+nsup && (nsub == 0 || sub[0] == baseEnd) && (nsup == 0 || sup[0] == baseEnd+nsub) {
		return // written in the chain's order already
	}
	p.tmp = append(append(p.tmp[:0], p.out[sub[0]:sub[1]]...), p.out[sup[0]:sup[1]]...)
	p.out = append(p.out[:baseEnd], p.tmp...)
}

// baseKind tells atom what may follow a base.
type baseKind uint8

const (
	// baseUnknown: a command symbol the table does not let take
	// \limits or \nolimits; the chain may take them after it, printing
	// what the fast path does not know.
	baseUnknown baseKind = iota
	// baseNotOp: a character, group, fraction, root or \left…\right:
	// the chain's parser fails on \limits or \nolimits after it.
	baseNotOp
	// baseLimits, baseNolimits, baseBoth: a symbol that takes \limits,
	// \nolimits or both.
	baseLimits
	baseNolimits
	baseBoth
)

// base parses the nucleus of an atom.
func (p *fastParser) base() baseKind {
	if p.i >= len(p.s) {
		p.bad = true
		return baseUnknown
	}
	c := p.s[p.i]
	switch {
	case c == '{':
		p.group()
	case c == '^' || c == '_':
		// A script with no base: the chain reads the character as a
		// symbol, and what follows as the next atom or this one's
		// scripts.
		p.i++
		p.out = append(p.out, p.s[p.i-1:p.i])
	case c == '\\':
		name := p.controlWord()
		if p.bad {
			return baseUnknown
		}
		switch name {
		case tokFrac:
			p.frac()
			return baseNotOp
		case tokSqrt:
			p.out = append(p.out, tokSqrt)
			p.skipSpace()
			if p.i < len(p.s) && p.s[p.i] == '[' {
				if p.opt {
					p.bad = true
					return baseUnknown
				}
				p.i++
				p.out = append(p.out, tokLBrack)
				p.opt = true
				p.expr(']')
				p.opt = false
				if p.i >= len(p.s) || p.s[p.i] != ']' {
					p.bad = true
					return baseUnknown
				}
				p.i++
				p.out = append(p.out, tokRBrack)
			}
			p.argument(argMath)
			return baseNotOp
		case `\left`:
			p.leftRight()
			return baseNotOp
		}
		if cmd := p.t.oneArg[name]; cmd != nil {
			p.command(cmd)
			return baseUnknown
		}
		sym, ok := p.t.cmds[name]
		if !ok {
			p.bad = true
			return baseUnknown
		}
		p.out = append(p.out, sym.toks...)
		switch {
		case sym.limits && sym.nolimits:
			return baseBoth
		case sym.limits:
			return baseLimits
		case sym.nolimits:
			return baseNolimits
		}
		return baseUnknown
	case c < 0x80 && p.t.chars[c] != nil:
		if c == '-' && p.i+1 < len(p.s) && p.s[p.i+1] == '-' || p.opt && (c == '[' || c == ']') {
			p.bad = true // "--" is one token to the chain
			return baseUnknown
		}
		p.char(c)
	default:
		p.bad = true
	}
	return baseNotOp
}

// frac parses the arguments of a \frac.
func (p *fastParser) frac() {
	p.out = append(p.out, tokFrac)
	p.argument(argMath)
	p.argument(argMath)
}

// char writes the character at p.i, which the table has.
func (p *fastParser) char(c byte) {
	if c == 'S' {
		p.esses++
	}
	p.i++
	p.out = append(p.out, p.t.chars[c].toks...)
}

// peekWord returns the control word at p.i without reading it, or "".
func (p *fastParser) peekWord() string {
	j := p.i + 1
	for j < len(p.s) && isASCIILetter(rune(p.s[j])) {
		j++
	}
	if j == p.i+1 || p.s[p.i] != '\\' {
		return ""
	}
	return p.s[p.i:j]
}

// command parses the argument of a command of one argument.
func (p *fastParser) command(c *fastCommand) {
	p.out = append(p.out, c.head, tokOpen)
	p.skipSpace()
	if p.i >= len(p.s) {
		p.bad = true
		return
	}
	if p.s[p.i] != '{' {
		if !c.single {
			p.bad = true
			return
		}
		// One symbol, written without its own braces.
		n := len(p.out)
		p.argument(argCommand)
		if p.bad {
			return
		}
		p.out = append(p.out[:n], p.out[n+1]) // drop the argument's braces
		p.out = append(p.out, tokClose)
		return
	}
	p.i++ // {
	if c.wrapped {
		p.out = append(p.out, tokOpen)
	}
	start := len(p.out)
	if c.chars {
		for p.i < len(p.s) && p.s[p.i] != '}' {
			ch := p.s[p.i]
			if ch >= 0x80 || p.t.chars[ch] == nil || ch == '-' && p.i+1 < len(p.s) && p.s[p.i+1] == '-' || p.opt && (ch == '[' || ch == ']') {
				p.bad = true
				return
			}
			p.char(ch)
		}
	} else {
		p.expr('}')
	}
	if p.bad || p.i >= len(p.s) || p.s[p.i] != '}' || len(p.out) == start {
		p.bad = true
		return
	}
	p.i++
	if c.wrapped {
		p.out = append(p.out, tokClose)
	}
	p.out = append(p.out, tokClose)
}

// group parses "{ … }".
func (p *fastParser) group() {
	p.i++ // {
	p.out = append(p.out, tokOpen)
	p.expr('}')
	if p.bad {
		return
	}
	if p.i >= len(p.s) || p.s[p.i] != '}' {
		p.fail() // the end of the input or \right
		return
	}
	p.i++
	p.out = append(p.out, tokClose)
}

// argContext is where an argument is read.
type argContext uint8

const (
	argScript  argContext = iota // a superscript or subscript
	argMath                      // a \frac or \sqrt argument
	argCommand                   // the argument of a command of one argument
)

// argument parses a script, \frac or \sqrt argument: a group, or one
// symbol whose output is one token; either way written "{ … }".
func (p *fastParser) argument(ctx argContext) {
	if p.bad {
		return
	}
	p.skipSpace()
	if p.i >= len(p.s) {
		p.bad = true
		return
	}
	c := p.s[p.i]
	switch {
	case c == '{':
		p.group()
	case c == '}' && ctx != argCommand:
		// The chain reads it as a symbol, and prints a brace its
		// later passes pair as they can: the tokens are left to it,
		// and the fast path reads on only to tell a failure.
		p.i++
		p.unsure = true
	case (c == '^' || c == '_') && ctx == argScript:
		// The chain reads a script character where it wants a
		// script as a symbol.
		p.i++
		p.out = append(p.out, tokOpen, p.s[p.i-1:p.i], tokClose)
	case c == '\\':
		name := p.controlWord()
		if p.bad {
			return
		}
		if name == tokFrac && ctx == argScript {
			// A script takes a \frac whole.
			p.out = append(p.out, tokOpen)
			p.frac()
			p.out = append(p.out, tokClose)
			return
		}
		sym, ok := p.t.cmds[name]
		if !ok || !sym.arg {
			p.bad = true
			return
		}
		p.out = append(p.out, tokOpen, sym.toks[0], tokClose)
	case c < 0x80 && p.t.chars[c] != nil && p.t.chars[c].arg:
		if c == '-' && p.i+1 < len(p.s) && p.s[p.i+1] == '-' || p.opt && (c == '[' || c == ']') {
			p.bad = true
			return
		}
		p.out = append(p.out, tokOpen)
		p.char(c)
		p.out = append(p.out, tokClose)
	default:
		p.bad = true
	}
}

// leftRight parses the rest of "\left D … \right D".
func (p *fastParser) leftRight() {
	p.delim()
	p.expr(0)
	if p.bad {
		return
	}
	if !strings.HasPrefix(p.s[p.i:], `\right`) {
		p.fail() // the end of the input or "}"
		return
	}
	p.i += len(`\right`)
	p.delim()
}

// delim parses a \left or \right delimiter.
func (p *fastParser) delim() {
	p.skipSpace()
	if p.i >= len(p.s) {
		p.bad = true
		return
	}
	var d string
	if p.s[p.i] == '\\' {
		d = p.controlWord()
	} else {
		d = p.s[p.i : p.i+1]
		p.i++
	}
	toks, ok := p.t.delims[d]
	if p.bad || !ok {
		p.bad = true
		return
	}
	p.out = append(p.out, toks...)
}
