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

type hfImage struct {
	Bytes []byte `parquet:"bytes"`
	Path  string `parquet:"path"`
}

type hfRow struct {
	Image        hfImage `parquet:"image"`
	LatexFormula string  `parquet:"latex_formula"`
}

func writeHFParquet(path string, rows []hfRow) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	w := parquet.NewGenericWriter[hfRow](f)
	if _, err := w.Write(rows); err != nil {
		return err
	}
	return w.Close()
}
