// Command tfmgolden regenerates tex/font/testdata/tfm_golden.txt.gz, the oracle
// for the TFM reader: it runs e-TeX (Debian's texlive-binaries and
// texlive-base) over every embedded font at the sizes pdflatex uses and
// records, in integer scaled points as TeX computes them, each character's
// width, height, depth and italic correction, every \fontdimen, and the
// kerns of a few letter pairs. Run it with `make goldens`; CI only reads the
// committed file and needs no TeX.
//
// Output lines:
//
//	F name size                       start of a font at a size (sp)
//	C code wd ht dp ic                one character
//	P n value                         \fontdimen n
//	K left right kern                 kern between two characters
package main

import (
	"bufio"
	"compress/gzip"
	"fmt"
	"github.com/leakaudit/leakaudit/tex/font"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// sizes at which each font is checked, besides its design size: the
// 12/8/6 pt math sizes of a 12 pt document and the 10/7/5 pt ones of a
// 10 pt document (tex.TypesetInline).
var sizes = []int{12, 8, 6, 10, 7, 5}

var kernPairs = []string{"AV", "To", "Ty", "LT", "Av", "Wa", "Yo", "P.", "xy", "fj"}

func main() {
	dir, err := os.MkdirTemp("", "tfmgolden")
	if err != nil {
		log.Fatal(err)
	}
	defer func() {
		if os.Getenv("KEEP") == "" {
			os.RemoveAll(dir)
		}
	}()
	if os.Getenv("KEEP") != "" {
		fmt.Println(dir)
	}
	var b strings.Builder
	b.WriteString(`\immediate\openout15=out.txt` + "\n")
	b.WriteString(`\newcount\c` + "\n")
	n := 0
	for _, name := range font.EmbeddedFonts() {
		for _, at := range append([]int{0}, sizes...) {
			n++
			spec := name
			if at > 0 {
				spec = fmt.Sprintf("%s at %dpt", name, at)
			}
			fmt.Fprintf(&b, `\font\FNT%s=%s`+"\n", romanName(n), spec)
			f := `\FNT` + romanName(n)
			// The size is 0 for a load at the design size.
			fmt.Fprintf(&b, `\immediate\write15{F %s %d}`+"\n", name, at*65536)
			fmt.Fprintf(&b, `\c=0 \loop\ifnum\c<256 \iffontchar%s\c \immediate\write15{C \the\c\space\number\fontcharwd%s\c\space\number\fontcharht%s\c\space\number\fontchardp%s\c\space\number\fontcharic%s\c}\fi\advance\c1 \repeat`+"\n", f, f, f, f, f)
			// Font parameters, as many as the TFM has (asking TeX for more
			// would extend the font's table).
			t, err := font.LoadTFM(name)
			if err != nil {
				log.Fatal(err)
			}
			fmt.Fprintf(&b, `\c=1 \loop\ifnum\c<%d \immediate\write15{P \the\c\space\number\fontdimen\c%s}\advance\c1 \repeat`+"\n", len(t.Params)+1, f)
			for _, pair := range kernPairs {
				l, r := int(pair[0]), int(pair[1])
				fmt.Fprintf(&b, `\iffontchar%s%d \iffontchar%s%d \setbox0\hbox{%s\char%d\char%d}\immediate\write15{K %d %d \number\numexpr\wd0-\fontcharwd%s%d-\fontcharwd%s%d\relax}\fi\fi`+"\n", f, l, f, r, f, l, r, l, r, f, l, f, r)
			}
		}
	}
	b.WriteString(`\immediate\closeout15 \end` + "\n")
	if err := os.WriteFile(filepath.Join(dir, "gen.tex"), []byte(b.String()), 0o644); err != nil {
		log.Fatal(err)
	}
	cmd := exec.Command("etex", "-interaction=batchmode", "gen.tex")
	cmd.Dir = dir
	if err := cmd.Run(); err != nil {
		tail, _ := os.ReadFile(filepath.Join(dir, "gen.log"))
		if len(tail) > 3000 {
			tail = tail[:3000]
		}
		log.Fatalf("etex: %v\n%s", err, tail)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "out.txt"))
	if err != nil {
		log.Fatal(err)
	}
	out, err := os.Create("tex/font/testdata/tfm_golden.txt.gz")
	if err != nil {
		log.Fatal(err)
	}
	gz, _ := gzip.NewWriterLevel(out, gzip.BestCompression)
	gz.Header.Name = "tfm_golden.txt" // no timestamp: reproducible bytes
	w := bufio.NewWriter(gz)
	w.Write(raw)
	w.Flush()
	gz.Close()
	out.Close()
	fmt.Printf("%d font loads, %d bytes of golden text\n", n, len(raw))
}

// romanName gives each \font a control-sequence name of letters only.
func romanName(n int) string {
	s := ""
	for n > 0 {
		s = string(rune('a'+(n-1)%26)) + s
		n = (n - 1) / 26
	}
	return s
}
