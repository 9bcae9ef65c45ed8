// Package texbleu computes TeXBLEU as the published code computes it
// (KyuDan1/TeXBLEU, new_metric.py), not as the paper describes it: the
// code tokenizes with GPT-2's stock byte-level BPE (not the LaTeX-trained
// tokenizer of the paper; the repository's new_embeddings.pth holds no
// weights) and embeds tokens with GPT-2 small's token-embedding table wte.
//
// For a reference R and a prediction P:
//
//  1. a space is inserted before every backslash not already preceded by
//     one (Spacing), and the string is tokenized, keeping the first 512
//     tokens;
//  2. for n = 1, 2, the n-grams of both sides are paired by index, up to
//     L_n = min(|R|, |P|) − n + 1 of them; the distance of two tokens is
//     0.5·(1 − cos)^2 + 0.5·tanh(0.1·|Δpos|), where cos is the cosine of
//     their wte rows and the position term is 0 because paired tokens
//     stand at the same index;
//  3. sim_n = 1 − Σ d / (L_n·n), 0 when L_n ≤ 0;
//  4. the score is exp(Σ ½·log max(sim_n, 1e-10)), rounded to 4 places.
//
// The code also computes a brevity penalty and a length ratio that it does
// not use; they are not computed here. Where the code raises an error (an
// empty prediction: ZeroDivisionError in the unused brevity penalty), the
// score is that of step 3, 0.
//
// The embedding table is not shipped (GPT-2's weights are not obtainable
// here): LoadEmbeddings reads it from a .npy file or a safetensors file
// holding wte.weight. Cosines are computed in float64 from the stored
// float32 values; the published code computes them in float32, which can
// move the fourth decimal only at a rounding boundary.
package texbleu

import (
	"fmt"
	"math"
	"strings"

	"github.com/leakaudit/leakaudit/internal/rounding"
)

// MaxTokens is the tokenizer's truncation length.
const MaxTokens = 512

// Spacing inserts a space before every backslash that does not follow a
// space (the first character included), as the published code does.
func Spacing(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && (i == 0 || s[i-1] != ' ') {
			b.WriteByte(' ')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// Embeddings is a token-embedding table: row i is token i's vector.
type Embeddings struct {
	Rows, Dim int
	Data      []float32 // Rows×Dim, row-major
	norms     []float64
}

func (e *Embeddings) row(i int) []float32 { return e.Data[i*e.Dim : (i+1)*e.Dim] }

// NewEmbeddings wraps a row-major table.
func NewEmbeddings(rows, dim int, data []float32) (*Embeddings, error) {
	if rows <= 0 || dim <= 0 || len(data) != rows*dim {
		return nil, fmt.Errorf("embedding table %d×%d with %d values", rows, dim, len(data))
	}
	e := &Embeddings{Rows: rows, Dim: dim, Data: data, norms: make([]float64, rows)}
	for i := range rows {
		var s float64
		for _, v := range e.row(i) {
			s += float64(v) * float64(v)
		}
		e.norms[i] = math.Sqrt(s)
	}
	return e, nil
}

// cos is the cosine similarity of two tokens, with torch's eps of 1e-8 on
// the product of the norms.
func (e *Embeddings) cos(a, b int) float64 {
	ra, rb := e.row(a), e.row(b)
	var dot float64
	for i := range ra {
		dot += float64(ra[i]) * float64(rb[i])
	}
	return dot / math.Max(e.norms[a]*e.norms[b], 1e-8)
}

// Scorer computes TeXBLEU with one tokenizer and embedding table.
type Scorer struct {
	Tok *Tokenizer
	Emb *Embeddings
}

// Tokens returns the token ids TeXBLEU compares for s.
func (sc Scorer) Tokens(s string) []int {
	ids := sc.Tok.Encode(Spacing(s))
	if len(ids) > MaxTokens {
		ids = ids[:MaxTokens]
	}
	return ids
}

// Score is TeXBLEU of a prediction against a reference. An id outside the
// table is an error.
func (sc Scorer) Score(ref, pred string) (float64, error) {
	r, p := sc.Tokens(ref), sc.Tokens(pred)
	for _, ids := range [][]int{r, p} {
		for _, id := range ids {
			if id < 0 || id >= sc.Emb.Rows {
				return 0, fmt.Errorf("token %d outside the %d-row embedding table", id, sc.Emb.Rows)
			}
		}
	}
	return ScoreIDs(sc.Emb, r, p), nil
}

// ScoreIDs is TeXBLEU of two token sequences (ids within the table).
func ScoreIDs(e *Embeddings, ref, pred []int) float64 {
	n := min(len(ref), len(pred))
	d := make([]float64, n) // distance of the tokens at index i
	for i := range n {
		c := 1 - e.cos(ref[i], pred[i])
		d[i] = 0.5 * c * c // + 0.5·tanh(0): paired tokens share their index
	}
	var logSum float64
	for order := 1; order <= 2; order++ {
		ln := n - order + 1
		sim := 0.0
		if ln > 0 {
			var total float64
			for i := range ln {
				for j := range order {
					total += d[i+j]
				}
			}
			sim = 1 - total/float64(ln*order)
		}
		logSum += 0.5 * math.Log(math.Max(sim, 1e-10))
	}
	return rounding.Python(math.Exp(logSum), 4)
}
