package latex

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// TestHasCommandPrefix checks hasCommandPrefix against strings.Contains
// of each `\`+name.
func TestHasCommandPrefix(t *testing.T) {
	names := []string{"pmatrix", "matrix", "footnote "}
	for _, s := range []string{
		"", `\`, `\\`, `x`, `\pmatrix`, `\matrix`, `\mymatrix`, `a \pmatri x`, `\\matrix`, `\footnote`, `\footnote x`,
		`\left( \matrix`, `\mat rix`, `matrix`, `\bmatrix`, `\\\\matrix`, `\footnote\matrix`, `é\matrix`,
	} {
		want := false
		for _, n := range names {
			want = want || strings.Contains(s, `\`+n)
		}
		if got := hasCommandPrefix(s, names...); got != want {
			t.Errorf("%q: hasCommandPrefix %v, Contains %v", s, got, want)
		}
	}
}

// fillBracesByCopies is fillBraces as it was written before it built
// each list in one allocation: Python's list slicing and concatenation
// spelled out with copies. TestFillBracesOneAllocation compares the two.
func fillBracesByCopies(list []string) []string {
	t := pyList(list)
	wrap := func(l pyList, i int) pyList {
		out := append(l.slice(0, i), "{", l.at(i), "}")
		return append(out, l.slice(i+1, len(l))...)
	}
	for idx := 0; idx < len(t); idx++ {
		switch tailClass[t[idx]] {
		case oneTail:
			sub := idx + 1
			for sub < len(t) && tailClass[t[sub]] == oneTail {
				sub++
			}
			var head pyList
			head = append(head, t.slice(0, idx)...)
			for ii := idx; ii < sub; ii++ {
				head = append(head, t[ii], "{")
			}
			closing := make(pyList, sub-idx)
			for i := range closing {
				closing[i] = "}"
			}
			if t.at(sub) != "{" {
				head = append(head, t[sub])
				head = append(head, closing...)
				t = append(head, t.slice(sub+1, len(t))...)
			} else {
				end := t.matchBrace(sub, "{", "}")
				head = append(head, t.slice(sub+1, end)...)
				head = append(head, closing...)
				t = append(head, t.slice(end+1, len(t))...)
			}
		case abTail:
			next := t.at(idx + 1)
			if next != "[" && next != "{" {
				t = wrap(t, idx+1)
			} else {
				end1 := idx
				if next == "[" {
					end1 = t.matchBrace(idx+1, "[", "]")
				}
				if t.at(end1+1) != "{" {
					t = wrap(t, end1+1)
				}
			}
		case twoTail:
			if t.at(idx+1) != "{" {
				t = wrap(t, idx+1)
			}
			end1 := t.matchBrace(idx+1, "{", "}")
			if t.at(end1+1) != "{" {
				t = wrap(t, end1+1)
			}
		}
	}
	return t
}

// TestFillBracesOneAllocation runs fillBraces and fillBracesByCopies on
// random token lists made of braces, brackets, letters and the commands
// fillBraces completes, well formed or not, and requires the same list
// or the same failure.
func TestFillBracesOneAllocation(t *testing.T) {
	vocab := []string{"{", "}", "[", "]", "x", "y", "2", `\hat`, `\mathrm`, `\bar`, `\sqrt`, `\frac`, `\overset`, `\xrightarrow`, `\textbf`, "_", "^"}
	run := func(f func([]string) []string, in []string) (out []string, failure string) {
		defer func() {
			if r := recover(); r != nil {
				out, failure = nil, fmt.Sprint(r)
			}
		}()
		return f(append([]string(nil), in...)), ""
	}
	rng := rand.New(rand.NewPCG(37, 5))
	failures := 0
	for range 20000 {
		in := make([]string, 1+rng.IntN(14))
		for i := range in {
			in[i] = vocab[rng.IntN(len(vocab))]
		}
		got, gotFail := run(fillBraces, in)
		want, wantFail := run(fillBracesByCopies, in)
		if gotFail != "" {
			failures++
		}
		if gotFail != wantFail || !reflect.DeepEqual([]string(got), []string(want)) && len(got)+len(want) > 0 {
			t.Fatalf("%q: fillBraces %q (%s), by copies %q (%s)", strings.Join(in, " "), got, gotFail, want, wantFail)
		}
	}
	if failures == 0 || failures == 20000 {
		t.Errorf("%d of 20000 lists failed: the lists do not exercise both outcomes", failures)
	}
}
