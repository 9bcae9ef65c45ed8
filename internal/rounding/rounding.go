// Package rounding rounds float64 values to a number of decimals, one
// function per rule, so that every figure leakaudit prints is rounded
// the way its reference rounds it:
//
//   - Python is Python's round(x, digits), the rule of every reference
//     implementation leakaudit reproduces (the audit's overlap rate, CDM's
//     recall, precision and F1, TeXBLEU, IMEGE's printed precision and
//     recall): the multiple of 10^-digits nearest to the exact binary
//     value of x, ties to even.
//   - HalfAway is math.Round on the scaled value, x·10^digits rounded half
//     away from zero and divided back: the rule of leakaudit's own
//     statistics, which no reference prints; PercentHalfAway is the same
//     rule for a fraction printed as a percentage with two decimals.
//
// The two differ on exact binary ties (Python(3.125, 2) is 3.12,
// HalfAway(3.125, 2) is 3.13) and where the product x·10^digits is
// itself rounded onto or off a tie.
package rounding

import (
	"math"
	"strconv"
)

// Python returns Python's round(x, digits) for digits ≥ 0: the multiple of
// 10^-digits nearest to the exact binary value of x, ties to even, read
// back as the nearest float64. NaN, ±Inf and ±0 come back as they are
// (the sign of a zero result kept, as Python keeps it).
func Python(x float64, digits int) float64 {
	// strconv formats the exact binary value, rounding half to even;
	// parsing the decimal back gives the float64 nearest to it, as
	// Python's round does.
	v, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'f', digits, 64), 64)
	return v
}

// HalfAway returns x·10^digits rounded half away from zero (math.Round),
// divided by 10^digits, for digits ≥ 0.
func HalfAway(x float64, digits int) float64 {
	p := math.Pow10(digits)
	return math.Round(x*p) / p
}

// PercentHalfAway returns the fraction f as a percentage with two
// decimals, f·10⁴ rounded half away from zero (math.Round) and divided by
// 100. It is not HalfAway(100*f, 2): the two products round differently
// on fractions such as 97/160, whose f·10⁴ is exactly 6062.5 (60.63) while
// 100·f is 60.62499… (60.62).
func PercentHalfAway(f float64) float64 { return math.Round(f*1e4) / 1e2 }
