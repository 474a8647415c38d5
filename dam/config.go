package dam

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/drdam/drdam/features"
)

// Representation says how a memory stores its patterns.
type Representation int

// The paper's two representations.
const (
	RepMrDAM Representation = iota + 1 // memory representation: the K×D patterns
	RepDrDAM                           // distributed representation: T = Σ φ(ξ^μ)
)

var repNames = enumNames[Representation]{"representation", "mrdam or drdam",
	[][]string{RepMrDAM: {"mrdam", "mr", "memory"}, RepDrDAM: {"drdam", "dr", "distributed"}}}

// String returns "mrdam" or "drdam".
func (r Representation) String() string { return repNames.name(r, "Representation") }

// ParseRepresentation returns the representation named s: mrdam (or mr,
// memory) or drdam (or dr, distributed).
func ParseRepresentation(s string) (Representation, error) { return repNames.parse(s) }

// Similarity selects the energy.
type Similarity int

// Energies. L2 is the paper's main energy (eq. div-en); Dot is the
// dot-product (EDP) energy with the ½‖x‖² term.
const (
	L2  Similarity = iota + 1 // −(1/β) log Σ exp(−β/2 ‖x − ξ‖²)
	Dot                       // −(1/β) log Σ exp(β⟨ξ, x⟩) + ½‖x‖²
)

var simNames = enumNames[Similarity]{"similarity", "l2 or dot",
	[][]string{L2: {"l2", "rbf", "euclidean"}, Dot: {"dot", "edp"}}}

// String returns "l2" or "dot".
func (s Similarity) String() string { return simNames.name(s, "Similarity") }

// ParseSimilarity returns the similarity named s: l2 or dot.
func ParseSimilarity(s string) (Similarity, error) { return simNames.parse(s) }

// Precision is the floating-point type a model computes in. Inputs,
// outputs and the stored T are float64 whatever the precision.
type Precision int

// Precisions. Float32 is the fast path (the paper's code and the peers run
// float32); Float64 is for checking.
const (
	Float64 Precision = iota + 1
	Float32
)

var precNames = enumNames[Precision]{"precision", "float32 or float64",
	[][]string{Float64: {"float64", "f64", "double"}, Float32: {"float32", "f32", "single"}}}

// String returns "float64" or "float32".
func (p Precision) String() string { return precNames.name(p, "Precision") }

// ParsePrecision returns the precision named s: float64 (f64) or float32
// (f32).
func ParsePrecision(s string) (Precision, error) { return precNames.parse(s) }

// enumNames is the table of an enumeration's names: names[v] lists the
// name of value v, then its aliases; want lists the names for messages.
type enumNames[T ~int] struct {
	what, want string
	names      [][]string
}

// name returns the name of v, or typ(v) for a value without one.
func (e enumNames[T]) name(v T, typ string) string {
	if v > 0 && int(v) < len(e.names) && len(e.names[v]) > 0 {
		return e.names[v][0]
	}
	return fmt.Sprintf("%s(%d)", typ, int(v))
}

// parse returns the value named s, or one of its aliases (case does not
// matter).
func (e enumNames[T]) parse(s string) (T, error) {
	for v, names := range e.names {
		for _, n := range names {
			if strings.EqualFold(s, n) {
				return T(v), nil
			}
		}
	}
	return 0, fmt.Errorf("unknown %s %q: want %s", e.what, s, e.want)
}

// Config describes a memory. Zero fields take the defaults given in their
// comments; Validate applies them. As text (drdam encode's flags, drdam
// serve's JSON) its fields are the codec's (Fields, Set, DefaultConfig in
// config_codec.go), with their names, defaults and forms.
type Config struct {
	Rep        Representation // default RepDrDAM
	D          int            // pattern dimension, > 0
	Beta       float64        // inverse temperature β, > 0
	Similarity Similarity     // default L2
	Precision  Precision      // compute precision, default Float64
	// MaxMemory is the memory budget in bytes: building or loading a
	// model whose footprint (EstimateFootprint) exceeds it fails with a
	// *BudgetError before anything large is allocated. Zero means
	// DefaultBudget(). It is not part of a model's identity: files do not
	// store it and models with different budgets can be merged.
	MaxMemory int64

	// DrDAM only.
	Y          int                     // number of random projections, > 0 (F = 2Y for SinCos/ExpExp)
	Basis      features.Basis          // default SinCos
	Projection features.ProjectionKind // default Gaussian; Structured is SORF
	// Generator is the version of the generator that draws the Gaussian
	// entries of a dense (Gaussian or Orthogonal) projection from the
	// seed; zero means features.DefaultGenerator (version 2). It is part
	// of a model's identity: model files record it, and a model read from
	// a file of format version 1 keeps version 1, with which its T was
	// built. Structured projections draw the same under both.
	Generator features.Generator
	// OnDemand keeps a Gaussian projection out of memory: its rows are
	// regenerated from the seed at every evaluation (with a bounded
	// cache), so memory is O(Y + D) but every step pays for generating
	// Y·D Gaussians. Structured projections always take O(Y). Orthogonal
	// ones cannot be regenerated so: each block of D rows is a
	// Gram–Schmidt of a D×D Gaussian matrix, O(D²) memory and O(D³) time,
	// so every evaluation would cost the whole O(Y·D²) generation; the
	// structured kind is the orthogonal projection in O(Y) memory.
	OnDemand bool
	Seed     uint64 // seed of the projection and the bias
	NoBias   bool   // do not add the random shift b (trigonometric bases)
	// Epsilon is the clip floor ε of φ(x)·T. Zero means the basis's default
	// (1e-5 for Cos and SinCos, 0 for Exp and ExpExp); the trigonometric
	// bases need ε > 0, because their kernel estimate can be negative.
	Epsilon float64
}

// ConfigError reports an invalid Config field: a value that Set cannot
// parse, or one that Validate refuses.
type ConfigError struct {
	Field string // the field's name in Fields, e.g. "beta", "no_bias"
	Msg   string // what was wanted and what was found
}

// Error returns the message.
func (e *ConfigError) Error() string { return e.Msg }

func fieldErr(field, format string, args ...any) error {
	return &ConfigError{Field: field, Msg: fmt.Sprintf(format, args...)}
}

// Validate fills in defaults and checks every field, returning the completed
// configuration or an error that names the bad field.
func (c Config) Validate() (Config, error) {
	if c.Rep == 0 {
		c.Rep = RepDrDAM
	}
	if c.Similarity == 0 {
		c.Similarity = L2
	}
	if c.Precision == 0 {
		c.Precision = Float64
	}
	if c.Precision != Float64 && c.Precision != Float32 {
		return c, fieldErr("precision", "unknown precision %d", int(c.Precision))
	}
	if c.Rep != RepMrDAM && c.Rep != RepDrDAM {
		return c, fieldErr("rep", "unknown representation %d", int(c.Rep))
	}
	if c.Similarity != L2 && c.Similarity != Dot {
		return c, fieldErr("similarity", "unknown similarity %d", int(c.Similarity))
	}
	if c.D <= 0 {
		return c, fieldErr("d", "dimension D must be positive, found %d", c.D)
	}
	if !(c.Beta > 0) || math.IsInf(c.Beta, 0) {
		return c, fieldErr("beta", "β must be positive and finite, found %v", c.Beta)
	}
	if c.MaxMemory < 0 {
		return c, fieldErr("max_memory", "memory budget must be ≥ 0 bytes (0: the default), found %d", c.MaxMemory)
	}
	if c.Rep == RepMrDAM {
		// Fields of DrDAM do not apply; clear them so that configurations
		// compare equal whatever the caller left there.
		return Config{Rep: RepMrDAM, D: c.D, Beta: c.Beta, Similarity: c.Similarity, Precision: c.Precision, MaxMemory: c.MaxMemory}, nil
	}
	if c.Basis == 0 {
		c.Basis = features.SinCos
	}
	if c.Projection == 0 {
		c.Projection = features.Gaussian
	}
	if c.Generator == 0 {
		c.Generator = features.DefaultGenerator
	}
	if !c.Generator.Valid() {
		return c, fieldErr("generator", "unknown generator version %d (want 1 or 2)", int(c.Generator))
	}
	if !c.Basis.Valid() {
		return c, fieldErr("basis", "unknown basis %d", int(c.Basis))
	}
	if !c.Projection.Valid() {
		return c, fieldErr("projection", "unknown projection kind %d", int(c.Projection))
	}
	if c.Y <= 0 {
		return c, fieldErr("y", "number of random features Y must be positive, found %d", c.Y)
	}
	if c.Epsilon < 0 || math.IsNaN(c.Epsilon) || math.IsInf(c.Epsilon, 0) {
		return c, fieldErr("eps", "clip floor ε must be ≥ 0 and finite, found %v", c.Epsilon)
	}
	if c.Epsilon == 0 {
		c.Epsilon = c.Basis.DefaultEpsilon()
	}
	if !c.Basis.UsesBias() {
		c.NoBias = true
	}
	if c.Projection == features.Structured {
		c.OnDemand = false // nothing to store or regenerate: SORF is O(Y) anyway
	}
	if c.OnDemand && c.Projection == features.Orthogonal {
		return c, fieldErr("on_demand", "an orthogonal projection cannot be regenerated on demand (each D×D block costs O(D³) to redo at every evaluation); use the structured projection (SORF), orthogonal in O(Y) memory, or a stored orthogonal one")
	}
	return c, nil
}

// FeatureDim returns the length F of T: 2Y for SinCos and ExpExp, else Y
// (0 for MrDAM).
func (c Config) FeatureDim() int {
	if c.Rep != RepDrDAM {
		return 0
	}
	return c.Basis.Width(c.Y)
}

// String describes c in one line.
func (c Config) String() string {
	if c.Rep == RepMrDAM {
		return fmt.Sprintf("mrdam D=%d β=%g %v %v", c.D, c.Beta, c.Similarity, c.Precision)
	}
	bias := "bias"
	if c.NoBias {
		bias = "no bias"
	}
	proj := c.Projection.String()
	if c.OnDemand {
		proj += " (on demand)"
	}
	gen := ""
	if c.Projection == features.Gaussian || c.Projection == features.Orthogonal {
		gen = " generator=" + c.Generator.String()
	}
	return fmt.Sprintf("drdam D=%d β=%g %v basis=%v projection=%s Y=%d (F=%d) seed=%d%s ε=%g %s %v",
		c.D, c.Beta, c.Similarity, c.Basis, proj, c.Y, c.FeatureDim(), c.Seed, gen, c.Epsilon, bias, c.Precision)
}

// New returns an empty memory of the configured representation.
func New(c Config) (Memory, error) { return NewContext(context.Background(), c) }

// NewContext is New whose DrDAM reports the drawing of a seeded dense
// projection's rows to the progress function that ctx carries
// (features.WithGenerationProgress), whenever they are drawn. ctx is read
// for that value only: cancelling it stops nothing.
func NewContext(ctx context.Context, c Config) (Memory, error) {
	c, err := c.Validate()
	if err != nil {
		return nil, err
	}
	if c.Rep == RepMrDAM {
		return NewMrDAM(c)
	}
	return newSeededDrDAM(ctx, c)
}

// compatible reports whether memories of configurations a and b can be
// merged: everything but how they compute (precision, on-demand
// projection, memory budget) must match, since T and the patterns are
// float64 in both; the generator matters only for dense projections
// (structured ones draw the same under every version). If they cannot, the
// error says why.
func compatible(a, b Config) error {
	a0, b0 := a, b
	if a.Generator != b.Generator && (a.Projection == features.Gaussian || a.Projection == features.Orthogonal) && a.Projection == b.Projection {
		return fmt.Errorf("cannot merge memories whose %v projections were drawn by different generators (%v and %v): their random features differ, so their T cannot be added; rebuild one from its patterns with the other's generator",
			a.Projection, a.Generator, b.Generator)
	}
	a.Precision, b.Precision = 0, 0
	a.OnDemand, b.OnDemand = false, false
	a.MaxMemory, b.MaxMemory = 0, 0
	if a.Projection == features.Structured {
		a.Generator, b.Generator = 0, 0
	}
	if a != b {
		return fmt.Errorf("cannot merge memories of different configurations: %v and %v", a0, b0)
	}
	return nil
}
