package fingerprint

import (
	"context"
	"errors"
)

// A Table is a label fingerprint held in memory: the rows Write would
// write for its inputs, computed by Compute and written later by
// Table.Write, so that the reading (which can be stopped) and the writing
// happen in different places. Meant for small inputs, such as test
// splits: every row is kept.
type Table struct {
	inputs []Input
	o      Options
	rows   []Row
	res    Result
}

// Compute reads every input and computes its rows as Write does, without
// writing anything; it stops when ctx is done. Image fingerprints
// (Options.Images) are not computed in memory.
func Compute(ctx context.Context, inputs []Input, o Options) (*Table, error) {
	if o.Images {
		return nil, errors.New("an image fingerprint is written as it is computed (Write)")
	}
	res, err := newResult("", inputs, o)
	if err != nil {
		return nil, err
	}
	t := &Table{inputs: inputs, o: o, res: *res}
	err = scanInputs(ctx, inputs, o, &t.res, func(r Row) error {
		t.rows = append(t.rows, r)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return t, nil
}

// Write writes the table to out as Write would have written its inputs:
// the same bytes, under the same rules for out.
func (t *Table) Write(out string) (*Result, error) {
	res := t.res
	res.Out = out
	err := writeFile(out, t.inputs, t.o, &res, func() error { return nil }, func(_ Options, write func(Row) error) error {
		for _, r := range t.rows {
			if err := write(r); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &res, nil
}
