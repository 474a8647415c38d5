// Package simdtest helps the tests of the SIMD kernels (packages vmath,
// fwht, kern): it runs a test once per kernel level the machine supports.
// Only tests import it.
package simdtest

import (
	"testing"

	"github.com/drdam/drdam/internal/cpuid"
)

// ForLevels runs f as a subtest of t once per kernel level the machine
// supports (portable Go, AVX2, AVX-512), with that level set, and restores
// the level after each.
func ForLevels(t *testing.T, f func(t *testing.T)) {
	for _, lv := range cpuid.Supported() {
		t.Run(lv.String(), func(t *testing.T) {
			prev := cpuid.Set(lv)
			defer cpuid.Set(prev)
			f(t)
		})
	}
}
