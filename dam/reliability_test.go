package dam

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/drdam/drdam/features"
)

// TestHostileValues: values whose squared norm, features or dot weight
// would overflow are refused with their row and column, the memory is left
// as it was, and it still saves and loads.
func TestHostileValues(t *testing.T) {
	const d = 4
	xi := grayPatterns(3, 5, d)
	for _, c := range []Config{
		{Rep: RepMrDAM, D: d, Beta: 10},
		{Rep: RepMrDAM, D: d, Beta: 10, Similarity: Dot, Precision: Float32},
		{D: d, Beta: 10, Y: 32, Seed: 1},
		{D: d, Beta: 10, Y: 32, Seed: 1, Precision: Float32},
		{D: d, Beta: 10, Y: 32, Seed: 1, Similarity: Dot},
		{D: d, Beta: 10, Y: 32, Seed: 1, Basis: features.ExpExp},
		{D: d, Beta: 10, Y: 32, Seed: 1, Projection: features.Structured, Precision: Float32},
	} {
		m, err := New(c)
		if err != nil {
			t.Fatal(err)
		}
		if err := m.Add(xi); err != nil {
			t.Fatal(err)
		}
		before := encode(t, m)
		for _, tc := range []struct {
			name string
			row  []float64
			want string
		}{
			{"1e308", []float64{0, 1e308, 0, 0}, "row 2 is too large"},
			{"1e200", []float64{0, 0, -1e200, 0}, "column 3 is -1e+200"},
			{"float32 range", []float64{3e18, 0, 0, 0}, "row 2 is too large"},
			{"NaN", []float64{0, math.NaN(), 0, 0}, "row 2, column 2 is NaN"},
		} {
			if tc.name == "float32 range" && c.Precision != Float32 {
				continue // 3e18 is a value a float64 model computes with
			}
			pats := append(slices.Clone(xi[:d]), tc.row...)
			err := m.Add(pats)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%v: Add(%s): err = %v, want one containing %q", c, tc.name, err, tc.want)
			}
			q := append(slices.Clone(xi[:d]), tc.row...)
			if err := m.EnergyGrad(make([]float64, 2), nil, q); err == nil || !strings.Contains(err.Error(), strings.Replace(tc.want, "row 2", "row 2", 1)) {
				t.Errorf("%v: EnergyGrad(%s): err = %v, want one containing %q", c, tc.name, err, tc.want)
			}
		}
		if c.Rep == RepDrDAM && c.Similarity == Dot {
			// 1e30 passes the overflow check of a float64 model but not
			// the dot weight's: exp(β·10⁶⁰/2) would drown T.
			err := m.Add([]float64{1e30, 0, 0, 0})
			if err == nil || !strings.Contains(err.Error(), "β‖ξ‖²/2") {
				t.Errorf("%v: Add(1e30): err = %v, want the dot weight refused", c, err)
			}
		}
		if after := encode(t, m); !bytes.Equal(after, before) {
			t.Errorf("%v: a refused Add changed the memory", c)
		}
		if _, err := decode(t, before); err != nil {
			t.Errorf("%v: the model no longer loads: %v", c, err)
		}
	}
}

// TestWriteRefusesWhatLoadRefuses: a DrDAM whose T was made non-finite
// behind the API's back is not written.
func TestWriteRefusesWhatLoadRefuses(t *testing.T) {
	m := mustDrDAM(t, Config{D: 3, Beta: 2, Y: 8}, grayPatterns(1, 2, 3))
	m.t[5] = math.NaN()
	var buf bytes.Buffer
	if err := Write(&buf, m); err == nil || !strings.Contains(err.Error(), "NaN at index 5") {
		t.Errorf("Write of a NaN T: err = %v", err)
	}
}

// TestBudget: every representation and projection is checked against the
// memory budget before it allocates, with an error that names what is
// large and the Config field that lowers it.
func TestBudget(t *testing.T) {
	const mib = 1 << 20
	for _, tc := range []struct {
		name  string
		c     Config
		field string
	}{
		{"dense", Config{D: 1000, Beta: 1, Y: 100000, MaxMemory: 64 * mib}, "Y"},
		{"dense float32", Config{D: 1000, Beta: 1, Y: 100000, Precision: Float32, MaxMemory: 64 * mib}, "Y"},
		{"orthogonal", Config{D: 4000, Beta: 1, Y: 16, Projection: features.Orthogonal, MaxMemory: 64 * mib}, "Y"},
		{"on demand", Config{D: 10, Beta: 1, Y: 4e9, OnDemand: true}, "Y"},
		{"structured", Config{D: 10, Beta: 1, Y: 4e9, Projection: features.Structured}, "Y"},
		{"structured small budget", Config{D: 10, Beta: 1, Y: 1e7, Projection: features.Structured, MaxMemory: 64 * mib}, "Y"},
	} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err := New(tc.c)
		runtime.ReadMemStats(&after)
		var be *BudgetError
		if !errors.As(err, &be) || be.Field != tc.field {
			t.Errorf("%s: err = %v, want a BudgetError on %s", tc.name, err, tc.field)
			continue
		}
		if !strings.Contains(err.Error(), "more than the memory budget") {
			t.Errorf("%s: message %q", tc.name, err)
		}
		// The refusal comes before any large allocation: 1 MiB covers
		// the formatting of the message.
		if got := after.TotalAlloc - before.TotalAlloc; got > mib {
			t.Errorf("%s: refusing allocated %d bytes", tc.name, got)
		}
	}
	// An MrDAM grows with its patterns: the budget stops the growth.
	m, err := New(Config{Rep: RepMrDAM, D: 100, Beta: 1, MaxMemory: mib})
	if err != nil {
		t.Fatal(err)
	}
	var be *BudgetError
	if err := m.Add(make([]float64, 100*1000)); !errors.As(err, &be) || be.Field != "K" {
		t.Errorf("MrDAM over budget: err = %v, want a BudgetError on K", err)
	}
	if m.Len() != 0 {
		t.Errorf("a refused Add stored %d patterns", m.Len())
	}
	// The estimate is an upper bound on what a model really allocates:
	// checked on one of each kind, small enough for the test.
	for _, c := range []Config{
		{D: 300, Beta: 1, Y: 5000},
		{D: 300, Beta: 1, Y: 5000, Precision: Float32},
		{D: 301, Beta: 1, Y: 700, Projection: features.Orthogonal},
		{D: 300, Beta: 1, Y: 5000, Projection: features.Structured},
		{Rep: RepMrDAM, D: 300, Beta: 1},
	} {
		k := 0
		if c.Rep == RepMrDAM {
			k = 2000
		}
		pats := make([]float64, k*c.D) // the caller's, not the model's
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		m, err := New(c)
		if err != nil {
			t.Fatal(err)
		}
		if k > 0 {
			if err := m.Add(pats); err != nil {
				t.Fatal(err)
			}
		}
		m.EnergyGrad(make([]float64, 1), nil, make([]float64, c.D))
		runtime.ReadMemStats(&after)
		fp := EstimateFootprint(c, k)
		// The evaluation's own workspace (one query) and the runtime's
		// bookkeeping are outside the estimate: 1 MiB covers them.
		if got := float64(after.TotalAlloc - before.TotalAlloc); got > fp.Bytes+mib {
			t.Errorf("%v: allocated %.1f MiB, estimate %.1f MiB", c, got/mib, fp.Bytes/mib)
		}
	}
}

// TestOrthogonalOddD: an orthogonal projection of D not a multiple of 16
// used to be generated in chunks of 16 blocks (16·D² values) whatever Y.
func TestOrthogonalOddD(t *testing.T) {
	const d, y = 501, 16
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if _, err := New(Config{D: d, Beta: 1, Y: y, Projection: features.Orthogonal}); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	// One D×D block, its norms and Y rows of float64, and the Householder
	// QR's workspace (generator 2: a copy of the block padded to a
	// multiple of 8 columns, as D is odd, and panels of 3·32 rows), twice
	// for slack: the old chunking took 16·D² values, four times this bound.
	const dp = (d + 7) &^ 7
	if got, limit := after.TotalAlloc-before.TotalAlloc, uint64(2*8*(d*d+dp*dp+3*32*dp+d+y*d)); got > limit {
		t.Errorf("allocated %d KiB, want at most %d KiB", got>>10, limit>>10)
	}
}

// header returns a sealed model file with the given header fields and a
// payload of zeros (a valid empty T for the trigonometric bases).
func sealedFile(t *testing.T, basis, proj byte, d, y uint64) []byte {
	t.Helper()
	n := 2 * y // sincos
	b := make([]byte, fileHeaderSize+8*n+fileTrailer)
	copy(b, fileMagic)
	binary.LittleEndian.PutUint32(b[8:], FileVersion)
	b[12], b[13], b[14], b[15], b[16], b[17] = byte(RepDrDAM), byte(L2), basis, proj, byte(Float64), flagBias
	b[18] = byte(features.DefaultGenerator)
	binary.LittleEndian.PutUint64(b[24:], d)
	binary.LittleEndian.PutUint64(b[32:], y)
	binary.LittleEndian.PutUint64(b[40:], math.Float64bits(1))
	binary.LittleEndian.PutUint64(b[48:], math.Float64bits(1e-5))
	binary.LittleEndian.PutUint64(b[80:], n)
	binary.LittleEndian.PutUint32(b[len(b)-4:], crcOf(b[:len(b)-4]))
	return b
}

// TestCraftedHeaders: the two model files that asked for tens of GB (a
// 348-byte orthogonal one with D = 16133 that FuzzReadSealed found, and a
// 3.3 KB dense one with Y·D close to 2³²) are refused under a budget
// before anything large is allocated; ReadHeader describes them without
// building anything.
func TestCraftedHeaders(t *testing.T) {
	for _, tc := range []struct {
		name string
		b    []byte
	}{
		{"orthogonal D=16133", sealedFile(t, byte(features.SinCos), byte(features.Orthogonal), 16133, 16)},
		{"dense Y·D≈2³²", sealedFile(t, byte(features.SinCos), byte(features.Gaussian), 21_000_000, 200)},
	} {
		_, err := decode(t, tc.b) // fails t if it allocates beyond the budget
		var be *BudgetError
		if !errors.As(err, &be) {
			t.Errorf("%s (%d bytes): err = %v, want a BudgetError", tc.name, len(tc.b), err)
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		h, err := ReadHeader(bytes.NewReader(tc.b), int64(len(tc.b)))
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Errorf("%s: ReadHeader: %v", tc.name, err)
		}
		if h.Config.D < 16133 {
			t.Errorf("%s: header D = %d", tc.name, h.Config.D)
		}
		if got := after.TotalAlloc - before.TotalAlloc; got > 1<<20 {
			t.Errorf("%s: ReadHeader allocated %d KiB", tc.name, got>>10)
		}
	}
}

// TestEstimateEval: the estimate of an evaluation's workspace bounds what
// an evaluation allocates once the model's compute state is built (a
// first evaluation of one query, whose workspace is then dropped), for
// each kind of block source, both precisions, small and large batches,
// with and without the gradient. Measured, the estimate is 1.5 to 20
// times what is allocated (it takes every job's buffers at their
// largest, and full blocks).
func TestEstimateEval(t *testing.T) {
	type dropper interface{ DropWorkspaces() }
	for _, c := range []Config{
		{D: 300, Beta: 1, Y: 5000},
		{D: 300, Beta: 1, Y: 5000, Precision: Float32},
		{D: 40, Beta: 1, Y: 3000, OnDemand: true},
		{D: 300, Beta: 1, Y: 5000, Projection: features.Structured},
		{D: 300, Beta: 1, Y: 5000, Projection: features.Structured, Basis: features.Exp},
		{Rep: RepMrDAM, D: 300, Beta: 1},
		{Rep: RepMrDAM, D: 300, Beta: 1, Precision: Float32},
	} {
		for _, b := range []int{1, 16, 200} {
			for _, grad := range []bool{false, true} {
				m, err := New(c)
				if err != nil {
					t.Fatal(err)
				}
				if err := m.Add(make([]float64, 50*c.D)); err != nil {
					t.Fatal(err)
				}
				m.EnergyGrad(make([]float64, 1), nil, make([]float64, c.D))
				m.(dropper).DropWorkspaces()
				x := make([]float64, b*c.D)
				e := make([]float64, b)
				var g []float64
				if grad {
					g = make([]float64, b*c.D)
				}
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				if err := m.EnergyGrad(e, g, x); err != nil {
					t.Fatal(err)
				}
				runtime.ReadMemStats(&after)
				got, est := float64(after.TotalAlloc-before.TotalAlloc), EstimateEval(c, 50, b, grad)
				// Not so loose as to refuse what fits: at most 50 times
				// what is allocated, and 1 MiB (a small model's blocks
				// are smaller than the full blocks the estimate takes).
				if got > est || est > 50*got+1<<20 {
					t.Errorf("%v, b = %d, grad %v: allocated %.0f KiB, estimate %.0f KiB: want within [allocated, 50·allocated + 1 MiB]", c, b, grad, got/1024, est/1024)
				}
			}
		}
	}
}
