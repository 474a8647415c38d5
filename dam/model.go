package dam

import (
	"errors"
	"fmt"
	"math"
	"sync"
)

// Model is an energy over R^D evaluated in batches: what Descent and Recall
// descend. Both MrDAM and DrDAM implement it.
type Model interface {
	// Dim returns D.
	Dim() int
	// EnergyGrad writes E(x_b) into e[b] and ∇E(x_b) into
	// grad[b·D:(b+1)·D] for the B = len(e) queries stored row-major in x
	// (B×D). grad may be nil to compute energies only. It returns an error,
	// and writes nothing meaningful, if a length is wrong, a query is not
	// finite, or the model cannot evaluate (it stores no memory).
	EnergyGrad(e, grad, x []float64) error
}

// Memory is an associative memory of either representation.
type Memory interface {
	Model
	// Config returns the validated configuration.
	Config() Config
	// Len returns the number of memories stored.
	Len() int
	// Add stores the K = len(patterns)/D patterns of the row-major K×D
	// slice patterns.
	Add(patterns []float64) error
	// Remove forgets the K = len(patterns)/D patterns of patterns.
	Remove(patterns []float64) error
	// Merge adds every memory of other, which must have the same
	// configuration.
	Merge(other Memory) error
	// Reset forgets every memory, keeping the configuration.
	Reset()
}

// ErrEmpty is returned when a memory that stores nothing is evaluated.
var ErrEmpty = errors.New("the memory stores no patterns")

// checkRows returns the number of rows of a row-major matrix of width d
// held in x, or an error naming what (patterns, queries) is wrong: an empty
// or ragged slice, or a NaN or infinite value (rows and columns counted from
// 0).
func checkRows(what string, x []float64, d int) (int, error) {
	if len(x) == 0 {
		return 0, fmt.Errorf("no %s", what)
	}
	if len(x)%d != 0 {
		return 0, fmt.Errorf("%s: %d values are not a whole number of rows of D = %d", what, len(x), d)
	}
	if i := firstNonFinite(x); i >= 0 {
		return 0, fmt.Errorf("%s: row %d, coordinate %d is %v", what, i/d, i%d, x[i])
	}
	return len(x) / d, nil
}

// firstNonFinite returns the index of the first NaN or ±Inf in x, or -1.
func firstNonFinite(x []float64) int {
	for i, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return i
		}
	}
	return -1
}

// checkBatch validates the buffers of EnergyGrad and returns B.
func checkBatch(e, grad, x []float64, d int) (int, error) {
	b := len(e)
	if b == 0 {
		return 0, fmt.Errorf("no queries")
	}
	if len(x) != b*d {
		return 0, fmt.Errorf("queries: %d values for %d queries of dimension D = %d (want %d)", len(x), b, d, b*d)
	}
	if grad != nil && len(grad) != b*d {
		return 0, fmt.Errorf("gradient buffer has %d values, want %d×%d", len(grad), b, d)
	}
	if i := firstNonFinite(x); i >= 0 {
		return 0, fmt.Errorf("query %d, coordinate %d is %v", i/d, i%d, x[i])
	}
	return b, nil
}

// rowSqNorms writes ‖x_r‖² of each row of x (width d) into dst.
func rowSqNorms(dst, x []float64, d int) {
	for r := range dst {
		var s float64
		for _, v := range x[r*d : (r+1)*d] {
			s += v * v
		}
		dst[r] = s
	}
}

// grow returns s resized to n, reusing its storage when it is large enough.
func grow(s []float64, n int) []float64 {
	if cap(s) >= n {
		return s[:n]
	}
	return make([]float64, n)
}

// cache holds one reusable workspace. A caller that finds it in use (a
// concurrent EnergyGrad) gets a fresh one, so single-goroutine use
// allocates nothing after the first call while concurrent use stays safe.
type cache[W any] struct {
	mu sync.Mutex
	w  W
}

// get returns a workspace and the function that releases it.
func (c *cache[W]) get() (w *W, release func()) {
	if c.mu.TryLock() {
		return &c.w, c.mu.Unlock
	}
	return new(W), func() {}
}

func inf(sign int) float64 { return math.Inf(sign) }

func log(x float64) float64 { return math.Log(x) }
