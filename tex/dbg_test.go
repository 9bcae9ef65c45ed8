package tex
import ("testing";"fmt";"strings")
func TestDbg(t *testing.T){
	n := 0
	for _, r := range readLayoutGolden(t) {
		if !strings.Contains(r.Input, `textcircled`) || len(r.Errors) > 0 { continue }
		fmt.Println(r.Input, "\n", r.Colored, r.Fonts)
		for _, g := range r.Glyphs { fmt.Println(g, r.Fonts[g[0]]) }
		n++; if n == 2 {break}
	}
}
