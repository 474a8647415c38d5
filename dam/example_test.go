package dam_test

import (
	"fmt"

	"github.com/drdam/drdam/dam"
	"github.com/drdam/drdam/features"
	"github.com/drdam/drdam/synth"
)

// Store three patterns in a DrDAM, whose memory is one vector T of 2Y
// values whatever the number of patterns, and retrieve the first from a
// query whose last coordinate is unknown (zeroed) and whose others are
// clamped.
func Example() {
	patterns := []float64{
		0.5, 0, 0.5, 0,
		0, 0.5, 0, 0.5,
		0.5, 0.5, 0, 0.5,
	}
	m, err := dam.NewDrDAM(dam.Config{D: 4, Beta: 30, Y: 20000, Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := m.Add(patterns); err != nil {
		fmt.Println(err)
		return
	}
	query := []float64{0.5, 0.5, 0, 0}
	res, err := dam.Recall(m, query, dam.RecallOptions{
		Step: 0.1, MaxSteps: 1000, Tol: 1e-10,
		Clamp: []bool{true, true, true, false},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("T holds %d values; retrieved %.2f, converged: %v\n", m.Config().FeatureDim(), res.X, res.Converged[0])
	// Output: T holds 40000 values; retrieved [0.50 0.50 0.00 0.50], converged: true
}

// With a single memory ξ the L2 energy is ½‖x − ξ‖² and its gradient x − ξ.
func ExampleMrDAM_EnergyGrad() {
	m, _ := dam.NewMrDAM(dam.Config{D: 2, Beta: 5})
	m.Add([]float64{1, 2})
	e, g := make([]float64, 1), make([]float64, 2)
	m.EnergyGrad(e, g, []float64{1, 0})
	fmt.Println(e[0], g)
	// Output: 2 [0 -2]
}

// A DrDAM on structured random features (SORF) stores 20 binary patterns
// of dimension 4096 in T, 2·10⁵ values, without ever holding the
// 10⁵×4096 projection (it is applied by Walsh–Hadamard transforms); its
// energy at a stored pattern agrees with the exact MrDAM energy to about
// 1/√Y.
func Example_structured() {
	const d, k = 4096, 20
	xi, _ := synth.Binary(1, k, d)
	c := dam.Config{D: d, Beta: 10, Y: 100000, Projection: features.Structured, Seed: 1}
	dr, err := dam.NewDrDAM(c)
	if err != nil {
		fmt.Println(err)
		return
	}
	mr, _ := dam.NewMrDAM(dam.Config{D: d, Beta: 10})
	dr.Add(xi)
	mr.Add(xi)
	ed, em := make([]float64, 1), make([]float64, 1)
	dr.EnergyGrad(ed, nil, xi[:d])
	mr.EnergyGrad(em, nil, xi[:d])
	fmt.Printf("T: %d values; energy DrDAM %.3f, MrDAM %.3f\n", dr.Config().FeatureDim(), ed[0], em[0])
	// Output: T: 200000 values; energy DrDAM -0.095, MrDAM -0.095
}

// ExampleConditionBeta finds the smallest β at which two patterns at
// distance 0.5 are fixed points of their MrDAM energy, to a gradient of
// 10⁻³ (2·ln(499)/0.25 ≈ 49.7).
func ExampleConditionBeta() {
	beta, err := dam.ConditionBeta([]float64{0, 0, 0, 0.5, 0, 0}, 3, 1, 1000, 1e-3)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("β = %.4g\n", beta)
	// Output: β = 49.7
}
