package report

import (
	"strings"
	"testing"
)

func TestTable(t *testing.T) {
	tb := Table{Header: []string{"split", ">total", ">rate %"}}
	tb.Add("crohme2014", "986", "3.04")
	tb.Add("é", "24607", "100.00")
	var b strings.Builder
	if err := tb.Write(&b); err != nil {
		t.Fatal(err)
	}
	want := "split       total  rate %\n" +
		"crohme2014    986    3.04\n" +
		"é           24607  100.00\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}
