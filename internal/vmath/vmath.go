package vmath

func checkLen(op string, n int, ls ...int) {
	for _, l := range ls {
		if l != n {
			panic("vmath: " + op + ": slices of unequal length")
		}
	}
}

// blockRows returns the number of rows of a block kernel's arguments,
// panicking unless len(h) = lh is a multiple of q > 0.
func blockRows(op string, lh, q int) int {
	if q <= 0 || lh%q != 0 {
		panic("vmath: " + op + ": len(h) is not a multiple of q > 0")
	}
	return lh / q
}

func checkRows(op string, n, l int) {
	if l != n {
		panic("vmath: " + op + ": per-row argument length is not len(h)/q")
	}
}

func checkLanes(op string, q, l int) {
	if l != q {
		panic("vmath: " + op + ": per-lane argument length is not q")
	}
}

// SinCos32 sets sin[i] = sin(x[i]) and cos[i] = cos(x[i]). All slices
// must have the same length; sin or cos may be x itself but must not
// otherwise overlap it.
//
// For |x| ≤ 2^20, which covers DrDAM's phases (|x| ≤ 1e4), the absolute
// error of either result is below 2e-7 (measured 6.3e-8; see the package
// documentation). Beyond, the results are math.Sincos rounded to float32
// (slower), and ±Inf and NaN give NaN.
func SinCos32(sin, cos, x []float32) {
	checkLen("SinCos32", len(x), len(sin), len(cos))
	if len(x) == 0 {
		return
	}
	sinCos32(sin, cos, x)
}

// SinCos64 sets sin[i] = sin(x[i]) and cos[i] = cos(x[i]). All slices
// must have the same length; sin or cos may be x itself but must not
// otherwise overlap it.
//
// For |x| ≤ 2^29 the results are within 2 ulp of math.Sincos (which
// uses the same argument reduction); beyond, they are those of
// math.Sincos. ±Inf and NaN give NaN.
func SinCos64(sin, cos, x []float64) {
	checkLen("SinCos64", len(x), len(sin), len(cos))
	if len(x) == 0 {
		return
	}
	sinCos64(sin, cos, x)
}

// Exp32 sets dst[i] = e^x[i]. The slices must have the same length; dst
// may be x itself but must not otherwise overlap it.
//
// The error is below 2 ulp where the result is a normal float32 and
// below one unit of the smallest subnormal under it (gradual underflow);
// results beyond the float32 range (x > 88.7228) give +Inf, x < -103.98
// gives 0, and NaN gives NaN.
func Exp32(dst, x []float32) {
	checkLen("Exp32", len(x), len(dst))
	if len(x) == 0 {
		return
	}
	exp32s(dst, x)
}

// Exp64 sets dst[i] = e^x[i]. The slices must have the same length; dst
// may be x itself but must not otherwise overlap it.
//
// The error is below 2 ulp where the result is a normal float64 and
// below one unit of the smallest subnormal under it (gradual underflow);
// results beyond the float64 range (x > 709.7827) give +Inf, x < -745.14
// gives 0, and NaN gives NaN. Unlike math.Exp on amd64, it does not
// overflow early.
func Exp64(dst, x []float64) {
	checkLen("Exp64", len(x), len(dst))
	if len(x) == 0 {
		return
	}
	exp64s(dst, x)
}

// TrigBlock32 is the fused pass of DrDAM's trigonometric bases over one
// block. h holds n rows of q lanes (len(h) == n*q, q > 0). For row r and
// lane l, with v = h[r*q+l] + bias[r] (bias may be nil: no shift),
// c = cos v, s = sin v:
//
//	if ts != nil (SinCos):  acc[l] += tc[r]*c + ts[r]*s;  h[r*q+l] = ts[r]*c - tc[r]*s
//	if ts == nil (Cos):     acc[l] += tc[r]*c;            h[r*q+l] = -tc[r]*s
//
// len(tc) (and len(ts), len(bias) when non-nil) == n, len(acc) == q.
// Rows are added to acc in order, in float32.
//
// v is rounded to float32 and c, s are those of SinCos32; the products
// are fused (FMA). The vector kernels need q to be a multiple of 16 (8
// with AVX2); other q take the portable path.
func TrigBlock32(h, bias, tc, ts, acc []float32, q int) {
	if !trigArgs("TrigBlock32", len(h), bias != nil, ts != nil, len(bias), len(tc), len(ts), len(acc), q) {
		return
	}
	trigBlock32(h, bias, tc, ts, acc, q)
}

// TrigBlock64 is TrigBlock32 in float64 (see there); c and s are those of
// SinCos64, and the vector kernels need q to be a multiple of 8 (4 with
// AVX2).
func TrigBlock64(h, bias, tc, ts, acc []float64, q int) {
	if !trigArgs("TrigBlock64", len(h), bias != nil, ts != nil, len(bias), len(tc), len(ts), len(acc), q) {
		return
	}
	trigBlock64(h, bias, tc, ts, acc, q)
}

// trigArgs checks the arguments of the trigonometric block kernels and
// reports whether there is work.
func trigArgs(op string, lh int, bias, ts bool, lb, ltc, lts, lacc, q int) bool {
	n := blockRows(op, lh, q)
	checkRows(op, n, ltc)
	if bias {
		checkRows(op, n, lb)
	}
	if ts {
		checkRows(op, n, lts)
	}
	checkLanes(op, q, lacc)
	return n > 0
}

// ExpBlockMax32 is the first pass of DrDAM's positive bases over one
// block, in the layout of TrigBlock32. For row r and lane l the score is
//
//	a = h[r*q+l] + lt[r]            (Exp; ltm == nil)
//
// or the two scores
//
//	a+ = h[r*q+l] + lt[r],  a- = -h[r*q+l] + ltm[r]   (ExpExp)
//
// and m[l] = max(m[l], every score of lane l). lt and ltm may hold -Inf
// (then the score is -Inf); m may start at -Inf. len(lt) (and len(ltm)
// when non-nil) == n, len(m) == q.
//
// The scores are rounded to float32 and the result is exact: m[l] is
// replaced by a score only if the score is greater (a NaN score is
// ignored, a NaN m[l] stays).
func ExpBlockMax32(m, h, lt, ltm []float32, q int) {
	if !expArgs("ExpBlockMax32", len(h), len(lt), ltm != nil, len(ltm), q, len(m), q) {
		return
	}
	expBlockMax32(m, h, lt, ltm, q)
}

// ExpBlockMax64 is ExpBlockMax32 in float64 (see there).
func ExpBlockMax64(m, h, lt, ltm []float64, q int) {
	if !expArgs("ExpBlockMax64", len(h), len(lt), ltm != nil, len(ltm), q, len(m), q) {
		return
	}
	expBlockMax64(m, h, lt, ltm, q)
}

// ExpBlockWeights32 is the second pass of DrDAM's positive bases: with the
// scores of ExpBlockMax32 and a given m (m[l] >= every score of lane l),
// w = exp(a - m[l]) (w = 0 for a = -Inf):
//
//	Exp:     sum[l] += w;            h[r*q+l] = w
//	ExpExp:  sum[l] += w+ + w-;      h[r*q+l] = w+ - w-
//
// len(sum) == len(m) == q. Rows are added to sum in order, in float32.
// a and a − m[l] are rounded to float32, and w is that of Exp32.
func ExpBlockWeights32(sum, h, lt, ltm, m []float32, q int) {
	if !expArgs("ExpBlockWeights32", len(h), len(lt), ltm != nil, len(ltm), q, len(m), len(sum)) {
		return
	}
	expBlockWeights32(sum, h, lt, ltm, m, q)
}

// ExpBlockWeights64 is ExpBlockWeights32 in float64 (see there); w is that
// of Exp64.
func ExpBlockWeights64(sum, h, lt, ltm, m []float64, q int) {
	if !expArgs("ExpBlockWeights64", len(h), len(lt), ltm != nil, len(ltm), q, len(m), len(sum)) {
		return
	}
	expBlockWeights64(sum, h, lt, ltm, m, q)
}

// expArgs checks the arguments of the exponential block kernels and
// reports whether there is work.
func expArgs(op string, lh, llt int, ltm bool, lltm, q, lm, lsum int) bool {
	n := blockRows(op, lh, q)
	checkRows(op, n, llt)
	if ltm {
		checkRows(op, n, lltm)
	}
	checkLanes(op, q, lm)
	checkLanes(op, q, lsum)
	return n > 0
}
