package vmath

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/drdam/drdam/internal/simdtest"
)

var lengths = []int{0, 1, 7, 15, 16, 17, 31, 33, 1000, 1001}

const guard = 3 // sentinel elements on each side of every output

var (
	nan32  = float32(math.NaN())
	inf32  = float32(math.Inf(1))
	negz32 = float32(math.Copysign(0, -1))
	negz64 = math.Copysign(0, -1)
)

// guarded returns a slice of n elements inside a larger one filled with a
// sentinel, and a function checking that the sentinels are untouched.
func guarded[T float32 | float64](t *testing.T, n int) ([]T, func()) {
	buf := make([]T, n+2*guard)
	const sentinel = 12345.678
	for i := range buf {
		buf[i] = sentinel
	}
	return buf[guard : guard+n : guard+n], func() {
		t.Helper()
		for i := range guard {
			if buf[i] != sentinel || buf[guard+n+i] != sentinel {
				t.Fatalf("length %d: write out of bounds", n)
			}
		}
	}
}

func appendNeighbours32(xs []float32, v float32) []float32 {
	return append(xs, v, -v, math.Nextafter32(v, inf32), math.Nextafter32(v, -inf32))
}

func appendNeighbours64(xs []float64, v float64) []float64 {
	return append(xs, v, -v, math.Nextafter(v, math.Inf(1)), math.Nextafter(v, math.Inf(-1)))
}

// Inputs of the elementwise tests: special values, then random ones.

func sinInputs32() []float32 {
	xs := []float32{0, negz32, inf32, -inf32, nan32, 1e-45, 1e-38, 1e-10, 1e-4, 1, 1e4, 1e5, 1e6, 3e7,
		1e30, math.MaxFloat32, 0x1p20, 0x1p24, 12345.678}
	xs = appendNeighbours32(xs, 0x1p20)
	xs = appendNeighbours32(xs, 1e4)
	// multiples of π/4 (reduction boundaries at the odd ones), small and
	// near 1e4, 1e5 and the end of the fast range
	for _, k0 := range []int{0, 12700, 127300, 1335000} {
		for k := k0; k < k0+64; k++ {
			xs = appendNeighbours32(xs, float32(float64(k)*math.Pi/4))
		}
	}
	rng := rand.New(rand.NewPCG(1, 32))
	for range 20000 {
		xs = append(xs, float32(rng.Float64()*2e4-1e4), float32(rng.Float64()*400-200),
			float32(rng.Float64()*4-2), float32(math.Copysign(math.Pow(10, rng.Float64()*8-4), rng.Float64()-0.5)))
	}
	for range 2000 {
		xs = append(xs, float32(rng.Float64()*2e6-1e6), float32(rng.NormFloat64()*1e30))
	}
	return xs
}

func sinInputs64() []float64 {
	xs := []float64{0, negz64, math.Inf(1), math.Inf(-1), math.NaN(), 5e-324, 1e-300, 1e-10, 1, 1e4, 1e9,
		1e300, math.MaxFloat64, 0x1p29, 0x1p30, math.Pi, math.Pi / 2, math.Pi / 4}
	xs = appendNeighbours64(xs, 0x1p29)
	for _, k0 := range []int{0, 12700, 1e8, 683565275} {
		for k := k0; k < k0+64; k++ {
			xs = appendNeighbours64(xs, float64(k)*math.Pi/4)
		}
	}
	rng := rand.New(rand.NewPCG(1, 64))
	for range 20000 {
		xs = append(xs, rng.Float64()*2e4-1e4, rng.Float64()*400-200, rng.Float64()*4-2,
			math.Copysign(math.Pow(10, rng.Float64()*12-4), rng.Float64()-0.5))
	}
	for range 2000 {
		xs = append(xs, (rng.Float64()*2-1)*0x1p29, rng.NormFloat64()*1e30)
	}
	return xs
}

func expInputs32() []float32 {
	xs := []float32{0, negz32, inf32, -inf32, nan32, 1e-45, -1e-45, 1e-8, 1, -1, 88, 88.72, 88.7228, 88.73, 89, 89.1, 100,
		-87.33, -87.34, -100, -103.9, -103.972, -103.98, -104, -104.1, -150, math.MaxFloat32, -math.MaxFloat32}
	// reduction boundaries (j+1/2)·ln2
	for j := -151; j <= 129; j++ {
		xs = appendNeighbours32(xs, float32((float64(j)+0.5)*math.Ln2))
	}
	rng := rand.New(rand.NewPCG(2, 32))
	for range 30000 {
		xs = append(xs, float32(rng.Float64()*200-108), float32(-rng.ExpFloat64()*10), float32(rng.Float64()*2-1))
	}
	return xs
}

func expInputs64() []float64 {
	xs := []float64{0, negz64, math.Inf(1), math.Inf(-1), math.NaN(), 5e-324, 1e-17, 1, -1, 709, 709.78, 709.7827, 709.79,
		710, 710.1, -708.39, -708.4, -745, -745.13, -745.14, -746, -746.1, -1000, math.MaxFloat64, -math.MaxFloat64}
	for j := -1077; j <= 1025; j++ {
		xs = appendNeighbours64(xs, (float64(j)+0.5)*math.Ln2)
	}
	rng := rand.New(rand.NewPCG(2, 64))
	for range 30000 {
		xs = append(xs, rng.Float64()*1470-750, -rng.ExpFloat64()*10, rng.Float64()*2-1)
	}
	return xs
}

// Error measures.

// ulp32 returns the spacing of float32 values at |v| (at least that of
// the subnormals).
func ulp32(v float64) float64 {
	_, e := math.Frexp(math.Abs(v))
	return math.Ldexp(1, max(e-24, -149))
}

func ulp64(v float64) float64 {
	_, e := math.Frexp(math.Abs(v))
	return math.Ldexp(1, max(e-53, -1074))
}

func sameNaN(a, b float64) bool { return math.IsNaN(a) && math.IsNaN(b) }

// sinCosErr32 is the max absolute error of sin and cos of x, or +Inf for a
// wrong special value. Zero results must keep the sign of math.Sincos.
func sinCosErr32(x, s, c float32) float64 {
	ws, wc := math.Sincos(float64(x))
	if math.IsNaN(ws) {
		if sameNaN(float64(s), ws) && sameNaN(float64(c), wc) {
			return 0
		}
		return math.Inf(1)
	}
	if ws == 0 && (s != 0 || math.Signbit(float64(s)) != math.Signbit(ws)) {
		return math.Inf(1)
	}
	return max(math.Abs(float64(s)-ws), math.Abs(float64(c)-wc))
}

// sinCosErr64 is the error in ulps of the results of math.Sincos.
func sinCosErr64(x, s, c float64) float64 {
	ws, wc := math.Sincos(x)
	if math.IsNaN(ws) {
		if sameNaN(s, ws) && sameNaN(c, wc) {
			return 0
		}
		return math.Inf(1)
	}
	if ws == 0 && (s != 0 || math.Signbit(s) != math.Signbit(ws)) {
		return math.Inf(1)
	}
	return max(math.Abs(s-ws)/ulp64(ws), math.Abs(c-wc)/ulp64(wc))
}

// Double-double arithmetic for refExp.

func twoSum(a, b float64) (s, e float64) {
	s = a + b
	bb := s - a
	return s, (a - (s - bb)) + (b - bb)
}

func ddAdd(ah, al, bh, bl float64) (float64, float64) {
	s, e := twoSum(ah, bh)
	return twoSum(s, e+al+bl)
}

func ddMul(ah, al, bh, bl float64) (float64, float64) {
	// Explicit float64 conversions round each product, so that no compiler
	// fuses them into FMAs (Go does on arm64), which would break the
	// error-free transformations.
	p := float64(ah * bh)
	e := math.FMA(ah, bh, -p)
	return twoSum(p, e+float64(ah*bl)+float64(al*bh))
}

// refExp returns e^x as an unevaluated sum h + l accurate to about 2^-100
// relative where the result is normal (math.Exp on amd64 is off by up to
// 2 ulp and overflows early, near 709.78): x/ln2 is reduced with a
// double-double ln2 and the Taylor series of e^r summed in double-double.
func refExp(x float64) (h, l float64) { return refExpScaled(x, 0) }

// refExpScaled returns refExp(x)·2^e.
func refExpScaled(x float64, e int) (h, l float64) {
	switch {
	case math.IsNaN(x):
		return x, 0
	case x > 710:
		return math.Inf(1), 0
	case x < -746:
		return 0, 0
	}
	const (
		ln2h = 0x1.62e42fefa39efp-1
		ln2l = 0x1.abc9e3b39803fp-56
	)
	k := math.Round(x / math.Ln2)
	rh, rl := ddMul(-k, 0, ln2h, ln2l)
	rh, rl = ddAdd(x, 0, rh, rl)
	sh, sl := 1.0, 0.0
	th, tl := 1.0, 0.0
	for i := 1; i < 30; i++ {
		th, tl = ddMul(th, tl, rh, rl)
		q := th / float64(i)
		p := float64(q * float64(i))
		rem := (th - p - math.FMA(q, float64(i), -p) + tl) / float64(i)
		th, tl = twoSum(q, rem)
		sh, sl = ddAdd(sh, sl, th, tl)
	}
	h = math.Ldexp(sh+sl, int(k)+e)
	if math.IsInf(h, 0) || h < 0x1p-968 {
		return h, 0
	}
	return h, math.Ldexp(sl-(sh+sl-sh), int(k)+e)
}

// expErr32 is the error of e^x in ulps of the result (in units of the
// smallest subnormal for subnormal results), or +Inf for a wrong special
// value.
func expErr32(x, y float32) float64 {
	want, wantLo := refExp(float64(x))
	got := float64(y)
	switch {
	case math.IsNaN(want):
		if math.IsNaN(got) {
			return 0
		}
		return math.Inf(1)
	case math.IsInf(got, 1):
		if want >= math.MaxFloat32*(1-0x1p-23) {
			return 0
		}
		return math.Inf(1)
	case want >= math.MaxFloat32:
		// the correctly rounded result is MaxFloat32 or +Inf
		return math.Abs(got-want) / ulp32(math.MaxFloat32)
	}
	return math.Abs(got-want-wantLo) / ulp32(want)
}

func expErr64(x, y float64) float64 {
	want, wantLo := refExp(x)
	switch {
	case math.IsNaN(want):
		if math.IsNaN(y) {
			return 0
		}
		return math.Inf(1)
	case math.IsInf(want, 1) || math.IsInf(y, 1):
		if want == y {
			return 0
		}
		return math.Inf(1)
	}
	if want < 0x1p-968 && want >= 0x1p-1022 {
		// the low part of want is not representable: scale up
		h, l := refExpScaled(x, 200)
		return math.Abs(math.Ldexp(y, 200)-h-l) / ulp64(h)
	}
	return math.Abs(y-want-wantLo) / ulp64(want)
}

// Elementwise tests.

// errStats records the max error within and beyond an argument range.
type errStats struct {
	in, out   float64
	inX, outX float64
}

func (e *errStats) add(inRange bool, x, err float64) {
	if inRange {
		if err > e.in {
			e.in, e.inX = err, x
		}
	} else if err > e.out {
		e.out, e.outX = err, x
	}
}

// TestSinCos32: an absolute error of at most 2e-7 everywhere (float32's
// half-ulp at 1 is 6e-8).
func TestSinCos32(t *testing.T) {
	testSinCos(t, sinInputs32(), SinCos32, func(t *testing.T, st *errStats, x, s, c float32) {
		err := sinCosErr32(x, s, c)
		st.add(math.Abs(float64(x)) <= 1e4, float64(x), err)
		if err > 2e-7 {
			t.Fatalf("SinCos32(%g) = %g, %g: error %g", x, s, c, err)
		}
	}, "max abs error %.3g (x = %g) for |x| <= 1e4, %.3g (x = %g) beyond")
}

// TestSinCos64: at most 2 ulp of math.Sincos for |x| ≤ 2^29, and exactly
// math.Sincos beyond (the kernel hands those lanes to it).
func TestSinCos64(t *testing.T) {
	testSinCos(t, sinInputs64(), SinCos64, func(t *testing.T, st *errStats, x, s, c float64) {
		err := sinCosErr64(x, s, c)
		ax := math.Abs(x)
		st.add(ax <= 0x1p29, x, err)
		if ax <= 0x1p29 && err > 2 || ax > 0x1p29 && err != 0 {
			ws, wc := math.Sincos(x)
			t.Fatalf("SinCos64(%g) = %g, %g, want %g, %g: error %g ulp", x, s, c, ws, wc, err)
		}
	}, "max error %.3g ulp of math.Sincos (x = %g) for |x| <= 2^29, %.3g (x = %g) beyond")
}

// testSinCos runs sincos at every level on xs, and on slices of every
// length at several offsets into guarded outputs and in place (the sine,
// then the cosine, written over the input), checking each value with
// check and logging the largest errors with the format report.
func testSinCos[T float32 | float64](t *testing.T, xs []T, sincos func(s, c, x []T), check func(t *testing.T, st *errStats, x, s, c T), report string) {
	simdtest.ForLevels(t, func(t *testing.T) {
		var st errStats
		checkAll := func(x, s, c []T) {
			t.Helper()
			for i := range x {
				check(t, &st, x[i], s[i], c[i])
			}
		}
		s, c := make([]T, len(xs)), make([]T, len(xs))
		sincos(s, c, xs)
		checkAll(xs, s, c)
		for _, n := range lengths {
			for _, off := range []int{0, 5, 3 * len(xs) / 4} {
				x := xs[off : off+n]
				s, okS := guarded[T](t, n)
				c, okC := guarded[T](t, n)
				sincos(s, c, x)
				okS()
				okC()
				checkAll(x, s, c)
				y := append([]T(nil), x...)
				sincos(y, c, y)
				checkAll(x, y, c)
				copy(y, x)
				sincos(s, y, y)
				checkAll(x, s, y)
			}
		}
		t.Logf(report, st.in, st.inX, st.out, st.outX)
	})
}

func TestExp32(t *testing.T) { testExp(t, expInputs32(), Exp32, expErr32, 0x1p-126) }
func TestExp64(t *testing.T) { testExp(t, expInputs64(), Exp64, expErr64, 0x1p-1022) }

// testExp checks exp (Exp32 or Exp64) on the inputs xs at every level: at
// most 2 ulp (errf) where e^x is normal (at least tiny), 1 subnormal unit
// below; over the whole set, and over slices of every length at several
// offsets, into guarded output and in place.
func testExp[T float32 | float64](t *testing.T, xs []T, exp func(dst, x []T), errf func(x, y T) float64, tiny float64) {
	simdtest.ForLevels(t, func(t *testing.T) {
		var st errStats
		check := func(x, y []T) {
			t.Helper()
			for i := range x {
				err := errf(x[i], y[i])
				ref, _ := refExp(float64(x[i]))
				normal := ref >= tiny
				st.add(normal, float64(x[i]), err)
				if normal && err > 2 || !normal && err > 1 {
					t.Fatalf("Exp(%g) = %g, want %g: error %g", x[i], y[i], ref, err)
				}
			}
		}
		y := make([]T, len(xs))
		exp(y, xs)
		check(xs, y)
		for _, n := range lengths {
			for _, off := range []int{0, 5, 3 * len(xs) / 4} {
				x := xs[off : off+n]
				y, ok := guarded[T](t, n)
				exp(y, x)
				ok()
				check(x, y)
				y = append(y[:0:0], x...)
				exp(y, y)
				check(x, y)
			}
		}
		t.Logf("max error %.3g ulp (x = %g) for normal results, %.3g subnormal units (x = %g) below", st.in, st.inX, st.out, st.outX)
	})
}

// Block kernels.

type blockCase struct {
	n, q int
}

func blockCases(qs []int) []blockCase {
	var cs []blockCase
	for _, q := range qs {
		for _, n := range []int{1, 3, 17} {
			cs = append(cs, blockCase{n, q})
		}
	}
	return cs
}

// Each block case also runs with an odd q, which takes the portable path.
var (
	blockCases32 = blockCases([]int{16, 32, 48, 12})
	blockCases64 = blockCases([]int{8, 16, 24, 6})
)

// phases fills h with phases: mostly |v| <= 200, some up to 1e4, and a few
// far beyond the fast range.
func phases(rng *rand.Rand, h []float64) {
	for i := range h {
		switch u := rng.IntN(100); {
		case u < 80:
			h[i] = rng.Float64()*400 - 200
		case u < 97:
			h[i] = rng.Float64()*2e4 - 1e4
		case u < 98:
			h[i] = float64(rng.IntN(10000)) * math.Pi / 4
		default:
			h[i] = rng.NormFloat64() * 1e9
		}
	}
}

func uniform(rng *rand.Rand, n int, lo, hi float64) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = lo + (hi-lo)*rng.Float64()
	}
	return v
}

func to32(v []float64) []float32 {
	if v == nil {
		return nil
	}
	w := make([]float32, len(v))
	for i, x := range v {
		w[i] = float32(x)
	}
	return w
}

func to64(v []float32) []float64 {
	if v == nil {
		return nil
	}
	w := make([]float64, len(v))
	for i, x := range v {
		w[i] = float64(x)
	}
	return w
}

// trigRef is the float64 reference of TrigBlock for phases v(r, l), with,
// per output, the sum of |coefficient|·dv(r, l) (dv a bound on the error of
// the sine and cosine of v) and the sum of the |coefficients|.
func trigRef(tc, ts, acc []float64, n, q int, v, dv func(r, l int) float64) (href, accRef, hErr, accErr, hMag, accMag []float64) {
	href = make([]float64, n*q)
	accRef = append([]float64(nil), acc...)
	hErr, hMag = make([]float64, n*q), make([]float64, n*q)
	accErr, accMag = make([]float64, q), make([]float64, q)
	for l := range q {
		accMag[l] = math.Abs(acc[l])
	}
	for r := range n {
		var s float64
		if ts != nil {
			s = ts[r]
		}
		c := tc[r]
		for l := range q {
			i := r*q + l
			sn, cs := math.Sincos(v(r, l))
			accRef[l] += c*cs + s*sn
			href[i] = s*cs - c*sn
			m := math.Abs(c) + math.Abs(s)
			e := m * dv(r, l)
			hErr[i] = e
			hMag[i] = m
			accErr[l] += e
			accMag[l] += m
		}
	}
	return
}

// trigInputs returns random inputs of TrigBlock for n rows of q lanes:
// phases h, shifts (nil without bias), the factors tc and ts (nil without
// ts) and the accumulator.
func trigInputs(rng *rand.Rand, n, q int, withBias, withTs bool) (h, bias, tc, ts, acc []float64) {
	h = make([]float64, n*q)
	phases(rng, h)
	if withBias {
		bias = uniform(rng, n, -math.Pi, math.Pi)
	}
	if withTs {
		ts = uniform(rng, n, -1, 1)
	}
	return h, bias, uniform(rng, n, -1, 1), ts, uniform(rng, q, -10, 10)
}

func TestTrigBlock32(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 32))
	simdtest.ForLevels(t, func(t *testing.T) {
		var maxRatio, maxH, maxAcc float64
		for _, bc := range blockCases32 {
			for _, withBias := range []bool{false, true} {
				for _, withTs := range []bool{false, true} {
					n, q := bc.n, bc.q
					h64, bias64, tc64, ts64, acc64 := trigInputs(rng, n, q, withBias, withTs)
					h, bias, tc, ts, acc := to32(h64), to32(bias64), to32(tc64), to32(ts64), to32(acc64)
					h64, bias64, tc64, ts64, acc64 = to64(h), to64(bias), to64(tc), to64(ts), to64(acc)
					v := func(r, l int) float64 {
						v := h64[r*q+l]
						if bias64 != nil {
							v += bias64[r]
						}
						return v
					}
					v32 := func(r, l int) float64 { return float64(float32(v(r, l))) }
					// Tolerance. v = h + bias is rounded to float32 (error
					// dv = |v32 − v|, computed exactly here), and sin, cos
					// of the rounded v are within 2e-7 (SinCos32), so each
					// of c, s is within dv + 2e-7 of the reference: an
					// output gets (|tc|+|ts|)·(dv + 2e-7). Its own rounding
					// (a product and an FMA, or two products and a sum)
					// adds at most 2 ulp ≤ 2^-23·(|tc|+|ts|); acc adds n
					// rows of at most 4 roundings each, bounded by
					// 4n·2^-24·(|acc0| + Σ(|tc|+|ts|)).
					dv := func(r, l int) float64 { return math.Abs(v32(r, l)-v(r, l)) + 2e-7 }
					href, accRef, hErr, accErr, hMag, accMag := trigRef(tc64, ts64, acc64, n, q, v, dv)
					// The same with v rounded in the reference (dv = 0):
					// the error of the kernel proper.
					const sinErr = 2e-7
					href32, accRef32, hErr32, accErr32, _, _ := trigRef(tc64, ts64, acc64, n, q, v32, func(int, int) float64 { return sinErr })
					TrigBlock32(h, bias, tc, ts, acc, q)
					for i := range h {
						tol := hErr[i] + 0x1p-23*hMag[i]
						tol32 := hErr32[i] + 0x1p-23*hMag[i]
						err := math.Abs(float64(h[i]) - href[i])
						err32 := math.Abs(float64(h[i]) - href32[i])
						maxRatio, maxH = max(maxRatio, err/tol, err32/tol32), max(maxH, err32)
						if !(err <= tol && err32 <= tol32) {
							t.Fatalf("n=%d q=%d bias=%v ts=%v: h[%d] = %g, want %g ± %g (%g ± %g with v rounded)",
								n, q, withBias, withTs, i, h[i], href[i], tol, href32[i], tol32)
						}
					}
					for l := range acc {
						round := float64(4*n+1) * 0x1p-24 * accMag[l]
						tol, tol32 := accErr[l]+round, accErr32[l]+round
						err := math.Abs(float64(acc[l]) - accRef[l])
						err32 := math.Abs(float64(acc[l]) - accRef32[l])
						maxRatio, maxAcc = max(maxRatio, err/tol, err32/tol32), max(maxAcc, err32)
						if !(err <= tol && err32 <= tol32) {
							t.Fatalf("n=%d q=%d bias=%v ts=%v: acc[%d] = %g, want %g ± %g (%g ± %g with v rounded)",
								n, q, withBias, withTs, l, acc[l], accRef[l], tol, accRef32[l], tol32)
						}
					}
				}
			}
		}
		t.Logf("max abs error against the reference at the rounded phases: h %.3g, acc %.3g; max error/tolerance %.3g", maxH, maxAcc, maxRatio)
	})
}

func TestTrigBlock64(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 64))
	simdtest.ForLevels(t, func(t *testing.T) {
		var maxRel float64
		for _, bc := range blockCases64 {
			for _, withBias := range []bool{false, true} {
				for _, withTs := range []bool{false, true} {
					n, q := bc.n, bc.q
					h, bias, tc, ts, acc := trigInputs(rng, n, q, withBias, withTs)
					v := func(r, l int) float64 {
						if bias != nil {
							return h[r*q+l] + bias[r]
						}
						return h[r*q+l]
					}
					href, accRef, _, _, _, _ := trigRef(tc, ts, acc, n, q, v, func(int, int) float64 { return 0 })
					TrigBlock64(h, bias, tc, ts, acc, q)
					for i := range h {
						rel := math.Abs(h[i]-href[i]) / (math.Abs(href[i]) + 1)
						maxRel = max(maxRel, rel)
						if !(rel <= 1e-14) {
							t.Fatalf("n=%d q=%d: h[%d] = %g, want %g", n, q, i, h[i], href[i])
						}
					}
					for l := range acc {
						rel := math.Abs(acc[l]-accRef[l]) / (math.Abs(accRef[l]) + 1)
						maxRel = max(maxRel, rel)
						if !(rel <= 1e-14) {
							t.Fatalf("n=%d q=%d: acc[%d] = %g, want %g", n, q, l, acc[l], accRef[l])
						}
					}
				}
			}
		}
		t.Logf("max error relative to |result|+1: %.3g", maxRel)
	})
}

// scores returns random inputs of the positive bases: h, lt, ltm (nil
// unless expexp) and a starting m. Some lt, ltm and m are −Inf.
func scores(rng *rand.Rand, n, q int, expexp bool) (h, lt, ltm, m []float64) {
	h = uniform(rng, n*q, -50, 50)
	lt = uniform(rng, n, -20, 5)
	if expexp {
		ltm = uniform(rng, n, -20, 5)
	}
	m = uniform(rng, q, -20, 60)
	for r := range n {
		if rng.IntN(4) == 0 {
			lt[r] = math.Inf(-1)
		}
		if expexp && rng.IntN(4) == 0 {
			ltm[r] = math.Inf(-1)
		}
	}
	for l := range q {
		if rng.IntN(3) == 0 {
			m[l] = math.Inf(-1)
		}
	}
	return
}

func TestExpBlockMax(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 0))
	simdtest.ForLevels(t, func(t *testing.T) {
		for _, bc := range append(blockCases32, blockCases64...) {
			for _, expexp := range []bool{false, true} {
				n, q := bc.n, bc.q
				h, lt, ltm, m := scores(rng, n, q, expexp)
				if n == 1 {
					lt[0] = math.Inf(-1) // every score −Inf
					if expexp {
						ltm[0] = math.Inf(-1)
					}
				}
				// float32: exactly the float32 formula, which is within
				// half an ulp of the float64 one.
				h32, lt32, ltm32, m32 := to32(h), to32(lt), to32(ltm), to32(m)
				want32 := append([]float32(nil), m32...)
				expBlockMaxGo(want32, h32, lt32, ltm32, q)
				ExpBlockMax32(m32, h32, lt32, ltm32, q)
				for l := range m32 {
					if math.Float32bits(m32[l]) != math.Float32bits(want32[l]) {
						t.Fatalf("float32 n=%d q=%d expexp=%v: m[%d] = %g, want %g", n, q, expexp, l, m32[l], want32[l])
					}
				}
				if q%8 == 0 || q == 6 {
					want := append([]float64(nil), m...)
					for r := range n {
						for l := range q {
							want[l] = max(want[l], h[r*q+l]+lt[r])
							if expexp {
								want[l] = max(want[l], ltm[r]-h[r*q+l])
							}
						}
					}
					ExpBlockMax64(m, h, lt, ltm, q)
					for l := range m {
						if m[l] != want[l] {
							t.Fatalf("float64 n=%d q=%d expexp=%v: m[%d] = %g, want %g", n, q, expexp, l, m[l], want[l])
						}
					}
				}
			}
		}
	})
}

// weightsRef is the float64 reference of ExpBlockWeights, with the
// tolerances described in TestExpBlockWeights32 (relative error rel(r,
// l, minus) of each weight).
func weightsRef(sum, h, lt, ltm, m []float64, q int, rel func(r, l int, minus bool) float64) (href, sumRef, hTol, sumTol []float64) {
	n := len(h) / q
	href = make([]float64, len(h))
	hTol = make([]float64, len(h))
	sumRef = append([]float64(nil), sum...)
	sumTol = make([]float64, q)
	sumMag := make([]float64, q)
	for l := range q {
		sumMag[l] = math.Abs(sum[l])
	}
	w := func(a, m float64) float64 {
		if math.IsInf(a, -1) {
			return 0
		}
		return math.Exp(a - m)
	}
	for r := range n {
		for l := range q {
			i := r*q + l
			wp := w(h[i]+lt[r], m[l])
			tp := wp * rel(r, l, false)
			var wm, tm float64
			if ltm != nil {
				wm = w(ltm[r]-h[i], m[l])
				tm = wm * rel(r, l, true)
			}
			sumRef[l] += wp + wm
			href[i] = wp - wm
			hTol[i] = tp + tm + 0x1p-24*math.Abs(wp-wm)
			sumTol[l] += tp + tm
			sumMag[l] += wp + wm
		}
	}
	for l := range q {
		sumTol[l] += float64(2*n+1) * 0x1p-24 * sumMag[l]
	}
	return
}

func TestExpBlockWeights32(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 32))
	simdtest.ForLevels(t, func(t *testing.T) {
		var maxRatio, maxRelW, maxUlpW float64
		for _, bc := range blockCases32 {
			for _, expexp := range []bool{false, true} {
				n, q := bc.n, bc.q
				h64, lt64, ltm64, _ := scores(rng, n, q, expexp)
				if n == 1 {
					lt64[0] = math.Inf(-1)
					if expexp {
						ltm64[0] = math.Inf(-1)
					}
				}
				h, lt, ltm := to32(h64), to32(lt64), to32(ltm64)
				m := make([]float32, q)
				for l := range m {
					m[l] = float32(math.Inf(-1))
				}
				expBlockMaxGo(m, h, lt, ltm, q)
				sum := to32(uniform(rng, q, 0, 3))
				h64, lt64, ltm64 = to64(h), to64(lt), to64(ltm)
				m64, sum64 := to64(m), to64(sum)
				// Tolerance. The exponent d = a − m is computed as
				// fl32(fl32(h + lt) − m); its error dd (computed exactly
				// here) makes a relative error dd in w, to which Exp32
				// adds 2 ulp (2^-22 relative, taken as 2.5·2^-23); h adds
				// an ulp for w+ − w-, and sum 2n+1 roundings of at most
				// 2^-24·(|sum0| + Σ w).
				rel := func(r, l int, minus bool) float64 {
					var a float64
					if minus {
						a = ltm64[r] - h64[r*q+l]
					} else {
						a = h64[r*q+l] + lt64[r]
					}
					if math.IsInf(a, -1) {
						return 0
					}
					d := float64(float32(float64(float32(a)) - m64[l]))
					dd := math.Abs(d - (a - m64[l]))
					return dd*1.01 + 2.5*0x1p-23
				}
				href, sumRef, hTol, sumTol := weightsRef(sum64, h64, lt64, ltm64, m64, q, rel)
				ExpBlockWeights32(sum, h, lt, ltm, m, q)
				for i := range h {
					err := math.Abs(float64(h[i]) - href[i])
					tol := hTol[i] + 0x1p-149
					maxRatio = max(maxRatio, err/tol)
					if math.Abs(href[i]) >= 0x1p-126 && !expexp {
						maxRelW = max(maxRelW, err/math.Abs(href[i]))
						// against e^d at the rounded exponent
						r, l := i/q, i%q
						d := float32(float32(h64[i]+lt64[r]) - m[l])
						maxUlpW = max(maxUlpW, expErr32(d, h[i]))
					}
					if !(err <= tol) {
						t.Fatalf("n=%d q=%d expexp=%v: h[%d] = %g, want %g ± %g", n, q, expexp, i, h[i], href[i], tol)
					}
				}
				for l := range sum {
					err := math.Abs(float64(sum[l]) - sumRef[l])
					maxRatio = max(maxRatio, err/sumTol[l])
					if !(err <= sumTol[l]) {
						t.Fatalf("n=%d q=%d expexp=%v: sum[%d] = %g, want %g ± %g", n, q, expexp, l, sum[l], sumRef[l], sumTol[l])
					}
				}
			}
		}
		t.Logf("max error/tolerance %.3g; max relative error of w (Exp) %.3g, %.3g ulp against e^d at the rounded exponent d", maxRatio, maxRelW, maxUlpW)
	})
}

func TestExpBlockWeights64(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 64))
	simdtest.ForLevels(t, func(t *testing.T) {
		var maxRel float64
		for _, bc := range blockCases64 {
			for _, expexp := range []bool{false, true} {
				n, q := bc.n, bc.q
				h, lt, ltm, _ := scores(rng, n, q, expexp)
				if n == 1 {
					lt[0] = math.Inf(-1)
					if expexp {
						ltm[0] = math.Inf(-1)
					}
				}
				m := make([]float64, q)
				for l := range m {
					m[l] = math.Inf(-1)
				}
				expBlockMaxGo(m, h, lt, ltm, q)
				sum := uniform(rng, q, 0, 3)
				href, sumRef, _, _ := weightsRef(sum, h, lt, ltm, m, q, func(int, int, bool) float64 { return 0 })
				ExpBlockWeights64(sum, h, lt, ltm, m, q)
				for i := range h {
					rel := math.Abs(h[i]-href[i]) / (math.Abs(href[i]) + 1)
					maxRel = max(maxRel, rel)
					if !(rel <= 1e-14) {
						t.Fatalf("n=%d q=%d expexp=%v: h[%d] = %g, want %g", n, q, expexp, i, h[i], href[i])
					}
				}
				for l := range sum {
					rel := math.Abs(sum[l]-sumRef[l]) / (math.Abs(sumRef[l]) + 1)
					maxRel = max(maxRel, rel)
					if !(rel <= 1e-14) {
						t.Fatalf("n=%d q=%d expexp=%v: sum[%d] = %g, want %g", n, q, expexp, l, sum[l], sumRef[l])
					}
				}
			}
		}
		t.Logf("max error relative to |result|+1: %.3g", maxRel)
	})
}

func TestNoAlloc(t *testing.T) {
	const q, n = 32, 5
	x32, y32, z32 := make([]float32, 100), make([]float32, 100), make([]float32, 100)
	x64, y64, z64 := make([]float64, 100), make([]float64, 100), make([]float64, 100)
	h32, r32, l32 := make([]float32, n*q), make([]float32, n), make([]float32, q)
	h64, r64, l64 := make([]float64, n*q), make([]float64, n), make([]float64, q)
	x32[3], x64[3] = 1e30, 1e30 // a fallback lane
	simdtest.ForLevels(t, func(t *testing.T) {
		for name, f := range map[string]func(){
			"SinCos32":          func() { SinCos32(y32, z32, x32) },
			"SinCos64":          func() { SinCos64(y64, z64, x64) },
			"Exp32":             func() { Exp32(y32, x32) },
			"Exp64":             func() { Exp64(y64, x64) },
			"TrigBlock32":       func() { TrigBlock32(h32, r32, r32, r32, l32, q) },
			"TrigBlock64":       func() { TrigBlock64(h64, r64, r64, r64, l64, q) },
			"ExpBlockMax32":     func() { ExpBlockMax32(l32, h32, r32, r32, q) },
			"ExpBlockMax64":     func() { ExpBlockMax64(l64, h64, r64, r64, q) },
			"ExpBlockWeights32": func() { ExpBlockWeights32(l32, h32, r32, r32, l32, q) },
			"ExpBlockWeights64": func() { ExpBlockWeights64(l64, h64, r64, r64, l64, q) },
		} {
			if a := testing.AllocsPerRun(10, f); a != 0 {
				t.Errorf("%s allocates %v times", name, a)
			}
		}
	})
}

func TestPanics(t *testing.T) {
	a, b := make([]float32, 4), make([]float32, 5)
	c, d := make([]float64, 4), make([]float64, 5)
	for name, f := range map[string]func(){
		"SinCos32":          func() { SinCos32(a, a, b) },
		"SinCos64":          func() { SinCos64(c, d, c) },
		"Exp32":             func() { Exp32(a, b) },
		"Exp64":             func() { Exp64(c, d) },
		"TrigBlock32 q":     func() { TrigBlock32(b, nil, a, nil, a, 4) },
		"TrigBlock32 tc":    func() { TrigBlock32(a, nil, b, nil, a, 4) },
		"TrigBlock64 acc":   func() { TrigBlock64(c, nil, c[:1], nil, d, 4) },
		"TrigBlock64 q0":    func() { TrigBlock64(c, nil, c, nil, c, 0) },
		"ExpBlockMax32":     func() { ExpBlockMax32(a, a, a[:1], a, 4) },
		"ExpBlockMax64":     func() { ExpBlockMax64(c, c, c, nil, 4) },
		"ExpBlockWeights32": func() { ExpBlockWeights32(a, a, a[:1], nil, b, 4) },
		"ExpBlockWeights64": func() { ExpBlockWeights64(d, c, c[:1], nil, c, 4) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
}

func ExampleSinCos32() {
	x := []float32{0, math.Pi / 6, math.Pi / 2}
	sin, cos := make([]float32, 3), make([]float32, 3)
	SinCos32(sin, cos, x)
	fmt.Printf("%.4f %.4f\n", sin, cos)
	// Output: [0.0000 0.5000 1.0000] [1.0000 0.8660 -0.0000]
}
