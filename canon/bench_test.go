package canon

import "testing"

var benchLabels = []string{
	`\frac { 2 - p } { \sqrt { 1 - p } }`,
	`C _ { 1 } y _ { 1 } ^ { ( n - 1 ) } + C _ { 2 } y _ { 2 } ^ { ( n - 1 ) } + \ldots + C _ { n } y _ { n } ^ { ( n - 1 ) } = 0`,
	`\sum\limits_{i=1}^{n}x_{i}\alpha b`,
	"$x\u00a0+ y$",
}

func BenchmarkCanonAudit(b *testing.B) {
	for i := 0; i < b.N; i++ {
		AuditKey(benchLabels[i%len(benchLabels)])
	}
}

func BenchmarkCanonWS(b *testing.B) {
	for i := 0; i < b.N; i++ {
		WSKey(benchLabels[i%len(benchLabels)])
	}
}
