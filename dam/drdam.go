package dam

import (
	"context"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/drdam/drdam/features"
	"github.com/drdam/drdam/internal/kern"
)

// DrDAM is the distributed representation: all memories summed into one
// feature vector T of fixed length F, with energy and gradient computed from
// T alone. It is safe for concurrent EnergyGrad calls, but not for
// EnergyGrad concurrent with Add, Remove, Merge or Reset.
//
// The projection W is regenerated from the seed into the layout of the
// compute kernels (package internal/kern) in the configured precision; it
// is the only large allocation (Y·D values).
type DrDAM struct {
	cfg   Config
	fm    *features.Map
	count int
	// t holds T in the stored form of the basis's family (fam): for the
	// trigonometric bases T = exp(logScale)·t; for the positive bases
	// t[α] = log T_α (−Inf for T_α = 0). Always float64.
	t        []float64
	logScale float64
	fam      family
	eng      drEngine
	wave     time.Duration // see SetWave
}

// drEngine is the compute state of a DrDAM in one precision.
type drEngine interface {
	energyGrad(m *DrDAM, e, grad, x []float64, floor []bool) error
	update(m *DrDAM, patterns, lw []float64, sign float64)
	invalidate()     // T changed
	share() drEngine // a fresh engine on the same projection layout, sharing the workspaces
	dropWorkspaces()
}

// NewDrDAM returns an empty DrDAM whose projection and bias are generated
// from c.Seed. c.Rep must be RepDrDAM (or zero); c.Projection must not be
// External (use NewDrDAMWithMap).
func NewDrDAM(c Config) (*DrDAM, error) { return newSeededDrDAM(context.Background(), c) }

// newSeededDrDAM is NewDrDAM whose projection reports its drawing to the
// progress function of ctx (see NewContext).
func newSeededDrDAM(ctx context.Context, c Config) (*DrDAM, error) {
	c, err := c.Validate()
	if err != nil {
		return nil, err
	}
	if c.Rep != RepDrDAM {
		return nil, fmt.Errorf("NewDrDAM: configuration is for %v", c.Rep)
	}
	if err := checkSize(c); err != nil {
		return nil, err
	}
	proj, err := features.NewProjectionContext(ctx, c.Projection, c.Generator, c.Seed, c.Y, c.D) // dense rows are laid out later
	if err != nil {
		return nil, err
	}
	var bias []float64
	if !c.NoBias {
		bias = features.NewBias(c.Seed, c.Y)
	}
	fm, err := features.NewMap(c.Basis, c.Beta, proj, bias)
	if err != nil {
		return nil, err
	}
	return newDrDAM(c, fm), nil
}

// storesPanels reports whether the engine keeps the projection of a model
// of configuration c as panels of Y×D values (see blockSource).
func storesPanels(c Config) bool {
	return c.Projection != features.Structured && !c.OnDemand
}

// checkSize refuses, before anything is allocated, projections whose
// stored panels would exceed features.MaxDenseEntries values and models
// over their memory budget.
func checkSize(c Config) error {
	y, d := c.Y, c.D
	if storesPanels(c) && kern.PadD(d) > features.MaxDenseEntries/y {
		es := 8.0
		if c.Precision == Float32 {
			es = 4
		}
		return fieldErr("y", "a Y×D = %d×%d projection stored in %v takes %s, more than the limit of %d Gi values; lower Y or use the structured projection",
			y, d, c.Precision, Bytes(float64(y)*float64(kern.PadD(d))*es), features.MaxDenseEntries>>30)
	}
	return checkBudget(c, 0)
}

// NewDrDAMWithMap returns an empty DrDAM that uses the given feature map,
// for example one built on a projection read from a file. Basis, β, Y, D
// and the bias are taken from fm; c supplies the similarity, ε, the
// precision and OnDemand, and its projection kind is set to External. fm's projection
// must be able to write out its rows (features.RowSource). Such a model
// cannot be saved, since its projection cannot be regenerated from a seed.
func NewDrDAMWithMap(c Config, fm *features.Map) (*DrDAM, error) {
	if fm == nil {
		return nil, fmt.Errorf("no feature map")
	}
	if _, ok := fm.Proj.(features.RowSource); !ok {
		return nil, fmt.Errorf("the projection %T cannot write out its rows", fm.Proj)
	}
	c.Rep = RepDrDAM
	c.Y, c.D = fm.Dims()
	c.Basis, c.Beta = fm.Basis, fm.Beta
	c.Projection = features.Gaussian // validated below, then marked External
	c.NoBias = fm.Bias == nil
	c, err := c.Validate()
	if err != nil {
		return nil, err
	}
	// Size the model by the layout its projection gets.
	sized := c
	if _, ok := fm.Proj.(*features.SORF); ok {
		sized.Projection = features.Structured
	}
	if err := checkSize(sized); err != nil {
		return nil, err
	}
	c.Projection = features.External
	return newDrDAM(c, fm), nil
}

func newDrDAM(c Config, fm *features.Map) *DrDAM {
	m := &DrDAM{cfg: c, fm: fm, t: make([]float64, c.FeatureDim()), fam: familyOf(c.Basis)}
	if c.Precision == Float32 {
		m.eng = newDrCompute(blockSource[float32](c, fm), fm.Bias, familyIn[float32](c.Basis))
	} else {
		m.eng = newDrCompute(blockSource[float64](c, fm), fm.Bias, familyIn[float64](c.Basis))
	}
	m.clear()
	return m
}

// blockSource returns the engine's view of the projection of fm: SORF
// blocks, rows regenerated on demand, or panels built once.
func blockSource[T kern.Float](c Config, fm *features.Map) blocks[T] {
	switch p := fm.Proj.(type) {
	case *features.SORF:
		return newSORF[T](p)
	case features.RowSource:
		if _, structured := p.(*features.SORF); !structured && !c.OnDemand {
			return newStored(panelsFrom[T](p))
		}
		return newOnDemand[T](p)
	}
	panic(fmt.Sprintf("dam: projection %T has no compute layout", fm.Proj))
}

// WithBeta returns an empty DrDAM of m's configuration at inverse
// temperature beta that shares m's projection and shift, in the engine's
// layout, instead of generating them again: the panels of W do not depend
// on β, which scales the queries. It is what NewDrDAM would return at
// beta, bit for bit, without the cost of the projection (O(Y·D) for a
// Gaussian one, O(Y·D²) for an orthogonal one). The two models may be used
// from different goroutines.
func (m *DrDAM) WithBeta(beta float64) (*DrDAM, error) {
	c := m.cfg
	c.Beta = beta
	c, err := c.Validate()
	if err != nil {
		return nil, err
	}
	fm, err := features.NewMap(c.Basis, beta, m.fm.Proj, m.fm.Bias)
	if err != nil {
		return nil, err
	}
	n := &DrDAM{cfg: c, fm: fm, t: make([]float64, c.FeatureDim()), fam: m.fam, eng: m.eng.share(), wave: m.wave}
	n.clear()
	return n, nil
}

// SetWave makes Add and Remove run in waves of about d each: every d of
// work, each helper of the update (the workers beside the calling
// goroutine, package internal/par's RunWaves) leaves it for a moment, its
// processor idle, and the caller asks it back; d ≤ 0, the default, runs an
// update in one piece. It changes when the work is done, not the result:
// T is bit for bit the same.
//
// A service wants it: Go's scheduler looks for network input only when a
// processor is idle (or every 10 ms), so while an update keeps every core
// busy a short query waits for all of it (drdam serve --wave; what it
// costs and saves is in BENCHMARKS.md, "The memory service under load").
// The copies of WithBeta keep the setting.
func (m *DrDAM) SetWave(d time.Duration) { m.wave = d }

// Config returns the configuration.
func (m *DrDAM) Config() Config { return m.cfg }

// Dim returns D.
func (m *DrDAM) Dim() int { return m.cfg.D }

// Len returns the number of memories stored (added minus removed).
func (m *DrDAM) Len() int { return m.count }

// Reset forgets every memory (T = 0), keeping the configuration and the
// random projection.
func (m *DrDAM) Reset() {
	m.count = 0
	m.clear()
}

// Map returns the feature map (with a projection that regenerates its rows
// on demand: use it for reference computations, not in loops).
func (m *DrDAM) Map() *features.Map { return m.fm }

// T writes the memory vector T (length F) into dst, allocating it if dst is
// nil, and returns it. For the positive bases, entries that underflow
// float64 are 0; Raw gives their logarithms.
func (m *DrDAM) T(dst []float64) []float64 {
	if dst == nil {
		dst = make([]float64, len(m.t))
	}
	m.fam.exportT(dst, m.t, m.logScale)
	return dst
}

// Raw returns the stored representation of T: t and the log-scale c with
// T = exp(c)·t for the trigonometric bases, or t = log T (and c = 0) for the
// positive bases. The caller must not modify t.
func (m *DrDAM) Raw() (t []float64, logScale float64) { return m.t, m.logScale }

// EnergyGrad writes the energies of the B = len(e) queries x (B×D) into e
// and, unless grad is nil, their gradients into grad (B×D) (eq. kdam-en,
// eq. kdam-grad). Where φ(x)·T falls under the clip floor ε
// (Config.Epsilon) the energy written is the floor −log(ε)/β (plus
// ‖x‖²/2 for the dot energy) and the gradient the floor's (0, or x):
// EnergyGradFloor says which queries that was.
func (m *DrDAM) EnergyGrad(e, grad, x []float64) error { return m.EnergyGradFloor(e, grad, x, nil) }

// EnergyGradFloor is EnergyGrad that also sets floor[b], for each of the B
// queries, to whether φ(x_b)·T was under the clip floor ε, so that e[b] is
// the floor's constant and not an estimate of the energy. floor may be nil
// (EnergyGrad); otherwise it has length B. It implements FloorReporter and
// allocates no more than EnergyGrad.
func (m *DrDAM) EnergyGradFloor(e, grad, x []float64, floor []bool) error {
	if _, err := checkBatch(e, grad, x, m.cfg); err != nil {
		return err
	}
	if floor != nil && len(floor) != len(e) {
		return fmt.Errorf("floor buffer has %d entries, want B = %d", len(floor), len(e))
	}
	if m.count == 0 {
		return ErrEmpty
	}
	if err := m.eng.energyGrad(m, e, grad, x, floor); err != nil {
		return err
	}
	if i := firstNonFinite(e); i >= 0 {
		return fmt.Errorf("query in row %d: energy is %v", i+1, e[i])
	}
	return nil
}

// finish writes the energy of query r from log(φ(x)·T) = logS, or the
// clipped energy and gradient, records in floor (if not nil) whether it was
// clipped, and reports whether the gradient row is done (no gradient
// wanted, or clipped).
func (m *DrDAM) finish(e, grad, x []float64, floor []bool, r int, clipped bool, logS, xsq float64) bool {
	d, beta := m.cfg.D, m.cfg.Beta
	if floor != nil {
		floor[r] = clipped
	}
	if !clipped {
		e[r] = -logS / beta
		return grad == nil
	}
	e[r] = -math.Log(m.cfg.Epsilon) / beta
	if m.cfg.Similarity == Dot {
		e[r] += xsq / 2
	}
	if grad != nil {
		g := grad[r*d : (r+1)*d]
		if m.cfg.Similarity == Dot {
			copy(g, x[r*d:(r+1)*d])
		} else {
			clear(g)
		}
	}
	return true
}

// drCompute is the compute state of a DrDAM in precision T: the projection
// in panels, the shift, the basis's family, and T converted per row
// (rebuilt when T changes).
type drCompute[T kern.Float] struct {
	src  blocks[T]
	fam  familyT[T]
	bias []T
	mu   sync.Mutex
	p    *rowParams[T]      // nil when T has changed since it was built
	ws   *cache[drWork[T]]  // shared with the copies (share)
	upd  *cache[updWork[T]] // the updates' working memory, shared likewise
}

func (c *drCompute[T]) dropWorkspaces() { c.ws.drop(); c.upd.drop() }

// DropWorkspaces frees the evaluation and update workspaces the model
// keeps for reuse (up to 8 of each, each as large as the largest batch it
// served; see EstimateEval), for a caller that accounts for memory: a
// server after a large batch. The next evaluation allocates anew.
func (m *DrDAM) DropWorkspaces() { m.eng.dropWorkspaces() }

type drWork[T kern.Float] struct {
	ev  eval[T]
	xsq []float64
}

func newDrCompute[T kern.Float](src blocks[T], bias []float64, fam familyT[T]) *drCompute[T] {
	c := &drCompute[T]{src: src, fam: fam, ws: new(cache[drWork[T]]), upd: new(cache[updWork[T]])}
	if bias != nil {
		_, rows := src.count()
		c.bias = padTo[T](bias, rows, 0, 0)
	}
	return c
}

func (c *drCompute[T]) share() drEngine {
	return &drCompute[T]{src: c.src, fam: c.fam, bias: c.bias, ws: c.ws, upd: c.upd}
}

func (c *drCompute[T]) invalidate() {
	c.mu.Lock()
	c.p = nil
	c.mu.Unlock()
}

// params returns the per-row parameters for the current T.
func (c *drCompute[T]) params(m *DrDAM) *rowParams[T] {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.p != nil {
		return c.p
	}
	_, n := c.src.count()
	p := c.fam.params(m.t, m.cfg.Y, n)
	p.pass, p.bias = c.fam, c.bias
	c.p = p
	return p
}

func (c *drCompute[T]) energyGrad(m *DrDAM, e, grad, x []float64, floor []bool) error {
	p := c.params(m)
	w := c.ws.get()
	defer c.ws.put(w)
	d := m.cfg.D
	w.ev.run(c.src, p, x, math.Sqrt(m.cfg.Beta), grad)
	w.xsq = grow(w.xsq, len(e))
	rowSqNorms(w.xsq, x, d)
	return c.fam.finishEnergy(m, &w.ev, e, grad, x, w.xsq, floor)
}

var (
	_ Memory        = (*DrDAM)(nil)
	_ FloorReporter = (*DrDAM)(nil)
)
