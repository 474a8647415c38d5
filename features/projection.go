package features

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/drdam/drdam/internal/qr"
	"github.com/drdam/drdam/internal/rng"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// Projection is a linear map W: R^D → R^Y whose row α is the random vector
// ω^α. Implementations work on row ranges [lo, hi) so that callers can
// stream over Y in blocks. Both methods panic if a slice has the wrong
// length (a programmer error); they must be safe for concurrent use.
type Projection interface {
	// Dims returns Y (rows) and D (columns).
	Dims() (y, d int)
	// Project writes H = X·W[lo:hi]ᵀ into dst: x is B×D and dst is
	// B×(hi−lo), both row-major, with B = len(x)/D.
	Project(dst, x []float64, lo, hi int)
	// ProjectTAdd adds G·W[lo:hi] to dst: g is B×(hi−lo) and dst is B×D,
	// both row-major, with B = len(dst)/D.
	ProjectTAdd(dst, g []float64, lo, hi int)
}

// ProjectionKind says how a projection's rows are drawn.
type ProjectionKind int

// Projection kinds. External marks a matrix supplied by the caller (for
// example read from the peers' S.npy); it cannot be regenerated from a seed.
const (
	Gaussian   ProjectionKind = iota + 1 // iid N(0, 1) entries
	Orthogonal                           // ORF: χ(D)-scaled Haar-orthogonal D×D blocks
	External                             // a matrix given by the caller
	Structured                           // SORF: S·H D₁ H D₂ H D₃ blocks, S_ii ~ χ(N) (O(Y log D) per product)
)

// Generator is the version of the algorithm that draws the Gaussian
// entries of seeded dense projections (Gaussian, and the Gaussian blocks
// of Orthogonal): part of a model's identity, since model files store the
// seed and not the projection. Package internal/rng pins both versions.
// Structured (SORF) projections draw only signs and norms, the same under
// both.
type Generator int

// Generator versions.
const (
	// GeneratorV1 draws PCG-DXSM words through Marsaglia's polar method
	// (rng.Stream.Normals), one value after another: the projections of
	// models saved in file format version 1.
	GeneratorV1 Generator = 1
	// GeneratorV2 is counter-based (rng.NormalsV2): moremur-mixed words
	// through the Box–Muller transform, with pinned polynomials, value n
	// of a row depending on (seed, row, n) alone; vectorized (AVX-512,
	// AVX2), about twenty times faster than version 1.
	GeneratorV2 Generator = 2
	// DefaultGenerator is the generator of new models.
	DefaultGenerator = GeneratorV2
)

// Valid reports whether g is a known generator version.
func (g Generator) Valid() bool { return g == GeneratorV1 || g == GeneratorV2 }

// String returns "v1" or "v2".
func (g Generator) String() string {
	if !g.Valid() {
		return fmt.Sprintf("Generator(%d)", int(g))
	}
	return fmt.Sprintf("v%d", int(g))
}

// Summary describes the algorithm of g in a few words, for messages.
func (g Generator) Summary() string {
	switch g {
	case GeneratorV1:
		return "PCG-DXSM, Marsaglia polar method"
	case GeneratorV2:
		return "counter-based moremur, Box–Muller, vectorized"
	}
	return "unknown"
}

// orDefault returns g, or DefaultGenerator for the zero value, checking
// it.
func (g Generator) orDefault() (Generator, error) {
	if g == 0 {
		return DefaultGenerator, nil
	}
	if !g.Valid() {
		return 0, fmt.Errorf("unknown generator version %d (want 1 or 2)", int(g))
	}
	return g, nil
}

// kindFacts are the facts of one projection kind.
type kindFacts struct {
	name    string
	aliases []string // other names ParseProjectionKind accepts
	// new returns the projection of this kind drawn from seed with the
	// generator gen, storing nothing that it can regenerate (nil for
	// External).
	new func(gen Generator, seed uint64, y, d int) (Projection, error)
}

// kinds is the one table of the projection kinds. Adding a seeded kind is
// its constant, an entry here and its implementation; package dam computes
// with any projection that can write out its rows (RowSource).
var kinds = [...]kindFacts{
	Gaussian:   {"gaussian", []string{"iid", "dense"}, seededKind(Gaussian)},
	Orthogonal: {"orthogonal", []string{"orf"}, seededKind(Orthogonal)},
	External:   {name: "external"},
	Structured: {"structured", []string{"sorf"}, func(_ Generator, seed uint64, y, d int) (Projection, error) { return NewSORF(seed, y, d) }},
}

func seededKind(k ProjectionKind) func(gen Generator, seed uint64, y, d int) (Projection, error) {
	return func(gen Generator, seed uint64, y, d int) (Projection, error) { return NewSeeded(k, gen, seed, y, d) }
}

// String returns the kind's name as the command line spells it.
func (k ProjectionKind) String() string {
	if !k.Valid() {
		return fmt.Sprintf("ProjectionKind(%d)", int(k))
	}
	return kinds[k].name
}

// ProjectionKinds returns the kinds that can be generated from a seed, in
// the order of the table (gaussian, orthogonal, structured), which is that
// of the experiments' tables.
func ProjectionKinds() []ProjectionKind {
	return inTable(len(kinds), func(k ProjectionKind) bool { return kinds[k].new != nil })
}

// ProjectionNames returns the names of ProjectionKinds as a list for
// messages and help texts: "gaussian, orthogonal or structured".
func ProjectionNames() string { return orList(ProjectionKinds()) }

// ParseProjectionKind returns the seeded kind named s: gaussian (or iid,
// dense), orthogonal (or orf) or structured (or sorf).
func ParseProjectionKind(s string) (ProjectionKind, error) {
	for _, k := range ProjectionKinds() {
		if strings.EqualFold(s, k.String()) || slices.ContainsFunc(kinds[k].aliases, func(a string) bool { return strings.EqualFold(s, a) }) {
			return k, nil
		}
	}
	return 0, fmt.Errorf("unknown projection %q: want %s", s, ProjectionNames())
}

// MarshalText returns the kind's name (its String, never an alias), so
// that a kind reads and writes as text in JSON (paper's config.json). The
// zero value, which a dam.Config reads as its default, is unset and
// writes as "". Only the kinds that ParseProjectionKind reads back
// (ProjectionKinds) have a name: any other value, External included, is
// an error.
func (k ProjectionKind) MarshalText() ([]byte, error) {
	if k == 0 {
		return []byte{}, nil
	}
	if !k.Valid() || kinds[k].new == nil {
		return nil, fmt.Errorf("projection kind %v has no text: want %s", k, ProjectionNames())
	}
	return []byte(k.String()), nil
}

// UnmarshalText sets k to the kind named by text, read as
// ParseProjectionKind reads it (aliases included, with its error); an
// empty text is the zero value, unset.
func (k *ProjectionKind) UnmarshalText(text []byte) error {
	if len(text) == 0 {
		*k = 0
		return nil
	}
	x, err := ParseProjectionKind(string(text))
	if err != nil {
		return err
	}
	*k = x
	return nil
}

// Valid reports whether k is a known kind.
func (k ProjectionKind) Valid() bool { return k > 0 && int(k) < len(kinds) && kinds[k].name != "" }

// NewProjection returns the Y×D projection of the seeded kind drawn from
// seed with the generator gen (0 means DefaultGenerator): the one
// constructor that models and experiments share. Dense kinds (Gaussian,
// Orthogonal) come as a Seeded projection that stores nothing (models lay
// its rows out once, see package dam); Structured as a SORF, which is the
// same under every generator.
func NewProjection(kind ProjectionKind, gen Generator, seed uint64, y, d int) (Projection, error) {
	if !kind.Valid() || kinds[kind].new == nil {
		return nil, fmt.Errorf("projection kind %v cannot be generated from a seed", kind)
	}
	gen, err := gen.orDefault()
	if err != nil {
		return nil, err
	}
	return kinds[kind].new(gen, seed, y, d)
}

// NewProjectionContext is NewProjection whose seeded projection reports
// the drawing of its rows to the function that ctx carries
// (WithGenerationProgress), if any.
func NewProjectionContext(ctx context.Context, kind ProjectionKind, gen Generator, seed uint64, y, d int) (Projection, error) {
	p, err := NewProjection(kind, gen, seed, y, d)
	if s, ok := p.(*Seeded); ok {
		s.Progress = GenerationProgress(ctx)
	}
	return p, err
}

// RowSource is a projection whose rows can be written out: models use it to
// build their own compute layout without holding a float64 copy of W.
type RowSource interface {
	Projection
	// Rows writes the rows [lo, hi) of W into dst, row-major
	// ((hi−lo)×D). It must be safe for concurrent use.
	Rows(dst []float64, lo, hi int)
}

// Seeded is a projection of a seeded kind that stores nothing: its rows are
// regenerated from the seed whenever they are needed (the paper's
// Algorithm 1, which keeps memory at O(Y + D)). Project and ProjectTAdd
// regenerate the rows they use on every call, so they are slow; models
// call Rows (or, for a Gaussian projection of generator version 2,
// RowGroup32 and RowGroup64) once to build their own layout. Its rows
// are those of the generator Gen: a model's projection is identified by
// (Kind, Gen, Seed, Y, D).
type Seeded struct {
	Kind ProjectionKind // Gaussian or Orthogonal
	Gen  Generator      // GeneratorV1 or GeneratorV2
	Seed uint64
	Y, D int
	// Progress, if not nil, receives GenerationReports as the rows are
	// drawn, from whichever goroutines draw them (it must be safe for
	// concurrent use, and quick). It changes nothing that is drawn.
	// NewProjectionContext sets it from the context.
	Progress func(GenerationReport)
}

// NewSeeded returns the seeded projection drawn with the generator gen (0
// means DefaultGenerator), checking its parameters.
func NewSeeded(kind ProjectionKind, gen Generator, seed uint64, y, d int) (*Seeded, error) {
	if y <= 0 || d <= 0 {
		return nil, fmt.Errorf("projection dimensions must be positive, found Y=%d, D=%d", y, d)
	}
	if kind != Gaussian && kind != Orthogonal {
		return nil, fmt.Errorf("projection kind %v cannot be generated from a seed", kind)
	}
	gen, err := gen.orDefault()
	if err != nil {
		return nil, err
	}
	return &Seeded{Kind: kind, Gen: gen, Seed: seed, Y: y, D: d}, nil
}

// Dims returns Y and D.
func (s *Seeded) Dims() (y, d int) { return s.Y, s.D }

// Rows writes the rows [lo, hi) into dst ((hi−lo)×D, row-major), bit for
// bit the rows of NewGaussian or NewOrthogonal with the same generator and
// seed. Row α of a Gaussian projection is the stream
// (seed, rng.StreamGaussianRow|α); block k of an orthogonal one is made
// from the first D² values of the stream (seed, rng.StreamOrthoBlock|k).
// It panics if s.Gen is not a valid generator.
func (s *Seeded) Rows(dst []float64, lo, hi int) {
	d := s.D
	if lo < 0 || hi > s.Y || lo > hi || len(dst) != (hi-lo)*d {
		panic(fmt.Sprintf("features: Rows(%d values, [%d, %d)) of a %d×%d projection", len(dst), lo, hi, s.Y, d))
	}
	if !s.Gen.Valid() {
		panic(fmt.Sprintf("features: Rows of a projection with generator %d", int(s.Gen)))
	}
	hook := s.Progress
	report := func(rows float64) {
		if hook != nil {
			hook(GenerationReport{Kind: s.Kind, Gen: s.Gen, Seed: s.Seed, Y: s.Y, D: d, Rows: rows})
		}
	}
	if s.Kind == Gaussian {
		var st rng.Stream
		last := lo
		for a := lo; a < hi; a++ {
			row := dst[(a-lo)*d : (a-lo+1)*d]
			if s.Gen == GeneratorV2 {
				rng.NormalsV2(row, s.Seed, rng.StreamGaussianRow|uint64(a))
			} else {
				st.Reset(s.Seed, rng.StreamGaussianRow|uint64(a))
				st.Normals(row)
			}
			if hook != nil && (a+1-last)*d >= reportEntries {
				report(float64(a + 1 - last))
				last = a + 1
			}
		}
		if last < hi {
			report(float64(hi - last))
		}
		return
	}
	var st rng.Stream
	var w *qr.Work // generator 2's Householder workspace
	g := make([]float64, d*d)
	norms := make([]float64, d)
	for k := lo / d; k*d < hi; k++ {
		r0, r1 := max(lo, k*d), min(hi, (k+1)*d)
		var part func(frac float64)
		if hook != nil {
			// The block's rows are worth r1−r0 rows of the projection;
			// report them as its Gram–Schmidt advances.
			reported := 0.0
			part = func(frac float64) {
				v := frac * float64(r1-r0)
				report(v - reported)
				reported = v
			}
		}
		if s.Gen == GeneratorV2 {
			if w == nil {
				w = qr.NewWork(d)
			}
			orthoBlockQR(g, norms, d, s.Seed, k, w, part)
		} else {
			st.Reset(s.Seed, rng.StreamOrthoBlock|uint64(k))
			st.Normals(g)
			orthoBlock(g, norms, d, part)
		}
		copy(dst[(r0-lo)*d:(r1-lo)*d], g[(r0-k*d)*d:(r1-k*d)*d])
	}
}

// Interleaves reports whether RowGroup32 and RowGroup64 can write the
// rows of s: a Gaussian projection of generator version 2, whose rows are
// drawn independently, in the vector lanes of the generator.
func (s *Seeded) Interleaves() bool { return s.Kind == Gaussian && s.Gen == GeneratorV2 }

// RowGroup32 writes the 16 rows [lo, lo+16) of s (all below Y),
// interleaved column by column: dst[16c + i] = float32(W[lo+i][c]) for
// c < D (the float64 rows of Rows, converted), and 0 for D ≤ c < D16, D16
// being D rounded up to a multiple of 16; dst has 16·D16 values. It is
// the layout of a panel of package dam's float32 kernels, written without
// a row-major copy. It panics unless s.Interleaves(); it is safe for
// concurrent use and does not allocate.
func (s *Seeded) RowGroup32(dst []float32, lo int) {
	d16 := s.checkGroup(len(dst), lo, 16)
	var st [16]uint64
	for i := range st {
		st[i] = rng.StreamGaussianRow | uint64(lo+i)
	}
	rng.NormalsV2Interleaved32(dst, s.Seed, &st, d16)
	clear(dst[16*s.D : 16*d16])
	s.reportGroup(16)
}

// RowGroup64 is RowGroup32 for 8 rows in float64: dst[8c + i] =
// W[lo+i][c], with 8·D16 values.
func (s *Seeded) RowGroup64(dst []float64, lo int) {
	d16 := s.checkGroup(len(dst), lo, 8)
	var st [8]uint64
	for i := range st {
		st[i] = rng.StreamGaussianRow | uint64(lo+i)
	}
	rng.NormalsV2Interleaved64(dst, s.Seed, &st, d16)
	clear(dst[8*s.D : 8*d16])
	s.reportGroup(8)
}

// checkGroup checks the arguments of RowGroup32 or RowGroup64 (l rows)
// and returns D16.
func (s *Seeded) checkGroup(n, lo, l int) int {
	d16 := (s.D + 15) &^ 15
	if !s.Interleaves() || lo < 0 || lo+l > s.Y || n != l*d16 {
		panic(fmt.Sprintf("features: RowGroup(%d values, row %d) of a %d×%d %v projection of generator %v", n, lo, s.Y, s.D, s.Kind, s.Gen))
	}
	return d16
}

func (s *Seeded) reportGroup(rows int) {
	if s.Progress != nil {
		s.Progress(GenerationReport{Kind: s.Kind, Gen: s.Gen, Seed: s.Seed, Y: s.Y, D: s.D, Rows: float64(rows)})
	}
}

// GenerationReport says how far the drawing of a seeded dense projection
// (Gaussian or Orthogonal, through Seeded.Rows) has come: Rows more rows'
// worth of work are done. The reports of one full generation of a
// projection (Kind, Seed, Y, D) add up to Y. An orthogonal block of D rows
// is a Gram–Schmidt of a D×D Gaussian matrix, O(D³): at D = 12288 it
// takes minutes, so its rows are reported as it advances.
type GenerationReport struct {
	Kind ProjectionKind
	Gen  Generator
	Seed uint64
	Y, D int
	Rows float64
}

// reportEntries is about how many projection entries (Y·D) are drawn
// between two reports: a few milliseconds of work.
const reportEntries = 1 << 20

// progressKey is the context key of the progress function
// (WithGenerationProgress).
type progressKey struct{}

// WithGenerationProgress returns a copy of ctx that carries fn: the seeded
// projections that NewProjectionContext makes with it report to fn as
// their rows are drawn (see Seeded.Progress), as net/http/httptrace's
// traces travel with a request. A command uses it to show progress on long
// generations (an orthogonal projection at D = 12288 takes minutes).
func WithGenerationProgress(ctx context.Context, fn func(GenerationReport)) context.Context {
	return context.WithValue(ctx, progressKey{}, fn)
}

// GenerationProgress returns the progress function that ctx carries, or
// nil.
func GenerationProgress(ctx context.Context) func(GenerationReport) {
	fn, _ := ctx.Value(progressKey{}).(func(GenerationReport))
	return fn
}

// Project writes X·W[lo:hi]ᵀ into dst, regenerating the rows.
func (s *Seeded) Project(dst, x []float64, lo, hi int) {
	w, _ := NewDense(s.rows(lo, hi), hi-lo, s.D)
	w.Project(dst, x, 0, hi-lo)
}

// ProjectTAdd adds G·W[lo:hi] to dst, regenerating the rows.
func (s *Seeded) ProjectTAdd(dst, g []float64, lo, hi int) {
	w, _ := NewDense(s.rows(lo, hi), hi-lo, s.D)
	w.ProjectTAdd(dst, g, 0, hi-lo)
}

func (s *Seeded) rows(lo, hi int) []float64 {
	w := make([]float64, (hi-lo)*s.D)
	s.Rows(w, lo, hi)
	return w
}

// Dense is a projection stored as a row-major Y×D matrix.
type Dense struct {
	y, d int
	w    []float64
}

// NewDense returns a projection that uses w, a row-major y×d matrix, without
// copying it.
func NewDense(w []float64, y, d int) (*Dense, error) {
	if y <= 0 || d <= 0 {
		return nil, fmt.Errorf("projection dimensions must be positive, found %d×%d", y, d)
	}
	if len(w) != y*d {
		return nil, fmt.Errorf("projection matrix has %d entries, want %d×%d = %d", len(w), y, d, y*d)
	}
	for i, v := range w {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("projection matrix row %d, column %d (counted from 1): %v", i/d+1, i%d+1, v)
		}
	}
	return &Dense{y: y, d: d, w: w}, nil
}

// NewGaussian returns the y×d projection with iid standard normal entries
// drawn from seed with the generator gen (0 means DefaultGenerator),
// stored. Row α depends only on (gen, seed, α). It panics if gen is not
// valid.
func NewGaussian(gen Generator, seed uint64, y, d int) *Dense {
	return materialize(Gaussian, gen, seed, y, d)
}

// NewOrthogonal returns the y×d orthogonal random projection (ORF) drawn
// from seed with the generator gen (0 means DefaultGenerator), stored:
// ⌈y/d⌉ independent blocks χ(d)·Q, stacked and truncated to y rows.
// Block k depends only on (gen, seed, k). It panics if gen is not valid.
func NewOrthogonal(gen Generator, seed uint64, y, d int) *Dense {
	return materialize(Orthogonal, gen, seed, y, d)
}

// materialize generates the rows of a seeded dense kind into a Dense, on
// every core: whole blocks of rows (D rows for Orthogonal) per part, so
// that no block is generated twice.
func materialize(kind ProjectionKind, gen Generator, seed uint64, y, d int) *Dense {
	s, err := NewSeeded(kind, gen, seed, y, d)
	if err != nil {
		panic(fmt.Sprintf("features: New%s: %v", kinds[kind].name, err))
	}
	p := &Dense{y: y, d: d, w: make([]float64, y*d)}
	rows := 1
	if kind == Orthogonal {
		rows = d
	}
	parallelRange((y+rows-1)/rows, func(lo, hi int) {
		r0, r1 := lo*rows, min(y, hi*rows)
		s.Rows(p.w[r0*d:r1*d], r0, r1)
	})
	return p
}

// orthoBlock replaces the Gaussian d×d matrix g by χ(d)·Q: its rows,
// orthonormalized by modified Gram–Schmidt, each scaled by the norm of its
// Gaussian row. Every operation is either exactly rounded or a math.FMA, in
// a fixed order, so the result is the same on every machine.
func orthoBlock(g, norms []float64, d int, part func(frac float64)) {
	// Row i of the Gram–Schmidt costs about i+1 products of length d: the
	// work done before it is i(i+1)/2 of d(d+1)/2. Blocks of fewer than
	// 256 rows take milliseconds and report only at their end.
	total := d * (d + 1) / 2
	step, next := max(total/64, 1), total/64
	for i := range d {
		if done := i * (i + 1) / 2; part != nil && d >= 256 && done >= next {
			part(float64(done) / float64(total))
			next = done + step
		}
		v := g[i*d : (i+1)*d]
		norms[i] = math.Sqrt(dotFMA(v, v))
		for j := range i {
			q := g[j*d : (j+1)*d]
			r := -dotFMA(v, q)
			for t := range v {
				v[t] = math.FMA(r, q[t], v[t])
			}
		}
		n := math.Sqrt(dotFMA(v, v))
		for t := range v {
			v[t] /= n
		}
	}
	for i := range d {
		v := g[i*d : (i+1)*d]
		for t := range v {
			v[t] *= norms[i]
		}
	}
	if part != nil {
		part(1)
	}
}

// dotFMA returns ⟨a, b⟩ summed with four FMA chains in a fixed order.
func dotFMA(a, b []float64) float64 {
	var s0, s1, s2, s3 float64
	n := len(a) &^ 3
	for i := 0; i < n; i += 4 {
		s0 = math.FMA(a[i], b[i], s0)
		s1 = math.FMA(a[i+1], b[i+1], s1)
		s2 = math.FMA(a[i+2], b[i+2], s2)
		s3 = math.FMA(a[i+3], b[i+3], s3)
	}
	for i := n; i < len(a); i++ {
		s0 = math.FMA(a[i], b[i], s0)
	}
	return (s0 + s1) + (s2 + s3)
}

// NewBias returns y shifts drawn uniformly from [0, 2π) from seed.
func NewBias(seed uint64, y int) []float64 {
	s := rng.New(seed, rng.StreamBias)
	b := make([]float64, y)
	for i := range b {
		b[i] = 2 * math.Pi * s.Float64()
	}
	return b
}

// MaxDenseEntries is the largest Y·D of a dense projection that models
// store (package dam refuses larger ones): 2³² values.
const MaxDenseEntries = 1 << 32

// Dims returns Y and D.
func (p *Dense) Dims() (y, d int) { return p.y, p.d }

// Rows copies the rows [lo, hi) into dst.
func (p *Dense) Rows(dst []float64, lo, hi int) {
	if lo < 0 || hi > p.y || lo > hi || len(dst) != (hi-lo)*p.d {
		panic(fmt.Sprintf("features: Rows(%d values, [%d, %d)) of a %d×%d projection", len(dst), lo, hi, p.y, p.d))
	}
	copy(dst, p.w[lo*p.d:hi*p.d])
}

// Matrix returns the row-major Y×D matrix; the caller must not modify it.
func (p *Dense) Matrix() []float64 { return p.w }

// Project writes X·W[lo:hi]ᵀ into dst (B×(hi−lo)); x is B×D.
func (p *Dense) Project(dst, x []float64, lo, hi int) {
	b, n := p.check(x, dst, lo, hi)
	if b == 0 || n == 0 {
		return
	}
	blas64.Gemm(blas.NoTrans, blas.Trans, 1,
		blas64.General{Rows: b, Cols: p.d, Stride: p.d, Data: x},
		blas64.General{Rows: n, Cols: p.d, Stride: p.d, Data: p.w[lo*p.d : hi*p.d]},
		0, blas64.General{Rows: b, Cols: n, Stride: n, Data: dst})
}

// ProjectTAdd adds G·W[lo:hi] to dst (B×D); g is B×(hi−lo).
func (p *Dense) ProjectTAdd(dst, g []float64, lo, hi int) {
	b, n := p.check(dst, g, lo, hi)
	if b == 0 || n == 0 {
		return
	}
	blas64.Gemm(blas.NoTrans, blas.NoTrans, 1,
		blas64.General{Rows: b, Cols: n, Stride: n, Data: g},
		blas64.General{Rows: n, Cols: p.d, Stride: p.d, Data: p.w[lo*p.d : hi*p.d]},
		1, blas64.General{Rows: b, Cols: p.d, Stride: p.d, Data: dst})
}

// check validates a B×D and a B×(hi−lo) buffer and returns B and hi−lo.
func (p *Dense) check(bd, bn []float64, lo, hi int) (b, n int) {
	if lo < 0 || hi > p.y || lo > hi {
		panic(fmt.Sprintf("features: row range [%d, %d) outside [0, %d)", lo, hi, p.y))
	}
	if len(bd)%p.d != 0 {
		panic(fmt.Sprintf("features: buffer of %d values is not B×%d", len(bd), p.d))
	}
	b, n = len(bd)/p.d, hi-lo
	if len(bn) != b*n {
		panic(fmt.Sprintf("features: buffer of %d values, want %d×%d", len(bn), b, n))
	}
	return b, n
}

// parallelRange splits [0, n) into contiguous parts, one per available CPU,
// and runs f on each concurrently. Results must not depend on the split.
func parallelRange(n int, f func(lo, hi int)) {
	w := min(runtime.GOMAXPROCS(0), n)
	if w <= 1 {
		f(0, n)
		return
	}
	var wg sync.WaitGroup
	for i := range w {
		lo, hi := i*n/w, (i+1)*n/w
		wg.Go(func() { f(lo, hi) })
	}
	wg.Wait()
}
