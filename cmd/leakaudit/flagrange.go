package main

import (
	"fmt"
	"math"
	"strconv"

	"github.com/spf13/pflag"
)

// Every numeric flag is registered with its allowed range: a value out of
// it is refused while the command line is parsed, naming the flag and the
// range (a usage error, exit status 2). TestHostileNumericFlags checks
// that no numeric flag is registered without one.

// maxWorkers bounds --workers: more goroutines than this only cost memory.
const maxWorkers = 4096

// intRange is the value of an int or int64 flag restricted to [lo, hi]
// (and to odd numbers when odd).
type intRange[T int | int64] struct {
	p      *T
	lo, hi T
	odd    bool
	desc   string // what the flag accepts, in words; "" for the range
}

// describe sets the words saying what the flag accepts (such as "0 (off)
// or a positive number of token edits") in place of the bare range.
func (r *intRange[T]) describe(desc string) { r.desc = desc }

func (r *intRange[T]) Set(s string) error {
	v, err := strconv.ParseInt(s, 0, 64)
	if err != nil {
		return fmt.Errorf("not an integer; want %s", r.want())
	}
	if v < int64(r.lo) || v > int64(r.hi) || (r.odd && v%2 == 0) {
		return fmt.Errorf("out of range; want %s", r.want())
	}
	*r.p = T(v)
	return nil
}

// want says what the flag accepts.
func (r *intRange[T]) want() string {
	if r.desc != "" {
		return r.desc
	}
	kind := "an integer"
	if r.odd {
		kind = "an odd integer"
	}
	if hi := int64(r.hi); hi == math.MaxInt64 || hi == math.MaxInt { // no upper bound
		return fmt.Sprintf("%s of at least %d", kind, r.lo)
	}
	return fmt.Sprintf("%s from %d to %d", kind, r.lo, r.hi)
}

func (r *intRange[T]) String() string { return strconv.FormatInt(int64(*r.p), 10) }

func (r *intRange[T]) Type() string {
	if _, ok := any(*r.p).(int64); ok {
		return "int64"
	}
	return "int"
}

// intFlag registers an int flag whose values must lie in [lo, hi].
func intFlag(fs *pflag.FlagSet, p *int, name string, value, lo, hi int, usage string) *intRange[int] {
	*p = value
	r := &intRange[int]{p: p, lo: lo, hi: hi}
	fs.Var(r, name, usage)
	return r
}

// int64Flag registers an int64 flag whose values must lie in [lo, hi].
func int64Flag(fs *pflag.FlagSet, p *int64, name string, value, lo, hi int64, usage string) *intRange[int64] {
	*p = value
	r := &intRange[int64]{p: p, lo: lo, hi: hi}
	fs.Var(r, name, usage)
	return r
}

// oddIntFlag registers an int flag whose values must be odd and lie in
// [lo, hi].
func oddIntFlag(fs *pflag.FlagSet, p *int, name string, value, lo, hi int, usage string) *intRange[int] {
	*p = value
	r := &intRange[int]{p: p, lo: lo, hi: hi, odd: true}
	fs.Var(r, name, usage)
	return r
}

// floatRange is the value of a float64 flag restricted to [lo, hi]; NaN
// and infinities are refused.
type floatRange struct {
	p      *float64
	lo, hi float64
}

func (r *floatRange) Set(s string) error {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return fmt.Errorf("not a number; want a number from %g to %g", r.lo, r.hi)
	}
	if v < r.lo || v > r.hi {
		return fmt.Errorf("out of range; want a number from %g to %g", r.lo, r.hi)
	}
	*r.p = v
	return nil
}

func (r *floatRange) String() string { return strconv.FormatFloat(*r.p, 'g', -1, 64) }
func (r *floatRange) Type() string   { return "float64" }

// floatFlag registers a float64 flag whose values must lie in [lo, hi].
func floatFlag(fs *pflag.FlagSet, p *float64, name string, value, lo, hi float64, usage string) {
	*p = value
	fs.Var(&floatRange{p: p, lo: lo, hi: hi}, name, usage)
}
