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
// or ragged slice, a NaN or infinite value, or a row too large for a model
// of configuration c to compute with (see Config.ScaleLimit). Rows and
// columns are counted from 1 in messages.
func checkRows(what string, x []float64, d int, c Config) (int, error) {
	if len(x) == 0 {
		return 0, fmt.Errorf("no %s", what)
	}
	if len(x)%d != 0 {
		return 0, fmt.Errorf("%s: %d values are not a whole number of rows of D = %d", what, len(x), d)
	}
	return len(x) / d, checkValues(what, x, d, c)
}

// CheckPatterns checks the row-major patterns x (K×D) as Add does, without
// storing them: the slice is a whole number of rows, every value finite,
// every row within ScaleLimit, and, for a DrDAM of the dot energy, every
// β‖ξ‖²/2 at most MaxDotLogWeight. Rows and columns are counted from 1.
// Callers that add a large matrix in parts (to show progress) check it
// whole first, so that an error names the row of the whole matrix.
func (c Config) CheckPatterns(x []float64) error {
	c, err := c.Validate()
	if err != nil {
		return err
	}
	if _, err := checkRows("patterns", x, c.D, c); err != nil {
		return err
	}
	if c.Rep == RepDrDAM && c.Similarity == Dot {
		sq := make([]float64, len(x)/c.D)
		rowSqNorms(sq, x, c.D)
		return checkDotWeights(sq, c.Beta)
	}
	return nil
}

// RowError is an error about one row of a batch of patterns or queries,
// such as "patterns: row 3, column 7 is NaN". A caller that passes a large
// matrix in parts adds the rows before a part to Row, so that the error
// names the row of the whole.
type RowError struct {
	What string // "patterns" or "queries"
	Row  int    // the row, counted from 1
	Msg  string // what is wrong with it, after "row R"
}

func (e *RowError) Error() string { return fmt.Sprintf("%s: row %d%s", e.What, e.Row, e.Msg) }

// checkDotWeights refuses patterns whose dot weight β‖ξ‖²/2 exceeds
// MaxDotLogWeight, given their squared norms sq.
func checkDotWeights(sq []float64, beta float64) error {
	for r, s := range sq {
		if lw := beta * s / 2; lw > MaxDotLogWeight {
			return &RowError{"patterns", r + 1, fmt.Sprintf(": β‖ξ‖²/2 = %.4g exceeds %d: with the dot energy a DrDAM weighs each pattern by exp(β‖ξ‖²/2), and the error of its random-feature estimate is of that size, so this pattern would drown every pattern of smaller norm (and the energy of every query) in noise; scale the patterns down (to unit norm, for instance) or lower β",
				lw, MaxDotLogWeight)}
		}
	}
	return nil
}

// checkValues checks every row of x (width d) in one pass: its values are
// finite and β·‖v‖² is within c's limit.
func checkValues(what string, x []float64, d int, c Config) error {
	limit := c.ScaleLimit()
	scale := max(c.Beta, 1) * float64(d)
	for r := 0; r < len(x); r += d {
		var s float64
		for _, v := range x[r : r+d] {
			s += v * v
		}
		if s*scale <= limit {
			continue // also false for NaN
		}
		row := x[r : r+d]
		if i := firstNonFinite(row); i >= 0 {
			return &RowError{what, r/d + 1, fmt.Sprintf(", column %d is %v", i+1, row[i])}
		}
		big := 0
		for i, v := range row {
			if math.Abs(v) > math.Abs(row[big]) {
				big = i
			}
		}
		return &RowError{what, r/d + 1, fmt.Sprintf(" is too large for a %v model to compute with (column %d is %g): max(β, 1)·D·‖x‖² = %.3g exceeds %.3g; scale the data down (to unit norm, for instance)",
			c.Precision, big+1, row[big], s*scale, limit)}
	}
	return nil
}

// ScaleLimit returns the largest max(β, 1)·D·‖x‖² of a pattern or query
// that a model of configuration c accepts: a sixty-fourth of the largest
// number of its compute precision, so that squared norms and distances
// (‖x − ξ‖² ≤ 2‖x‖² + 2‖ξ‖²), their products with β and the projections
// √β·ωᵀx (with ‖ω‖² of the order of D) stay finite. Real data is many
// orders of magnitude below it (a float32 model takes values up to about
// 10¹⁸/√(βD)); a value beyond it cannot be stored without making T, or an
// energy, infinite or NaN.
func (c Config) ScaleLimit() float64 {
	if c.Precision == Float32 {
		return math.MaxFloat32 / 64
	}
	return math.MaxFloat64 / 64
}

// MaxBeta returns the largest β at which a model of configuration c can
// store a pattern of unit norm (the scale of data in [0, 1/√D]^D, which
// the paper's β assume): β·D·‖ξ‖² ≤ ScaleLimit, and for a DrDAM of the dot
// energy β‖ξ‖²/2 ≤ MaxDotLogWeight. Above it, every such pattern is
// refused (CheckPatterns): the model could store only patterns far
// smaller than its data's scale.
func (c Config) MaxBeta() float64 {
	b := c.ScaleLimit() / float64(max(c.D, 1))
	if c.Rep != RepMrDAM && c.Similarity == Dot {
		b = min(b, 2*MaxDotLogWeight)
	}
	return b
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
func checkBatch(e, grad, x []float64, c Config) (int, error) {
	b, d := len(e), c.D
	if b == 0 {
		return 0, fmt.Errorf("no queries")
	}
	if len(x) != b*d {
		return 0, fmt.Errorf("queries: %d values for %d queries of dimension D = %d (want %d)", len(x), b, d, b*d)
	}
	if grad != nil && len(grad) != b*d {
		return 0, fmt.Errorf("gradient buffer has %d values, want %d×%d", len(grad), b, d)
	}
	return b, checkValues("queries", x, d, c)
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

// cache keeps the workspaces of a model's evaluations for reuse: a call
// takes an idle one (or makes one if there is none) and puts it back when
// done, so that concurrent evaluations (an energy query beside a
// descent's step) each reuse their own, and use from one goroutine
// allocates nothing after the first call. The copies of a DrDAM (WithBeta,
// the service's copy on write) share their original's cache: a workspace
// holds buffers of the projection's shapes, not T.
type cache[W any] struct {
	mu   sync.Mutex
	idle []*W
}

// maxIdle bounds the idle workspaces a cache keeps.
const maxIdle = 8

// get returns an idle workspace, or a new one.
func (c *cache[W]) get() *W {
	c.mu.Lock()
	defer c.mu.Unlock()
	if n := len(c.idle); n > 0 {
		w := c.idle[n-1]
		c.idle = c.idle[:n-1]
		return w
	}
	return new(W)
}

// put returns a workspace that get gave.
func (c *cache[W]) put(w *W) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.idle) < maxIdle {
		c.idle = append(c.idle, w)
	}
}

// drop forgets the idle workspaces.
func (c *cache[W]) drop() {
	c.mu.Lock()
	c.idle = nil
	c.mu.Unlock()
}

func inf(sign int) float64 { return math.Inf(sign) }

func log(x float64) float64 { return math.Log(x) }
