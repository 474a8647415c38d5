//go:build !openblas

package kern

import "testing"

// benchOpenBLAS is a no-op without the openblas build tag.
func benchOpenBLAS[T Float](b *testing.B, name string, nb, d, y int, flops float64) {}
