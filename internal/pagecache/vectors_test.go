package pagecache

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestWriteVectors: the file holds the buffers' bytes in order, whatever
// their number (more than one system call takes) and sizes (empty ones
// among them).
func TestWriteVectors(t *testing.T) {
	many := make([][]byte, 3*maxVectors+7)
	for i := range many {
		many[i] = bytes.Repeat([]byte{byte(i)}, i%5) // every fifth is empty
	}
	tests := []struct {
		name string
		bufs [][]byte
	}{
		{"none", nil},
		{"empty ones", [][]byte{{}, nil, {}}},
		{"one", [][]byte{[]byte("PAR1")}},
		{"more than a call takes", many},
		{"large and small", [][]byte{bytes.Repeat([]byte("ab"), 3<<20), {}, []byte("c"), bytes.Repeat([]byte("d"), 70000)}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			want := bytes.Join(tc.bufs, nil)
			p := filepath.Join(t.TempDir(), "f")
			f, err := os.Create(p)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if _, err := f.Write([]byte("head")); err != nil {
				t.Fatal(err)
			}
			n, err := WriteVectors(f, append([][]byte(nil), tc.bufs...))
			if err != nil || n != int64(len(want)) {
				t.Fatalf("WriteVectors: %d bytes, %v; want %d", n, err, len(want))
			}
			got, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, append([]byte("head"), want...)) {
				t.Errorf("the file holds %d bytes, not the %d written in order after the head", len(got), 4+len(want))
			}
		})
	}
}
