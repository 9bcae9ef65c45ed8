package tex

// The commands of this file: text in math: \text, \mbox and their kin, CJK
// glyphs.

// choiceSizes is the font size of each branch of a \mathchoice (display,
// text, script, scriptscript), as amstext's \text and \nfss@text use it.
var choiceSizes = [4]int{textSize, textSize, scriptSize, scriptScriptSize}

// textFamilies are the text fonts of the text commands (OT1 Computer
// Modern), by math family of the same font.
var textFamilies = map[string]int{"textbf": famBF, "textit": famIT, "textsf": famSF, "texttt": famTT}

// text handles amstext's \text (a box per style at 12, 12, 8 and 6 pt)
// and \mbox/\hbox (12 pt): characters with the font's kerns and
// ligatures, spaces as the font's interword glue. Text commands, math
// shifts and anything but characters inside are not modelled.
func (p *parser) text(l *list, name string) error {
	arg, err := p.readArg()
	if err != nil {
		return err
	}
	fam := famOperators
	if f, ok := textFamilies[name]; ok {
		fam = f
	}
	sizes := choiceSizes
	if name == "mbox" || name == "hbox" {
		sizes = [4]int{textSize, textSize, textSize, textSize}
	}
	var choice [4][]*noad
	for i := range choice {
		b, err := p.textBox(arg, p.e.fonts[fam][sizes[i]])
		if err != nil {
			return err
		}
		choice[i] = []*noad{{kind: ordNoad, nucleus: field{kind: subBox, box: b}}}
	}
	p.addGroup(l, []*noad{{kind: choiceNoad, noadParts: &noadParts{choice: choice}}})
	return nil
}

// textBox sets text in horizontal mode: characters with the font's
// kerns and ligatures, spaces as its interword glue, \mathcolor (which
// works in text mode after an error), groups. CJK ideographs are set as
// 1em boxes: the reference's CJK fonts are not reproduced, so such a
// layout is marked approximate.
func (p *parser) textBox(ts []token, f *mathFont) (*node, error) {
	var list []*node
	var chars []int
	var toks []int32
	flush := func() {
		for i := 0; i < len(chars); i++ {
			c := chars[i]
			if i+1 < len(chars) && toks[i] == toks[i+1] {
				op, rem, kern, ok := f.LigKernStep(c, chars[i+1])
				switch {
				case ok && op >= 128:
					list = append(list, newChar(f, c, toks[i]), newKern(kern))
					continue
				case ok && op == 0:
					chars[i+1] = rem
					continue
				}
			}
			list = append(list, newChar(f, c, toks[i]))
		}
		chars, toks = chars[:0], toks[:0]
	}
	sf := 1000 // \spacefactor, followed in tabular cells only
	var walk func(ts []token) error
	walk = func(ts []token) error {
		for i := 0; i < len(ts); i++ {
			t := ts[i]
			if p.tabularText {
				switch {
				case t.kind == tkChar && t.c < 128 && f.exists(int(t.c)):
					sf = spaceFactor(sf, t.c)
				case t.kind == tkChar && isCJK(t.c):
					return p.e.unsupported("CJK in a tabular cell")
				case t.kind == tkBegin || t.kind == tkEnd:
					flush() // a brace ends the characters' ligatures and kerns
				case t.kind == tkCS && (textSymbols[t.s] != 0 || t.s == "l"):
					sf = 1000
				case t.kind == tkCS && (t.s == "mathcolor" || t.s == " "):
				case t.kind == tkCS || t.kind == tkSup || t.kind == tkSub:
					return p.e.unsupported("a command or script in a tabular cell: " + tokString([]token{t}))
				}
			}
			switch {
			case t.kind == tkChar && t.c < 128 && f.exists(int(t.c)):
				chars = append(chars, int(t.c))
				toks = append(toks, p.tok())
			case t.kind == tkChar && isCJK(t.c):
				flush()
				list = append(list, cjkGlyph(f, p.tok()))
				p.e.approximate("CJK glyphs set as 1em boxes")
			case t.kind == tkSpace || t.kind == tkActive || t.kind == tkCS && t.s == " ":
				flush()
				g := newGlue(f.Param(2), f.Param(3), f.Param(4))
				if p.tabularText && t.kind == tkSpace && sf != 1000 {
					// app_space (tex.web §1043–1044): the space factor
					// widens the space after sentence-ending punctuation
					// and scales its stretch and shrink
					if sf >= 2000 {
						g.width += f.Param(7)
					}
					g.stretch = xnOverD(g.stretch, int64(sf), 1000)
					g.shrink = xnOverD(g.shrink, 1000, int64(sf))
				}
				list = append(list, g)
			case t.kind == tkBegin || t.kind == tkEnd:
				// grouping only; a \mathcolor boundary stops ligatures
			case t.kind == tkCS && t.s == "mathcolor":
				flush()
				// \mathcolor[RGB]{r,g,b}{body}
				rest := ts[i+1:]
				sub := &parser{e: p.e, in: [][]token{rest}, fam: -1, budget: p.budget}
				tok, body, err := sub.readMathColor()
				if err != nil {
					return err
				}
				consumed := len(rest) - remaining(sub)
				p.pushColor(tok)
				err = walk(body)
				flush()
				p.popColor()
				if err != nil {
					return err
				}
				i += consumed
				// \mathcolor is an error in text mode but runs on: its
				// scan for scripts (\peek_remove_filler) eats the spaces
				// after the body.
				p.e.recover(`\mathcolor allowed only in math mode`)
				for i+1 < len(ts) && ts[i+1].kind == tkSpace {
					i++
				}
				if p.tabularText && i+1 < len(ts) {
					if n := ts[i+1]; n.kind == tkSup || n.kind == tkSub || n.kind == tkChar && n.c == '\'' ||
						n.kind == tkCS && (n.s == "limits" || n.s == "nolimits" || n.s == "displaylimits") {
						return p.e.unsupported("a script after \\mathcolor in a tabular cell")
					}
				}
			case t.kind == tkCS && (textSymbols[t.s] != 0 || t.s == "l"):
				// ot1enc.def's text symbols; \l is {\@xxxii l}, the
				// stroke and l in a group of their own
				flush()
				if t.s == "l" {
					chars = append(chars, 32, 'l')
					toks = append(toks, p.tok(), p.tok())
				} else {
					chars = append(chars, int(textSymbols[t.s]))
					toks = append(toks, p.tok())
				}
				flush()
			case t.kind == tkCS || t.kind == tkSup || t.kind == tkSub:
				// A math command in text: TeX inserts the missing $ and
				// sets the rest as an inline formula.
				flush()
				p.e.recover("missing $ inserted")
				p.e.approximate("math in text mode after a missing $")
				items, err := p.parseTokens(ts[i:])
				if err != nil {
					return err
				}
				list = append(list, p.e.mlistToHlist(items, styleT, false)...)
				return nil
			default:
				return p.e.unsupported("text content " + tokString([]token{t}))
			}
		}
		return nil
	}
	if err := walk(ts); err != nil {
		return nil, err
	}
	flush()
	return hpack(list, 0, false), nil
}

// remaining counts the tokens a parser has not read.
func remaining(p *parser) int {
	n := 0
	for _, s := range p.in {
		n += len(s)
	}
	return n
}

func isCJK(r rune) bool {
	return r >= 0x4E00 && r <= 0x9FFF || r >= 0x3400 && r <= 0x4DBF || r >= 0x3000 && r <= 0x303F || r >= 0xFF00 && r <= 0xFFEF
}

// cjkGlyph is an approximate CJK glyph: a 1em square box of ink on the
// baseline, 0.88em high and 0.12em deep.
func cjkGlyph(f *mathFont, tok int32) *node {
	em := f.Param(6)
	return &node{kind: ruleNode, width: em, height: scaleDecimal(em, "0.88"), depth: scaleDecimal(em, "0.12"), tok: tok, cjk: true}
}
