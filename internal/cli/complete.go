package cli

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/drdam/drdam/baseline"
	"github.com/drdam/drdam/dam"
	"github.com/drdam/drdam/dataio"
)

// DefaultCompleteRows is the number of rows that Complete completes at a
// time, unless the budget asks for fewer.
const DefaultCompleteRows = 1024

// Complete is how the rows of a file with missing entries (NaN; read
// with dataio.OpenRowsMissing) are completed on a model: a chunk of rows
// at a time, read, completed by dam.Complete and handed to Emit, so that
// memory holds the model and a chunk, whatever the number of rows. A
// row's completion does not depend on the rows completed with it, so the
// chunks' results are those of one dam.Complete of every row, bit for
// bit. drdam complete --model completes its queries this way.
type Complete struct {
	// Options are dam.Complete's: the fill and the descent.
	Options dam.CompleteOptions
	// Start, if not nil, is where each chunk's missing entries start: it
	// is given the chunk's rows (k×D, row-major, NaN for a missing entry;
	// it must not keep or modify them) and returns their k×D start, used
	// as the chunk's Options.Fill (a start per row; see
	// dam.CompleteOptions), and so must depend on each row alone for the
	// chunks' results to be those of one call. Options.Fill must then be
	// nil. MeansStart and KernelStart make the hooks of drdam complete's
	// --fill means and --fill kernel.
	Start func(rows []float64) ([]float64, error)
	// ChunkRows is the number of rows of a chunk (0: DefaultCompleteRows);
	// Budget is the memory budget in bytes (0: dam.DefaultBudget()), of
	// which a chunk's rows, their copies and their energy traces take a
	// quarter at most.
	ChunkRows int
	Budget    int64
	// Emit is called with each chunk's result, in the order of the rows;
	// first is the chunk's first row, counted from 0 over every file. The
	// result is not kept after Emit returns.
	Emit func(res *dam.Result, first int64) error
	// Progress, if not nil, is called after each chunk with the rows
	// completed and Rows.Progress (what is read of the input, and its
	// size).
	Progress func(completed, read, all int64)
}

// Run completes the rows of rows on m and returns the number completed.
// A row of the wrong width, and an infinite value, are errors naming the
// file, its row and its column; so is an error of ctx (an interrupt)
// between chunks, returned as it is.
func (c Complete) Run(ctx context.Context, m dam.Model, rows *dataio.Rows) (int64, error) {
	d := rows.Cols()
	if d != m.Dim() {
		return 0, fmt.Errorf("%s: queries have %d columns, but the model has dimension D = %d", rows.Name(), d, m.Dim())
	}
	if c.Start != nil && c.Options.Fill != nil {
		return 0, errors.New("cli.Complete: both Options.Fill and Start are set; give one start")
	}
	n, err := c.chunk(rows.Name(), d)
	if err != nil {
		return 0, err
	}
	buf := make([]float64, n*d)
	var done int64
	for {
		if err := ctx.Err(); err != nil {
			return done, err
		}
		k, err := FillMissing(rows, buf)
		if err != nil && err != io.EOF {
			return done, err
		}
		if k == 0 {
			return done, nil
		}
		opt := c.Options
		if c.Start != nil {
			var serr error
			if opt.Fill, serr = c.Start(buf[:k*d]); serr != nil {
				return done, fmt.Errorf("%s: the start of rows %d to %d: %w", rows.Name(), done+1, done+int64(k), serr)
			}
		}
		res, cerr := dam.Complete(m, buf[:k*d], opt)
		if cerr != nil {
			return done, fmt.Errorf("%s: %w", rows.Name(), cerr)
		}
		if err := c.Emit(res, done); err != nil {
			return done, err
		}
		done += int64(k)
		if c.Progress != nil {
			read, all := rows.Progress()
			c.Progress(done, read, all)
		}
		if err == io.EOF {
			return done, nil
		}
	}
}

// chunk returns the rows of a chunk of dimension d under the budget: the
// rows read, dam.Complete's start and final states, its clamp and the
// descent's work take about 40 bytes a value (48 with a Start, whose
// per-row fill is one more), the energy traces 8 bytes a step, and a
// chunk a quarter of the budget at most.
func (c Complete) chunk(name string, d int) (int, error) {
	n := c.ChunkRows
	if n <= 0 {
		n = DefaultCompleteRows
	}
	perValue := int64(40)
	if c.Start != nil {
		perValue = 48
	}
	perRow := perValue*int64(d) + 8*int64(c.Options.MaxSteps+1)
	n, b := underBudget(n, c.Budget, perRow)
	if n < 1 {
		return 0, fmt.Errorf("%s: a row of %d values and its descent of %d steps take %s, more than a quarter of the memory budget of %s; raise --max-memory",
			name, d, c.Options.MaxSteps, dam.Bytes(float64(perRow)), dam.Bytes(float64(b)))
	}
	return n, nil
}

// CountRows returns the number of rows of the files that pattern names,
// read through as dataio.OpenRowsMissing reads them (a chunk at a time):
// for a .npy output, whose header needs it before the first row.
func CountRows(pattern string) (int64, error) {
	rows, err := dataio.OpenRowsMissing(pattern)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	buf := make([]float64, max(rows.Cols(), DefaultChunkValues/max(1, rows.Cols())*rows.Cols()))
	for {
		if _, err := rows.Read(buf); err == io.EOF {
			return rows.Total(), nil
		} else if err != nil {
			return 0, err
		}
	}
}

// errNoPatterns says why a start computed from the stored patterns is
// refused for a DrDAM.
const errNoPatterns = "a DrDAM stores no patterns, only the sum T of their features, from which %s cannot be computed: give a file of D starting values instead (--fill FILE, e.g. the column means of the patterns it was encoded from), or complete on an MrDAM of the same patterns"

// MeansStart returns the column means of the patterns stored in m, for
// the missing entries to start at (drdam complete --fill means: a
// length-D dam.CompleteOptions.Fill, package baseline's Mean). m must be
// an MrDAM storing at least one pattern: a DrDAM is refused with an error
// that says to give a file of means.
func MeansStart(m dam.Memory) ([]float64, error) {
	mr, ok := m.(*dam.MrDAM)
	if !ok {
		return nil, fmt.Errorf("--fill means: "+errNoPatterns, "their column means")
	}
	mean, err := baseline.NewMean(mr.Patterns(), mr.Dim())
	if err != nil {
		return nil, fmt.Errorf("--fill means: %w", err)
	}
	return mean.Means(), nil
}

// KNNStart returns a Complete.Start hook (drdam complete --fill knn)
// that starts each row's missing entries at the distance-weighted mean of
// its 5 nearest stored patterns on its visible entries (baseline.KNN),
// for an MrDAM, as KernelStart does with the kernel readout; a DrDAM
// stores no patterns, an error.
func KNNStart(m dam.Memory) (func(rows []float64) ([]float64, error), error) {
	return rowStart(m, "knn", "the 5-NN mean over the stored patterns", func(mr *dam.MrDAM) (baseline.Completer, error) {
		return baseline.NewKNN(mr.Patterns(), mr.Dim(), 5, baseline.Distance)
	})
}

// KernelStart returns a Complete.Start hook (drdam complete --fill
// kernel): each row's missing entries start at the softmax readout over
// its visible entries at the model's β, one step of Nadaraya–Watson
// regression on the patterns stored in m (package baseline's Kernel,
// which measures distances over the visible entries whatever m's
// similarity), its visible entries kept. m must be an MrDAM storing at
// least one pattern, and not be modified while the hook is in use; a
// DrDAM is refused with an error that says to give a file of starts. The
// hook returns a new slice per call (the chunk's k×D start, what a chunk
// holds anyway) and uses baseline's workspaces (a few rows of K
// distances per core), so memory stays the model's and a chunk's.
func KernelStart(m dam.Memory) (func(rows []float64) ([]float64, error), error) {
	return rowStart(m, "kernel", "the softmax readout over the stored patterns", func(mr *dam.MrDAM) (baseline.Completer, error) {
		return baseline.NewKernel(mr.Patterns(), mr.Dim(), mr.Config().Beta)
	})
}

// rowStart returns the Complete.Start hook of --fill fill: each chunk's
// rows completed by the baseline that build makes over the MrDAM m's
// patterns (what, for the error on a DrDAM).
func rowStart(m dam.Memory, fill, what string, build func(*dam.MrDAM) (baseline.Completer, error)) (func(rows []float64) ([]float64, error), error) {
	mr, ok := m.(*dam.MrDAM)
	if !ok {
		return nil, fmt.Errorf("--fill "+fill+": "+errNoPatterns, what)
	}
	c, err := build(mr)
	if err != nil {
		return nil, fmt.Errorf("--fill %s: %w", fill, err)
	}
	return func(rows []float64) ([]float64, error) {
		dst := make([]float64, len(rows))
		if err := c.Complete(dst, rows, nil); err != nil {
			return nil, fmt.Errorf("--fill %s: %w", fill, err)
		}
		return dst, nil
	}, nil
}
