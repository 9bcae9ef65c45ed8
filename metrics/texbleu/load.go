package texbleu

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"regexp"
	"strconv"
	"strings"
)

// maxTableBytes bounds an embedding file (GPT-2 small's wte is 154 MB in
// float32).
const maxTableBytes = 4 << 30

// LoadEmbeddings reads a token-embedding table: a NumPy .npy file (2-D,
// little-endian float32 or float64, C order), or a safetensors file with a
// 2-D tensor named wte.weight or transformer.wte.weight (F32, F16 or
// BF16).
func LoadEmbeddings(path string) (*Embeddings, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if fi.Size() > maxTableBytes {
		return nil, fmt.Errorf("%s: %d bytes, more than the %d-byte limit", path, fi.Size(), maxTableBytes)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var e *Embeddings
	if strings.HasSuffix(strings.ToLower(path), ".npy") {
		e, err = parseNPY(data)
	} else {
		e, err = parseSafetensors(data)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return e, nil
}

var reNPYShape = regexp.MustCompile(`'shape':\s*\((\d+),\s*(\d+)\)`)
var reNPYDescr = regexp.MustCompile(`'descr':\s*'([<|>]?[fi]\d)'`)

func parseNPY(b []byte) (*Embeddings, error) {
	if len(b) < 10 || string(b[:6]) != "\x93NUMPY" {
		return nil, fmt.Errorf("not a .npy file")
	}
	var hlen, off int
	switch b[6] {
	case 1:
		hlen, off = int(binary.LittleEndian.Uint16(b[8:10])), 10
	case 2, 3:
		if len(b) < 12 {
			return nil, fmt.Errorf("truncated .npy header")
		}
		hlen, off = int(binary.LittleEndian.Uint32(b[8:12])), 12
	default:
		return nil, fmt.Errorf(".npy version %d", b[6])
	}
	if off+hlen > len(b) {
		return nil, fmt.Errorf("truncated .npy header")
	}
	h := string(b[off : off+hlen])
	if strings.Contains(h, "'fortran_order': True") {
		return nil, fmt.Errorf(".npy in Fortran order")
	}
	sm, dm := reNPYShape.FindStringSubmatch(h), reNPYDescr.FindStringSubmatch(h)
	if sm == nil || dm == nil {
		return nil, fmt.Errorf(".npy header %q: want a 2-D float array", h)
	}
	rows, _ := strconv.Atoi(sm[1])
	dim, _ := strconv.Atoi(sm[2])
	return decodeTable(b[off+hlen:], rows, dim, map[string]string{"<f4": "F32", "<f8": "F64", "|f4": "F32", "f4": "F32"}[dm[1]])
}

func parseSafetensors(b []byte) (*Embeddings, error) {
	if len(b) < 8 {
		return nil, fmt.Errorf("not a safetensors file")
	}
	n := binary.LittleEndian.Uint64(b[:8])
	if n > uint64(len(b)-8) {
		return nil, fmt.Errorf("safetensors header of %d bytes in a %d-byte file", n, len(b))
	}
	var header map[string]json.RawMessage
	if err := json.Unmarshal(b[8:8+n], &header); err != nil {
		return nil, fmt.Errorf("safetensors header: %w", err)
	}
	for _, name := range []string{"wte.weight", "transformer.wte.weight"} {
		raw, ok := header[name]
		if !ok {
			continue
		}
		var t struct {
			Dtype   string   `json:"dtype"`
			Shape   []int    `json:"shape"`
			Offsets [2]int64 `json:"data_offsets"`
		}
		if err := json.Unmarshal(raw, &t); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		base := int64(8 + n)
		if len(t.Shape) != 2 || t.Offsets[0] < 0 || t.Offsets[1] < t.Offsets[0] || base+t.Offsets[1] > int64(len(b)) {
			return nil, fmt.Errorf("%s: shape %v at %v in a %d-byte file", name, t.Shape, t.Offsets, len(b))
		}
		return decodeTable(b[base+t.Offsets[0]:base+t.Offsets[1]], t.Shape[0], t.Shape[1], t.Dtype)
	}
	return nil, fmt.Errorf("no tensor wte.weight or transformer.wte.weight")
}

// decodeTable reads rows×dim little-endian values of a dtype.
func decodeTable(b []byte, rows, dim int, dtype string) (*Embeddings, error) {
	size := map[string]int{"F32": 4, "F64": 8, "F16": 2, "BF16": 2}[dtype]
	if size == 0 {
		return nil, fmt.Errorf("dtype %q: want F32, F64, F16 or BF16", dtype)
	}
	if rows <= 0 || dim <= 0 || int64(rows)*int64(dim)*int64(size) != int64(len(b)) {
		return nil, fmt.Errorf("%d×%d %s values in %d bytes", rows, dim, dtype, len(b))
	}
	out := make([]float32, rows*dim)
	for i := range out {
		switch dtype {
		case "F32":
			out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
		case "F64":
			out[i] = float32(math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:])))
		case "BF16":
			out[i] = math.Float32frombits(uint32(binary.LittleEndian.Uint16(b[2*i:])) << 16)
		case "F16":
			out[i] = half(binary.LittleEndian.Uint16(b[2*i:]))
		}
	}
	return NewEmbeddings(rows, dim, out)
}

// half converts an IEEE 754 half-precision value.
func half(h uint16) float32 {
	sign := float32(1)
	if h&0x8000 != 0 {
		sign = -1
	}
	exp, frac := int(h>>10&0x1f), float64(h&0x3ff)
	switch exp {
	case 0:
		return sign * float32(math.Ldexp(frac, -24))
	case 31:
		if frac == 0 {
			return sign * float32(math.Inf(1))
		}
		return float32(math.NaN())
	}
	return sign * float32(math.Ldexp(1+frac/1024, exp-15))
}
