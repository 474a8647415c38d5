package fwht

import (
	"github.com/drdam/drdam/internal/cpuid"
)

// Lines transforms: a batch of columns, laid out in lines.
//
// A line is 64 bytes: 16 float32 or 8 float64 values, one vector register
// of AVX-512. An array of n lines x[i][j] (row-major, len(x) = n·w, w the
// values per line) holds w independent columns, one per lane j: the layout
// of package kern's panels and of the SORF phases of package dam. The
// lines transforms transform every column at once, lane by lane, so that
// a batch of queries goes through one pass over memory with every lane of
// every vector doing useful work and no gather or scatter.

// Lines32 and Lines64 are the number of values per line.
const (
	Lines32 = 16
	Lines64 = 8
)

// LinesFast reports whether the lines transforms run in vector assembly
// on this machine (AVX-512); elsewhere they run in portable Go, which is
// slower than transforming each column with Transform.
func LinesFast() bool { return linesAsm(cpuid.Current()) }

// LinesSignTransform32 computes, for every lane j of the n = len(x)/16
// lines of x (n a power of two), x[·][j] ← H_n·(s ⊙ x[·][j]): line i is
// multiplied by the scalar s[i] (len(s) == n; nil for no multiply) and
// the lines are transformed. Each column is transformed exactly as
// SignTransform32 transforms it (the same stages in the same order), so
// the results are those of SignTransform32 on each column, bit for bit.
// It panics if n is not a power of two or len(s) != n.
func LinesSignTransform32(x, s []float32) {
	linesBatch(x, s, len(x)/Lines32, Lines32, "LinesSignTransform32")
}

// LinesSignTransform64 is LinesSignTransform32 for float64 lines of 8
// values (n = len(x)/8).
func LinesSignTransform64(x, s []float64) {
	linesBatch(x, s, len(x)/Lines64, Lines64, "LinesSignTransform64")
}

// LinesBatchSignTransform32 runs LinesSignTransform32 on each of the
// len(x)/(16n) consecutive arrays of n lines in x (n a power of two; s,
// if not nil, has one entry per line of x), in fewer calls and sweeps
// than one call per array: the small SORF blocks of low dimensions go
// through it many at a time. Each array's result is bit for bit that of
// LinesSignTransform32.
func LinesBatchSignTransform32(x, s []float32, n int) {
	linesBatch(x, s, n, Lines32, "LinesBatchSignTransform32")
}

// LinesBatchSignTransform64 is LinesBatchSignTransform32 for float64 lines
// of 8 values.
func LinesBatchSignTransform64(x, s []float64, n int) {
	linesBatch(x, s, n, Lines64, "LinesBatchSignTransform64")
}

// LinesScale32 sets line i of dst to s[i]·(line i of x), or adds it to
// line i of dst if add, for the n = len(x)/16 lines (len(dst) == len(x),
// len(s) == n; dst may be x). The add is a fused multiply-add, which is
// exactly a multiply and an add when s[i] is ±1.
func LinesScale32(dst, x, s []float32, add bool) { linesScale(dst, x, s, add, Lines32, "LinesScale32") }

// LinesScale64 is LinesScale32 for float64 lines of 8 values.
func LinesScale64(dst, x, s []float64, add bool) { linesScale(dst, x, s, add, Lines64, "LinesScale64") }

// linesBatch checks and transforms the len(x)/(w·n) arrays of n lines of
// x (see LinesBatchSignTransform32); the single-array functions are a
// batch of one.
func linesBatch[T float32 | float64](x, s []T, n, w int, op string) {
	checkLen(op, n)
	if len(x)%(n*w) != 0 {
		panic("fwht: " + op + ": length is not a whole number of arrays of n lines")
	}
	if s != nil {
		checkSigns(op, len(x)/w, len(s))
	}
	if len(x) == 0 {
		return
	}
	if linesAsm(cpuid.Current()) {
		linesRun(x, s, n)
		return
	}
	for a := 0; a < len(x)/w; a += n {
		var sa []T
		if s != nil {
			sa = s[a : a+n]
		}
		linesGo(x[a*w:(a+n)*w], sa, w)
	}
}

func linesScale[T float32 | float64](dst, x, s []T, add bool, w int, op string) {
	n := len(x) / w
	if len(x)%w != 0 || len(dst) != len(x) || len(s) != n {
		panic("fwht: " + op + ": lengths do not match")
	}
	if n == 0 {
		return
	}
	if linesAsm(cpuid.Current()) {
		callLScale(&dst[0], &x[0], &s[0], n, add)
		return
	}
	for i, si := range s {
		d, v := dst[i*w:(i+1)*w], x[i*w:(i+1)*w]
		for j := range d {
			if add {
				d[j] += si * v[j]
			} else {
				d[j] = si * v[j]
			}
		}
	}
}

// linesGo is the portable lines transform: the sign multiply, then the
// radix-2 stages of strides 1, 2, …, n/2 across the lines, each a loop
// over the lanes.
func linesGo[T float32 | float64](x, s []T, w int) {
	n := len(x) / w
	for i, si := range s { // no multiply when s is nil
		v := x[i*w : (i+1)*w]
		for j := range v {
			v[j] *= si
		}
	}
	for h := 1; h < n; h *= 2 {
		for i := 0; i < n; i += 2 * h {
			for k := i; k < i+h; k++ {
				a, b := x[k*w:(k+1)*w], x[(k+h)*w:(k+h+1)*w]
				for j := range a {
					a[j], b[j] = a[j]+b[j], a[j]-b[j]
				}
			}
		}
	}
}
