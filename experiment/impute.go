package experiment

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/drdam/drdam/baseline"
	"github.com/drdam/drdam/dam"
	"github.com/drdam/drdam/features"
	"github.com/drdam/drdam/internal/rng"
	"github.com/drdam/drdam/internal/sysinfo"
)

// Corruption is how the queries of an imputation are damaged: a mask
// (some coordinates hidden, and known to be: NaN) or noise of unknown
// location (every coordinate visible, some of them wrong, and no method
// told which).
type Corruption int

// The corruptions of drdam experiment completion.
const (
	// Bottom hides the bottom half of an H×W image (the rows from H/2);
	// for a row of one line (H = 1: a record) the last half of its
	// columns.
	Bottom Corruption = iota
	// Random hides ⌊D/2⌋ coordinates drawn at random, per query.
	Random
	// BoxMask hides a box of ⌈H/2⌉×⌈W/2⌉ at a random place, per query.
	BoxMask
	// SaltPepper sets a fifth of the coordinates (drawn at random per
	// query) to the bottom or the top of the range, at random: the
	// error is measured on those coordinates.
	SaltPepper
	// Gaussian adds normal noise of standard deviation a fifth of the
	// range to every coordinate, clipped to the range: the error is
	// measured on every coordinate.
	Gaussian
)

// The strengths of the noises, as fractions: of the coordinates
// (SaltPepper) and of the range (Gaussian's standard deviation).
const (
	SaltPepperFraction = 0.2
	GaussianSigma      = 0.2
)

var corruptionNames = []string{Bottom: "bottom", Random: "random", BoxMask: "box", SaltPepper: "saltpepper", Gaussian: "gaussian"}

// String returns the corruption's name: bottom, random, box, saltpepper or
// gaussian.
func (c Corruption) String() string {
	if c >= 0 && int(c) < len(corruptionNames) {
		return corruptionNames[c]
	}
	return fmt.Sprintf("Corruption(%d)", int(c))
}

// MarshalText returns the corruption's name.
func (c Corruption) MarshalText() ([]byte, error) { return []byte(c.String()), nil }

// UnmarshalText sets c from its name.
func (c *Corruption) UnmarshalText(b []byte) error {
	for i, n := range corruptionNames {
		if string(b) == n {
			*c = Corruption(i)
			return nil
		}
	}
	return fmt.Errorf("unknown corruption %q: want one of %v", b, corruptionNames)
}

// Corruptions returns every corruption, masks first.
func Corruptions() []Corruption { return []Corruption{Bottom, Random, BoxMask, SaltPepper, Gaussian} }

// Masked reports whether c hides coordinates (known to the methods as
// NaN) rather than adding noise.
func (c Corruption) Masked() bool { return c <= BoxMask }

// Corrupt returns the queries x (B×D originals, an H×W image or a 1×D
// record per row, values in [0, top]) damaged by c with the random stream
// of seed: q (B×D: NaN at the hidden coordinates of a mask, the noisy
// values for a noise) and scored (B×D: the coordinates whose error is
// measured: the hidden ones, the salted ones, or all for Gaussian).
func Corrupt(c Corruption, x []float64, h, w int, top float64, seed uint64) (q []float64, scored []bool, err error) {
	d := h * w
	if d <= 0 || len(x)%d != 0 {
		return nil, nil, fmt.Errorf("corrupt: %d values are not rows of %d×%d", len(x), h, w)
	}
	r := rand.New(rng.New(seed, rng.StreamCorrupt))
	q, scored = slices.Clone(x), make([]bool, len(x))
	for b := range len(x) / d {
		row, sc := q[b*d:(b+1)*d], scored[b*d:(b+1)*d]
		switch c {
		case Bottom:
			from := (h / 2) * w
			if h == 1 {
				from = w / 2
			}
			for i := from; i < d; i++ {
				sc[i] = true
			}
		case Random:
			for _, i := range r.Perm(d)[:d/2] {
				sc[i] = true
			}
		case BoxMask:
			bh, bw := (h+1)/2, (w+1)/2
			top0, left := r.IntN(h-bh+1), r.IntN(w-bw+1)
			for i := top0; i < top0+bh; i++ {
				for j := left; j < left+bw; j++ {
					sc[i*w+j] = true
				}
			}
		case SaltPepper:
			for _, i := range r.Perm(d)[:int(math.Round(SaltPepperFraction*float64(d)))] {
				sc[i] = true
				row[i] = 0
				if r.IntN(2) == 1 {
					row[i] = top
				}
			}
		case Gaussian:
			for i := range row {
				sc[i] = true
				row[i] = min(top, max(0, row[i]+GaussianSigma*top*r.NormFloat64()))
			}
		default:
			return nil, nil, fmt.Errorf("corrupt: unknown corruption %v", c)
		}
		if c.Masked() {
			for i, s := range sc {
				if s {
					row[i] = math.NaN()
				}
			}
		}
	}
	return q, scored, nil
}

// MethodKind is the kind of an imputation method.
type MethodKind int

// The kinds of methods: the baselines of package baseline, and the two
// DAMs.
const (
	MethodAsIs    MethodKind = iota // the noisy query itself (noise only)
	MethodMean                      // the column means (masks only)
	MethodKNN                       // masked k-NN (baseline.KNN; Denoise for noise)
	MethodImputer                   // scikit-learn's KNNImputer (baseline.Imputer; masks only)
	MethodKernel                    // one step of Nadaraya–Watson at β (baseline.Kernel)
	MethodMrDAM                     // energy descent on an MrDAM at β
	MethodDrDAM                     // energy descent on a DrDAM at β
)

// Start is where a DAM's descent starts its missing coordinates.
type Start int

// The starts of a DAM descent. For noise, every start is the noisy query
// itself.
const (
	StartZero   Start = iota // 0 (the paper's)
	StartMean                // the column means of the stored rows (D values)
	StartKernel              // the kernel readout on the visible coordinates (needs the stored rows)
	StartKNN                 // the distance-weighted 5-NN mean on the visible coordinates (needs the stored rows)
)

var startNames = []string{StartZero: "zero", StartMean: "mean", StartKernel: "kernel", StartKNN: "knn"}

// String returns the start's name: zero, mean, kernel or knn.
func (s Start) String() string {
	if s >= 0 && int(s) < len(startNames) {
		return startNames[s]
	}
	return fmt.Sprintf("Start(%d)", int(s))
}

// Method is one imputation method of the comparison.
type Method struct {
	Name       string // as the table and figures print it
	ID         string // a short name without spaces or commas, for a list of methods (e.g. "mrdam-kernel")
	Kind       MethodKind
	K          int                     // neighbours (KNN, Imputer)
	Weighting  baseline.Weighting      // KNN, Imputer
	Start      Start                   // MrDAM, DrDAM
	Y          int                     // DrDAM's random features
	Projection features.ProjectionKind // DrDAM's projection
	// Anneal, for MrDAM, descends at β/16, then β/4, then β, each from
	// where the last ended (a DrDAM would need a T per level).
	Anneal bool
	// Beta is the method's inverse temperature (Kernel, MrDAM, DrDAM);
	// 0 takes the cell's.
	Beta float64
	// Step and Steps, if not 0, replace the cell's descent (MrDAM,
	// DrDAM): Steps steps of η = Step exactly, without the tolerance
	// (an early stop: from a noisy query, x − η∇E(x) with η < 1 is
	// (1 − η)x + η times the readout, between the query and the memory).
	Step  float64
	Steps int
	// Early marks a descent stopped early, whose Step and Steps the
	// caller chooses (by validation): for noise it applies even with a
	// start that noise ignores.
	Early bool
}

// UsesBeta reports whether m has an inverse temperature β.
func (m Method) UsesBeta() bool {
	return m.Kind == MethodKernel || m.Kind == MethodMrDAM || m.Kind == MethodDrDAM
}

// Applies reports whether m applies to corruption c: the noisy query to
// noise, the means and KNNImputer (which fills NaN only) to masks, MrDAM's
// descents from the means or the kernel readout to masks only (noise
// starts every descent at the query), unless annealed or stopped early;
// every other method to both.
func (m Method) Applies(c Corruption) bool {
	switch m.Kind {
	case MethodAsIs:
		return !c.Masked()
	case MethodMean, MethodImputer:
		return c.Masked()
	case MethodMrDAM:
		// From a noisy query every start is the query: one descent of
		// each kind (plain, annealed, early) is enough.
		return c.Masked() || m.Start == StartZero || m.Anneal || m.Early
	}
	return true
}

// Descent is the energy descent of the DAM methods.
type Descent struct {
	Step     float64
	MaxSteps int
	Tol      float64
}

// ImputeCell is one measurement of a comparison: stored rows, damaged
// queries and their originals, at one β.
type ImputeCell struct {
	D       int
	Top     float64   // the top of the range of every coordinate (the bottom is 0)
	Stored  []float64 // K×D
	Truth   []float64 // B×D originals of the queries
	Queries []float64 // B×D damaged (Corrupt)
	Scored  []bool    // B×D coordinates whose error is measured
	// Corruption is how Queries were damaged: a mask hides coordinates
	// as NaN, a noise hides nothing.
	Corruption Corruption
	// Beta is the inverse temperature of the methods whose own Beta is
	// 0; KernelBeta, if not 0, is the β of the kernel readout that
	// StartKernel starts from (else the method's).
	Beta, KernelBeta float64
	Descent          Descent
	// Models caches the DrDAMs built over Stored (by projection, Y and
	// β), for the cells that share them; nil builds them every time.
	Models *ModelCache
}

// ImputeScore is what one method measured on a cell.
type ImputeScore struct {
	Method string
	// RMSE is the mean over queries of each query's root mean square
	// error on its scored coordinates, in units of the range (Top).
	RMSE float64
	// Retrieved is the fraction of queries whose RMSE is at most
	// RetrievedRMSE.
	Retrieved float64
	Values    int64   // values of state the method keeps (see StateValues)
	Seconds   float64 // wall time per query, building excluded
	Build     float64 // wall seconds to build the state (a DrDAM's T, once, cached for the cells that share it), 0 for none
	PeakMiB   float64 // the process's peak resident set during the method (NaN if unknown)
	Steps     float64 // mean descent steps (DAM methods)
	Stalled   float64 // fraction of descents stalled at a DrDAM's clip floor
}

// RetrievedRMSE is the RMSE on the scored coordinates (in units of the
// range) under which a completion counts as the original retrieved: two
// hundredths of the range, about 5 of 255 gray levels.
const RetrievedRMSE = 0.02

// StateValues returns the number of values m keeps to complete queries
// against K stored rows of D: K·D for the methods that keep the rows,
// D for the means (and a DrDAM's start at them: counted for noise too,
// where the descent starts at the query instead), the F values of a
// DrDAM's T (F = FeatureDim; the projection is regenerated from its
// seed), nothing for the noisy query as is.
func (m Method) StateValues(k, d, f int) int64 {
	switch m.Kind {
	case MethodAsIs:
		return 0
	case MethodMean:
		return int64(d)
	case MethodDrDAM:
		v := int64(f)
		if m.Start == StartMean {
			v += int64(d)
		}
		return v
	}
	return int64(k) * int64(d)
}

// ModelCache holds DrDAMs over one set of stored rows, by configuration.
type ModelCache struct {
	stored []float64
	models map[dam.Config]*dam.DrDAM
	build  map[dam.Config]float64
}

// NewModelCache returns an empty cache for the rows stored.
func NewModelCache(stored []float64) *ModelCache {
	return &ModelCache{stored: stored, models: map[dam.Config]*dam.DrDAM{}, build: map[dam.Config]float64{}}
}

// get returns the DrDAM of c over the cache's rows and the seconds its
// building took (when it was built, for the first caller).
func (mc *ModelCache) get(c dam.Config) (*dam.DrDAM, float64, bool, error) {
	if m, ok := mc.models[c]; ok {
		return m, mc.build[c], true, nil
	}
	start := time.Now()
	var m *dam.DrDAM
	var err error
	for o, other := range mc.models {
		// A model that differs from c in β alone shares its projection:
		// WithBeta gives c's without generating it again.
		if o.Beta = c.Beta; o == c {
			m, err = other.WithBeta(c.Beta)
			break
		}
	}
	if m == nil && err == nil {
		m, err = dam.NewDrDAM(c)
	}
	if err != nil {
		return nil, 0, false, err
	}
	if err := m.Add(mc.stored); err != nil {
		return nil, 0, false, err
	}
	sec := time.Since(start).Seconds()
	mc.models[c], mc.build[c] = m, sec
	return m, sec, false, nil
}

// Drop forgets the cached models.
func (mc *ModelCache) Drop() { clear(mc.models); clear(mc.build) }

// Run measures every method of ms that applies to the cell's corruption
// (Method.Applies) and returns their scores, in the order of ms.
func (c ImputeCell) Run(ctx context.Context, ms []Method) ([]ImputeScore, error) {
	if c.D <= 0 || len(c.Truth)%c.D != 0 || len(c.Queries) != len(c.Truth) || len(c.Scored) != len(c.Truth) || len(c.Stored)%c.D != 0 {
		return nil, fmt.Errorf("impute: shapes: D = %d, %d stored, %d truth, %d queries, %d scored", c.D, len(c.Stored), len(c.Truth), len(c.Queries), len(c.Scored))
	}
	var out []ImputeScore
	for _, m := range ms {
		if err := ctx.Err(); err != nil {
			return out, err
		}
		if !m.Applies(c.Corruption) {
			continue
		}
		s, err := c.run(m)
		if err != nil {
			return out, fmt.Errorf("%s: %w", m.Name, err)
		}
		out = append(out, s)
	}
	return out, nil
}

// run measures one method.
func (c ImputeCell) run(m Method) (ImputeScore, error) {
	if m.Beta > 0 {
		c.Beta = m.Beta
	}
	d, b := c.D, len(c.Truth)/c.D
	k := len(c.Stored) / d
	s := ImputeScore{Method: m.Name, PeakMiB: math.NaN()}
	dst := make([]float64, len(c.Queries))
	var res *dam.Result
	f := 0
	hwm := sysinfo.ResetHWM()
	start := time.Now()
	var err error
	switch m.Kind {
	case MethodAsIs:
		copy(dst, c.Queries)
	case MethodMean:
		var mm *baseline.Mean
		if mm, err = baseline.NewMean(c.Stored, d); err == nil {
			err = mm.Complete(dst, c.Queries, nil)
		}
	case MethodKNN:
		var kn *baseline.KNN
		if kn, err = baseline.NewKNN(c.Stored, d, m.K, m.Weighting); err == nil {
			if c.Corruption.Masked() {
				err = kn.Complete(dst, c.Queries, nil)
			} else {
				err = kn.Denoise(dst, c.Queries)
			}
		}
	case MethodImputer:
		var im *baseline.Imputer
		if im, err = baseline.NewImputer(c.Stored, d, m.K, m.Weighting); err == nil {
			err = im.Complete(dst, c.Queries, nil)
		}
	case MethodKernel:
		err = c.kernel(dst)
	case MethodMrDAM:
		res, err = c.mrdam(m)
	case MethodDrDAM:
		var build float64
		var cached bool
		res, f, build, cached, err = c.drdam(m)
		s.Build = build
		if !cached {
			start = start.Add(time.Duration(build * float64(time.Second)))
		}
	default:
		err = fmt.Errorf("unknown method kind %d", m.Kind)
	}
	if err != nil {
		return s, err
	}
	s.Seconds = time.Since(start).Seconds() / float64(b)
	if hwm {
		if p := sysinfo.StatusMiB("VmHWM"); p != nil {
			s.PeakMiB = *p
		}
	}
	if res != nil {
		copy(dst, res.X)
		var steps, stalled float64
		for i := range b {
			steps += float64(res.Steps[i])
			if res.Outcome[i] == dam.Stalled {
				stalled++
			}
		}
		s.Steps, s.Stalled = steps/float64(b), stalled/float64(b)
	}
	s.RMSE, s.Retrieved = c.score(dst)
	s.Values = m.StateValues(k, d, f)
	return s, nil
}

// kernel writes the kernel readout of the queries into dst: on the
// visible coordinates (masks) or on all (noise).
func (c ImputeCell) kernel(dst []float64) error {
	kr, err := baseline.NewKernel(c.Stored, c.D, c.Beta)
	if err != nil {
		return err
	}
	if c.Corruption.Masked() {
		return kr.Complete(dst, c.Queries, nil)
	}
	return kr.Denoise(dst, c.Queries)
}

// options returns the descent's options for m: the cell's step, steps
// and tolerance, or m's own, and the range as a box.
func (c ImputeCell) options(m Method) dam.RecallOptions {
	ro := dam.RecallOptions{Step: c.Descent.Step, MaxSteps: c.Descent.MaxSteps, Tol: c.Descent.Tol, Box: &dam.Box{Lo: 0, Hi: c.Top}}
	if m.Step > 0 {
		ro.Step = m.Step
	}
	if m.Steps > 0 {
		ro.MaxSteps, ro.Tol = m.Steps, 0
	}
	return ro
}

// start returns where the descent of the cell's queries starts and its
// options: clamped at the visible coordinates, the missing ones filled as
// m.Start says (masks), or the noisy queries with nothing clamped (noise).
func (c ImputeCell) start(m Method) ([]float64, dam.RecallOptions, error) {
	ro := c.options(m)
	if !c.Corruption.Masked() {
		return c.Queries, ro, nil
	}
	opt := dam.CompleteOptions{RecallOptions: ro}
	switch m.Start {
	case StartMean:
		mm, err := baseline.NewMean(c.Stored, c.D)
		if err != nil {
			return nil, ro, err
		}
		opt.Fill = mm.Means()
	case StartKNN:
		kn, err := baseline.NewKNN(c.Stored, c.D, 5, baseline.Distance)
		if err != nil {
			return nil, ro, err
		}
		opt.Fill = make([]float64, len(c.Queries))
		if err := kn.Complete(opt.Fill, c.Queries, nil); err != nil {
			return nil, ro, err
		}
	case StartKernel:
		opt.Fill = make([]float64, len(c.Queries))
		kc := c
		if c.KernelBeta > 0 {
			kc.Beta = c.KernelBeta
		}
		if err := kc.kernel(opt.Fill); err != nil {
			return nil, ro, err
		}
	}
	return dam.CompletionStart(c.Queries, c.D, opt)
}

// mrdam descends on an MrDAM over the stored rows at β (with m.Anneal,
// at β/16, β/4 and β in turn, each level from where the last ended).
func (c ImputeCell) mrdam(m Method) (*dam.Result, error) {
	betas := []float64{c.Beta}
	if m.Anneal {
		betas = []float64{c.Beta / 16, c.Beta / 4, c.Beta}
	}
	x0, ro, err := c.start(m)
	if err != nil {
		return nil, err
	}
	var res *dam.Result
	for _, beta := range betas {
		model, err := dam.NewMrDAM(dam.Config{Rep: dam.RepMrDAM, D: c.D, Beta: beta})
		if err != nil {
			return nil, err
		}
		if err := model.Add(c.Stored); err != nil {
			return nil, err
		}
		r, err := dam.Recall(model, x0, ro)
		if err != nil {
			return nil, err
		}
		if res != nil {
			for i := range r.Steps {
				r.Steps[i] += res.Steps[i]
			}
		}
		res, x0 = r, r.X
	}
	return res, nil
}

// drdam builds (or takes from the cache) the DrDAM of m at β and descends
// on it; it returns the result, the size F of T, the seconds its building
// took and whether it was cached (built before this call).
func (c ImputeCell) drdam(m Method) (*dam.Result, int, float64, bool, error) {
	cfg := dam.Config{Rep: dam.RepDrDAM, D: c.D, Beta: c.Beta, Y: m.Y, Projection: m.Projection, Basis: features.SinCos}
	mc := c.Models
	if mc == nil {
		mc = NewModelCache(c.Stored)
	}
	model, build, cached, err := mc.get(cfg)
	if err != nil {
		return nil, 0, 0, false, err
	}
	x0, ro, err := c.start(m)
	if err != nil {
		return nil, 0, 0, false, err
	}
	res, err := dam.Recall(model, x0, ro)
	if err != nil {
		return nil, 0, 0, false, err
	}
	return res, model.Config().FeatureDim(), build, cached, nil
}

// score returns the mean over queries of the RMSE on their scored
// coordinates (in units of the range) and the fraction retrieved.
func (c ImputeCell) score(x []float64) (rmse, retrieved float64) {
	d, b := c.D, len(c.Truth)/c.D
	for q := range b {
		var s float64
		n := 0
		for i := q * d; i < (q+1)*d; i++ {
			if c.Scored[i] {
				e := (x[i] - c.Truth[i]) / c.Top
				s += e * e
				n++
			}
		}
		r := 0.0
		if n > 0 {
			r = math.Sqrt(s / float64(n))
		}
		rmse += r
		if r <= RetrievedRMSE {
			retrieved++
		}
	}
	return rmse / float64(b), retrieved / float64(b)
}
