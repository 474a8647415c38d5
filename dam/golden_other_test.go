//go:build !amd64 || amd64.v3

package dam

import (
	"testing"

	"github.com/drdam/drdam/features"
)

// checkGoldenT is a no-op off the machine the golden values of T were taken
// on; see golden_amd64_test.go.
func checkGoldenT(t *testing.T, gen features.Generator, tv []float64) {}
