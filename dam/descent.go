package dam

import (
	"fmt"
	"math"
)

// DefaultTol is the tolerance of a descent that is not given one
// everywhere but in RecallOptions (whose zero Tol runs every step): drdam
// recall's and complete's --tol, the service's "tol", its clients' and
// its page's, so that a query that has settled says "converged" wherever
// it was run. An energy change below it, at the scale of patterns in
// [0, 1/√D], is far below any difference a completion shows.
const DefaultTol = 1e-6

// RecallOptions configures an energy descent x ← x − η ∇E(x) (eq. gen-up).
type RecallOptions struct {
	Step     float64 // step size η > 0
	MaxSteps int     // L ≥ 0: at most this many steps per query
	// Tol stops a query once |E(x^t) − E(x^(t−1))| < Tol (§4.2,
	// "retrieved"); 0 runs every query for MaxSteps steps. The command,
	// the service, its clients and its page take DefaultTol when none is
	// given.
	Tol float64
	// Clamp, if not nil, says which coordinates are clamped: coordinates
	// where it is true have their gradient zeroed, so they keep their
	// initial value bit for bit (the visible pixels of an occluded image).
	// It has length D, one row for every query, or B·D, one row per query
	// (row-major, row b for query b; Start checks it against the B
	// queries it is given).
	Clamp []bool
	// Box, if not nil, clips every unclamped coordinate to [Lo, Hi] after
	// each step.
	Box *Box
	// KeepStalled keeps a query that stalls at a DrDAM's clip floor in the
	// descent until Tol or MaxSteps stops it (its outcome is still
	// Stalled), instead of retiring it at once. Its final state is the
	// same; what changes is the work done, which is that of the peers'
	// fixed-step loops: benchmarks that compare with them set it.
	KeepStalled bool
}

// Box is a closed interval [Lo, Hi] for every coordinate.
type Box struct{ Lo, Hi float64 }

func (o RecallOptions) validate(d int) error {
	if !(o.Step > 0) || math.IsInf(o.Step, 0) {
		return fmt.Errorf("step size η must be positive and finite, found %v", o.Step)
	}
	if o.MaxSteps < 0 {
		return fmt.Errorf("maximum number of steps must be ≥ 0, found %d", o.MaxSteps)
	}
	if o.Tol < 0 || math.IsNaN(o.Tol) {
		return fmt.Errorf("tolerance must be ≥ 0, found %v", o.Tol)
	}
	if o.Clamp != nil && (len(o.Clamp) == 0 || len(o.Clamp)%d != 0) {
		return fmt.Errorf("clamp mask has %d entries, want D = %d (one row for every query) or B·D (a row per query)", len(o.Clamp), d)
	}
	if o.Box != nil && !(o.Box.Lo <= o.Box.Hi) {
		return fmt.Errorf("box [%v, %v] is empty", o.Box.Lo, o.Box.Hi)
	}
	return nil
}

// Outcome says how the descent of one query ended.
type Outcome uint8

// The outcomes of a query. A descent decides them in this order, at the
// step where the query stops:
//
//   - Stalled: the query's last evaluation was at the clip floor of a
//     DrDAM (φ(x)·T < ε, Config.Epsilon; see FloorReporter): the energy
//     reported there is the floor −log(ε)/β (plus ‖x‖²/2 for the dot
//     energy), not an estimate of the energy, and the gradient is the
//     floor's (zero for the L2 energy). The descent stops a query as soon
//     as it is at the floor and its step would leave it where it is (every
//     free coordinate bit for bit unchanged, as with the L2 energy's zero
//     gradient); a query that stops by Tol or MaxSteps while at the floor
//     (the dot energy's floor still pulls x towards 0) is Stalled too.
//     MrDAM has no floor, so its queries never stall.
//   - Converged: the query stopped because |E(x^t) − E(x^(t−1))| < Tol
//     (at step MaxSteps too, if the last change was below Tol).
//   - MaxSteps: the query took MaxSteps steps without meeting Tol (every
//     query ends so with Tol = 0, unless it stalls).
//
// The zero value, Running, is the outcome of a query still descending.
const (
	Running Outcome = iota
	Converged
	MaxSteps
	Stalled
)

// String returns "running", "converged", "max-steps" or "stalled".
func (o Outcome) String() string {
	switch o {
	case Running:
		return "running"
	case Converged:
		return "converged"
	case MaxSteps:
		return "max-steps"
	case Stalled:
		return "stalled"
	}
	return fmt.Sprintf("Outcome(%d)", uint8(o))
}

// FloorReporter is implemented by the models whose energy has a clip floor
// (DrDAM): EnergyGradFloor is EnergyGrad that also sets floor[b] (length
// B) to whether query b was at the floor, φ(x_b)·T < ε, where the energy
// written is the floor's constant and not an estimate (eq. kdam-en with
// the clip of the paper's code). Descent uses it to report Stalled
// queries; it must allocate nothing once its workspace has grown.
type FloorReporter interface {
	Model
	EnergyGradFloor(e, grad, x []float64, floor []bool) error
}

// Result is the outcome of a descent of B queries.
type Result struct {
	X       []float64   // B×D final states
	Steps   []int       // steps taken by each query
	Energy  [][]float64 // per query, E(x⁰), E(x¹), …, E(x^Steps): Steps+1 values
	Outcome []Outcome   // how each query ended (length B; Running while a descent is under way)
	// Converged[b] is Outcome[b] == Converged, kept for the callers that
	// only ask that.
	Converged []bool
}

// Count returns how many queries of r converged, reached MaxSteps and
// stalled at the clip floor.
func (r *Result) Count() (converged, maxSteps, stalled int) {
	for _, o := range r.Outcome {
		switch o {
		case Converged:
			converged++
		case MaxSteps:
			maxSteps++
		case Stalled:
			stalled++
		}
	}
	return converged, maxSteps, stalled
}

// Recall descends the energy of m from the B = len(x0)/D queries x0 (B×D,
// row-major), which it does not modify.
func Recall(m Model, x0 []float64, opt RecallOptions) (*Result, error) {
	d, err := NewDescent(m, opt)
	if err != nil {
		return nil, err
	}
	if err := d.Start(x0); err != nil {
		return nil, err
	}
	if err := d.Run(); err != nil {
		return nil, err
	}
	return d.Result(), nil
}

// traceCap is the number of energies per query for which Start reserves
// room.
const traceCap = 1024

// Descent runs an energy descent step by step, for callers that want to
// watch it (progress, energy traces) or reuse its buffers: after Start, a
// Step allocates nothing (but for the growth of an energy trace past 1024
// entries, amortized).
type Descent struct {
	m   Model
	fr  FloorReporter // m, if it has a clip floor; else nil
	opt RecallOptions
	d   int

	x         []float64 // B×D final states
	steps     []int
	trace     [][]float64
	converged []bool
	outcome   []Outcome
	store     []float64 // backing array of the traces

	// The active queries, compacted: slot k holds query idx[k].
	idx        []int
	xa, ga, ea []float64
	fa         []bool // at the clip floor at the last evaluation
	na, t      int
}

// NewDescent returns a descent of m with the given options.
func NewDescent(m Model, opt RecallOptions) (*Descent, error) {
	if err := opt.validate(m.Dim()); err != nil {
		return nil, err
	}
	fr, _ := m.(FloorReporter)
	return &Descent{m: m, fr: fr, opt: opt, d: m.Dim()}, nil
}

// Start begins a descent from x0 (B×D), which is copied.
func (ds *Descent) Start(x0 []float64) error {
	d := ds.d
	c := Config{D: d, Beta: 1, Precision: Float64}
	if m, ok := ds.m.(interface{ Config() Config }); ok {
		c = m.Config()
	}
	b, err := checkRows("queries", x0, d, c)
	if err != nil {
		return err
	}
	if n := len(ds.opt.Clamp); n != 0 && n != d && n != b*d {
		return fmt.Errorf("clamp mask has %d rows of D = %d, want 1 (one row for every query) or B = %d (a row per query)", n/d, d, b)
	}
	// Traces start with room for up to traceCap energies each and grow by
	// append beyond that (amortized), so a large MaxSteps costs nothing
	// until the steps are taken.
	l := min(ds.opt.MaxSteps+1, traceCap)
	ds.x = grow(ds.x, b*d)
	ds.xa = grow(ds.xa, b*d)
	ds.ga = grow(ds.ga, b*d)
	ds.ea = grow(ds.ea, b)
	ds.fa = growBool(ds.fa, b)
	clear(ds.fa)
	ds.store = grow(ds.store, b*l)
	copy(ds.xa, x0)
	if cap(ds.steps) < b {
		ds.steps, ds.converged, ds.idx = make([]int, b), make([]bool, b), make([]int, b)
		ds.outcome, ds.trace = make([]Outcome, b), make([][]float64, b)
	}
	ds.steps, ds.converged, ds.idx, ds.trace = ds.steps[:b], ds.converged[:b], ds.idx[:b], ds.trace[:b]
	ds.outcome = ds.outcome[:b]
	for q := range b {
		ds.idx[q] = q
		ds.steps[q] = 0
		ds.converged[q] = false
		ds.outcome[q] = Running
		ds.trace[q] = ds.store[q*l : q*l : (q+1)*l]
	}
	ds.na, ds.t = b, 0
	return nil
}

// Active returns the number of queries still descending.
func (ds *Descent) Active() int { return ds.na }

// Iteration returns how many steps the active queries have taken.
func (ds *Descent) Iteration() int { return ds.t }

// Step evaluates the energy (and gradient) of every active query, records
// it, retires the queries that converged, reached MaxSteps or stalled at
// the clip floor (see Outcome), and moves the others one step. It reports
// whether the descent is over.
func (ds *Descent) Step() (done bool, err error) {
	if ds.na == 0 {
		return true, nil
	}
	d, na, last := ds.d, ds.na, ds.t == ds.opt.MaxSteps
	grad := ds.ga[:na*d]
	if last {
		grad = nil // the final energies only
	}
	if ds.fr != nil {
		err = ds.fr.EnergyGradFloor(ds.ea[:na], grad, ds.xa[:na*d], ds.fa[:na])
	} else {
		err = ds.m.EnergyGrad(ds.ea[:na], grad, ds.xa[:na*d])
	}
	if err != nil {
		return false, fmt.Errorf("step %d: %w", ds.t, err)
	}
	for k := 0; k < ds.na; {
		q, e := ds.idx[k], ds.ea[k]
		if math.IsNaN(e) || math.IsInf(e, 0) {
			return false, fmt.Errorf("step %d: query in row %d: energy is %v", ds.t, q+1, e)
		}
		tr := ds.trace[q]
		conv := ds.opt.Tol > 0 && len(tr) > 0 && math.Abs(e-tr[len(tr)-1]) < ds.opt.Tol
		ds.trace[q] = append(tr, e)
		switch {
		case conv || last:
			o := MaxSteps
			if conv {
				o = Converged
			}
			ds.stop(k, o)
			continue // slot k now holds another query
		case !ds.move(k) && ds.fa[k] && !ds.opt.KeepStalled:
			ds.stop(k, Stalled) // it would sit at the floor for good
			continue
		}
		k++
	}
	ds.t++
	return ds.na == 0, nil
}

// move takes the step of active slot k and reports whether any coordinate
// changed.
func (ds *Descent) move(k int) bool {
	d, eta, clamp, box := ds.d, ds.opt.Step, ds.opt.Clamp, ds.opt.Box
	if len(clamp) > d { // a row per query
		q := ds.idx[k]
		clamp = clamp[q*d : (q+1)*d]
	}
	xr, g := ds.xa[k*d:(k+1)*d], ds.ga[k*d:(k+1)*d]
	moved := false
	for i := range xr {
		if clamp != nil && clamp[i] {
			continue
		}
		v := xr[i] - eta*g[i]
		if box != nil {
			v = min(max(v, box.Lo), box.Hi)
		}
		moved = moved || v != xr[i]
		xr[i] = v
	}
	return moved
}

// stop records the outcome o of the query in slot k after ds.t steps
// (Stalled if it was at the clip floor) and retires it.
func (ds *Descent) stop(k int, o Outcome) {
	q := ds.idx[k]
	if ds.fa[k] {
		o = Stalled
	}
	ds.steps[q], ds.outcome[q], ds.converged[q] = ds.t, o, o == Converged
	ds.retire(k)
}

// retire copies the state of slot k to its query's final state and moves
// the last active slot into k.
func (ds *Descent) retire(k int) {
	d, q, l := ds.d, ds.idx[k], ds.na-1
	copy(ds.x[q*d:(q+1)*d], ds.xa[k*d:(k+1)*d])
	if k != l {
		ds.idx[k] = ds.idx[l]
		ds.ea[k] = ds.ea[l]
		ds.fa[k] = ds.fa[l]
		copy(ds.xa[k*d:(k+1)*d], ds.xa[l*d:(l+1)*d])
		copy(ds.ga[k*d:(k+1)*d], ds.ga[l*d:(l+1)*d])
	}
	ds.na = l
}

// Run steps until every query has stopped.
func (ds *Descent) Run() error {
	for {
		done, err := ds.Step()
		if err != nil || done {
			return err
		}
	}
}

// Result returns the outcome so far. Its slices alias the descent's
// buffers: they are valid until the next Start.
func (ds *Descent) Result() *Result {
	return &Result{X: ds.x, Steps: ds.steps, Energy: ds.trace, Outcome: ds.outcome, Converged: ds.converged}
}
