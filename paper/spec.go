package paper

import (
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"time"

	"github.com/drdam/drdam/dam"
	"github.com/drdam/drdam/experiment"
	"github.com/drdam/drdam/features"
	"github.com/drdam/drdam/internal/atomicfile"
)

// Spec is the exact configuration of a run of a grid experiment, written
// to OUT/config.json. The axes (D, K, β, Y, bases, projections) may change
// between runs into the same directory, which then adds points; every
// other field must match for a run to resume. An experiment uses the
// fields its default Spec sets: its Params offer a parameter for each.
type Spec struct {
	Experiment string `json:"experiment"`
	Scale      string `json:"scale"`
	Version    string `json:"version"`

	D           []int                     `json:"D"`
	K           []int                     `json:"K"`
	Beta        []float64                 `json:"beta"`
	Y           []int                     `json:"Y"`
	Bases       []features.Basis          `json:"bases,omitempty"`
	Projections []features.ProjectionKind `json:"projections,omitempty"`

	Basis features.Basis `json:"basis,omitempty"`
	// Projection is the one kind of the experiments on binary patterns,
	// or break-even's list of DrDAM's kinds.
	Projection KindList `json:"projection,omitempty"`
	Flip       float64  `json:"flip,omitempty"`
	Seed       uint64   `json:"seed"`
	// Seeds is the number of independent replicates: the grid is
	// measured once with each seed experiment.ReplicateSeed(Seed, i), i <
	// Seeds (new patterns, queries and projections each time), and rows
	// keep their seed. 0 means the scale's default (DefaultSeeds). Like
	// the axes, it may grow between runs into the same directory.
	Seeds     int           `json:"seeds,omitempty"`
	Precision dam.Precision `json:"precision"`

	Queries  int     `json:"queries,omitempty"`
	Step     float64 `json:"step,omitempty"`
	MaxSteps int     `json:"max_steps,omitempty"`
	Tol      float64 `json:"tol,omitempty"`

	Data   string `json:"data,omitempty"`
	Stored int    `json:"stored,omitempty"`
	New    int    `json:"new,omitempty"`

	Started string `json:"started,omitempty"` // when the first of the runs that made the points began
	Elapsed string `json:"elapsed,omitempty"` // their run time, summed over resumed runs
}

// The parameter groups a Spec may use beyond the axes, each with its
// parameters (see uses).
const (
	usesBinary    = "binary"    // basis, projection, flip, seeds: the random binary patterns of §4.1
	usesRetrieval = "retrieval" // queries, step, steps, tol: descents to convergence
	usesData      = "data"      // bases, projections, data, stored, new: a data set and several bases
)

// uses reports whether s uses the parameter group g (one of the uses
// constants): whether its default sets them.
func (s Spec) uses(g string) bool {
	switch g {
	case usesBinary:
		return s.Basis != 0
	case usesRetrieval:
		return s.Step != 0
	case usesData:
		return s.Bases != nil
	}
	return false
}

// fixed returns s without its axes and run metadata: what must match for
// a run to resume another.
func (s Spec) fixed() Spec {
	s.Scale, s.Version, s.Started, s.Elapsed = "", "", "", ""
	s.D, s.K, s.Beta, s.Y, s.Bases, s.Projections = nil, nil, nil, nil, nil, nil
	s.Seeds = 0
	return s
}

// The paper's grids (the reference code's exp_QUANT1b, exp_QUANT1c and
// exp_QUANT2 configurations).
var (
	paperYs    = []int{5000, 40000, 80000, 120000, 160000, 200000, 300000, 400000, 500000}
	paperBetas = []float64{10, 30, 40, 50}
	paperDs    = []int{30, 100, 1000}
	paperKs    = []int{50, 100, 200, 400, 650, 1000}
)

// DefaultSeeds returns the number of replicates a scale runs by default:
// 3 at the quick scale (the fewest that give an interval across seeds with
// some power: Student's t at 2 degrees of freedom is 4.30), 5 at the
// paper's (the count of the paper's own repeated runs; t = 2.78).
func DefaultSeeds(scale string) int {
	if scale == "paper" {
		return 5
	}
	return 3
}

// seedList returns the seeds of the replicates of s.
func (s Spec) seedList() []uint64 {
	n := s.Seeds
	if n == 0 {
		n = DefaultSeeds(s.Scale)
	}
	seeds := make([]uint64, n)
	for i := range seeds {
		seeds[i] = experiment.ReplicateSeed(s.Seed, i)
	}
	return seeds
}

// binarySpec returns the common defaults of the experiments on random
// binary patterns (§4.1): K = 500, the paper's β and D, SinCos features on
// iid Gaussian projections, 10% of the bits flipped.
func binarySpec(name, scale string) Spec {
	return Spec{Experiment: name, Scale: scale, Precision: dam.Float64, Basis: features.SinCos, Projection: KindList{features.Gaussian}, Flip: 0.1,
		K: []int{500}, Beta: paperBetas, D: paperDs}
}

// check is one condition on a parameter: bad, with the parameter's name,
// its value and what is wanted.
type check struct {
	bad   bool
	name  string
	value any
	msg   string
}

// firstFailing returns the ParamError of the first failing check, so that
// an error names the one parameter that is wrong, or nil.
func firstFailing(cs ...check) error {
	for _, c := range cs {
		if c.bad {
			return paramErrorf(c.name, c.value, "%s", c.msg)
		}
	}
	return nil
}

// named returns the ParamError of parameter name unless v, a value of an
// enumeration (or a list of them), has a name: a Spec read from a
// config.json without the field holds the zero value, which writes as ""
// (unset).
func named(name string, v encoding.TextMarshaler) error {
	text, err := v.MarshalText()
	if err == nil && len(text) == 0 {
		err = errors.New("not set")
	}
	if err != nil {
		return &ParamError{Name: name, Msg: err.Error()}
	}
	return nil
}

// precision returns s.Precision, checked by named.
func (s Spec) precision() (dam.Precision, error) {
	return s.Precision, named("precision", s.Precision)
}

// basis returns s.Basis, checked by named.
func (s Spec) basis() (features.Basis, error) {
	return s.Basis, named("basis", s.Basis)
}

// binaryGrid returns the grid of s for the experiments on binary patterns.
func (s Spec) binaryGrid(prec dam.Precision) (experiment.BinaryGrid, error) {
	g := experiment.BinaryGrid{Ds: s.D, Ks: s.K, Betas: s.Beta, Ys: s.Y, Flip: s.Flip, Seed: s.Seed, Seeds: 1, Bound: true, Precision: prec}
	var err error
	if g.Basis, err = s.basis(); err != nil {
		return g, err
	}
	if err := named("projection", s.Projection); err != nil {
		return g, err
	}
	if len(s.Projection) != 1 {
		return g, paramErrorf("projection", strconv.Quote(s.Projection.String()), "want one kind: %s", features.ProjectionNames())
	}
	g.Projections = []features.ProjectionKind{s.Projection[0]}
	if !(s.Flip >= 0 && s.Flip <= 1) {
		return g, paramErrorf("flip", s.Flip, "want a fraction in [0, 1]")
	}
	return g, nil
}

// retrieval returns the descent settings of s.
func (s Spec) retrieval() (experiment.Retrieval, error) {
	if err := firstFailing(
		check{!(s.Step > 0) || math.IsInf(s.Step, 0), "step", s.Step, "want a number > 0"},
		check{s.MaxSteps < 1, "steps", s.MaxSteps, "want at least 1"},
		check{!(s.Tol >= 0), "tol", s.Tol, "want a number ≥ 0"},
		check{s.Queries < 0, "queries", s.Queries, "want ≥ 0"},
	); err != nil {
		return experiment.Retrieval{}, err
	}
	return experiment.Retrieval{Queries: s.Queries, Step: s.Step, MaxSteps: s.MaxSteps, Tol: s.Tol}, nil
}

// FormatDuration formats a run time as the reports print it: tenths of a
// second under a minute, seconds under two days, then days.
func FormatDuration(d time.Duration) string {
	switch {
	case d < time.Minute:
		return d.Round(100 * time.Millisecond).String()
	case d < 48*time.Hour:
		return d.Round(time.Second).String()
	}
	return fmt.Sprintf("%.1f days", d.Hours()/24)
}

// KindList is a list of projection kinds that reads and writes as one
// text, the kinds' names joined by commas ("gaussian,structured"), as the
// parameter "projection" of the grid experiments takes it.
type KindList []features.ProjectionKind

// MarshalText joins the names of the kinds with commas (an empty list
// writes ""); a kind without a name (features.ProjectionKind.MarshalText),
// or unset, is an error.
func (l KindList) MarshalText() ([]byte, error) {
	b := []byte{}
	for i, k := range l {
		t, err := k.MarshalText()
		if err == nil && len(t) == 0 {
			err = fmt.Errorf("kind %d of %d is not set", i+1, len(l))
		}
		if err != nil {
			return nil, err
		}
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, t...)
	}
	return b, nil
}

// UnmarshalText reads a non-empty comma-separated list of distinct kinds,
// each as features.ParseProjectionKind reads it.
func (l *KindList) UnmarshalText(text []byte) error {
	return projectionsValue((*[]features.ProjectionKind)(l)).UnmarshalText(text)
}

// String returns the kinds' names joined by commas, as MarshalText (and
// the String of those without a name).
func (l KindList) String() string { return joinList(l) }

// writeJSON writes v, indented, to path atomically.
func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return writeFile(path, string(b)+"\n")
}

// writeFile writes text to path atomically.
func writeFile(path, text string) error {
	return atomicfile.Write(path, func(w io.Writer) error {
		_, err := io.WriteString(w, text)
		return err
	})
}
