package dataset

import (
	"os"

	"github.com/parquet-go/parquet-go"
)

type testRow struct {
	ID           string  `parquet:"id"`
	LatexFormula *string `parquet:"latex_formula,optional"`
}

// nullLabel in a test list stands for a null value.
const nullLabel = "\x00null"

func writeTestParquet(path string, labels []string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	w := parquet.NewGenericWriter[testRow](f)
	for i, l := range labels {
		row := testRow{ID: "r" + string(rune('a'+i))}
		if l != nullLabel {
			row.LatexFormula = &l
		}
		if _, err := w.Write([]testRow{row}); err != nil {
			return err
		}
	}
	return w.Close()
}
