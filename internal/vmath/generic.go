package vmath

import (
	"math"
	"unsafe"
)

// Portable implementations. The float32 kernels compute in float64 (a
// scalar float64 operation costs the same as a float32 one) and round once
// at the end, so they are more accurate than the vector kernels; the
// float64 ones are those of package math.

// Splitting of π/2 for the float64 reduction of float32 arguments (fdlibm's
// pio2_1 and pio2_1t): pio2Hi has 33 significant bits, so j·pio2Hi is
// exact for j < 2^20 and |x| − j·pio2Hi is exact.
const (
	pio2Hi = 1.57079632673412561417e+00 // 0x3FF921FB54400000
	pio2Lo = 6.07710050650619224932e-11 // 0x3DD0B4611A626331

	// fastMax32 bounds |x| for the reduction above; beyond it (and for
	// ±Inf, NaN) math.Sincos is used.
	fastMax32 = 0x1p20
)

// Minimax polynomials of FreeBSD's __kernel_sindf and __kernel_cosdf on
// [-π/4, π/4]: |sin r − r − r·z·S(z)| < 3.9e-12, |cos r − C(z)| < 5.4e-11.
const (
	ks1 = -0x15555554cbac77p-55 // -0.166666666416265235595
	ks2 = 0x111110896efbb2p-59  // 0.0083333293858894631756
	ks3 = -0x1a00f9e2cae774p-65 // -0.000198393348360966317347
	ks4 = 0x16cd878c3b46a7p-71  // 0.0000027183114939898219064
	kc0 = -0x1ffffffd0c5e81p-54 // -0.499999997251031003120
	kc1 = 0x155553e1053a42p-57  // 0.0416666233237390631894
	kc2 = -0x16c087e80f1e27p-62 // -0.00138867637746099294692
	kc3 = 0x199342e0ee5069p-68  // 0.0000243904487962774090654
)

// sincos32 returns sin x and cos x, each within 0.5 ulp + 1e-10 of the
// exact value.
func sincos32(x float32) (sin, cos float32) {
	xd := float64(x)
	ax := math.Abs(xd)
	if !(ax <= fastMax32) {
		s, c := math.Sincos(xd)
		return float32(s), float32(c)
	}
	// j = round(|x|·2/π) is in the low bits of jf.
	jf := ax*(2/math.Pi) + 0x1p52
	j := math.Float64bits(jf)
	k := jf - 0x1p52
	r := (ax - k*pio2Hi) - k*pio2Lo
	z := r * r
	s := r + r*z*(ks1+z*(ks2+z*(ks3+z*ks4)))
	c := 1 + z*(kc0+z*(kc1+z*(kc2+z*kc3)))
	// Quadrant j: sin, cos = (s, c), (c, −s), (−s, −c), (−c, s), and sin
	// takes the sign of x; done on the bits, without branches.
	sb, cb := math.Float64bits(s), math.Float64bits(c)
	swap := -(j & 1) // all ones if j is odd
	sb, cb = sb&^swap|cb&swap, cb&^swap|sb&swap
	sb ^= (j<<62 ^ math.Float64bits(xd)) & (1 << 63)
	cb ^= (j<<62 ^ j<<63) & (1 << 63)
	return float32(math.Float64frombits(sb)), float32(math.Float64frombits(cb))
}

// Polynomial for e^r, |r| ≤ ln2/2, as 1 + r + r²·g(r) with g a Chebyshev
// fit of (e^r − 1 − r)/r²: relative error 2.4e-10.
const (
	ke2 = 0.5000000013457727153
	ke3 = 0.16666666681614255706
	ke4 = 0.041666465006040048761
	ke5 = 0.0083333109344488684687
	ke6 = 0.001393364103198670115
	ke7 = 0.00019890980869750325563
)

// exp32 returns e^x within 0.5 ulp + 1e-9 relative (also for subnormal
// results, in absolute terms).
func exp32(x float32) float32 {
	xd := float64(x)
	switch {
	case xd > 89:
		return float32(math.Inf(1))
	case !(xd >= -104): // also NaN
		if xd != xd {
			return x
		}
		return 0
	}
	const (
		ln2Hi = 6.93147180369123816490e-01 // math.exp's, j·ln2Hi exact
		ln2Lo = 1.90821492927058770002e-10
	)
	jf := xd*math.Log2E + 0x1.8p52
	k := jf - 0x1.8p52
	r := (xd - k*ln2Hi) - k*ln2Lo
	p := 1 + r*(1+r*(ke2+r*(ke3+r*(ke4+r*(ke5+r*(ke6+r*ke7))))))
	return float32(p * math.Float64frombits(uint64(int64(k)+1023)<<52))
}

// Polynomial for e^r, |r| ≤ ln2/2, as 1 + r + r²·g(r) with g a Chebyshev
// fit of (e^r − 1 − r)/r²: relative error 1.8e-17 (the one of the vector
// kernels).
const (
	ke64_2  = 0.50000000000000010211
	ke64_3  = 0.16666666666666667452
	ke64_4  = 0.041666666666624161903
	ke64_5  = 0.0083333333333300644495
	ke64_6  = 0.0013888888917196719077
	ke64_7  = 0.00019841269863040545271
	ke64_8  = 0.000024801521322368693266
	ke64_9  = 2.7557268480310025526e-6
	ke64_10 = 2.7620075879983366586e-7
	ke64_11 = 2.5100375832561233664e-8
)

// exp64 returns e^x within 1 ulp where the result is normal. (math.Exp
// is not used: on amd64 it is off by up to 2 ulp and overflows below
// the largest float64.)
func exp64(x float64) float64 {
	switch {
	case x > 710:
		return math.Inf(1)
	case !(x >= -746): // also NaN
		if x != x {
			return x
		}
		return 0
	}
	const (
		ln2Hi = 6.93147180369123816490e-01 // 33 bits: j·ln2Hi exact
		ln2Lo = 1.90821492927058770002e-10
	)
	jf := x*math.Log2E + 0x1.8p52
	k := jf - 0x1.8p52
	r := (x - k*ln2Hi) - k*ln2Lo
	p := ke64_11
	p = p*r + ke64_10
	p = p*r + ke64_9
	p = p*r + ke64_8
	p = p*r + ke64_7
	p = p*r + ke64_6
	p = p*r + ke64_5
	p = p*r + ke64_4
	p = p*r + ke64_3
	p = p*r + ke64_2
	p = p*r + 1
	p = p*r + 1
	// 2^j as two normal factors: the first product is exact, only the
	// second rounds (also to a subnormal).
	j := int64(k)
	j1 := j >> 1
	return p * math.Float64frombits(uint64(j1+1023)<<52) * math.Float64frombits(uint64(j-j1+1023)<<52)
}

func sinCos32Go(sin, cos, x []float32) {
	_ = sin[len(x)-1]
	_ = cos[len(x)-1]
	for i, v := range x {
		sin[i], cos[i] = sincos32(v)
	}
}

func sinCos64Go(sin, cos, x []float64) {
	_ = sin[len(x)-1]
	_ = cos[len(x)-1]
	for i, v := range x {
		sin[i], cos[i] = math.Sincos(v)
	}
}

func exp32Go(dst, x []float32) {
	_ = dst[len(x)-1]
	for i, v := range x {
		dst[i] = exp32(v)
	}
}

func exp64Go(dst, x []float64) {
	_ = dst[len(x)-1]
	for i, v := range x {
		dst[i] = exp64(v)
	}
}

// trigRow32 does one row of TrigBlock32: h and acc are the lanes to do,
// b, c and s the row's bias, tc and ts (s = 0 for Cos).
func trigRow32(h, acc []float32, b, c, s float32) {
	acc = acc[:len(h)]
	for l, v := range h {
		sn, cs := sincos32(v + b)
		acc[l] += c*cs + s*sn
		h[l] = s*cs - c*sn
	}
}

func trigRow64(h, acc []float64, b, c, s float64) {
	acc = acc[:len(h)]
	for l, v := range h {
		sn, cs := math.Sincos(v + b)
		acc[l] += c*cs + s*sn
		h[l] = s*cs - c*sn
	}
}

// rowConsts returns bias[r], tc[r] and ts[r], with 0 for nil slices.
func rowConsts[T float32 | float64](bias, tc, ts []T, r int) (b, c, s T) {
	if bias != nil {
		b = bias[r]
	}
	if ts != nil {
		s = ts[r]
	}
	return b, tc[r], s
}

func trigBlock32Go(h, bias, tc, ts, acc []float32, q int) {
	for r := range len(h) / q {
		b, c, s := rowConsts(bias, tc, ts, r)
		trigRow32(h[r*q:(r+1)*q], acc, b, c, s)
	}
}

func trigBlock64Go(h, bias, tc, ts, acc []float64, q int) {
	for r := range len(h) / q {
		b, c, s := rowConsts(bias, tc, ts, r)
		trigRow64(h[r*q:(r+1)*q], acc, b, c, s)
	}
}

func expBlockMaxGo[T float32 | float64](m, h, lt, ltm []T, q int) {
	m = m[:q]
	for r := range len(h) / q {
		row := h[r*q : (r+1)*q]
		p := lt[r]
		if ltm == nil {
			for l, v := range row {
				if a := v + p; a > m[l] {
					m[l] = a
				}
			}
			continue
		}
		n := ltm[r]
		for l, v := range row {
			if a := v + p; a > m[l] {
				m[l] = a
			}
			if a := n - v; a > m[l] {
				m[l] = a
			}
		}
	}
}

func expBlockWeightsGo[T float32 | float64](sum, h, lt, ltm, m []T, q int) {
	sum, m = sum[:q], m[:q]
	neg := T(math.Inf(-1))
	// e is e^x in T's precision; is32 is a constant in each instantiation,
	// so both branches compile to direct calls.
	is32 := unsafe.Sizeof(neg) == 4
	e := func(x T) T {
		if is32 {
			return T(exp32(float32(x)))
		}
		return T(exp64(float64(x)))
	}
	for r := range len(h) / q {
		row := h[r*q : (r+1)*q]
		p := lt[r]
		if ltm == nil {
			for l, v := range row {
				var w T
				if a := v + p; a != neg {
					w = e(a - m[l])
				}
				sum[l] += w
				row[l] = w
			}
			continue
		}
		n := ltm[r]
		for l, v := range row {
			var wp, wm T
			if a := v + p; a != neg {
				wp = e(a - m[l])
			}
			if a := n - v; a != neg {
				wm = e(a - m[l])
			}
			sum[l] += wp + wm
			row[l] = wp - wm
		}
	}
}
