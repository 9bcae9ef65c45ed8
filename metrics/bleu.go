package metrics

import (
	"math"
	"regexp"
	"strings"
	"unicode"
)

// reTextCmd is normalize_text's first pattern: a text command with a space
// before its brace; {.*?} stops at the first }.
var reTextCmd = regexp.MustCompile(`\\(operatorname|mathrm|text|mathbf)\s?\*? \{.*?\}`)

// NormalizeText is UniMERNet's normalize_text (pix2tex's post_process):
// spaces removed inside "\mathrm { … }"-style commands, then, until
// nothing changes, one lazy whitespace run removed between two
// non-letters, a non-letter and a letter (neither after a control space),
// and a letter and a non-letter, each a left-to-right pass.
func NormalizeText(s string) string {
	s = reTextCmd.ReplaceAllStringFunc(s, func(m string) string { return strings.ReplaceAll(m, " ", "") })
	r := []rune(s)
	for {
		n := subPass(r, noLetter, noLetter, true)
		n = subPass(n, noLetter, asciiLetter, true)
		n = subPass(n, asciiLetter, noLetter, false)
		if string(n) == string(r) {
			return string(r)
		}
		r = n
	}
}

// noLetter is Python's [\W_^\d] on str: not a word character, or _, ^ or
// a decimal digit (Unicode-aware, as Python's re is).
func noLetter(c rune) bool {
	word := unicode.IsLetter(c) || unicode.IsNumber(c) || c == '_'
	return !word || c == '_' || c == '^' || unicode.Is(unicode.Nd, c)
}

func asciiLetter(c rune) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// pySpace is Python's \s on str.
func pySpace(c rune) bool {
	return unicode.IsSpace(c) || c == '\x1c' || c == '\x1d' || c == '\x1e' || c == '\x1f'
}

// subPass is re.sub(r'(?!\\ )(X)\s+?(Y)', r'\1\2', s) (guard true) or
// without the look-ahead: non-overlapping, left to right.
func subPass(s []rune, x, y func(rune) bool, guard bool) []rune {
	out := make([]rune, 0, len(s))
	for i := 0; i < len(s); {
		if x(s[i]) && !(guard && s[i] == '\\' && i+1 < len(s) && s[i+1] == ' ') {
			matched := false
			for j := i + 1; j < len(s) && pySpace(s[j]); j++ {
				if j+1 < len(s) && y(s[j+1]) {
					out = append(out, s[i], s[j+1])
					i = j + 2
					matched = true
					break
				}
			}
			if matched {
				continue
			}
		}
		out = append(out, s[i])
		i++
	}
	return out
}

// Tokenize13a is sacrebleu's 13a tokenizer, as HF evaluate's bleu uses it.
func Tokenize13a(line string) []string {
	line = strings.ReplaceAll(line, "<skipped>", "")
	line = strings.ReplaceAll(line, "-\n", "")
	line = strings.ReplaceAll(line, "\n", " ")
	if strings.Contains(line, "&") {
		line = strings.NewReplacer("&quot;", `"`, "&amp;", "&", "&lt;", "<", "&gt;", ">").Replace(line)
	}
	// 1. every punctuation of the class becomes a token
	var b []rune
	for _, c := range " " + line + " " {
		if c >= '{' && c <= '~' || c >= '[' && c <= '`' || c >= ' ' && c <= '&' || c >= '(' && c <= '+' || c >= ':' && c <= '@' || c == '/' {
			b = append(b, ' ', c, ' ')
		} else {
			b = append(b, c)
		}
	}
	r := b
	isDigit := func(c rune) bool { return c >= '0' && c <= '9' }
	// 2. ([^0-9])([\.,]) → \1 \2 (non-overlapping)
	b = nil
	for i := 0; i < len(r); i++ {
		if i+1 < len(r) && !isDigit(r[i]) && (r[i+1] == '.' || r[i+1] == ',') {
			b = append(b, r[i], ' ', r[i+1], ' ')
			i++
			continue
		}
		b = append(b, r[i])
	}
	r = b
	// 3. ([\.,])([^0-9]) → " \1 \2"
	b = nil
	for i := 0; i < len(r); i++ {
		if i+1 < len(r) && (r[i] == '.' || r[i] == ',') && !isDigit(r[i+1]) {
			b = append(b, ' ', r[i], ' ', r[i+1])
			i++
			continue
		}
		b = append(b, r[i])
	}
	r = b
	// 4. ([0-9])(-) → \1 \2 "
	b = nil
	for i := 0; i < len(r); i++ {
		if i+1 < len(r) && isDigit(r[i]) && r[i+1] == '-' {
			b = append(b, r[i], ' ', r[i+1], ' ')
			i++
			continue
		}
		b = append(b, r[i])
	}
	return strings.Fields(string(b))
}

// ngramKey is an n-gram of interned tokens (unused slots −1).
type ngramKey [4]int32

// interner numbers tokens.
type interner map[string]int32

func (in interner) ids(toks []string) []int32 {
	out := make([]int32, len(toks))
	for i, t := range toks {
		id, ok := in[t]
		if !ok {
			id = int32(len(in))
			in[t] = id
		}
		out[i] = id
	}
	return out
}

// ngrams counts the n-grams of orders 1…max of a token sequence.
func ngrams(toks []int32, maxOrder int) map[ngramKey]int {
	m := make(map[ngramKey]int, 4*len(toks))
	for n := 1; n <= maxOrder; n++ {
		for i := 0; i+n <= len(toks); i++ {
			k := ngramKey{-1, -1, -1, -1}
			copy(k[:], toks[i:i+n])
			m[k]++
		}
	}
	return m
}

func order(k ngramKey) int {
	n := 0
	for _, v := range k {
		if v >= 0 {
			n++
		}
	}
	return n
}

// BLEUResult is a corpus BLEU with its parts.
type BLEUResult struct {
	BLEU       float64    `json:"bleu"`
	Precisions [4]float64 `json:"precisions"`
	BP         float64    `json:"bp"`
	HypLength  int        `json:"hyp_length"`
	RefLength  int        `json:"ref_length"`
}

// BLEUUniMERNet is bleu_unimernet: HF evaluate's "bleu" (tensorflow/nmt
// compute_bleu, max order 4, no smoothing) over 13a tokens of the
// normalize_text-ed strings of the whole subset.
func BLEUUniMERNet(refs, preds []string) BLEUResult {
	nr, np := make([]string, len(refs)), make([]string, len(refs))
	for i := range refs {
		nr[i], np[i] = NormalizeText(refs[i]), NormalizeText(preds[i])
	}
	return bleuUniMERNetNormalized(nr, np)
}

func bleuUniMERNetNormalized(refs, preds []string) BLEUResult {
	var match, possible [4]int
	var res BLEUResult
	in := interner{}
	for i := range refs {
		r := in.ids(Tokenize13a(refs[i]))
		p := in.ids(Tokenize13a(preds[i]))
		res.RefLength += len(r)
		res.HypLength += len(p)
		rc, pc := ngrams(r, 4), ngrams(p, 4)
		for k, c := range pc {
			match[order(k)-1] += min(c, rc[k])
		}
		for o := 1; o <= 4; o++ {
			if m := len(p) - o + 1; m > 0 {
				possible[o-1] += m
			}
		}
	}
	geo := 0.0
	allPositive := true
	for o := range 4 {
		if possible[o] > 0 {
			res.Precisions[o] = float64(match[o]) / float64(possible[o])
		}
		allPositive = allPositive && res.Precisions[o] > 0
	}
	if allPositive {
		var s float64
		for _, p := range res.Precisions {
			s += 0.25 * math.Log(p)
		}
		geo = math.Exp(s)
	}
	switch {
	case res.RefLength == 0 || res.HypLength == 0:
		res.BP = 0
	case float64(res.HypLength)/float64(res.RefLength) > 1:
		res.BP = 1
	default:
		res.BP = math.Exp(1 - float64(res.RefLength)/float64(res.HypLength))
	}
	res.BLEU = geo * res.BP
	return res
}

// BLEUIm2markup is bleu_im2markup: Moses multi-bleu.perl over whitespace
// tokens, one reference per sentence, log(0) taken as −9999999999 (so any
// zero precision gives about 0). The value is ×1 (multi-bleu prints ×100).
func BLEUIm2markup(refs, preds []string) BLEUResult {
	var correct, total [4]int
	var res BLEUResult
	in := interner{}
	for i := range refs {
		r, p := in.ids(strings.Fields(refs[i])), in.ids(strings.Fields(preds[i]))
		res.RefLength += len(r)
		res.HypLength += len(p)
		rc, pc := ngrams(r, 4), ngrams(p, 4)
		for k, c := range pc {
			correct[order(k)-1] += min(c, rc[k])
		}
		for o := 1; o <= 4; o++ {
			if m := len(p) - o + 1; m > 0 {
				total[o-1] += m
			}
		}
	}
	var s float64
	for o := range 4 {
		if total[o] > 0 {
			res.Precisions[o] = float64(correct[o]) / float64(total[o])
		}
		if res.Precisions[o] > 0 {
			s += math.Log(res.Precisions[o])
		} else {
			s += -9999999999
		}
	}
	res.BP = 1
	if res.HypLength < res.RefLength {
		if res.HypLength == 0 {
			res.BP = 0
		} else {
			res.BP = math.Exp(1 - float64(res.RefLength)/float64(res.HypLength))
		}
	}
	res.BLEU = res.BP * math.Exp(s/4)
	return res
}

// SentenceBLEUNougat is nltk's sentence_bleu([gt.split()], pred.split())
// with uniform weights and smoothing method0 (a zero-match order becomes
// the smallest float64), 0 when no unigram matches; ok is false for a
// sample Nougat skips (either string shorter than 4 characters).
func SentenceBLEUNougat(gt, pred string) (bleu float64, ok bool) {
	if len([]rune(pred)) < 4 || len([]rune(gt)) < 4 {
		return 0, false
	}
	in := interner{}
	r, p := in.ids(strings.Fields(gt)), in.ids(strings.Fields(pred))
	rc, pc := ngrams(r, 4), ngrams(p, 4)
	var num, den [4]int
	for k, c := range pc {
		num[order(k)-1] += min(c, rc[k])
	}
	for o := 1; o <= 4; o++ {
		den[o-1] = max(1, len(p)-o+1)
	}
	if num[0] == 0 {
		return 0, true
	}
	var s float64
	for o := range 4 {
		pn := float64(num[o]) / float64(den[o])
		if num[o] == 0 {
			pn = 2.2250738585072014e-308 // sys.float_info.min (smoothing method0)
		}
		s += 0.25 * math.Log(pn)
	}
	bp := 1.0
	if len(p) < len(r) {
		if len(p) == 0 {
			return 0, true
		}
		bp = math.Exp(1 - float64(len(r))/float64(len(p)))
	}
	return bp * math.Exp(s), true
}

// BLEUNougat is bleu_nougat: the mean of SentenceBLEUNougat over the
// samples it does not skip, and how many it kept.
func BLEUNougat(refs, preds []string) (float64, int) {
	var sum float64
	n := 0
	for i := range refs {
		if b, ok := SentenceBLEUNougat(refs[i], preds[i]); ok {
			sum += b
			n++
		}
	}
	if n == 0 {
		return 0, 0
	}
	return sum / float64(n), n
}
