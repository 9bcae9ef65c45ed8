package tex

import "math"

// nodeKind is the type of a node of a horizontal or vertical list
// (tex.web part 10).
type nodeKind uint8

const (
	charNode nodeKind = iota
	hlistNode
	vlistNode
	ruleNode
	glueNode
	kernNode
	penaltyNode
	whatsitNode
)

// runningDim marks a rule dimension that runs to the enclosing box.
const runningDim Scaled = -1 << 30

// glue orders (normal, fil, fill, filll).
const (
	normalOrder uint8 = iota
	filOrder
	fillOrder
	filllOrder
)

// glue signs of a packed box.
const (
	glueNormal uint8 = iota
	glueStretching
	glueShrinking
)

// node is one item of a box list. Which fields matter depends on kind.
// The fields are ordered so that the small ones share words (96 bytes, a
// node's allocation size class, rather than 112).
type node struct {
	kind                nodeKind
	glueSign, glueOrder uint8 // boxes
	tok                 int32 // the CDM token whose ink this is (−1: none)

	// char
	font *mathFont
	c    int

	// boxes and rules; width is also a kern's or glue's natural size
	width, height, depth, shift Scaled
	list                        []*node
	glueSet                     float64

	// glue
	stretch, shrink           Scaled
	leaders                   *node
	stretchOrder, shrinkOrder uint8
	cjk                       bool // an approximate CJK glyph, drawn as a rule of ink
}

// whatsit is the colour special node of token tok. Nothing changes a
// whatsit node once made, so the colour ends (token −2), one for nearly
// every token of a coloured formula, share one node per run.
func (e *engine) whatsit(tok int32) *node {
	if tok != -2 {
		n := e.nodes.New()
		n.kind, n.tok = whatsitNode, tok
		return n
	}
	if e.endWhatsit == nil {
		e.endWhatsit = &node{kind: whatsitNode, tok: -2}
	}
	return e.endWhatsit
}

func newChar(f *mathFont, c int, tok int32) *node {
	return &node{kind: charNode, font: f, c: c, tok: tok}
}

func newKern(w Scaled) *node { return &node{kind: kernNode, width: w} }

func newRule(w, h, d Scaled, tok int32) *node {
	return &node{kind: ruleNode, width: w, height: h, depth: d, tok: tok}
}

func newGlue(w, st, sh Scaled) *node {
	return &node{kind: glueNode, width: w, stretch: st, shrink: sh}
}

// hpack packs a list into an hbox of its natural width, or of width w
// when exact (tex.web §649–§667).
func hpack(list []*node, w Scaled, exact bool) *node {
	return hpackTo(&node{}, list, w, exact)
}

// hpack is hpack with the box from the engine's slab.
func (e *engine) hpack(list []*node, w Scaled, exact bool) *node {
	return hpackTo(e.nodes.New(), list, w, exact)
}

// hpackTo is hpack into b, a zeroed node.
func hpackTo(b *node, list []*node, w Scaled, exact bool) *node {
	b.kind, b.list = hlistNode, list
	x, h, d, totalStretch, totalShrink := measure(list)
	b.height, b.depth = h, d
	if !exact {
		w = x
	}
	b.width = w
	x = w - x
	switch {
	case x == 0:
		b.glueSign, b.glueOrder, b.glueSet = glueNormal, normalOrder, 0
	case x > 0:
		o := topOrder(totalStretch)
		b.glueOrder, b.glueSign = o, glueStretching
		if totalStretch[o] != 0 {
			b.glueSet = float64(x) / float64(totalStretch[o])
		} else {
			b.glueSign = glueNormal
		}
	default:
		o := topOrder(totalShrink)
		b.glueOrder, b.glueSign = o, glueShrinking
		if totalShrink[o] != 0 {
			b.glueSet = float64(-x) / float64(totalShrink[o])
		} else {
			b.glueSign = glueNormal
		}
		if totalShrink[o] < -x && o == normalOrder && len(list) > 0 {
			b.glueSet = 1 // overfull: shrink as much as possible
		}
	}
	return b
}

// measure is hpack's pass over a list: its natural width, the height and
// depth of the box hpack makes of it, and its glue's total stretch and
// shrink by order.
func measure(list []*node) (x, h, d Scaled, totalStretch, totalShrink [4]Scaled) {
	for _, p := range list {
		switch p.kind {
		case charNode:
			cw, ch, cd, _ := p.font.metrics(p.c)
			x += cw
			h = max(h, ch)
			d = max(d, cd)
		case hlistNode, vlistNode, ruleNode:
			x += p.width
			s := Scaled(0)
			if p.kind != ruleNode {
				s = p.shift
			}
			h = max(h, p.height-s)
			d = max(d, p.depth+s)
		case glueNode:
			x += p.width
			totalStretch[p.stretchOrder] += p.stretch
			totalShrink[p.shrinkOrder] += p.shrink
			if p.leaders != nil {
				h = max(h, p.leaders.height)
				d = max(d, p.leaders.depth)
			}
		case kernNode:
			x += p.width
		}
	}
	return x, h, d, totalStretch, totalShrink
}

func topOrder(t [4]Scaled) uint8 {
	for o := filllOrder; o > normalOrder; o-- {
		if t[o] != 0 {
			return o
		}
	}
	return normalOrder
}

// vpack packs a list into a vbox of its natural height with the depth of
// its last box (tex.web §668–§679, with \boxmaxdepth unlimited).
func vpack(list []*node) *node {
	b := &node{kind: vlistNode, list: list}
	var w, x, d Scaled
	for _, p := range list {
		switch p.kind {
		case hlistNode, vlistNode, ruleNode:
			x += d + p.height
			d = p.depth
			s := Scaled(0)
			if p.kind != ruleNode {
				s = p.shift
			}
			if p.width != runningDim {
				w = max(w, p.width+s)
			}
		case charNode:
			// not allowed in vlists; treated as a box (never happens)
			cw, ch, cd, _ := p.font.metrics(p.c)
			x += d + ch
			d = cd
			w = max(w, cw)
		case glueNode, kernNode:
			x += d + p.width
			d = 0
		}
	}
	b.width, b.height, b.depth = w, x, d
	return b
}

// vpackTo packs a vlist to height h exactly, setting its glue.
func vpackTo(list []*node, h Scaled) *node {
	b := vpack(list)
	var totalStretch, totalShrink [4]Scaled
	for _, p := range list {
		if p.kind == glueNode {
			totalStretch[p.stretchOrder] += p.stretch
			totalShrink[p.shrinkOrder] += p.shrink
		}
	}
	x := h - b.height
	b.height = h
	switch {
	case x > 0:
		o := topOrder(totalStretch)
		if totalStretch[o] != 0 {
			b.glueSign, b.glueOrder, b.glueSet = glueStretching, o, float64(x)/float64(totalStretch[o])
		}
	case x < 0:
		o := topOrder(totalShrink)
		if totalShrink[o] != 0 {
			b.glueSign, b.glueOrder, b.glueSet = glueShrinking, o, math.Min(1, float64(-x)/float64(totalShrink[o]))
		}
	}
	return b
}
