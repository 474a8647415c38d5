package rng

import (
	"math"
	"math/bits"
)

// Stream is a deterministic stream of random numbers. The zero value is not
// useful; create one with New. A Stream must not be used by several
// goroutines at once; give each goroutine its own stream instead.
type Stream struct {
	hi, lo   uint64
	spare    float64
	hasSpare bool
}

// New returns the stream identified by (seed, stream). Distinct pairs give
// statistically independent streams.
func New(seed, stream uint64) *Stream {
	s := &Stream{}
	s.Reset(seed, stream)
	return s
}

// Reset sets s to the start of the stream identified by (seed, stream), as
// New does, without allocating.
func (s *Stream) Reset(seed, stream uint64) {
	s.hi = splitMix64(seed)
	s.lo = splitMix64(stream ^ 0x6a09e667f3bcc909)
	s.hasSpare = false
	s.spare = 0
}

// splitMix64 is one step of Steele, Lea and Flood's SplitMix64 output
// function, used to spread seeds over the PCG state.
func splitMix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// Uint64 returns the next 64 uniformly random bits (PCG-DXSM).
func (s *Stream) Uint64() uint64 {
	const (
		mulHi = 2549297995355413924
		mulLo = 4865540595714422341
		incHi = 6364136223846793005
		incLo = 1442695040888963407
	)
	// state = state*mul + inc (mod 2¹²⁸)
	hi, lo := bits.Mul64(s.lo, mulLo)
	hi += s.hi*mulLo + s.lo*mulHi
	lo, c := bits.Add64(lo, incLo, 0)
	hi, _ = bits.Add64(hi, incHi, c)
	s.lo, s.hi = lo, hi
	// DXSM output: double xorshift multiply.
	const cheapMul = 0xda942042e4dd58b5
	hi ^= hi >> 32
	hi *= cheapMul
	hi ^= hi >> 48
	hi *= lo | 1
	return hi
}

// Float64 returns a uniform value in [0, 1): the top 53 bits of Uint64
// scaled by 2⁻⁵³ (exact).
func (s *Stream) Float64() float64 {
	return float64(s.Uint64()>>11) * 0x1p-53
}

// Normal returns a standard normal value, by Marsaglia's polar method. Values
// come in pairs; the second of a pair is kept for the next call.
func (s *Stream) Normal() float64 {
	if s.hasSpare {
		s.hasSpare = false
		return s.spare
	}
	for {
		// 2k·2⁻⁵³ − 1 is exact for every 53-bit k, so u, v are exact.
		u := 2*s.Float64() - 1
		v := 2*s.Float64() - 1
		q := float64(u*u) + float64(v*v)
		if q <= 0 || q >= 1 {
			continue
		}
		f := math.Sqrt(-2 * Log(q) / q)
		s.spare = v * f
		s.hasSpare = true
		return u * f
	}
}

// Normals fills dst with standard normal values.
func (s *Stream) Normals(dst []float64) {
	for i := range dst {
		dst[i] = s.Normal()
	}
}

// Log returns the natural logarithm of x for x > 0 (and the same special
// values as math.Log otherwise). It is the FreeBSD e_log.c algorithm used by
// Go's portable math.log, with every product rounded explicitly so that the
// result is the same on every machine (its constants, lg1 … lg7 and the
// split ln 2, are shared with generator version 2's logUnit). Its error is
// below 1 ulp.
func Log(x float64) float64 {
	switch {
	case math.IsNaN(x) || math.IsInf(x, 1):
		return x
	case x < 0:
		return math.NaN()
	case x == 0:
		return math.Inf(-1)
	}
	f1, ki := math.Frexp(x)
	if f1 < math.Sqrt2/2 {
		f1 *= 2
		ki--
	}
	f := f1 - 1
	k := float64(ki)
	sq := f / (2 + f)
	s2 := float64(sq * sq)
	s4 := float64(s2 * s2)
	t1 := float64(s2 * float64(lg1+float64(s4*float64(lg3+float64(s4*float64(lg5+float64(s4*lg7)))))))
	t2 := float64(s4 * float64(lg2+float64(s4*float64(lg4+float64(s4*lg6)))))
	r := t1 + t2
	hfsq := float64(float64(0.5*f) * f)
	return float64(k*lgLn2Hi) - ((hfsq - (float64(sq*(hfsq+r)) + float64(k*lgLn2Lo))) - f)
}

// Chi returns a draw of the χ distribution with k degrees of freedom: the
// norm of k fresh standard normal values, summed in order.
func (s *Stream) Chi(k int) float64 {
	var sum float64
	for range k {
		g := s.Normal()
		sum += float64(g * g)
	}
	return math.Sqrt(sum)
}

// ChiSquare returns a draw of the χ² distribution with k ≥ 2 degrees of
// freedom, as 2·Gamma(k/2), by Marsaglia and Tsang's method ("A simple
// method for generating gamma variables", 2000): O(1) draws whatever k
// (Chi sums k squares), with every operation exactly rounded, so the same
// on every machine. It panics if k < 2 (the method needs shape k/2 ≥ 1).
func (s *Stream) ChiSquare(k int) float64 {
	if k < 2 {
		panic("rng: ChiSquare needs k ≥ 2")
	}
	d := float64(k)/2 - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		x := s.Normal()
		t := 1 + float64(c*x)
		if t <= 0 {
			continue
		}
		v := float64(float64(t*t) * t)
		u := s.Float64()
		x2 := float64(x * x)
		// Squeeze, then the exact test log u < x²/2 + d − d·v + d·log v.
		if u < 1-float64(0.0331*float64(x2*x2)) {
			return 2 * float64(d*v)
		}
		if u > 0 && Log(u) < float64(0.5*x2)+(d-float64(d*v)+float64(d*Log(v))) {
			return 2 * float64(d*v)
		}
	}
}
