package features_test

import (
	"fmt"
	"math"

	"github.com/drdam/drdam/features"
)

// SinCos features approximate the Gaussian kernel exp(−β/2 ‖x − y‖²): here
// at Y = 100000 projections, to about 1/√Y.
func ExampleMap_Features() {
	const y, d, beta = 100000, 3, 2.0
	m, _ := features.NewMap(features.SinCos, beta, features.NewGaussian(features.DefaultGenerator, 1, y, d), features.NewBias(1, y))
	x := []float64{0.1, 0.2, 0.3}
	z := []float64{0.4, 0.1, -0.2}
	fx, fz := make([]float64, m.Width()), make([]float64, m.Width())
	m.Features(fx, x)
	m.Features(fz, z)
	var dot, dist float64
	for i := range fx {
		dot += fx[i] * fz[i]
	}
	for i := range x {
		dist += (x[i] - z[i]) * (x[i] - z[i])
	}
	fmt.Printf("φ(x)·φ(z) = %.2f, exp(−β/2‖x−z‖²) = %.2f\n", dot, math.Exp(-beta/2*dist))
	// Output: φ(x)·φ(z) = 0.71, exp(−β/2‖x−z‖²) = 0.70
}
