// Command dvigolden regenerates tex/testdata/layout_golden.jsonl.gz, the
// position oracle for the math layout engine (docs/tex-layout.md §7.1).
//
// It samples formulas from the shared data (benchmark labels, im2latex
// test formulas, TexTeller predictions and the 600 reference CDM pairs),
// stratified by construct with a fixed seed; colours them with leakaudit's
// own CDM tokenizer, exactly as the reference does; runs real LaTeX
// (Debian's TeX Live: `latex -interaction=nonstopmode`, DVI mode) on the
// reference template (its tabular_template for a formula holding
// "tabular", as the reference chooses); and reads from the DVI every glyph and rule with its
// position and the token whose colour was current. Positions are in scaled
// points relative to the formula's own reference point (the left end of its
// baseline), y downwards, as the DVI has them; a \special at the start and
// end of each formula marks that point and the formula's width.
//
// Formulas are typeset many to a document, one per page; when a document's
// log has an error, each of its formulas is typeset again on its own so
// that each record's error list is its own. Run it with `make goldens`
// (it needs texlive-latex-base, -latex-recommended, -latex-extra and
// -fonts-recommended); CI only reads the committed file.
//
// With -inline it writes tex/testdata/layout_golden_inline.jsonl.gz, the
// oracle for tex.TypesetInline: the formulas uncoloured, each as in-line
// math ($…$) in l2p's document (a 10 pt article with color, amsmath,
// amssymb and amsfonts, the formula in a center environment), as IMEGE's
// renderer sets them (docs/metrics.md §8.5).
package main

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"github.com/leakaudit/leakaudit/tex/font"
	"log"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/leakaudit/leakaudit/dataset"
	"github.com/leakaudit/leakaudit/internal/reftemplate"
	"github.com/leakaudit/leakaudit/internal/shareddata"
	"github.com/leakaudit/leakaudit/latex"
	"github.com/leakaudit/leakaudit/tex"
)

// Record is one golden formula.
type Record struct {
	Source  string   `json:"source"`
	Input   string   `json:"input"`
	Colored string   `json:"colored"`
	Tokens  []string `json:"tokens"`
	Paper   string   `json:"paper"`
	// Template is "tabular" for a formula the reference typesets on its
	// tabular_template (one holding "tabular"), empty for its
	// formular_template.
	Template string `json:"template,omitempty"`
	// Errors are the LaTeX errors ("! …" lines) of the formula's run.
	Errors []string `json:"errors,omitempty"`
	// Found is false when the start or end marker was not shipped out
	// (a fatal error ate the formula).
	Found bool `json:"found"`
	// Origin is the DVI position (h, v) of the formula's reference point,
	// from the DVI origin one inch in from the page's top left corner.
	Origin [2]int32 `json:"origin"`
	// Width is the distance from the start to the end marker.
	Width int32 `json:"width"`
	// Broken is set when the end marker is not on the start marker's
	// line (an in-line formula broken across lines).
	Broken bool     `json:"broken,omitempty"`
	Fonts  []string `json:"fonts"`
	Glyphs []Glyph  `json:"glyphs"`
	Rules  []Rule   `json:"rules"`
}

// Glyph is [font index, char, x, y, token] (token −1: no token colour).
type Glyph [5]int32

// Rule is [x, y, width, height, token]: the rule's bottom left corner.
type Rule [5]int32

var (
	out        = flag.String("o", "tex/testdata/layout_golden.jsonl.gz", "output file")
	perSt      = flag.Int("n", 250, "formulas per construct stratum and source group")
	perPred    = flag.Int("npred", 500, "predictions with environments, and predictions with broken LaTeX, added to the strata")
	perPrinted = flag.Int("nprinted", 40, "im2latex formulas per construct of printed math added to the sample")
	batch      = flag.Int("batch", 100, "formulas per LaTeX run")
	only       = flag.Bool("probes", false, "typeset the hand-written probes only (a quick check; not the committed golden)")
	file       = flag.String("formulas", "", "with -probes, also typeset the formulas of this file, one a line, coloured as the reference colours them (a quick check)")
	inline     = flag.Bool("inline", false, "typeset uncoloured formulas as in-line math in l2p's 10 pt article (the oracle of tex.TypesetInline)")
)

// inlinePaper marks a record typeset in l2p's document.
const inlinePaper = "l2p"

func main() {
	flag.Parse()
	if *inline {
		set := false
		flag.Visit(func(f *flag.Flag) { set = set || f.Name == "o" })
		if !set {
			*out = "tex/testdata/layout_golden_inline.jsonl.gz"
		}
	}
	root := shareddata.Find()
	if root == "" {
		log.Fatal("shared data not found (../shared/data or $LEAKAUDIT_DATA)")
	}
	var inputs []input
	if !*only {
		inputs = sample(root)
	} else if *file != "" {
		data, err := os.ReadFile(*file)
		if err != nil {
			log.Fatal(err)
		}
		for _, s := range strings.Split(string(data), "\n") {
			if s = strings.TrimRight(s, "\r"); s != "" {
				inputs = append(inputs, input{"file", s})
			}
		}
	}
	log.Printf("%d formulas sampled", len(inputs))
	dir, err := os.MkdirTemp("", "dvigolden")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	var recs []*Record
	for _, pr := range probes {
		r := &Record{Source: "probe", Input: pr, Colored: pr, Paper: "a5"}
		if latex.IsTabular(pr) {
			r.Template = "tabular"
		}
		recs = append(recs, r)
	}
	if *inline {
		for _, r := range recs {
			r.Paper = inlinePaper
		}
		seen := map[string]bool{}
		for _, in := range inputs {
			if strings.TrimSpace(in.text) == "" || seen[in.text] || strings.ContainsAny(in.text, "\n\r") {
				continue
			}
			seen[in.text] = true
			recs = append(recs, &Record{Source: in.source, Input: in.text, Colored: in.text, Paper: inlinePaper})
		}
		inputs = nil
	}
	have := map[string]bool{}
	for _, in := range inputs {
		have[in.text] = true
	}
	for _, pr := range colouredProbes {
		if !have[pr] {
			inputs = append(inputs, input{"probe/coloured", pr})
		}
	}
	for _, in := range inputs {
		res, err := latex.TokenizeCDM(in.text)
		if err != nil || len(res.Tokens) == 0 || len(res.Tokens) > 5800 {
			continue
		}
		r := &Record{Source: in.source, Input: in.text, Colored: res.Rendered(), Tokens: res.Tokens, Paper: paper(len(res.Tokens))}
		if latex.IsTabular(in.text) {
			r.Template = "tabular"
		}
		recs = append(recs, r)
	}
	type key struct{ paper, template string }
	byPaper := map[key][]*Record{}
	for _, r := range recs {
		k := key{r.Paper, r.Template}
		byPaper[k] = append(byPaper[k], r)
	}
	for _, t := range []string{"", "tabular"} {
		for _, p := range []string{"a5", "a4", "a3", inlinePaper} {
			list := byPaper[key{p, t}]
			for i := 0; i < len(list); i += *batch {
				b := list[i:min(i+*batch, len(list))]
				errs, err := typeset(dir, p, t, b)
				if err != nil {
					log.Fatal(err)
				}
				if errs {
					for _, r := range b {
						if _, err := typeset(dir, p, t, []*Record{r}); err != nil {
							log.Fatal(err)
						}
					}
				}
				log.Printf("%s%s: %d/%d", p, t, i+len(b), len(list))
			}
		}
	}
	if err := write(*out, recs); err != nil {
		log.Fatal(err)
	}
	n, bad := 0, 0
	for _, r := range recs {
		n++
		if len(r.Errors) > 0 || !r.Found {
			bad++
		}
	}
	log.Printf("wrote %d formulas (%d with LaTeX errors) to %s", n, bad, *out)
}

// probes are hand-written formulas typeset as they are (no tokenizer, so
// mostly uncoloured): constructs the datasets rarely show in isolation,
// kerns and ligatures between uncoloured characters, and text.
var probes = []string{
	`\mathrm{ff}`, `\mathrm{fi} x`, `\mathrm{AV}`, `\mathrm{To}`, `\mathrm{f}\mathrm{f}`, `\mathrm{ffi}`, `\mathit{ff}`,
	`\mathcolor[RGB]{0,0,15}{\mathrm{ff}}`, `\mathcolor[RGB]{0,0,15}{\mathrm{f}}\mathcolor[RGB]{0,0,30}{\mathrm{f}}`,
	`\text{if } x`, `\text{ffi af}`, `x_{\text{max}}`, `\mbox{a b}`, `\textbf{AV} x`,
	`x^{\prime\prime}`, `f'(x)`, `f''`, `x'^2`, `\sqrt[3]{x}`, `\sqrt[n]{a+b}`, `\sqrt{x^2+1}`,
	`{a \over b}`, `{a \atop b}`, `{n \choose k}`, `\binom{n}{k}`, `\dfrac{a}{b} \tfrac{a}{b}`,
	`\overset{a}{=}`, `\underset{x}{\max}`, `\stackrel{def}{=}`, `\overset{*}{x}`, `\underset{+}{-}`,
	`\widehat{abc}`, `\widehat{abcdefgh}`, `\widetilde{x}`, `\widetilde{xyzxyzxyz}`,
	`\big( \Big[ \bigg\{ \Bigg\langle x \Bigg\rangle \bigg\} \Big] \big)`, `\bigl( x \bigr) \bigm| y`,
	`\left( \frac{a}{b} \right)`, `\left\{ x \right.`, `\left[ \sum_{i=1}^{n} x_i \right]`, `\left\| x \right\|`,
	`\lim_{x \to 0}`, `\sin x`, `\operatorname{arg\,max}_x`, `\max_{i}`, `\log_2 n`,
	`\sum_{i=1}^{n} \int_0^1 \prod \oint`, `\textstyle\sum_{i=1}^{n} x`, `\sum\nolimits_{i} \int\limits_0^1`,
	`\hat{x}_1`, `\vec{v}`, `\dot{x}^2`, `\bar{\bar{x}}`, `\mathrm{\vec{x}}`, `\tilde{A}`, `\check{f}`,
	`\overline{x+y}`, `\underline{x}`, `\overline{\overline{x}}`,
	`\not= \neq \ne`, `a \, b \; c \! d \quad e \qquad f \: g`, `a~b`, `a\ b`,
	`\longrightarrow \Longrightarrow \mapsto \iff \hookrightarrow \longleftarrow`,
	`\mathbb{R} \mathcal{L} \mathfrak{g} \mathbf{x} \mathit{ff} \boldsymbol{\alpha} \boldsymbol{x} + \boldsymbol{+}`,
	`\upalpha \Upomega`, `x_{i}^{2} x^{2}_{i} {x}_{a}^{b}`, `x^{y^{z^{w}}}`, `x_{y_{z}}`,
	`\displaystyle \frac{1}{2} \textstyle \frac{1}{2} \scriptstyle x`, `\cdots \ldots \dots`,
	`\{ x \} \| y \|`, `\mkern 18mu x \mskip 9mu y \kern 3pt z \hspace{1cm} w`, `{\bf x} {\rm d} {\cal L}`,
	`a + - b`, `+a`, `a +`, `a = + b`, `( - x )`, `a , b ; c`, `\frac{\frac{a}{b}}{\frac{c}{d}}`,
	"\\mathcolor[RGB]{0,0,15}{\\cfrac} { \\mathcolor[RGB]{0,0,30}{1} } { \\mathcolor[RGB]{0,0,45}{2} \\mathcolor[RGB]{0,0,60}{+} \\mathcolor[RGB]{0,0,75}{x} }",
	`\overbrace{a+b+c}^{n} \underbrace{x_1 + x_2}_{k}`, `\underbrace{a}`, `\phantom{x} y \vphantom{\frac{a}{b}} z`,
	`a \xrightarrow{f} b \xleftarrow[g]{h} c`, `a \doteq b \slash c`, `\begin{array}{l} a \hfill b \\ ccccc \end{array}`, `\boxed{x^2} \ddots \vdots`,
	`\begin{matrix} a & b \\ c & d \end{matrix}`, `\begin{pmatrix} a & b \\ c & d \end{pmatrix}`, `A = \begin{bmatrix} 1 & 0 & x^2 \\ 0 & 1 & y \end{bmatrix}`,
	`\begin{Bmatrix} a \end{Bmatrix} \begin{vmatrix} a & b \\ c & d \end{vmatrix} \begin{Vmatrix} x \end{Vmatrix}`,
	`f(x) = \begin{cases} x^2 & x > 0 \\ -x & \text{otherwise} \end{cases}`, `\begin{cases} a \\ b & c \end{cases}`,
	`\begin{array}{c} a \\[2pt] b \\[-3pt] c \\* d \end{array}`, `\begin{array}{*{3}{c}} a & b & c \end{array}`,
	`\begin{array}{|c|c|} \hline a & b \\ \hline c & d \\ \hline \end{array}`, `\begin{array}{c||l} a & b \end{array}`,
	`\begin{aligned} a &= b + c \\ d &= e \end{aligned}`, `\begin{aligned} x &= 1 & y &= 2 \\ z &= 3 \end{aligned}`,
	`\begin{aligned} f(x) &= \int_0^1 g \\[4pt] &\leq \frac{1}{2} \end{aligned}`, `\begin{gathered} a + b \\ \sum_{i} x_i \\ c \end{gathered}`,
	`x = \begin{aligned} a \\ bb \end{aligned}`,
	`\mathsf{AB} x_{\mathsf{ff}} {\sf y}^{\sf z} \mathtt{fi} x_{\mathtt{i}^{\tt j}} \textsf{s t} \texttt{t t}`, `\boldmath x + \alpha \unboldmath`, `a \_ b_{\_}`,
	`a}+b`, `x \right) y`, `\left( a } b \right)`, `{a \right) b`, `x^{2}} + \frac{a}{b}}`,
	`\o \O \ae \AE \oe \OE \i \j \ss \l \L x_{\L} \text{\o\l}`, `a \colon b`, `f\colon A \to B`, `\pounds 5 \surd 2`, `a\ b\ `, "x \\",
	`\mathcolor[RGB]{0,0,15}{\d} \mathcolor[RGB]{0,0,30}{C}`, `\mathcolor[RGB]{0,0,15}{\b} \mathcolor[RGB]{0,0,30}{o}`, `\mathcolor[RGB]{0,0,15}{\c} \mathcolor[RGB]{0,0,30}{E}`,
	`\mathcolor[RGB]{0,0,15}{\acute} { \mathcolor[RGB]{0,0,30}{x} }`, `\mathcolor[RGB]{0,0,15}{\makebox} { \mathcolor[RGB]{0,0,30}{t} }`, `\mathcolor[RGB]{0,0,15}{\fbox} { \mathcolor[RGB]{0,0,30}{t} }`,
	`a \mathcolor[RGB]{0,0,15}{\hspace} { \mathcolor[RGB]{0,0,30}{1} } b \mathcolor[RGB]{0,0,45}{\kern} \mathcolor[RGB]{0,0,60}{2} c \mathcolor[RGB]{0,0,75}{\mkern} d \mathcolor[RGB]{0,0,90}{\raise} e \mathcolor[RGB]{0,0,105}{\vspace} f`,
	`a \vspace{1mm} b \- c \sl d`,
	`\frac{a}{b}^{2}`, `{\frac{a}{b}}^{2}`, `\sqrt{\frac{a}{b}}`, `\sqrt{\sqrt{\sqrt{x}}}`, `e^{-\frac{x^2}{2}}`,
	// im2latex's \sp coloured by the reference inside \left…\right: the
	// group inserted after the colour's end runs to \right
	`\mathcolor[RGB]{0,0,15}{\left(} \mathcolor[RGB]{0,0,30}{a} \mathcolor[RGB]{0,0,45}{\sp} { \mathcolor[RGB]{0,0,60}{\prime} } \mathcolor[RGB]{0,0,75}{b} \mathcolor[RGB]{0,0,90}{\right)} \mathcolor[RGB]{0,0,105}{c}`,
	// \buildrel's argument meets the group's }: the display ends empty,
	// and the α is set in the paragraph after it
	`{ \mathcolor[RGB]{0,0,15}{\buildrel} \mathcolor[RGB]{0,0,30}{a} } \mathcolor[RGB]{0,0,45}{\alpha}`,
	// \verb's text with 0 an escape character: control space, \{, \},
	// \, and \5 after 0; \@noligs' characters
	"\\mathcolor[RGB]{0,0,15}{\\verb} a0 b 0,c0{d0}e05 <x>-'`!`?`,, x",
	"\\mathcolor[RGB]{0,0,15}{\\verb} a  ", // TeX drops the blanks ending a line
	// tabular (on the reference's tabular template): text cells, where
	// braces break ligatures and kerns and a space's width follows the
	// space factor
	`\begin{tabular}{l|c} ff{}f A{V} To & fi \\ \hline AV. x & y: z \end{tabular}`,
	`\begin{tabular}{r} a. b \end{tabular}`, `\left( \begin{tabular}{cc} a & b \\ c \end{tabular} \right)`,
}

// colouredProbes are typeset as the sample is, coloured by the reference's
// tokenizer: im2latex test formulas whose pdflatex recovery the engine
// models (issue 20) and variants of them. Where the colouring leaves a
// script after \left unbraced, mathcolor.ltx hijacks its own end-group
// token (tex/hijack.go); \buildrel alone in a colour body makes TeX leave
// math mode and set the rest in a paragraph (tex/paragraph.go); a size
// command changes the text font that control space and em measure.
var colouredProbes = []string{
	// im2latex test lines 2023, 1482, 2011, 3698, 7571, 8034
	`\Theta \left[ ^ a _ { b } \right] \left( z + n + \Omega \cdot m | \Omega \right) = e ^ { - \pi i m \cdot \Omega \cdot m - 2 \pi i m \cdot z + 2 \pi i ( a \cdot n - b \cdot m ) } \Theta \left[ ^ a _ { b } \right] \left( z | \Omega \right) .`,
	`\phi ( t , x ) { \frac { \buildrel t = T / 2 \to \infty } { \mathrm { t } o 6 0 p t { \rightarrowfill } } } \phi _ { 2 } ( x ) ,`,
	`\frac { R ( T ) \buildrel { T \to \infty } } { \simeq \left[ { \frac { ( D - 2 ) u _ { \infty } } { 2 ( D - 1 ) } } \right] ^ { \frac { 1 } { D - 2 } } T ^ { \frac { 2 } { D - 2 } } }`,
	`\{ i \gamma ^ { A } [ \partial _ { A } - i e \tilde { A } _ { A } ( \tau , \vec { \sigma } ) ] - m \} \check { \stackrel { o } \psi } ( \tau , \vec { \sigma } ) { \frac { \buildrel \circ } { = } } 0 ,`,
	`\frac { R ( X ^ { 0 } ) \buildrel { X ^ { 0 } \to 0 } } { \simeq { \frac { D } { 2 } } \left[ { \frac { 2 d } { ( D - 1 ) ( D - 2 ) } } \right] ^ { \frac { 1 } { D } } ( X ^ { 0 } ) ^ { \frac { 2 } { D } } }`,
	`g _ { \mathrm { \footnotesize \boldmath a } } ^ { ( n ) } ( z , v ) = \sum _ { \mathrm { \footnotesize \boldmath \alpha } \in G _ { m } } \omega ^ { 2 \langle \mathrm { \footnotesize \boldmath \alpha } , \mathrm { \footnotesize \boldmath a } \rangle } u _ { 2 \mathrm { \footnotesize \boldmath \alpha } } ^ { ( n ) } ( z , v ) u _ { 2 ( \mathrm { \footnotesize \boldmath a } + \mathrm { \footnotesize \boldmath \alpha } ) } ^ { ( n ) } ( - z , v ) .`,
	// the hijacked end-group token
	`\left[ ^ a _ { b } ^ { c } \right] z`, `\left[ ^ a _ { b _ { c } } \right]`, `\left[ ^ a`,
	`\left[ ^ a ^ { b } _ { c } d \right] e`, `\left[ ^ a _ { b } c ^ { d } e \right] f`, `\frac { \left[ ^ a _ { b } \right] } { 2 }`,
	// leaving math mode
	`{ a \buildrel b } c`, `\frac { a \buildrel b } { c } d`, `x = { \buildrel a } \alpha + \beta`, `{ \buildrel a } 1 \alpha`,
	`{ \buildrel a } , .`, `{ \buildrel a } \int _ { 0 } ^ { 1 } f`, `\frac { 1 } { \frac { 1 } { y } } { \buildrel a } \alpha`,
	`a + b + c + d + e + f + g + h + i + j + k + l + m + n + o + p + q + r + s + t + u + v + w + x + y + z + a + b + c + d + e + f + g + h + i + j + k + l + m + n { \buildrel a } x`,
	`a \buildrel b c d`,
	// size commands
	`{ \small a \ b } \ c`, `{ \tiny a ~ b } c`, `{ \Large a \quad b } c`, `{ \scriptsize a \hspace { 1 em } b } c`,
	`{ \huge a \ b \normalsize \ c } \ d`, `\mathrm { \LARGE \ a }`,
	// \hline in a cell (the colouring moves it there): the alignment
	// ends, the rest of the array is read in its \vcenter's vertical
	// mode (tex/hline.go); im2latex test lines 6572, 2399, 7254, 5896,
	// 2097, then variants
	`g ^ { a b } = \left( \begin{array} { c | c } { g ^ { i j } } & { 0 } \\ \hline { 0 } & { g ^ { d d } } \\ \end{array} \right) .`,
	`T ( u _ { E } ) = \left( \begin{array} { c | c } { 1 } & { b ( u _ { E } ^ { 0 } ) \vec { u } _ { E } ^ { \mathrm { T } } } \\ \hline { 0 } & { I } \\ \end{array} \right) ,`,
	`\begin{array} { c | c c c c c c c } { p } & { 3 } & { 5 } & { 7 } & { 9 } & { 1 1 } & { 1 3 } & { \cdots } \\ \hline { \Delta } & { 5 } & { 1 1 } & { 1 7 } & { 2 1 } & { 2 9 } & { 3 5 } & { \cdots } \\ \end{array}`,
	`\left( \begin{array} { c c c c | c c } { \times } & { \times } & { } & { } & { } & { } \\ { \times } & { \times } & { } & { } & { } & { } \\ { \times } & { \times } & { \times } & { \times } & { \times } & { \times } \\ { \times } & { \times } & { \times } & { \times } & { \times } & { \times } \\ \hline { \times } & { \times } & { } & { } & { \times } & { } \\ { \times } & { \times } & { } & { } & { \times } & { \times } \\ \end{array} \right)`,
	`\left[ g _ { \mu \nu } ( u ) \right] = \left( \begin{array} { c | c } { 1 } & { u ^ { 0 } \vec { u } ^ { \mathrm { T } } } \\ \hline { u ^ { 0 } \vec { u } } & { - I + \vec { u } \otimes \vec { u } ^ { \mathrm { T } } ( u ^ { 0 } ) ^ { 2 } } \\ \end{array} \right) ,`,
	`\left( \begin{array} { c c } { a } & { b } \\ \hline { c } & { d } \end{array} \right) x`,
	`\begin{array} { c c } { a } & { b } \\ \hline { \alpha + 1 } & { d } \end{array} = 0`,
	`\begin{array} { l l } { x } & { y } \\ \hline { \beta } & { z } \\ { - } & { w } \end{array}`,
	`\begin{array} { c c c } { 1 } & { 2 } & { 3 } \\ { 4 } & \hline { 5 } & { 6 } \end{array}`,
	`x ^ { 2 } = \left[ \begin{array} { r } { a } \\ \hline { b ^ { 2 } } \end{array} \right]`,
	`\begin{array} { r l } { a } & { b } \\ \hline { x y } & { c } \end{array}`,
	`\begin{array} { c c } { a b c d e f g h i j } & { b } \\ \hline { \sum _ { i } x _ { i } } & { d } \\ { } & { } \end{array} + y`,
	// not modelled: \\ after the \vcenter ends the display; \frac in its
	// vertical mode
	`\begin{array} { c } { a } \\ \hline { b } \\ \hline { c } \end{array}`,
	`\begin{array} { c c } { a } & { b } \\ \hline { \frac { 1 } { 2 } } & { d } \end{array}`,
	// an array after \small: its cells in \small's math fonts; im2latex
	// test line 7131, then variants
	`\varepsilon _ { v _ { 0 } } = { \small \left( \begin{array} { c c } { 0 } & { 1 _ { \frac { v _ { 0 } } { 2 } } } \\ { - 1 _ { \frac { v _ { 0 } } { 2 } } } & { 0 } \\ \end{array} \right) } .`,
	`{ \small \begin{array} { c c } { x } & { \frac { a } { b } } \\ { \sum _ { i } } & { y ^ { 2 } } \end{array} } z`,
	`{ \small \left[ \begin{array} { l r } { \sqrt { x } } & { \hat { a } } \\ { \| x \| } & { \{ \} \leq \lambda } \end{array} \right] }`,
	`{ \small \begin{array} { c } { a \ b } \\ { \boldsymbol { \alpha } + \boldsymbol { x } } \end{array} }`,
	`{ \small \begin{array} { c } { \mathit { ff } } \\ { \mathtt { x } \mathsf { y } \mathbb { R } \mathfrak { g } \mathbf { b } \mathcal { L } } \end{array} }`,
	`x = { \small \begin{array} { c } { \displaystyle \sum _ { n } a _ { n } } \\ { \alpha \beta \gamma \quad \Gamma } \end{array} } + \small { \begin{array} { r } { 1 } \end{array} }`,
	// \verb alone in a colour body takes mathcolor.ltx's scan for
	// scripts as its delimiter: 0 becomes an escape character and the
	// rest of the line is set in cmtt12 (tex/verb.go); im2latex test line
	// 1691, then variants (the last four are not modelled: \verb in
	// \frac's argument, as the colouring writes \over; \. after 0; \verb
	// inside \left or a script)
	`\times \left[ \begin{array} { r r r } { p _ { 1 1 } ^ { j } } & { p _ { 1 2 } ^ { j } } & { p _ { 1 3 } ^ { j } } \\ { p _ { 2 1 } ^ { j } } & { p _ { 2 2 } ^ { j } } & { p _ { 2 3 } ^ { j } } \\ { p _ { 3 1 } ^ { j } } & { p _ { 3 2 } ^ { j } } & { p _ { 3 3 } ^ { j } } \\ \end{array} \right] , \verb + + \scriptscriptstyle { ( j = 1 , 2 , 3 ) } ,`,
	`a = \verb + x + b`, `\frac { 1 } { 2 } \verb | < x > - ' , \{ 0 \} ^ { \prime } & \\`,
	`{ a \verb b } c`, `a + \verb`,
	`{ { a \over \verb b } } c`, `x \verb \vspace { 0 . 5 i n } y`, `\left( a \verb b \right)`, `x ^ { a \verb b }`,
	// tabular, which the reference tokenizes apart and typesets on its
	// tabular template: cells in text mode, where each \mathcolor is an
	// error that removes the spaces after it; \left and \right meet a
	// \mathcolor ("Missing delimiter"). im2latex test lines 3105 and
	// 7149, then variants
	`\Omega = \left( \begin{tabular} { c | c } { 0 } & { I } \\ \hline { I } & { 0 } \\ \end{tabular} \right) .`,
	`\begin{tabular} { | c | c | c | c | c | } \hline { n } & { 1 , . . . , 1 5 } & { 1 6 , . . . , 2 1 } & { 2 2 , . . . , 2 7 } & { 2 8 , . . . , 3 3 } \\ \hline { l } & { 1 } & { 2 } & { 3 } & { 4 } \\ \hline { } \\ \end{tabular} \ ,`,
	`x = \left[ \begin{tabular} { l | r } { a b c } & { d } \\ \hline { x y } & { 1 2 } \end{tabular} \right] ^ { 2 }`,
	`\begin{tabular} { | c | } \hline a \\ \hline \end{tabular}`,
	`\begin{tabular} { c c } a & b \\ [ 2 pt ] c & d \end{tabular} x ^ { 2 }`,
	`\begin{tabular} { @ { } l @ { } } a \end{tabular} + b`,
	`x = \begin{tabular} { c c c } 1 & 2 \end{tabular} + y`,
	`\begin{tabular} { r c l } { a } & { } & { c } \\ \hline \hline { } & { b } \end{tabular}`,
	`\begin{tabular} { c } \frac { a } { b } \end{tabular}`,
	`\begin{tabular} { c c } a & b`,
	`\sum _ { i } \begin{tabular} { c } { a } \\ { b } \\ { c } \end{tabular} _ { x }`,
}

// paper is the reference's page choice by token count (docs/cdm.md §6).
func paper(tokens int) string {
	switch {
	case tokens > 1300:
		return "a3"
	case tokens > 600:
		return "a4"
	}
	return "a5"
}

type input struct{ source, text string }

// strata classify a formula by its most telling construct; a formula is
// counted in the first stratum whose pattern it contains.
var strata = []struct {
	name string
	re   *regexp.Regexp
}{
	{"array", regexp.MustCompile(`\\begin|\\\\`)},
	{"delim", regexp.MustCompile(`\\left|\\right|\\[Bb]ig`)},
	{"bigop", regexp.MustCompile(`\\(sum|int|prod|lim|bigcup|bigcap|oint|iint|coprod)`)},
	{"radical", regexp.MustCompile(`\\sqrt`)},
	{"accent", regexp.MustCompile(`\\(hat|bar|vec|dot|ddot|tilde|widehat|widetilde|overline|underline|check|breve|acute|grave)`)},
	{"font", regexp.MustCompile(`\\(math[a-z]+|text[a-z]*|boldsymbol|operatorname|up[a-z]+|rm|bf)`)},
	{"frac", regexp.MustCompile(`\\(frac|dfrac|tfrac|binom|over)`)},
	{"script", regexp.MustCompile(`[_^']`)},
	{"plain", regexp.MustCompile(``)},
}

// sample draws up to perSt formulas of each stratum from each source
// group, with a fixed seed, plus every formula of the reference pairs.
func sample(root string) []input {
	groups := map[string][]string{}
	read := func(group, path string, pred bool) {
		_, err := dataset.Scan(dataset.Source{Path: path}, func(it dataset.Item) error {
			if pred {
				if it.HasPred {
					groups[group] = append(groups[group], it.Pred)
				}
			} else {
				groups[group] = append(groups[group], it.Label)
			}
			return nil
		})
		if err != nil {
			log.Fatal(err)
		}
	}
	labels, _ := filepath.Glob(filepath.Join(root, "labels", "*.json"))
	for _, p := range labels {
		read("labels", p, false)
	}
	read("im2latex", filepath.Join(root, "im2latex", "formulas", "test.formulas.norm.txt"), false)
	preds, _ := filepath.Glob(filepath.Join(root, "predictions", "texteller", "*.json"))
	for _, p := range preds {
		read("predictions", p, true)
	}
	var res []input
	seen := map[string]bool{}
	add := func(src, s string) {
		if s == "" || seen[s] {
			return
		}
		seen[s] = true
		res = append(res, input{src, s})
	}
	var pairs []struct{ GT, Pred string }
	data, err := os.ReadFile(filepath.Join(root, "refcdm", "reference_600", "pairs.json"))
	if err != nil {
		log.Fatal(err)
	}
	if err := json.Unmarshal(data, &pairs); err != nil {
		log.Fatal(err)
	}
	for _, p := range pairs {
		add("pairs", p.GT)
		add("pairs", p.Pred)
	}
	names := make([]string, 0, len(groups))
	for g := range groups {
		names = append(names, g)
	}
	sort.Strings(names)
	rng := rand.New(rand.NewPCG(1, 2))
	for _, g := range names {
		list := slices.Clone(groups[g])
		slices.Sort(list)
		list = slices.Compact(list)
		rng.Shuffle(len(list), func(i, j int) { list[i], list[j] = list[j], list[i] })
		count := map[string]int{}
		for _, s := range list {
			for _, st := range strata {
				if st.re.MatchString(s) {
					if count[st.name] < *perSt {
						count[st.name]++
						add(g+"/"+st.name, s)
					}
					break
				}
			}
		}
	}
	// Real predictions with environments and with broken LaTeX (issue 8):
	// drawn after the strata above, from their own stream, so that the
	// earlier sample stays as it was.
	rng2 := rand.New(rand.NewPCG(3, 4))
	list := slices.Clone(groups["predictions"])
	slices.Sort(list)
	list = slices.Compact(list)
	rng2.Shuffle(len(list), func(i, j int) { list[i], list[j] = list[j], list[i] })
	count := map[string]int{}
	for _, s := range list {
		st := ""
		switch {
		case looksBroken(s):
			st = "broken"
		case strings.Contains(s, `\begin{`):
			st = "env"
		default:
			continue
		}
		if count[st] < *perPred && !seen[s] {
			count[st]++
			add("predictions/"+st, s)
		}
	}
	// im2latex formulas holding the constructs of printed math (issue
	// "Printed math"): text symbols, spacing and box primitives, control
	// space, from their own stream so that the sample above stays as it
	// was. The train formulas are not in the shared data; the validation
	// formulas stand in for them.
	var val []string
	_, err = dataset.Scan(dataset.Source{Path: filepath.Join(root, "im2latex", "formulas", "val.formulas.norm.txt")}, func(it dataset.Item) error {
		val = append(val, it.Label)
		return nil
	})
	if err != nil {
		log.Fatal(err)
	}
	rng3 := rand.New(rand.NewPCG(5, 6))
	rng3.Shuffle(len(val), func(i, j int) { val[i], val[j] = val[j], val[i] })
	// then the test formulas, for the constructs val has too few of
	test := slices.Clone(groups["im2latex"])
	slices.Sort(test)
	test = slices.Compact(test)
	rng4 := rand.New(rand.NewPCG(7, 8))
	rng4.Shuffle(len(test), func(i, j int) { test[i], test[j] = test[j], test[i] })
	count = map[string]int{}
	for _, s := range append(val, test...) {
		for _, c := range printedConstructs {
			if c.re.MatchString(s) {
				if count[c.name] < *perPrinted && !seen[s] {
					count[c.name]++
					add("im2latex-val/"+c.name, s)
				}
				break
			}
		}
	}
	return res
}

// printedConstructs are the constructs of printed math the printed-math
// sample draws formulas for.
var printedConstructs = []struct {
	name string
	re   *regexp.Regexp
}{
	{"controlspace", regexp.MustCompile(`\\ |\\$`)},
	{"textsymbol", regexp.MustCompile(`\\(o|O|ae|AE|AA|oe|OE|i|j|ss|l|L|d|b|c|pounds|surd|colon)( |$)`)},
	{"fontswitch", regexp.MustCompile(`\\(sl|scshape|Tilde)( |$)`)},
	{"space", regexp.MustCompile(`\\(hspace|hskip|kern|mkern|mskip|vspace|smallskip|raise|lower|symbol|-)( |$)`)},
	{"box", regexp.MustCompile(`\\(fbox|makebox|mbox|raisebox)( |$)`)},
	{"picture", regexp.MustCompile(`\\(put|vector|line|oval|thicklines|tabcolsep|unitlength)( |$)`)},
	{"expansion", regexp.MustCompile(`\\(expandafter|romannumeral|special|ref|pageref)( |$)`)},
}

// looksBroken reports LaTeX that pdflatex will complain about: unbalanced
// braces or environments, or an alignment tab or row break outside any
// environment.
func looksBroken(s string) bool {
	depth, bad := 0, false
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '{':
			depth++
		case '}':
			depth--
			bad = bad || depth < 0
		}
	}
	if bad || depth != 0 {
		return true
	}
	begins, ends := strings.Count(s, `\begin{`), strings.Count(s, `\end{`)
	if begins != ends {
		return true
	}
	if begins == 0 && (strings.Contains(s, "&") && !strings.Contains(s, `\&`) || strings.Contains(s, `\\`)) {
		return true
	}
	return false
}

// typeset runs LaTeX over the records on one page each, on the reference's
// formula or tabular template, and fills them in.
// It reports whether the log had errors.
func typeset(dir, paperName, template string, recs []*Record) (bool, error) {
	var b strings.Builder
	if paperName == inlinePaper {
		b.WriteString(reftemplate.L2PPreamble)
		for i, r := range recs {
			if i > 0 {
				b.WriteString("\\newpage\n")
			}
			// as l2p writes a line holding one in-line formula, with a
			// blank line after it; the markers stand outside the math
			// (\mathsurround is 0)
			fmt.Fprintf(&b, "\\begin{center}\n\\leavevmode\\special{la:b %d}$%s$\\special{la:e %d}\n\n\\end{center}\n", i, r.Colored, i)
		}
	} else if template == "tabular" {
		b.WriteString(reftemplate.TabularPreamble(paperName))
	} else {
		b.WriteString(reftemplate.Preamble(paperName))
	}
	lines := strings.Count(b.String(), "\n")
	lineOf := make([]int, len(recs))
	for i, r := range recs {
		if paperName == inlinePaper {
			break
		}
		if i > 0 {
			b.WriteString("\\newpage\n")
			lines++
		}
		b.WriteString("\\begin{displaymath}\n")
		lines++
		lineOf[i] = lines + 1
		// the formula ends its line, as in the reference's template (a
		// final \ is \^^M, control space)
		fmt.Fprintf(&b, "\\special{la:b %d}%s\n\\special{la:e %d}\n", i, r.Colored, i)
		lines += 2
		b.WriteString("\\end{displaymath}\n")
		lines++
	}
	b.WriteString("\\end{document}\n")
	tex := filepath.Join(dir, "g.tex")
	if err := os.WriteFile(tex, []byte(b.String()), 0o644); err != nil {
		return false, err
	}
	for _, ext := range []string{".dvi", ".log", ".aux"} {
		os.Remove(filepath.Join(dir, "g"+ext))
	}
	cmd := exec.Command("latex", "-interaction=nonstopmode", "-halt-on-error=false", "g.tex")
	cmd.Dir = dir
	cmd.Stdin = nil
	_ = cmd.Run() // errors are read from the log
	logData, err := os.ReadFile(filepath.Join(dir, "g.log"))
	if err != nil {
		return false, fmt.Errorf("latex left no log: %w", err)
	}
	errs := logErrors(string(logData))
	hasErr := len(errs) > 0
	if len(recs) == 1 {
		for _, e := range errs {
			recs[0].Errors = append(recs[0].Errors, e.msg)
		}
	}
	dvi, err := os.ReadFile(filepath.Join(dir, "g.dvi"))
	if err != nil {
		return hasErr, nil // nothing shipped out
	}
	if err := readDVI(dvi, recs); err != nil {
		return hasErr, fmt.Errorf("dvi: %w", err)
	}
	return hasErr, nil
}

type logErr struct {
	msg  string
	line int
}

var reLine = regexp.MustCompile(`^l\.(\d+) `)

// logErrors returns the "! " messages of a LaTeX log with their line.
func logErrors(s string) []logErr {
	var res []logErr
	sc := bufio.NewScanner(strings.NewReader(s))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		t := sc.Text()
		if strings.HasPrefix(t, "! ") {
			res = append(res, logErr{msg: strings.TrimSpace(t[2:])})
		} else if m := reLine.FindStringSubmatch(t); m != nil && len(res) > 0 && res[len(res)-1].line == 0 {
			res[len(res)-1].line, _ = strconv.Atoi(m[1])
		}
	}
	return res
}

// dviState is the DVI machine's registers.
type dviState struct{ h, v, w, x, y, z int32 }

// readDVI interprets the DVI and fills each record from its page.
func readDVI(d []byte, recs []*Record) error {
	type fontDef struct {
		name  string
		scale int32
	}
	fonts := map[int32]fontDef{}
	var st dviState
	var stack []dviState
	var colors []int32
	var rec *Record
	fontIdx := map[string]int32{}
	var font int32
	var origin [2]int32
	p := 0
	u8 := func() int32 { v := d[p]; p++; return int32(v) }
	s := func(n int) int32 {
		var v int32
		for i := 0; i < n; i++ {
			v = v<<8 | int32(d[p+i])
		}
		if n < 4 && d[p]&0x80 != 0 {
			v -= 1 << (8 * n)
		}
		p += n
		return v
	}
	uN := func(n int) int32 {
		var v uint32
		for i := 0; i < n; i++ {
			v = v<<8 | uint32(d[p+i])
		}
		p += n
		return int32(v)
	}
	tokOf := func() int32 {
		if len(colors) == 0 {
			return -1
		}
		return colors[len(colors)-1]
	}
	glyph := func(c int32) {
		if rec == nil {
			return
		}
		fd := fonts[font]
		key := fd.name + "@" + strconv.Itoa(int(fd.scale))
		fi, ok := fontIdx[key]
		if !ok {
			fi = int32(len(rec.Fonts))
			rec.Fonts = append(rec.Fonts, key)
			fontIdx[key] = fi
		}
		rec.Glyphs = append(rec.Glyphs, Glyph{fi, c, st.h - origin[0], st.v - origin[1], tokOf()})
	}
	rule := func(a, b int32) {
		if rec != nil && a > 0 && b > 0 {
			rec.Rules = append(rec.Rules, Rule{st.h - origin[0], st.v - origin[1], b, a, tokOf()})
		}
	}
	special := func(x string) {
		switch {
		case strings.HasPrefix(x, "la:b "):
			i, _ := strconv.Atoi(x[5:])
			if i >= 0 && i < len(recs) {
				rec = recs[i]
				rec.Found = true
				rec.Glyphs, rec.Rules, rec.Fonts = nil, nil, nil
				fontIdx = map[string]int32{}
				origin = [2]int32{st.h, st.v}
				rec.Origin = origin
			}
		case strings.HasPrefix(x, "la:e "):
			if rec != nil {
				rec.Width = st.h - origin[0]
				rec.Broken = st.v != origin[1]
			}
			rec = nil
		case strings.HasPrefix(x, "color push"):
			colors = append(colors, colorToken(strings.TrimSpace(x[len("color push"):])))
		case x == "color pop":
			if len(colors) > 0 {
				colors = colors[:len(colors)-1]
			}
		}
	}
	for p < len(d) {
		op := d[p]
		p++
		switch {
		case op <= 127:
			glyph(int32(op))
			w, ok := widthOf(fonts[font].name, fonts[font].scale, int32(op))
			if !ok {
				return fmt.Errorf("no width for %s char %d", fonts[font].name, op)
			}
			st.h += w
		case op >= 128 && op <= 131: // set1..set4
			c := uN(int(op - 127))
			glyph(c)
			w, _ := widthOf(fonts[font].name, fonts[font].scale, c)
			st.h += w
		case op == 132: // set_rule
			a, b := s(4), s(4)
			rule(a, b)
			st.h += b
		case op >= 133 && op <= 136: // put1..4
			glyph(uN(int(op - 132)))
		case op == 137:
			rule(s(4), s(4))
		case op == 138: // nop
		case op == 139: // bop
			p += 44
			st, stack, colors = dviState{}, nil, nil
		case op == 140: // eop
		case op == 141:
			stack = append(stack, st)
		case op == 142:
			st = stack[len(stack)-1]
			stack = stack[:len(stack)-1]
		case op >= 143 && op <= 146:
			st.h += s(int(op - 142))
		case op == 147:
			st.h += st.w
		case op >= 148 && op <= 151:
			st.w = s(int(op - 147))
			st.h += st.w
		case op == 152:
			st.h += st.x
		case op >= 153 && op <= 156:
			st.x = s(int(op - 152))
			st.h += st.x
		case op >= 157 && op <= 160:
			st.v += s(int(op - 156))
		case op == 161:
			st.v += st.y
		case op >= 162 && op <= 165:
			st.y = s(int(op - 161))
			st.v += st.y
		case op == 166:
			st.v += st.z
		case op >= 167 && op <= 170:
			st.z = s(int(op - 166))
			st.v += st.z
		case op >= 171 && op <= 234:
			font = int32(op - 171)
		case op >= 235 && op <= 238:
			font = uN(int(op - 234))
		case op >= 239 && op <= 242:
			k := uN(int(op - 238))
			x := string(d[p : p+int(k)])
			p += int(k)
			special(x)
		case op >= 243 && op <= 246:
			k := uN(int(op - 242))
			p += 4 // checksum
			sc := s(4)
			p += 4 // design size
			a, l := u8(), u8()
			name := string(d[p+int(a) : p+int(a)+int(l)])
			p += int(a + l)
			fonts[k] = fontDef{name, sc}
		case op == 247: // pre
			p += 13
			k := u8()
			p += int(k)
		case op == 248: // post: done
			return nil
		default:
			return fmt.Errorf("unexpected opcode %d at %d", op, p-1)
		}
	}
	return errors.New("no postamble")
}

// colorToken maps a dvips colour special to the CDM token whose palette
// colour it is (docs/cdm.md §5), or −1.
func colorToken(spec string) int32 {
	f := strings.Fields(spec)
	if len(f) != 4 || f[0] != "rgb" {
		return -1
	}
	var c [3]int
	for i := range 3 {
		v, err := strconv.ParseFloat(f[i+1], 64)
		if err != nil {
			return -1
		}
		c[i] = int(math.Round(v * 255 / 15))
	}
	return int32(latex.ColorToken(uint8(c[0]*15), uint8(c[1]*15), uint8(c[2]*15)))
}

var widthCache = map[string]map[int32]int32{}

// widthOf asks the font's TFM (through tex.web's rules, via the embedded
// reader) for a character's width at a size.
func widthOf(name string, size, c int32) (int32, bool) {
	key := name + "@" + strconv.Itoa(int(size))
	m, ok := widthCache[key]
	if !ok {
		m = loadWidths(name, size)
		widthCache[key] = m
	}
	w, ok := m[c]
	return w, ok
}

func write(path string, recs []*Record) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	zw, _ := gzip.NewWriterLevel(f, gzip.BestCompression)
	enc := json.NewEncoder(zw)
	enc.SetEscapeHTML(false)
	for _, r := range recs {
		if err := enc.Encode(r); err != nil {
			return err
		}
	}
	if err := zw.Close(); err != nil {
		return err
	}
	return f.Close()
}

// loadWidths reads the TFM TeX used (found with kpsewhich) at a size.
func loadWidths(name string, size int32) map[int32]int32 {
	path, err := exec.Command("kpsewhich", name+".tfm").Output()
	if err != nil {
		log.Fatalf("kpsewhich %s.tfm: %v", name, err)
	}
	data, err := os.ReadFile(strings.TrimSpace(string(path)))
	if err != nil {
		log.Fatal(err)
	}
	t, err := font.ParseTFM(name, data)
	if err != nil {
		log.Fatal(err)
	}
	f := t.Scale(tex.Scaled(size))
	m := map[int32]int32{}
	for c := t.BC; c <= t.EC; c++ {
		if wd, _, _, _, ok := f.Metrics(c); ok {
			m[int32(c)] = int32(wd)
		}
	}
	return m
}
