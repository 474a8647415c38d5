//go:build !unix

package serve

import "math"

// busyCPU is not measured here: NaN.
func busyCPU() float64 { return math.NaN() }
