package panics

import (
	"errors"
	"strings"
	"testing"
)

// TestHostileCatch: a panic becomes an *Error with its value and stack;
// a function that returns is left alone.
func TestHostileCatch(t *testing.T) {
	err := Catch(func() {
		var s []int
		_ = s[3]
	})
	var pe *Error
	if !errors.As(err, &pe) || !strings.Contains(err.Error(), "internal error: runtime error: index out of range [3] with length 0 (please report)") ||
		!strings.Contains(string(pe.Stack), "panics_test.go") {
		t.Errorf("Catch: %v", err)
	}
	if err := Catch(func() {}); err != nil {
		t.Errorf("Catch of a function that returns: %v", err)
	}
	v, err := Call(func() (int, error) { return 7, errors.New("plain") })
	if v != 7 || err == nil || err.Error() != "plain" {
		t.Errorf("Call: %d, %v", v, err)
	}
	v, err = Call(func() (int, error) { panic("boom") })
	if v != 0 || !errors.As(err, &pe) || pe.Value != "boom" {
		t.Errorf("Call of a panic: %d, %v", v, err)
	}
}
