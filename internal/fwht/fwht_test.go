package fwht

import (
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"testing"

	"github.com/drdam/drdam/internal/cpuid"
	"github.com/drdam/drdam/internal/simdtest"
)

type float interface{ float32 | float64 }

// unit returns the unit roundoff of T: 2^-24 or 2^-53.
func unit[T float]() float64 {
	var z T
	if _, ok := any(z).(float32); ok {
		return 0x1p-24
	}
	return 0x1p-53
}

// ops are the package's functions for T.
type ops[T float] struct {
	transform     func(x []T)
	signTransform func(x, s []T)
	transformSign func(x, s []T)
}

func opsFor[T float]() ops[T] {
	var z T
	switch any(z).(type) {
	case float32:
		return any(ops[float32]{Transform32, SignTransform32, TransformSign32}).(ops[T])
	default:
		return any(ops[float64]{Transform64, SignTransform64, TransformSign64}).(ops[T])
	}
}

func typeName[T float]() string {
	var z T
	if _, ok := any(z).(float32); ok {
		return "float32"
	}
	return "float64"
}

// randVec returns n values uniform in [−1, 1).
func randVec[T float](rng *rand.Rand, n int) []T {
	x := make([]T, n)
	for i := range x {
		x[i] = T(2*rng.Float64() - 1)
	}
	return x
}

// randSigns returns n random ±1.
func randSigns[T float](rng *rand.Rand, n int) []T {
	s := make([]T, n)
	for i := range s {
		s[i] = 1
		if rng.Uint64()&1 == 1 {
			s[i] = -1
		}
	}
	return s
}

// refTransform returns H_n·x from the definition, (H_n)_{ij} =
// (−1)^popcount(i&j), as float64 sums of n terms with Neumaier's
// compensated summation: the error of each output is below
// 2·2^-53·Σ|x_j| + O(n·2^-106)·Σ|x_j|, negligible next to the tolerances.
// It also returns Σ|x_j|.
func refTransform[T float](x []T) (y []float64, l1 float64) {
	n := len(x)
	y = make([]float64, n)
	for i := range n {
		var s, c float64
		for j, v := range x {
			t := float64(v)
			if bits.OnesCount(uint(i&j))&1 == 1 {
				t = -t
			}
			u := s + t
			if math.Abs(s) >= math.Abs(t) {
				c += (s - u) + t
			} else {
				c += (t - u) + s
			}
			s = u
		}
		y[i] = s + c
	}
	for _, v := range x {
		l1 += math.Abs(float64(v))
	}
	return y, l1
}

// gamma returns γ_k = k·u/(1 − k·u), the classic bound on the relative
// error of k successive roundings.
func gamma(k int, u float64) float64 { return float64(k) * u / (1 - float64(k)*u) }

// Tolerance against the definition. Output i of H_n·x is Σ_j ±x_j. The
// transform computes it by k = log2(n) butterfly stages, each of which
// rounds every element once: the in-vector stages compute x_a ± x_b
// exactly then round (an FMA with ±1 multiplies exactly), and the sign
// multiplies are exact. By the standard analysis of summation trees, the
// computed output is Σ_j ±x_j·(1+θ_j) with |θ_j| ≤ γ_k, so its error is at
// most γ_k·Σ_j|x_j| ≈ k·u·Σ|x_j| (u = 2^-24 for float32, 2^-53 for
// float64). The reference adds at most about 2u_64·Σ|x_j|; 3·2^-53·Σ|x_j|
// covers it with room.
func tolerance[T float](n int, l1 float64) float64 {
	return (gamma(log2(n), unit[T]()) + 3*0x1p-53) * l1
}

// worst records the largest error seen, in units of u·Σ|x_j| and of
// log2(n)·u·Σ|x_j| (the bound).
type worst struct{ ulps, ofBound float64 }

func (w *worst) add(err, l1, u float64, n int) {
	if l1 == 0 {
		return
	}
	r := err / (u * l1)
	w.ulps = max(w.ulps, r)
	if k := log2(n); k > 0 {
		w.ofBound = max(w.ofBound, r/float64(k))
	}
}

var smallLengths = func() []int {
	var ls []int
	for n := 1; n <= 2048; n *= 2 {
		ls = append(ls, n)
	}
	return ls
}()

func testDefinition[T float](t *testing.T) {
	o := opsFor[T]()
	u := unit[T]()
	simdtest.ForLevels(t, func(t *testing.T) {
		var w worst
		var e2, y2 float64 // squared errors and outputs at the largest n
		rng := rand.New(rand.NewPCG(1, 2))
		for _, n := range smallLengths {
			for _, off := range []int{0, 1} { // aligned and misaligned
				for _, mode := range []int{modeNone, modePre, modePost} {
					buf := randVec[T](rng, n+off+1)
					x := buf[off : off+n : off+n]
					s := randSigns[T](rng, n)
					var in []T
					if mode == modePre {
						in = make([]T, n)
						for i := range in {
							in[i] = x[i] * s[i]
						}
					} else {
						in = append([]T(nil), x...)
					}
					want, l1 := refTransform(in)
					if mode == modePost {
						for i := range want {
							want[i] *= float64(s[i])
						}
					}
					first, last := buf[0], buf[off+n]
					switch mode {
					case modeNone:
						o.transform(x)
					case modePre:
						o.signTransform(x, s)
					case modePost:
						o.transformSign(x, s)
					}
					if buf[off+n] != last || (off > 0 && buf[0] != first) {
						t.Fatalf("n=%d: wrote outside the slice", n)
					}
					tol := tolerance[T](n, l1)
					for i := range x {
						err := math.Abs(float64(x[i]) - want[i])
						w.add(err, l1, u, n)
						if n == smallLengths[len(smallLengths)-1] {
							e2 += err * err
							y2 += want[i] * want[i]
						}
						if !(err <= tol) {
							t.Fatalf("n=%d off=%d mode=%d: y[%d] = %g, want %g (error %g > %g)",
								n, off, mode, i, x[i], want[i], err, tol)
						}
					}
				}
			}
		}
		t.Logf("%s %v: largest error %.3g·u·Σ|x| (%.3g of the bound log2(n)·u·Σ|x|); n = %d: ‖error‖₂/‖y‖₂ = %.3g·u",
			typeName[T](), cpuid.Current(), w.ulps, w.ofBound, smallLengths[len(smallLengths)-1], math.Sqrt(e2/y2)/u)
	})
}

func TestDefinition32(t *testing.T) { testDefinition[float32](t) }
func TestDefinition64(t *testing.T) { testDefinition[float64](t) }

// testExact transforms small integers, whose partial sums are all exact,
// so that every level must give the definition's result exactly.
func testExact[T float](t *testing.T) {
	o := opsFor[T]()
	simdtest.ForLevels(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(3, 4))
		for n := 1; n <= 1<<12; n *= 2 {
			x := make([]T, n)
			for i := range x {
				x[i] = T(rng.IntN(17) - 8)
			}
			want, _ := refTransform(x)
			o.transform(x)
			for i := range x {
				if float64(x[i]) != want[i] {
					t.Fatalf("n=%d: y[%d] = %g, want %g", n, i, x[i], want[i])
				}
			}
		}
	})
}

func TestExact32(t *testing.T) { testExact[float32](t) }
func TestExact64(t *testing.T) { testExact[float64](t) }

var bigLengths = func() []int {
	var ls []int
	for n := 1; n <= 1<<16; n *= 2 {
		ls = append(ls, n)
	}
	return ls
}()

// testInvolution checks H_n·H_n = n·I. Normwise: every stage multiplies
// the 2-norm by √2 and rounds each element once (relative error ≤ u), and
// the later stages carry that error on with the same factor √2 per stage,
// so k = log2(n) stages err by at most k·u·√n·‖x‖₂ (to first order) and
// two transforms by 2k·u·n·‖x‖₂: ‖H(Hx) − n·x‖₂ ≤ 2k·u·‖n·x‖₂.
func testInvolution[T float](t *testing.T) {
	o := opsFor[T]()
	u := unit[T]()
	simdtest.ForLevels(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(5, 6))
		var worstRel float64
		for _, n := range bigLengths {
			x := randVec[T](rng, n)
			y := append([]T(nil), x...)
			o.transform(y)
			o.transform(y)
			var e2, x2 float64
			for i := range x {
				d := float64(y[i]) - float64(n)*float64(x[i])
				e2 += d * d
				x2 += float64(x[i]) * float64(x[i])
			}
			rel := math.Sqrt(e2/x2) / float64(n)
			k := log2(n)
			if k > 0 {
				worstRel = max(worstRel, rel/(float64(k)*u))
			}
			if !(rel <= 1.01*2*float64(k)*u) {
				t.Fatalf("n=%d: ‖HHx − nx‖/‖nx‖ = %g > 2·log2(n)·u = %g", n, rel, 2*float64(k)*u)
			}
		}
		t.Logf("%s %v: largest ‖HHx − nx‖₂/‖nx‖₂ = %.3g·log2(n)·u (bound 2)", typeName[T](), cpuid.Current(), worstRel)
	})
}

func TestInvolution32(t *testing.T) { testInvolution[float32](t) }
func TestInvolution64(t *testing.T) { testInvolution[float64](t) }

// testSigns checks SignTransform against a sign multiply and Transform
// (bit for bit: the multiply is exact and the stages are the same), and
// TransformSign against Transform and a sign multiply (the stage order
// differs, so each result is within γ_k·Σ|x_j| of the exact one and they
// differ by at most twice that).
func testSigns[T float](t *testing.T) {
	o := opsFor[T]()
	simdtest.ForLevels(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(7, 8))
		for _, n := range bigLengths {
			x := randVec[T](rng, n)
			s := randSigns[T](rng, n)

			a := append([]T(nil), x...)
			o.signTransform(a, s)
			b := make([]T, n)
			for i := range b {
				b[i] = x[i] * s[i]
			}
			o.transform(b)
			for i := range a {
				if a[i] != b[i] {
					t.Fatalf("n=%d: SignTransform y[%d] = %g, sign multiply + Transform %g", n, i, a[i], b[i])
				}
			}

			a = append(a[:0], x...)
			o.transformSign(a, s)
			b = append(b[:0], x...)
			o.transform(b)
			var l1 float64
			for i := range x {
				b[i] *= s[i]
				l1 += math.Abs(float64(x[i]))
			}
			tol := 2 * gamma(log2(n), unit[T]()) * l1
			for i := range a {
				if d := math.Abs(float64(a[i]) - float64(b[i])); !(d <= tol) {
					t.Fatalf("n=%d: TransformSign y[%d] = %g, Transform + sign multiply %g", n, i, a[i], b[i])
				}
			}
		}
	})
}

func TestSigns32(t *testing.T) { testSigns[float32](t) }
func TestSigns64(t *testing.T) { testSigns[float64](t) }

// TestLevelsAgree checks that the vector levels give the portable
// results up to rounding, at the larger lengths the definition test does
// not reach.
func TestLevelsAgree(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, n := range []int{1 << 12, 1 << 14, 1 << 15, 1 << 17} {
		x := randVec[float32](rng, n)
		prev := cpuid.Set(cpuid.Portable)
		want := append([]float32(nil), x...)
		Transform32(want)
		cpuid.Set(prev)
		var l1 float64
		for _, v := range x {
			l1 += math.Abs(float64(v))
		}
		tol := 2 * gamma(log2(n), 0x1p-24) * l1
		simdtest.ForLevels(t, func(t *testing.T) {
			y := append([]float32(nil), x...)
			Transform32(y)
			for i := range y {
				if d := math.Abs(float64(y[i]) - float64(want[i])); !(d <= tol) {
					t.Fatalf("n=%d: y[%d] = %g, portable %g", n, i, y[i], want[i])
				}
			}
		})
	}
}

func TestPanics(t *testing.T) {
	mustPanic := func(name string, f func()) {
		t.Helper()
		defer func() {
			if recover() == nil {
				t.Errorf("%s did not panic", name)
			}
		}()
		f()
	}
	for _, n := range []int{0, 3, 6, 12, 1000} {
		x32, x64 := make([]float32, n), make([]float64, n)
		mustPanic(fmt.Sprint("Transform32 n=", n), func() { Transform32(x32) })
		mustPanic(fmt.Sprint("Transform64 n=", n), func() { Transform64(x64) })
		mustPanic(fmt.Sprint("SignTransform32 n=", n), func() { SignTransform32(x32, x32) })
		mustPanic(fmt.Sprint("SignTransform64 n=", n), func() { SignTransform64(x64, x64) })
		mustPanic(fmt.Sprint("TransformSign32 n=", n), func() { TransformSign32(x32, x32) })
		mustPanic(fmt.Sprint("TransformSign64 n=", n), func() { TransformSign64(x64, x64) })
	}
	x32, x64 := make([]float32, 16), make([]float64, 16)
	mustPanic("SignTransform32 short s", func() { SignTransform32(x32, x32[:8]) })
	mustPanic("SignTransform64 long s", func() { SignTransform64(x64[:8], x64) })
	mustPanic("TransformSign32 short s", func() { TransformSign32(x32, x32[:15]) })
	mustPanic("TransformSign64 nil s", func() { TransformSign64(x64, nil) })
}

func TestAllocs(t *testing.T) {
	simdtest.ForLevels(t, func(t *testing.T) {
		for _, n := range []int{1, 4, 64, 1 << 10, 1 << 14} {
			x32, s32 := make([]float32, n), make([]float32, n)
			x64, s64 := make([]float64, n), make([]float64, n)
			fs := map[string]func(){
				"Transform32":     func() { Transform32(x32) },
				"Transform64":     func() { Transform64(x64) },
				"SignTransform32": func() { SignTransform32(x32, s32) },
				"SignTransform64": func() { SignTransform64(x64, s64) },
				"TransformSign32": func() { TransformSign32(x32, s32) },
				"TransformSign64": func() { TransformSign64(x64, s64) },
			}
			// a caller's array must not escape to the heap
			fs["Transform32 (array)"] = func() {
				var a [256]float32
				Transform32(a[:])
			}
			fs["SignTransform64 (array)"] = func() {
				var a, b [256]float64
				SignTransform64(a[:], b[:])
			}
			for name, f := range fs {
				if a := testing.AllocsPerRun(20, f); a != 0 {
					t.Errorf("%s(n=%d): %v allocations", name, n, a)
				}
			}
		}
	})
}
