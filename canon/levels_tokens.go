package canon

import (
	"hash/maphash"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/leakaudit/leakaudit/latex"
)

// The tokens (L3) and render (L4) levels of the canonicalization ladder
// (docs/canonical-ladder.md §3–4). Both start from the ws level, so equality at
// ws implies equality here and overlap counts never decrease going up.

func init() {
	Register(Level{
		// 2: \limits or \nolimits after a base that is not an operator
		// is the tokenizer's failure (version 1's fast path wrote tokens
		// for it when the base had a script holding an operator, as in
		// x_{\min}\limits: 13 of 80M edited labels).
		ID: Tokens, Name: "tokens", Rung: "L3", Version: 2,
		Doc:       "the CDM tokenizer's normalized tokens, with primes kept and synonyms, delimiter sizes and operator forms unified",
		Canon:     TokensKey,
		AppendKey: appendTokensKey,
	})
	Register(Level{
		ID: Render, Name: "render", Rung: "L4", Version: 2, // 2: as tokens 2
		Doc:   "tokens mapped to render-identical classes, ink-free tokens and redundant braces dropped",
		Canon: RenderKey,
	})
}

// failed is the tagged value of a formula the tokenizer cannot normalize:
// it equals only another failure with the same ws key.
func failed(ws string) string { return "⊥\x00" + ws }

// IsFailedKey reports whether a canonical key is a tagged failure.
func IsFailedKey(k string) bool { return strings.HasPrefix(k, "⊥\x00") }

// l3Synonyms unifies relation and delimiter synonyms.
var l3Synonyms = map[string]string{
	`\le`: `\leq`, `\ge`: `\geq`, `\neq`: `\ne`, `\to`: `\rightarrow`, `\gets`: `\leftarrow`, `\gt`: ">", `\lt`: "<",
	`\land`: `\wedge`, `\lor`: `\vee`, `\lnot`: `\neg`, `\owns`: `\ni`, `\lbrace`: `\{`, `\rbrace`: `\}`,
	`\lbrack`: "[", `\rbrack`: "]", `\vert`: "|", `\lvert`: "|", `\rvert`: "|", `\Vert`: `\|`, `\lVert`: `\|`, `\rVert`: `\|`,
	`\bm`: `\boldsymbol`, `\textrm`: `\mathrm`, `\operatorname`: `\mathrm`, `\operatorname*`: `\mathrm`,
}

var (
	reSized    = regexp.MustCompile(`^\\[Bb]ig[g]?[glrm]?`)
	l3Drop     = set(`\limits`, `\nolimits`, `\displaylimits`, `\middle`, `\big`, `\Big`, `\bigg`, `\Bigg`, `\bigl`, `\bigr`, `\bigm`, `\Bigl`, `\Bigr`, `\Bigm`, `\biggl`, `\biggr`, `\biggm`, `\Biggl`, `\Biggr`, `\Biggm`, `\left.`, `\right.`)
	groupFonts = map[string]string{`\bf`: `\mathbf`, `\it`: `\mathit`, `\cal`: `\mathcal`, `\rm`: `\mathrm`}
)

// recentTokens remembers recent results of the preprocessing chain:
// callers compute the tokens and render levels of one label in turn (a
// fingerprint also its token count), and render needs the same tokens, so
// the chain runs once per label rather than twice. Slots are chosen by a
// hash of the ws string, so that workers canonicalizing different labels
// at once rarely evict each other's entry. The cached slices are shared;
// callers must not modify them. Labels the fast path takes are not cached:
// computing them again costs less than the cache.
var recentTokens [64]atomic.Pointer[tokensResult]

var tokensSeed = maphash.MakeSeed()

type tokensResult struct {
	ws   string
	toks []string
	ok   bool
}

// chainTokensOf returns the chain's L3 token list of a ws-level string,
// or reports failure.
func chainTokensOf(ws string) ([]string, bool) {
	slot := &recentTokens[maphash.String(tokensSeed, ws)%uint64(len(recentTokens))]
	if r := slot.Load(); r != nil && r.ws == ws {
		return r.toks, r.ok
	}
	toks, ok := chainComputeTokens(ws)
	slot.Store(&tokensResult{ws, toks, ok})
	return toks, ok
}

// appendTokens appends the L3 tokens of a ws-level string to dst: by the
// fast path when the string is in its subset (tokens_fast.go), else by the
// chain.
func appendTokens(dst []string, ws string) ([]string, bool) {
	if latex.FailsOnBraces(ws) {
		return dst, false // as the chain would, without running either path
	}
	switch out, r := fastTokens(ws, dst); r {
	case fastTook:
		return out, true
	case fastFails:
		return dst, false
	}
	toks, ok := chainTokensOf(ws)
	return append(dst, toks...), ok
}

// withTokens calls f with the L3 tokens of a ws-level string in a pooled
// buffer, which f must not keep.
func withTokens(ws string, f func(toks []string, ok bool)) {
	bp := tokenBufs.Get().(*[]string)
	toks, ok := appendTokens((*bp)[:0], ws)
	f(toks, ok)
	clear(toks) // chain tokens may be substrings of large inputs
	*bp = toks[:0]
	tokenBufs.Put(bp)
}

var tokenBufs = sync.Pool{New: func() any { b := make([]string, 0, 256); return &b }}

// chainComputeTokens is the tokens level by the whole preprocessing chain.
func chainComputeTokens(ws string) ([]string, bool) {
	n, ok := latex.NormalizeKeepingPrimes(ws)
	if !ok {
		return nil, false
	}
	in := strings.Fields(n)
	toks := make([]string, 0, len(in))
	for i := 0; i < len(in); i++ {
		t := in[i]
		switch {
		case t == "{" && i+1 < len(in) && groupFonts[in[i+1]] != "":
			// {\bf x} ≡ \mathbf{x}
			toks = append(toks, groupFonts[in[i+1]], "{")
			i++
			continue
		case t == `\not` && i+1 < len(in) && in[i+1] == "=":
			toks = append(toks, `\ne`)
			i++
			continue
		case l3Drop[t]:
			continue
		case strings.HasPrefix(t, `\left`) && len(t) > len(`\left`):
			t = t[len(`\left`):]
		case strings.HasPrefix(t, `\right`) && len(t) > len(`\right`):
			t = t[len(`\right`):]
		case reSized.MatchString(t) && len(t) > len(reSized.FindString(t)):
			t = t[len(reSized.FindString(t)):]
		}
		if syn, ok := l3Synonyms[t]; ok {
			t = syn
		}
		toks = append(toks, t)
	}
	return toks, true
}

// TokenList returns a label's token sequence at the tokens level (the
// fields of its TokensKey key), or nil when the tokenizer rejects it.
func TokenList(s string) []string {
	var out []string
	withTokens(WSKey(s), func(toks []string, ok bool) {
		if ok {
			out = slices.Clone(toks)
		}
	})
	return out
}

// TokenCount returns the length of a label's token sequence, and false
// when the tokenizer rejects it.
func TokenCount(s string) (n int, ok bool) {
	withTokens(WSKey(s), func(toks []string, tokOK bool) { n, ok = len(toks), tokOK })
	return n, ok
}

// AppendTokenList appends a label's token sequence at the tokens level to
// dst, and reports false when the tokenizer rejects it: TokenList for
// loops that reuse one buffer.
func AppendTokenList(dst []string, s string) ([]string, bool) {
	return AppendWSTokens(dst, WSKey(s))
}

// AppendWSTokens is AppendTokenList for a label whose ws-level key
// (WSKey) the caller already has: the tokens level starts from it.
func AppendWSTokens(dst []string, ws string) ([]string, bool) {
	out, ok := appendTokens(dst, ws)
	if !ok {
		return dst, false
	}
	return out, true
}

// TokensKey is the tokens level (L3) of a label.
func TokensKey(s string) (string, error) {
	return fromTokens(s, func(toks []string) string { return strings.Join(toks, " ") })
}

// fromTokens is the key of a token level: key of the label's CDM tokens,
// or the failed key of its ws form with latex.ErrCDMPass when the
// tokenizer refuses it.
func fromTokens(s string, key func(toks []string) string) (string, error) {
	ws := WSKey(s)
	var k string
	var err error
	withTokens(ws, func(toks []string, ok bool) {
		if !ok {
			k, err = failed(ws), latex.ErrCDMPass
			return
		}
		k = key(toks)
	})
	return k, err
}

// appendTokensKey is the tokens level's AppendKey: TokensKey' key
// appended to dst.
func appendTokensKey(dst []byte, s string) []byte {
	ws := WSKey(s)
	withTokens(ws, func(toks []string, ok bool) { dst = appendTokensOf(dst, ws, toks, ok) })
	return dst
}

// appendTokensOf appends the tokens-level key of a label with ws key ws
// and token sequence toks (ok false: the tokenizer refused it).
func appendTokensOf(dst []byte, ws string, toks []string, ok bool) []byte {
	if !ok {
		return append(dst, failed(ws)...)
	}
	for i, t := range toks {
		if i > 0 {
			dst = append(dst, ' ')
		}
		dst = append(dst, t...)
	}
	return dst
}

// Digests sets out[i] to levels[i].Digest(label, salt) and returns the
// label's TokenCount, computing the ws key and the token sequence, which
// the ws and tokens levels and the count share, once for all of them: a
// fingerprint's row in one pass.
func Digests(label string, levels []Level, salt []byte, out []Digest) (tokens int, ok bool) {
	ws := WSKey(label)
	bp := keyBufs.Get().(*[]byte)
	withTokens(ws, func(toks []string, tokOK bool) {
		tokens, ok = len(toks), tokOK
		for i, l := range levels {
			switch l.ID {
			case WS:
				*bp = append((*bp)[:0], ws...)
			case Tokens:
				*bp = appendTokensOf((*bp)[:0], ws, toks, tokOK)
			default:
				*bp = l.Append((*bp)[:0], label)
			}
			out[i] = DigestOfBytes(*bp, salt)
		}
	})
	keyBufs.Put(bp)
	return tokens, ok
}

// l4Classes maps tokens to render-identical classes: the reference's
// norm_same_token with its errors corrected (\ne ≡ \neq, \var… forms kept
// apart, \textbackslash is a backslash).
var l4Classes = map[string]string{
	`\dot`: ".", `\Dot`: ".", `\cdot`: ".", `\cdotp`: ".", `\ldotp`: ".", `\mid`: "|", `\rightarrow`: `\to`, `\top`: "T",
	`\Tilde`: `\tilde`, `\prime`: "'", `\ast`: "*", `\langle`: `\langle`, `\lbrace`: `\{`, `\rbrace`: `\}`, `\lbrack`: "[", `\rbrack`: "]",
	`\backslash`: `\backslash`, `\slash`: "/", `\leq`: `\le`, `\geq`: `\ge`, `\Vert`: `\|`, `\lVert`: `\|`, `\rVert`: `\|`, `\parallel`: `\|`,
	`\vert`: "|", `\lvert`: "|", `\rvert`: "|", `\colon`: ":", `\Ddot`: `\ddot`, `\Bar`: `\bar`, `\Vec`: `\vec`, `\dag`: `\dagger`,
	`\ddag`: `\ddagger`, `\textlangle`: "<", `\textless`: "<", `\textrangle`: ">", `\textgreater`: ">", `\textbackslash`: `\backslash`,
	`\textunderscore`: "_", `\=`: "_", `\neg`: `\lnot`, `\neq`: `\ne`, `\widehat`: `\hat`, `\widetilde`: `\tilde`,
}

var (
	inkFree     = set(`\,`, `\:`, `\;`, `\!`, `\quad`, `\qquad`, `~`, `\ `, `\enspace`, `\displaystyle`, `\textstyle`, `\scriptstyle`, `\scriptscriptstyle`)
	phantoms    = set(`\phantom`, `\vphantom`, `\hphantom`)
	argCommands = map[string]int{`\frac`: 2, `\binom`: 2, `\overset`: 2, `\underset`: 2, `\stackrel`: 2, `\sqrt`: 1, `\xrightarrow`: 1, `\xleftarrow`: 1}
	ordSingles  = regexp.MustCompile(`^([A-Za-z0-9.]|\\(alpha|beta|gamma|delta|epsilon|varepsilon|zeta|eta|theta|vartheta|iota|kappa|lambda|mu|nu|xi|pi|varpi|rho|varrho|sigma|varsigma|tau|upsilon|phi|varphi|chi|psi|omega|Gamma|Delta|Theta|Lambda|Xi|Pi|Sigma|Upsilon|Phi|Psi|Omega|infty|partial|nabla|ell|hbar|emptyset|prime))$`)
)

func init() {
	for _, k := range latex.OneArgumentCommands() {
		argCommands[k] = 1
	}
}

// RenderKey is the render level (L4) of a label.
func RenderKey(s string) (string, error) { return fromTokens(s, renderFromTokens) }

// renderFromTokens maps L3 tokens to the render level's key.
func renderFromTokens(toks []string) string {
	var mapped []string
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if phantoms[t] && i+1 < len(toks) && toks[i+1] == "{" {
			i = matchClose(toks, i+1)
			continue
		}
		if inkFree[t] || strings.HasPrefix(t, `\hspace`) {
			continue
		}
		if c, ok := l4Classes[t]; ok {
			t = c
		}
		if strings.HasPrefix(t, `\string`) && len(t) > len(`\string`) {
			t = t[len(`\string`):]
		}
		mapped = append(mapped, t)
	}
	return strings.Join(dropBraces(mapped), " ")
}

// matchClose returns the index of the "}" closing the "{" at i, or the last
// index when it is unclosed.
func matchClose(toks []string, i int) int {
	depth := 0
	for j := i; j < len(toks); j++ {
		switch toks[j] {
		case "{":
			depth++
		case "}":
			if depth--; depth == 0 {
				return j
			}
		}
	}
	return len(toks) - 1
}

// dropBraces removes the braces of groups that are no script or command
// argument and hold one ordinary symbol or one \frac, \binom or \sqrt
// construct: {x} + y ≡ x + y, -{\frac{1}{2}} ≡ -\frac{1}{2}.
func dropBraces(toks []string) []string {
	isArg := make([]bool, len(toks))
	for i, t := range toks {
		n := argCommands[t]
		if t == "^" || t == "_" {
			n = 1
		}
		j := i + 1
		if t == `\sqrt` && j < len(toks) && toks[j] == "[" {
			for j < len(toks) && toks[j] != "]" {
				j++
			}
			j++
		}
		for ; n > 0 && j < len(toks) && toks[j] == "{"; n-- {
			isArg[j] = true
			j = matchClose(toks, j) + 1
		}
	}
	drop := make([]bool, len(toks))
	for i, t := range toks {
		if t != "{" || isArg[i] {
			continue
		}
		end := matchClose(toks, i)
		if end <= i || toks[end] != "}" {
			continue
		}
		inner := toks[i+1 : end]
		single := len(inner) == 1 && ordSingles.MatchString(inner[0])
		construct := len(inner) > 0 && (inner[0] == `\frac` || inner[0] == `\binom` || inner[0] == `\sqrt`) && constructEnd(inner) == len(inner)
		if single || construct {
			drop[i], drop[end] = true, true
		}
	}
	out := make([]string, 0, len(toks))
	for i, t := range toks {
		if !drop[i] {
			out = append(out, t)
		}
	}
	return out
}

// constructEnd returns the length of the \frac/\binom/\sqrt construct at
// the start of toks.
func constructEnd(toks []string) int {
	n := argCommands[toks[0]]
	j := 1
	if toks[0] == `\sqrt` && j < len(toks) && toks[j] == "[" {
		for j < len(toks) && toks[j] != "]" {
			j++
		}
		j++
	}
	for ; n > 0; n-- {
		if j >= len(toks) || toks[j] != "{" {
			return -1
		}
		j = matchClose(toks, j) + 1
	}
	return j
}

func set(items ...string) map[string]bool {
	m := make(map[string]bool, len(items))
	for _, it := range items {
		m[it] = true
	}
	return m
}
