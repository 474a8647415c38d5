package fuzzbudget

import (
	"fmt"
	"testing"
)

// recorder is a TB that records its errors.
type recorder struct{ errs []string }

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

var sink []byte

func TestCheck(t *testing.T) {
	b := Budget{PerByte: 2, Fixed: 1 << 20}
	for _, tc := range []struct {
		name  string
		alloc int
		fail  bool
	}{
		{"nothing", 0, false},
		{"within", 1 << 19, false},
		{"over", 4 << 20, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var r recorder
			got := Check(&r, "f", 100, b, func() { sink = make([]byte, tc.alloc) })
			if got < uint64(tc.alloc) {
				t.Errorf("Check measured %d bytes, want at least %d", got, tc.alloc)
			}
			if (len(r.errs) > 0) != tc.fail {
				t.Errorf("errors %q, want failure %v", r.errs, tc.fail)
			}
		})
	}
	if s := b.String(); s != "2×n + 1048576" {
		t.Errorf("String = %q", s)
	}
}
