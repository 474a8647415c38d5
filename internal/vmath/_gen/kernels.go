package main

import (
	"fmt"
)

// The kernels: elementwise functions and the per-block passes of package
// dam over rows of lanes.

func (g *gen) suffix() string {
	if g.z {
		return "AVX512"
	}
	return "AVX2"
}

func (g *gen) typ() string {
	if g.f64 {
		return "float64"
	}
	return "float32"
}

// tailMask sets the tail mask (K4 or Y15) for CX remaining elements
// (0 < CX < lanes), clobbering DX (and Y14).
func (g *gen) tailMask() {
	if g.z {
		g.p("MOVL $1, DX")
		g.p("SHLL CX, DX")
		g.p("DECL DX")
		g.p("KMOVW DX, K4")
		return
	}
	if g.f64 {
		g.p("VMOVQ CX, X14")
		g.p("VPBROADCASTQ X14, Y14")
		g.p("VMOVDQU vmiota64<>(SB), Y15")
		g.p("VPCMPGTQ Y15, Y14, Y15")
	} else {
		g.p("VMOVD CX, X14")
		g.p("VPBROADCASTD X14, Y14")
		g.p("VMOVDQU vmiota32<>(SB), Y15")
		g.p("VPCMPGTD Y15, Y14, Y15")
	}
}

// Kernels.

// elementwise writes a loop over n elements (AX from start, R9 = n) with a
// masked tail; body(mem func, masked) emits one vector.
func (g *gen) elementwise(body func(masked bool)) {
	w := g.lanes()
	g.p("MOVQ R9, BX")
	g.p("SUBQ $%d, BX", w)
	g.label("loop")
	g.p("CMPQ AX, BX")
	g.p("JGT tail")
	body(false)
	g.p("ADDQ $%d, AX", w)
	g.p("JMP loop")
	g.label("tail")
	g.p("MOVQ R9, CX")
	g.p("SUBQ AX, CX")
	g.p("JLE done")
	g.tailMask()
	body(true)
}

func (g *gen) mem(base string) string { return fmt.Sprintf("(%s)(AX*%d)", base, g.es()) }

func (g *gen) genSinCos() {
	T := g.typ()
	name := "sinCos" + fmt.Sprint(g.prec()) + g.suffix()
	g.ntemp = 8
	if !g.z {
		g.ntemp = 14
	}
	g.fn(name, fmt.Sprintf("(s, c, x *%s, n, i int) int", T), 48,
		[]string{"MOVQ s+0(FP), R8", "MOVQ c+8(FP), R10", "MOVQ x+16(FP), R11", "MOVQ n+24(FP), R9", "MOVQ i+32(FP), AX"},
		func() {
			g.elementwise(func(masked bool) {
				g.load(g.t(0), g.mem("R11"), masked)
				s, c := g.sincos(0, []int{1, 2, 3, 4, 5, 6, 7}, "big")
				g.store(g.mem("R8"), g.t(s), masked)
				g.store(g.mem("R10"), g.t(c), masked)
			})
			g.label("done")
			g.ret("R9", 40)
			g.label("big")
			g.ret("AX", 40)
		})
}

func (g *gen) genExp() {
	T := g.typ()
	name := "exp" + fmt.Sprint(g.prec()) + g.suffix()
	g.ntemp = 5
	if !g.z {
		g.ntemp = 14
	}
	g.fn(name, fmt.Sprintf("(dst, x *%s, n int)", T), 24,
		[]string{"MOVQ dst+0(FP), R8", "MOVQ x+8(FP), R11", "MOVQ n+16(FP), R9", "XORQ AX, AX"},
		func() {
			g.elementwise(func(masked bool) {
				g.load(g.t(0), g.mem("R11"), masked)
				y := g.exp(0, []int{1, 2, 3, 4}, -1, "")
				g.store(g.mem("R8"), g.t(y), masked)
			})
			g.label("done")
			g.ret("", 0)
		})
}

// Block kernels: rows BX in [r0, n=R9), lanes CX in [0, q=R12) step
// lanes, flat index AX = BX·q + CX.

func (g *gen) rows(sfx string, rowSetup func(), lane func()) {
	w := g.lanes()
	g.p("CMPQ BX, R9")
	g.p("JGE done%s", sfx)
	g.label("row" + sfx)
	rowSetup()
	g.label("lane" + sfx)
	lane()
	g.p("ADDQ $%d, AX", w)
	g.p("ADDQ $%d, CX", w)
	g.p("CMPQ CX, R12")
	g.p("JLT lane%s", sfx)
	g.p("XORQ CX, CX")
	g.p("INCQ BX")
	g.p("CMPQ BX, R9")
	g.p("JLT row%s", sfx)
	g.label("done" + sfx)
}

func (g *gen) lmem(base string) string { return fmt.Sprintf("(%s)(CX*%d)", base, g.es()) }
func (g *gen) rmem(base string) string { return fmt.Sprintf("(%s)(BX*%d)", base, g.es()) }

// rowConst broadcasts base[BX] into register d, or zero if base (a
// pointer register) is nil.
func (g *gen) rowConst(d, base, lbl string) {
	g.p("TESTQ %s, %s", base, base)
	g.p("JZ %s", lbl)
	g.bcastMem(d, g.rmem(base))
	g.p("JMP %sok", lbl)
	g.label(lbl)
	g.xor(d, d, d)
	g.label(lbl + "ok")
}

func (g *gen) genTrigBlock() {
	T := g.typ()
	name := "trigBlock" + fmt.Sprint(g.prec()) + g.suffix()
	g.ntemp = 13
	bias, tc, ts := 10, 11, 12
	g.fn(name, fmt.Sprintf("(h, bias, tc, ts, acc *%s, n, q, r0, l0 int) int", T), 80,
		[]string{
			"MOVQ h+0(FP), R8", "MOVQ bias+8(FP), R10", "MOVQ tc+16(FP), R11", "MOVQ ts+24(FP), R13",
			"MOVQ acc+32(FP), SI", "MOVQ n+40(FP), R9", "MOVQ q+48(FP), R12", "MOVQ r0+56(FP), BX",
			"MOVQ l0+64(FP), CX", "MOVQ BX, AX", "IMULQ R12, AX", "ADDQ CX, AX",
		},
		func() {
			g.rows("", func() {
				g.rowConst(g.t(bias), "R10", "nobias")
				g.bcastMem(g.t(tc), g.rmem("R11"))
				g.rowConst(g.t(ts), "R13", "nots")
			}, func() {
				g.load(g.t(0), g.mem("R8"), false)
				g.op3("VADD", g.t(0), g.t(0), g.t(bias))
				s, c := g.sincos(0, []int{1, 2, 3, 4, 5, 6, 7}, "big")
				// acc += tc·c + ts·s; h = ts·c − tc·s
				g.load(g.t(8), g.lmem("SI"), false)
				g.op3("VFMADD231", g.t(8), g.t(c), g.t(tc))
				g.op3("VFMADD231", g.t(8), g.t(s), g.t(ts))
				g.store(g.lmem("SI"), g.t(8), false)
				g.op3("VMUL", g.t(9), g.t(c), g.t(ts))
				g.op3("VFNMADD231", g.t(9), g.t(s), g.t(tc))
				g.store(g.mem("R8"), g.t(9), false)
			})
			g.ret("AX", 72)
			g.label("big")
			g.ret("AX", 72)
		})
}

func (g *gen) genExpBlockMax() {
	T := g.typ()
	name := "expBlockMax" + fmt.Sprint(g.prec()) + g.suffix()
	g.ntemp = 6
	lt, ltm := 4, 5
	g.fn(name, fmt.Sprintf("(m, h, lt, ltm *%s, n, q int)", T), 48,
		[]string{
			"MOVQ m+0(FP), SI", "MOVQ h+8(FP), R8", "MOVQ lt+16(FP), R10", "MOVQ ltm+24(FP), R11",
			"MOVQ n+32(FP), R9", "MOVQ q+40(FP), R12", "XORQ AX, AX", "XORQ BX, BX", "XORQ CX, CX",
		},
		func() {
			g.p("TESTQ R11, R11")
			g.p("JNZ expexp")
			g.rows("", func() {
				g.bcastMem(g.t(lt), g.rmem("R10"))
			}, func() {
				g.op3("VADD", g.t(0), g.t(lt), g.mem("R8"))
				g.load(g.t(1), g.lmem("SI"), false)
				// m = a > m ? a : m (MAX returns its second source unless the
				// first is greater)
				g.op3("VMAX", g.t(1), g.t(0), g.t(1))
				g.store(g.lmem("SI"), g.t(1), false)
			})
			g.ret("", 0)
			g.label("expexp")
			g.rows("2", func() {
				g.bcastMem(g.t(lt), g.rmem("R10"))
				g.bcastMem(g.t(ltm), g.rmem("R11"))
			}, func() {
				g.load(g.t(2), g.mem("R8"), false)
				g.op3("VADD", g.t(0), g.t(lt), g.t(2))
				g.op3("VSUB", g.t(3), g.t(ltm), g.t(2))
				g.load(g.t(1), g.lmem("SI"), false)
				g.op3("VMAX", g.t(1), g.t(0), g.t(1))
				g.op3("VMAX", g.t(1), g.t(3), g.t(1))
				g.store(g.lmem("SI"), g.t(1), false)
			})
			g.ret("", 0)
		})
}

func (g *gen) genExpBlockWeights() {
	T := g.typ()
	name := "expBlockWeights" + fmt.Sprint(g.prec()) + g.suffix()
	g.ntemp = 14
	lt, ltm := 12, 13
	g.fn(name, fmt.Sprintf("(sum, h, lt, ltm, m *%s, n, q int)", T), 56,
		[]string{
			"MOVQ sum+0(FP), SI", "MOVQ h+8(FP), R8", "MOVQ lt+16(FP), R10", "MOVQ ltm+24(FP), R11",
			"MOVQ m+32(FP), DI", "MOVQ n+40(FP), R9", "MOVQ q+48(FP), R12", "XORQ AX, AX", "XORQ BX, BX", "XORQ CX, CX",
		},
		func() {
			g.p("TESTQ R11, R11")
			g.p("JNZ expexp")
			g.rows("", func() {
				g.bcastMem(g.t(lt), g.rmem("R10"))
			}, func() {
				// a = h + lt; w = exp(a − m), 0 where a = −Inf
				g.op3("VADD", g.t(0), g.t(lt), g.mem("R8"))
				g.op3("VSUB", g.t(1), g.t(0), g.lmem("DI"))
				w := g.exp(1, []int{2, 3, 4, 5}, 0, "K3")
				g.op3("VADD", g.t(6), g.t(w), g.lmem("SI"))
				g.store(g.lmem("SI"), g.t(6), false)
				g.store(g.mem("R8"), g.t(w), false)
			})
			g.ret("", 0)
			g.label("expexp")
			g.rows("2", func() {
				g.bcastMem(g.t(lt), g.rmem("R10"))
				g.bcastMem(g.t(ltm), g.rmem("R11"))
			}, func() {
				g.load(g.t(10), g.mem("R8"), false)
				g.load(g.t(11), g.lmem("DI"), false)
				g.op3("VADD", g.t(0), g.t(lt), g.t(10))
				g.op3("VSUB", g.t(1), g.t(0), g.t(11))
				wp := g.exp(1, []int{2, 3, 4, 5}, 0, "K3")
				g.op3("VSUB", g.t(6), g.t(ltm), g.t(10))
				g.op3("VSUB", g.t(7), g.t(6), g.t(11))
				wm := g.exp(7, []int{8, 9, 1, 0}, 6, "K5")
				g.op3("VADD", g.t(10), g.t(wp), g.t(wm))
				g.op3("VADD", g.t(10), g.t(10), g.lmem("SI"))
				g.store(g.lmem("SI"), g.t(10), false)
				g.op3("VSUB", g.t(wp), g.t(wp), g.t(wm))
				g.store(g.mem("R8"), g.t(wp), false)
			})
			g.ret("", 0)
		})
}
