//go:build !amd64 || purego

package vmath

func sinCos32(sin, cos, x []float32) { sinCos32Go(sin, cos, x) }
func sinCos64(sin, cos, x []float64) { sinCos64Go(sin, cos, x) }
func exp32s(dst, x []float32)        { exp32Go(dst, x) }
func exp64s(dst, x []float64)        { exp64Go(dst, x) }

func trigBlock32(h, bias, tc, ts, acc []float32, q int) { trigBlock32Go(h, bias, tc, ts, acc, q) }
func trigBlock64(h, bias, tc, ts, acc []float64, q int) { trigBlock64Go(h, bias, tc, ts, acc, q) }

func expBlockMax32(m, h, lt, ltm []float32, q int) { expBlockMaxGo(m, h, lt, ltm, q) }
func expBlockMax64(m, h, lt, ltm []float64, q int) { expBlockMaxGo(m, h, lt, ltm, q) }

func expBlockWeights32(sum, h, lt, ltm, m []float32, q int) {
	expBlockWeightsGo(sum, h, lt, ltm, m, q)
}

func expBlockWeights64(sum, h, lt, ltm, m []float64, q int) {
	expBlockWeightsGo(sum, h, lt, ltm, m, q)
}

func trigLane32(h, bias, tc, ts, acc []float32, q, l int, _ []float32) {
	trigLaneGo(h, bias, tc, ts, acc, q, l, trigRow32)
}

func trigLane64(h, bias, tc, ts, acc []float64, q, l int, _ []float64) {
	trigLaneGo(h, bias, tc, ts, acc, q, l, trigRow64)
}
