package fingerprint

import (
	"slices"
	"testing"

	"github.com/parquet-go/parquet-go"
)

// TestHostileImageRowMatchesRow: an image fingerprint's row has Row's
// columns in Row's order, then the ink column, so that readers of either
// kind of file see the same columns.
func TestHostileImageRowMatchesRow(t *testing.T) {
	names := func(s *parquet.Schema) []string {
		var out []string
		for _, f := range s.Fields() {
			out = append(out, f.Name())
		}
		return out
	}
	row, img := names(parquet.SchemaOf(Row{})), names(parquet.SchemaOf(imageRow{}))
	if want := append(slices.Clone(row), "image_ink"); !slices.Equal(img, want) {
		t.Errorf("image row columns %v, want %v", img, want)
	}
}
