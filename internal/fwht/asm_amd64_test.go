//go:build !purego

package fwht

import (
	"fmt"
	"testing"
)

// TestChunkSizes runs the vector levels with other chunk sizes than the
// default: down to one vector (every stage above the base groups then
// runs as a pass over the whole array) and up to no chunking at all.
func TestChunkSizes(t *testing.T) {
	defer func(c int) { chunkBytes = c }(chunkBytes)
	for _, cb := range []int{64, 256, 4 << 10, 64 << 10, 1 << 30} {
		chunkBytes = cb
		t.Run(fmt.Sprint(cb), func(t *testing.T) {
			testDefinition[float32](t)
			testDefinition[float64](t)
			testSigns[float32](t)
			testSigns[float64](t)
			testInvolution[float32](t)
			testInvolution[float64](t)
		})
	}
}
