package baseline_test

import (
	"fmt"
	"math"

	"github.com/drdam/drdam/baseline"
)

// KNNImputer's example from scikit-learn's documentation: the stored rows
// have missing values too, and the queries are the stored rows.
func ExampleImputer() {
	nan := math.NaN()
	x := []float64{
		1, 2, nan,
		3, 4, 3,
		nan, 6, 5,
		8, 8, 7,
	}
	m, err := baseline.NewImputer(x, 3, 2, baseline.Uniform)
	if err != nil {
		panic(err)
	}
	dst := make([]float64, len(x))
	if err := m.Complete(dst, x, nil); err != nil {
		panic(err)
	}
	for i := 0; i < len(dst); i += 3 {
		fmt.Println(dst[i : i+3])
	}
	// Output:
	// [1 2 4]
	// [3 4 3]
	// [5.5 6 5]
	// [8 8 7]
}

// The masked k-NN, the column means and the kernel regression complete the
// hidden second coordinate of a query from three stored rows.
func ExampleKNN() {
	x := []float64{
		0, 0,
		1, 10,
		3, 30,
	}
	q := []float64{0.9, -1} // the -1 is hidden: it is ignored
	visible := []bool{true, false}
	dst := make([]float64, 2)
	knn, err := baseline.NewKNN(x, 2, 2, baseline.Uniform)
	if err != nil {
		panic(err)
	}
	mean, _ := baseline.NewMean(x, 2)
	kernel, _ := baseline.NewKernel(x, 2, 100)
	for _, c := range []struct {
		name string
		m    baseline.Completer
	}{{"2-NN", knn}, {"mean", mean}, {"kernel", kernel}} {
		if err := c.m.Complete(dst, q, visible); err != nil {
			panic(err)
		}
		fmt.Printf("%-6s %.3f\n", c.name, dst)
	}
	// Output:
	// 2-NN   [0.900 5.000]
	// mean   [0.900 13.333]
	// kernel [0.900 10.000]
}
