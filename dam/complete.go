package dam

import (
	"errors"
	"fmt"
	"math"
)

// CompleteOptions configures Complete: the descent's options and where
// the missing entries start.
type CompleteOptions struct {
	// RecallOptions are the descent's: Step, MaxSteps, Tol, Box and
	// KeepStalled as Recall takes them. Clamp must be nil: Complete
	// clamps the visible entries (those that are not NaN) and nothing
	// else.
	RecallOptions
	// Fill, if not nil, is where the missing entries start (finite),
	// either one start for every row or a start per row:
	//
	//   - length D: a row missing column j starts there at Fill[j];
	//   - length B·D (B rows, row-major, as x): row b missing column j
	//     starts there at Fill[b·D+j], its entries at visible columns
	//     unused (but checked finite all the same).
	//
	// nil starts them at 0. With a single row (B = 1) the two are one.
	// The start matters: the descent goes to a minimum of the energy near
	// it, not to the global one, so a start close to the answer (the
	// columns' means, a mean image, a k-NN imputation or the softmax
	// readout over the visible entries, package baseline's Mean, KNN and
	// Kernel) can reach a memory that a start at 0 does not. A per-row
	// start does not change what is computed from it: row b's completion
	// is the one of row b alone with Fill[b·D:(b+1)·D] as its length-D
	// Fill, bit for bit.
	Fill []float64
}

// CompletionStart returns the recall that Complete runs for the rows x
// (B×D, row-major, NaN for a missing entry), which it does not modify:
// the start x0 (x with each missing entry set to its Fill value, the
// row's own with a B·D Fill, or 0)
// and opt.RecallOptions with Clamp set to the visible entries, a row per
// query. It is for callers that run the descent themselves (a
// dam.Descent, step by step); Complete is Recall(m, x0, ro).
//
// A row with no visible entry is allowed: nothing of it is clamped, and
// it descends from the fill alone (to a stored pattern near the fill,
// typically). A row with no missing entry is allowed too: every entry is
// clamped and it comes back as it is. ±Inf is an error naming the row
// and column (a *RowError, rows and columns counted from 1), as is a
// wrong length; opt.Clamp must be nil.
func CompletionStart(x []float64, d int, opt CompleteOptions) (x0 []float64, ro RecallOptions, err error) {
	ro = opt.RecallOptions
	if d <= 0 {
		return nil, ro, fmt.Errorf("completion: dimension D = %d, want > 0", d)
	}
	if ro.Clamp != nil {
		return nil, ro, errors.New("completion: CompleteOptions.Clamp must be nil: the visible entries (not NaN) are the clamped ones")
	}
	if len(x) == 0 {
		return nil, ro, errors.New("completion: no rows")
	}
	if len(x)%d != 0 {
		return nil, ro, fmt.Errorf("completion: %d values are not a whole number of rows of D = %d", len(x), d)
	}
	perRow := false
	if opt.Fill != nil {
		switch len(opt.Fill) {
		case d:
		case len(x):
			perRow = true
		default:
			return nil, ro, fmt.Errorf("completion: the fill has %d values, want D = %d (one start for every row) or B·D = %d·%d = %d (a start per row)",
				len(opt.Fill), d, len(x)/d, d, len(x))
		}
		if i := firstNonFinite(opt.Fill); i >= 0 {
			if perRow && len(x) > d {
				return nil, ro, fmt.Errorf("completion: the fill's row %d, column %d is %v, want a finite number", i/d+1, i%d+1, opt.Fill[i])
			}
			return nil, ro, fmt.Errorf("completion: the fill's column %d is %v, want a finite number", i+1, opt.Fill[i])
		}
	}
	x0 = make([]float64, len(x))
	clamp := make([]bool, len(x))
	for i, v := range x {
		switch {
		case math.IsNaN(v):
			switch {
			case perRow:
				x0[i] = opt.Fill[i]
			case opt.Fill != nil:
				x0[i] = opt.Fill[i%d]
			}
		case math.IsInf(v, 0):
			return nil, ro, &RowError{"queries", i/d + 1, fmt.Sprintf(", column %d is %v: a missing entry is NaN (null in JSON), a visible one finite", i%d+1, v)}
		default:
			x0[i], clamp[i] = v, true
		}
	}
	ro.Clamp = clamp
	return x0, ro, nil
}

// Complete completes the rows x (B×D, row-major, NaN for a missing entry)
// by energy descent on m, as Recall does for a clamped query: the visible
// entries (not NaN) are clamped, bit for bit, and the missing ones start
// at opt.Fill (one start for every row or one per row; or 0; see
// CompleteOptions) and descend the energy with
// opt's Step, MaxSteps, Tol and Box. It returns Recall's Result: the
// completed rows (Result.X, visible entries equal to x's), the steps, the
// energies and each row's outcome. x is not modified. See CompletionStart
// for what it accepts (a row with nothing visible descends from the fill).
func Complete(m Model, x []float64, opt CompleteOptions) (*Result, error) {
	x0, ro, err := CompletionStart(x, m.Dim(), opt)
	if err != nil {
		return nil, err
	}
	return Recall(m, x0, ro)
}
