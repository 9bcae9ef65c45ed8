package dataset

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkScanJSONStrings measures streaming a JSON label list of 100k
// labels of about 60 bytes.
func BenchmarkScanJSONStrings(b *testing.B) {
	path := filepath.Join(b.TempDir(), "labels.json")
	labels := make([]string, 100000)
	for i := range labels {
		labels[i] = fmt.Sprintf(`\frac { %d } { x _ { %d } } + \sqrt { y ^ { 2 } } = %d`, i, i%97, i%13)
	}
	data, _ := json.Marshal(labels)
	os.WriteFile(path, data, 0o644)
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Scan(Source{Path: path, Format: JSONStrings}, func(Item) error { return nil }); err != nil {
			b.Fatal(err)
		}
	}
}
