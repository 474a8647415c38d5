package metrics_test

import (
	"fmt"

	"github.com/drdam/drdam/metrics"
)

func ExampleHamming() {
	// Two states of dimension 4 (1/√D = 0.5, threshold 0.25) whose
	// binarizations differ in one coordinate of four.
	x := []float64{0.5, 0, 0.5, 0.4}
	y := []float64{0.5, 0, 0.1, 0.4}
	fmt.Println(metrics.Hamming(x, y))
	// Output: 0.25
}

func ExampleCorollary1Bound() {
	p := metrics.BoundParams{C1: 1, K: 500, D: 100, Y: 100000, Beta: 10, E0: 0.1}
	eta, _ := metrics.Corollary1Step(p, 0.5, 100)
	b, _ := metrics.Corollary1Bound(p, 0.5)
	fmt.Printf("η = %.3g, bound on ‖x − x̂‖ = %.3g\n", eta, b)
	// B = 1 + 2·500·10·e⁵ ≈ 1.484e6, η = 0.5/(100·B);
	// bound = 0.5·e^(10(0.1−0.5))/(10·0.5)·√(100/10⁵).
	// Output: η = 3.37e-09, bound on ‖x − x̂‖ = 5.79e-05
}
