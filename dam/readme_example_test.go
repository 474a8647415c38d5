package dam_test

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/drdam/drdam/dam"
)

// The README's library example, run: K = 20 random binary patterns of
// D = 64, each coordinate 0 or 1/√D (the scale β assumes: a pattern's norm
// at most 1), stored in a DrDAM and in an MrDAM; three of them with their
// second half hidden (started at 0) come back by a descent with the first
// half clamped, every hidden bit right in both.
func Example_readme() {
	const d, k, b = 64, 20, 3
	scale := 1 / math.Sqrt(d) // patterns in [0, 1/√D]
	r := rand.New(rand.NewPCG(1, 2))
	patterns := make([]float64, k*d) // K×D, row-major
	for i := range patterns {
		patterns[i] = scale * float64(r.IntN(2))
	}
	visible := make([]bool, d) // the first half is clamped
	queries := make([]float64, b*d)
	for i := range queries {
		visible[i%d] = i%d < d/2
		if visible[i%d] {
			queries[i] = patterns[i] // the hidden half starts at 0
		}
	}
	for _, c := range []dam.Config{
		{D: d, Beta: 30, Y: 20000, Seed: 1}, // DrDAM: SinCos, iid Gaussian features
		{D: d, Beta: 30, Rep: dam.RepMrDAM}, // MrDAM: the patterns themselves
	} {
		m, err := dam.New(c)
		if err != nil {
			fmt.Println(err)
			return
		}
		if err := m.Add(patterns); err != nil {
			fmt.Println(err)
			return
		}
		res, err := dam.Recall(m, queries, dam.RecallOptions{Step: 0.1, MaxSteps: 1000, Tol: dam.DefaultTol, Clamp: visible})
		if err != nil {
			fmt.Println(err)
			return
		}
		wrong := 0
		for i, v := range res.X {
			if !visible[i%d] && (v > scale/2) != (patterns[i] > 0) {
				wrong++
			}
		}
		conv, _, _ := res.Count()
		fmt.Printf("%v: %d of %d hidden bits wrong, %d of %d converged\n", m.Config().Rep, wrong, b*d/2, conv, b)
	}
	// Output:
	// drdam: 0 of 96 hidden bits wrong, 3 of 3 converged
	// mrdam: 0 of 96 hidden bits wrong, 3 of 3 converged
}
