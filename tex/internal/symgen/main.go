// Command symgen regenerates tex/symtab.go, the math symbol table of the
// layout engine: for every control sequence declared by LaTeX's
// fontmath.ltx, amsmath, amsfonts/amssymb and upgreek (and every ASCII
// character), what it means in the reference's preamble.
//
// Instead of interpreting the .sty files, it asks LaTeX itself: it loads
// the reference template's packages, then writes \meaning of each command,
// \mathcode and \delcode of each character, and the family numbers of the
// symbol fonts, to a file. So conditionals, package load order and
// redefinitions come out exactly as pdflatex sees them. Run it with
// `make goldens` (Debian's texlive-latex-base, -latex-recommended and
// -latex-extra); CI only compiles the committed table.
package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"go/format"
	"io"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/leakaudit/leakaudit/internal/reftemplate"
	"github.com/leakaudit/leakaudit/internal/shareddata"
)

// sources are the files whose declarations are collected, in load order.
var sources = []string{
	"fontmath.ltx", "amsmath.sty", "amsopn.sty", "amsbsy.sty", "amstext.sty",
	"upgreek.sty", "amsfonts.sty", "amssymb.sty",
}

// reCS finds control words in JSON text (where a backslash is doubled).
var reCS = regexp.MustCompile(`\\\\([A-Za-z]+)`)

// reCSPlain finds control words in plain text.
var reCSPlain = regexp.MustCompile(`\\([A-Za-z]+)`)

var reDecl = regexp.MustCompile(`\\(?:DeclareMathSymbol|DeclareMathDelimiter|DeclareMathAccent|DeclareMathRadical|DeclareRobustCommand|ams@DeclareMathSymbol|ams@DeclareMathDelimiter|newcommand|renewcommand|providecommand|def|gdef|xdef|edef|let|global\\let|mathchardef|chardef)\*?\s*\{?\\([A-Za-z]+)`)

// extra are commands the datasets use that the files above define
// indirectly or that the kernel defines (latex.ltx, ltmath).
var extra = strings.Fields(`
alpha beta gamma delta epsilon varepsilon zeta eta theta vartheta iota kappa lambda mu nu xi pi varpi rho varrho sigma varsigma tau upsilon phi varphi chi psi omega
Gamma Delta Theta Lambda Xi Pi Sigma Upsilon Phi Psi Omega
frac dfrac tfrac binom dbinom tbinom genfrac sqrt root over atop choose above
left right middle big Big bigg Bigg bigl bigr bigm Bigl Bigr Bigm biggl biggr biggm Biggl Biggr Biggm
mathrm mathbf mathit mathcal mathbb mathfrak mathsf mathtt boldsymbol pmb text mbox hbox operatorname
sin cos tan cot sec csc arcsin arccos arctan sinh cosh tanh coth log ln lg exp det dim ker hom arg deg gcd lim liminf limsup max min sup inf Pr
quad qquad thinspace medspace thickspace negthinspace enspace space
ldots cdots dots vdots ddots dotsc dotsb dotsm dotsi dotso
overline underline overbrace underbrace overrightarrow overleftarrow widehat widetilde
hat check tilde acute grave dot ddot breve bar vec mathring dddot ddddot
displaystyle textstyle scriptstyle scriptscriptstyle
langle rangle lbrace rbrace lbrack rbrack lfloor rfloor lceil rceil vert Vert lvert rvert lVert rVert backslash
neq ne le ge leq geq to gets iff implies impliedby mapsto notin cong doteq
prime infty partial nabla forall exists neg lnot emptyset varnothing
stackrel overset underset xrightarrow xleftarrow substack boxed cancel not
sum@ prod@ coprod@ bigcap@ bigcup@ bigsqcup@ bigvee@ bigwedge@ bigodot@ bigotimes@ bigoplus@ biguplus@ intop ointop smallint
mathellipsis @cdots ldotp cdotp bBigg@ big@size @mathmeasure @genfrac @sqrt r@@t root of uproot@ leftroot@
DOTSB DOTSI DOTSX slimits@ ilimits@ nolimits@ operator@font mathop mathrel mathbin mathord mathopen mathclose mathpunct mathinner
boldsymbol@ bold@mathversion pmb@ text@ textdef@ mathpalette overarrow@ arrowfill@ @ifnextchar
`)

func main() {
	names := map[string]bool{}
	for _, n := range extra {
		names[n] = true
	}
	for _, f := range sources {
		path, err := exec.Command("kpsewhich", f).Output()
		if err != nil {
			log.Fatalf("kpsewhich %s: %v", f, err)
		}
		data, err := os.ReadFile(strings.TrimSpace(string(path)))
		if err != nil {
			log.Fatal(err)
		}
		for _, m := range reDecl.FindAllSubmatch(data, -1) {
			n := string(m[1])
			if !strings.ContainsAny(n, "@") {
				names[n] = true
			}
		}
	}
	// Every command the datasets use, so that the table also says which
	// ones LaTeX leaves undefined (pdflatex drops those and goes on).
	if root := shareddata.Find(); root != "" {
		f, err := os.Open(filepath.Join(root, "refcdm", "tokenizer_golden_large.jsonl.gz"))
		if err != nil {
			log.Fatal(err)
		}
		zr, err := gzip.NewReader(f)
		if err != nil {
			log.Fatal(err)
		}
		data, err := io.ReadAll(zr)
		if err != nil {
			log.Fatal(err)
		}
		f.Close()
		for _, m := range reCS.FindAllSubmatch(data, -1) {
			names[string(m[1])] = true
		}
		probes, err := os.ReadFile(filepath.Join(root, "refcdm", "probe_pairs.jsonl"))
		if err != nil {
			log.Fatal(err)
		}
		for _, m := range reCS.FindAllSubmatch(probes, -1) {
			names[string(m[1])] = true
		}
		// im2latex validation formulas (plain text, single backslashes)
		val, err := os.ReadFile(filepath.Join(root, "im2latex", "formulas", "val.formulas.norm.txt"))
		if err != nil {
			log.Fatal(err)
		}
		for _, m := range reCSPlain.FindAllSubmatch(val, -1) {
			names[string(m[1])] = true
		}
	} else {
		log.Print("shared data not found: the table will only hold the declared commands")
	}
	list := make([]string, 0, len(names))
	for n := range names {
		list = append(list, n)
	}
	sort.Strings(list)

	dir, err := os.MkdirTemp("", "symgen")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	var b strings.Builder
	b.WriteString(reftemplate.Preamble("a5") + "\\makeatletter\n")
	b.WriteString(`\newwrite\out \immediate\openout\out=meanings.txt
\def\W#1{\immediate\write\out{#1}}
\def\M#1{\expandafter\ifx\csname#1\endcsname\relax\W{U #1}\else
  \W{M #1 \expandafter\meaning\csname#1\endcsname}%
  \expandafter\ifx\csname#1\space\endcsname\relax\else
  \W{R #1 \expandafter\meaning\csname#1\space\endcsname}\fi\fi}
\newcount\cc
\loop\ifnum\cc<128
  \W{C \the\cc:\the\mathcode\cc:\the\delcode\cc}%
  \advance\cc by 1
\repeat
\W{F operators \number\symoperators}
\W{F letters \number\symletters}
\W{F symbols \number\symsymbols}
\W{F largesymbols \number\symlargesymbols}
\W{F AMSa \number\symAMSa}
\W{F AMSb \number\symAMSb}
\W{F ugrf@m \number\csname symugrf@m\endcsname}
`)
	for _, n := range list {
		fmt.Fprintf(&b, "\\M{%s}\n", n)
	}
	b.WriteString("\\immediate\\closeout\\out\n\\end{document}\n")
	if err := os.WriteFile(filepath.Join(dir, "s.tex"), []byte(b.String()), 0o644); err != nil {
		log.Fatal(err)
	}
	cmd := exec.Command("latex", "-interaction=batchmode", "s.tex")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "max_print_line=1000000") // no line wrapping
	if err := cmd.Run(); err != nil {
		log.Printf("latex: %v (see the log; continuing with what was written)", err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "meanings.txt"))
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile("tex/symtab.go", generate(data), 0o644); err != nil {
		log.Fatal(err)
	}
}

func generate(data []byte) []byte {
	var out bytes.Buffer
	out.WriteString(`// Code generated by tex/internal/symgen; DO NOT EDIT.

// The table below is LaTeX's own \meaning of each command in the reference
// preamble (article, amsmath, upgreek, amssymb, xcolor).

package tex

`)
	var chars, fams, syms []string
	robust := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 1<<22)
	type line struct{ kind, name, meaning string }
	var lines []line
	for sc.Scan() {
		t := sc.Text()
		if len(t) < 2 {
			continue
		}
		kind, rest := t[:1], t[2:]
		switch kind {
		case "C":
			f := strings.Split(rest, ":")
			if len(f) != 3 {
				log.Fatalf("bad line %q", t)
			}
			c, _ := strconv.Atoi(f[0])
			mc, _ := strconv.Atoi(f[1])
			dc, _ := strconv.Atoi(f[2])
			chars = append(chars, fmt.Sprintf("{%#x, %d}, // %q", mc, dc, rune(c)))
		case "F":
			f := strings.Fields(rest)
			fams = append(fams, fmt.Sprintf("%q: %s,", f[0], f[1]))
		case "U":
			lines = append(lines, line{"U", rest, "undefined"})
		case "M", "R":
			name, meaning, _ := strings.Cut(rest, " ")
			if kind == "R" {
				robust[name] = meaning
			} else {
				lines = append(lines, line{kind, name, meaning})
			}
		}
	}
	for _, l := range lines {
		m := l.meaning
		if r, ok := robust[l.name]; ok && strings.Contains(m, `\protect`) {
			m = r
		}
		syms = append(syms, fmt.Sprintf("%q: %q,", l.name, m))
	}
	out.WriteString("// mathcodes holds \\mathcode and \\delcode of ASCII characters.\nvar mathcodes = [128][2]int32{\n")
	for _, c := range chars {
		out.WriteString(c + "\n")
	}
	out.WriteString("}\n\n// symbolFamilies are the family numbers of the symbol fonts.\nvar symbolFamilies = map[string]int{\n")
	for _, f := range fams {
		out.WriteString(f + "\n")
	}
	out.WriteString("}\n\n// meanings maps a control sequence (without backslash) to its \\meaning\n// (for robust commands, the meaning of the inner command).\nvar meanings = map[string]string{\n")
	for _, s := range syms {
		out.WriteString(s + "\n")
	}
	out.WriteString("}\n")
	src, err := format.Source(out.Bytes())
	if err != nil {
		log.Fatalf("format: %v", err)
	}
	return src
}
