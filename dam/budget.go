package dam

import (
	"fmt"
	"math"

	"github.com/drdam/drdam/features"
	"github.com/drdam/drdam/internal/kern"
	"github.com/drdam/drdam/internal/par"
	"github.com/drdam/drdam/internal/sysinfo"
)

// DefaultBudget returns the memory budget, in bytes, of a model whose
// Config.MaxMemory is 0: sysinfo.Budget, three quarters of what this
// process may use (the least of the physical memory, the cgroup's limit
// and ulimit -v), and under ulimit -v at most what the address space has
// left after the Go runtime's and the C library's reservations (about
// 1.9 GiB less); never less than 64 MiB; 16 GiB where none of the limits
// is known.
func DefaultBudget() int64 { return sysinfo.Budget() }

// Footprint is an estimate, from above, of the memory a model allocates.
type Footprint struct {
	Bytes float64 // in all
	// Largest names the largest part, for messages: "the stored
	// projection (Y×D float32)", "the patterns (K×D float64)", …
	Largest string
	// Field is the Config field that lowers it most ("Y", or "K" for
	// the number of patterns of an MrDAM).
	Field string
	// Dense says that the largest part is a dense projection (stored, or
	// an orthogonal one being generated), which the structured projection
	// replaces by O(Y) values.
	Dense bool
}

// EstimateFootprint returns the memory that a model of configuration c
// holding k patterns allocates: its state (T, or the K×D patterns), the
// projection in the compute layout (stored panels, the on-demand cache,
// SORF's diagonals), the per-row parameters, and the buffers its
// construction uses. It allocates nothing, so that a configuration read
// from flags or a file header can be checked before anything is built.
// Per-evaluation workspaces, which grow with the batch of queries, are
// not included. c need not be validated, and its β is not used.
func EstimateFootprint(c Config, k int) Footprint {
	c.Beta = 1
	c, err := c.Validate()
	if err != nil {
		return Footprint{}
	}
	es := 8.0
	if c.Precision == Float32 {
		es = 4
	}
	d, y, kf := float64(c.D), float64(c.Y), float64(max(k, 0))
	pd := float64(kern.PadD(c.D))
	lanes := 64 / es
	workers := float64(par.Workers())
	if c.Rep == RepMrDAM {
		// Patterns and norms in float64, their panels in the compute
		// precision.
		return Footprint{Bytes: kf*d*8 + kf*8 + (kf+lanes)*pd*es, Largest: fmt.Sprintf("the patterns (K×D = %d×%d float64, and their %v copy)", k, c.D, c.Precision), Field: "K"}
	}
	f := float64(c.FeatureDim())
	rows := math.Ceil(y/lanes) * lanes
	// T (float64), its per-row copy in the compute precision, the shift
	// in float64 and in the compute precision.
	parts := []Footprint{{Bytes: f*8 + f*es + y*8 + rows*es, Largest: fmt.Sprintf("T (F = %d values) and its compute copy", c.FeatureDim()), Field: "Y"}}
	switch {
	case c.Projection == features.Structured:
		n := float64(features.SORFBlockSize(c.D))
		yr := math.Ceil(y/n) * n
		// Three sign diagonals and the scales, in float64 and in the
		// compute precision.
		what := fmt.Sprintf("the structured projection's diagonals (4·Y = 4·%d values)", c.Y)
		if yr > y {
			what = fmt.Sprintf("the structured projection's diagonals (4·%.0f values: Y = %d rounded up to whole blocks of N = %.0f, the power of 2 ≥ D)", yr, c.Y, n)
		}
		parts = append(parts, Footprint{Bytes: 4 * yr * (8 + es), Largest: what, Field: "Y"})
	case c.OnDemand:
		parts = append(parts, Footprint{Bytes: onDemandCache + workers*float64(kern.BlockPanels(int(pd)))*lanes*d*8, Largest: "the on-demand projection's cache", Field: "Y"})
	default:
		parts = append(parts, Footprint{Bytes: rows * pd * es, Largest: fmt.Sprintf("the stored projection (Y×D = %d×%d %v)", c.Y, c.D, c.Precision), Field: "Y", Dense: true})
		// Generation buffers: rows of float64 per job, and for an
		// orthogonal projection a D×D block and its rows.
		chunk := max(16, math.Floor((1<<20)/d)) // rows per job, as panelsFrom
		gen := Footprint{Bytes: min(workers, math.Ceil(y/chunk)) * 8 * min(y, chunk) * d, Largest: "the buffers that generate the projection", Field: "Y"}
		if c.Projection == features.Orthogonal {
			active := min(workers, math.Ceil(y/d))
			gen.Bytes = active * 8 * (d*d + min(y, d*max(1, math.Floor((1<<20)/(d*d))))*d)
			gen.Largest = fmt.Sprintf("generating the orthogonal projection (a D×D block per job, D = %d)", c.D)
			gen.Dense = true
		}
		parts = append(parts, gen)
	}
	return total(parts)
}

// BudgetError says that a model would allocate more than its budget.
type BudgetError struct {
	Footprint
	Budget int64 // bytes
}

// Error says how much is needed, by what, and the budget.
func (e *BudgetError) Error() string {
	return fmt.Sprintf("needs %s, mostly for %s, more than the memory budget of %s", Bytes(e.Bytes), e.Largest, Bytes(float64(e.Budget)))
}

// Bytes formats a number of bytes with a binary unit: "512 B", "3.2 GiB".
func Bytes(n float64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}
	i := 0
	for n >= 1024 && i < len(units)-1 {
		n /= 1024
		i++
	}
	if i == 0 {
		return fmt.Sprintf("%.0f B", n)
	}
	return fmt.Sprintf("%.3g %s", n, units[i])
}

// checkBudget returns a *BudgetError if a model of configuration c holding
// k patterns would allocate more than its budget.
func checkBudget(c Config, k int) error {
	return CheckFits(c.MaxMemory, EstimateFootprint(c, k))
}

// checkFileBudget checks, before the payload of a model file is read, that
// the model its header describes (count memories) fits its budget with the
// payload (np float64 values) beside it.
func checkFileBudget(c Config, count, np uint64) error {
	k := int(min(count, math.MaxInt32))
	return CheckFits(c.MaxMemory, EstimateFootprint(c, k), DataFootprint("the file's payload", float64(np), "K"))
}

// DataFootprint is the footprint of n float64 values of data that a
// caller holds beside its models (patterns, queries), for CheckFits; field
// names what lowers it.
func DataFootprint(what string, n float64, field string) Footprint {
	return Footprint{Bytes: 8 * n, Largest: what, Field: field}
}

// CheckFits returns a *BudgetError, naming the largest part, if the
// footprints together exceed the budget maxMemory (0: DefaultBudget()).
// Commands and experiments that generate their own data call it before
// generating anything.
func CheckFits(maxMemory int64, parts ...Footprint) error {
	if maxMemory <= 0 {
		maxMemory = DefaultBudget()
	}
	sum := total(parts)
	if sum.Bytes > float64(maxMemory) {
		return &BudgetError{Footprint: sum, Budget: maxMemory}
	}
	return nil
}

// total sums footprints and names the largest part.
func total(parts []Footprint) Footprint {
	var sum Footprint
	largest := -1.0
	for _, p := range parts {
		if p.Bytes > largest {
			sum.Largest, sum.Field, sum.Dense, largest = p.Largest, p.Field, p.Dense, p.Bytes
		}
		sum.Bytes += p.Bytes
	}
	return sum
}

// EstimateEval returns an upper bound, in bytes, on what one evaluation of
// b queries (EnergyGrad; with the gradient if grad) allocates in a model
// of configuration c holding k patterns (k matters for an MrDAM only)
// beyond the model's own footprint (EstimateFootprint): the queries in
// panels, each job's block buffers and partial sums of Z (a job per group
// of blocks, at most 8: kern.Groups), the results. A model keeps up to 8
// such workspaces for reuse (DropWorkspaces frees them). A descent
// (NewDescent) adds EstimateDescent.
func EstimateEval(c Config, k, b int, grad bool) float64 {
	c.Beta = 1
	c, err := c.Validate()
	if err != nil || b <= 0 {
		return 0
	}
	es := 8.0
	if c.Precision == Float32 {
		es = 4
	}
	lanes := 64 / es
	pd := float64(kern.PadD(c.D))
	nqp := math.Ceil(float64(b) / lanes)
	// Rows of a block: a block of a stored or regenerated projection (or
	// of an MrDAM's patterns) is kern.BlockPanels panels of lanes rows; a
	// SORF block is sorfGroupRows rows or one transform of N.
	all := math.Ceil(float64(c.Y)/lanes) * lanes
	if c.Rep == RepMrDAM {
		all = math.Ceil(float64(max(k, 1))/lanes) * lanes
	}
	rows := float64(kern.BlockPanels(int(pd))) * lanes
	scratch := 0.0
	if c.Rep == RepDrDAM && c.Projection == features.Structured {
		n := float64(features.SORFBlockSize(c.D))
		rows = max(n, sorfGroupRows)
		all = math.Ceil(all/n) * n
		scratch = 4 * n * lanes * es
	}
	rows = min(rows, all)
	jobs := float64(kern.Groups(int(math.Ceil(all / rows))))
	perJob := 2*nqp*rows*lanes*es + 4*rows*es + scratch + 4*nqp*lanes*8
	if grad {
		perJob += nqp * lanes * pd * es // the job's partial Z
	}
	total := jobs*perJob + nqp*lanes*pd*es + 3*float64(b)*8
	if grad {
		total += float64(b) * float64(c.D) * 8 // Z, combined, in float64
	}
	return 1.25*total + 64<<10 // slices grown past their length, small headers
}

// EstimateDescent returns an upper bound, in bytes, on what a descent
// (NewDescent, Start, and its steps) of b queries of dimension d keeps
// beside the evaluations: states, gradients, clamps, and an energy trace
// per query of up to steps+1 values.
func EstimateDescent(b, d, steps int) float64 {
	bf, df := float64(b), float64(d)
	return 5*bf*df*8 + bf*(float64(steps)+1)*8*1.5 + 64*bf + 64<<10
}
