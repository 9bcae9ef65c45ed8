package canon

import (
	"strings"
	"testing"

	"github.com/leakaudit/leakaudit/internal/shareddata"
)

// BenchmarkCanonTokens measures the tokens level on the same labels.
func BenchmarkCanonTokens(b *testing.B) {
	labels := shareddata.JSONStrings(b, "labels/crohme_train_captions.json")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		TokensKey(labels[i%len(labels)])
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "formulas/s")
}

// BenchmarkTokensAndRender computes both token-based levels for each label,
// as an index build at --level tokens,render does.
func BenchmarkTokensAndRender(b *testing.B) {
	labels := shareddata.JSONStrings(b, "labels/crohme_train_captions.json")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s := labels[i%len(labels)]
		TokensKey(s)
		RenderKey(s)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "labels/s")
}

func mustLevel(name string) Level {
	l, ok := LookupLevel(name)
	if !ok {
		panic(name)
	}
	return l
}

// FuzzTokenLevels: the tokens and render levels never panic and are
// deterministic on any input.
func FuzzTokenLevels(f *testing.F) {
	for _, s := range []string{`x^2`, `\frac{a}{b}`, `\begin{array}{cc} a & b \\ c & d \end{array}`, `\left( x \right.`,
		`\text{速度 v}`, `x''^{2}`, `\sqrt[3]{x}`, `{a \over b}`, `\mathrm{\alpha}`, `\hat \bar x`, `}{`, `\\`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, l := range []Level{mustLevel("tokens"), mustLevel("render")} {
			a, _ := l.Canon(s)
			b, _ := l.Canon(s)
			if a != b {
				t.Fatalf("%s level not deterministic on %q", l.Name, s)
			}
		}
	})
}

// TestTokenLevelLimits: a formula beyond the tokenizer's limits gets the
// tokens level's failure key, quickly.
func TestTokenLevelLimits(t *testing.T) {
	for name, s := range map[string]string{
		"100k characters":      strings.Repeat("x+", 50000),
		"10k nested braces":    strings.Repeat("{", 10000) + "x" + strings.Repeat("}", 10000),
		"10k nested fractions": strings.Repeat(`\frac{`, 10000),
	} {
		if k, _ := TokensKey(s); !IsFailedKey(k) {
			t.Errorf("%s: tokens level did not fail", name)
		}
	}
}
