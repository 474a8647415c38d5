// Command _gen writes fwht_amd64.s, the AVX2+FMA and AVX-512 kernels of
// package fwht. Run it from internal/fwht with
//
//	go run ./_gen
//
// Two kernels are written for each precision (float32, float64) and
// instruction set (AVX2 with 256-bit Y registers, AVX-512 with 512-bit Z
// registers):
//
//   - base does every stage whose butterflies stay within a group of g
//     consecutive vectors (g = 2^logg ≤ 16 for AVX-512, ≤ 8 for AVX2):
//     first the stages inside each vector (h < lanes) by a permute and an
//     FMA with a ±1 vector, v = v·sign_h + permute_h(v), then the stages
//     across the g vectors (plain adds and subtracts), all in registers,
//     with one load and one store per vector. It optionally multiplies by
//     the signs s on the way in (pre) or on the way out (post).
//   - pass does logr stages of vector strides stride, 2·stride, …,
//     stride·2^(logr−1) (radix 2^logr, at most 16 for AVX-512 and 8 for
//     AVX2), one load and one store per vector.
//
// Helpers take their operands in Intel order (destination first); the
// emitter reverses them into Go assembler order.
package main

import (
	"bytes"
	"fmt"
	"log"
	"os"
	"strings"
)

type gen struct {
	out  bytes.Buffer
	z    bool // AVX-512
	f64  bool
	free []string // free vector registers (FIFO)
}

func (g *gen) p(format string, args ...any) {
	fmt.Fprintf(&g.out, "\t"+format+"\n", args...)
}

func (g *gen) label(l string) { fmt.Fprintf(&g.out, "%s:\n", l) }

// ins emits op with operands given in Intel order.
func (g *gen) ins(op string, intel ...string) {
	ops := make([]string, len(intel))
	for i, o := range intel {
		ops[len(intel)-1-i] = o
	}
	g.p("%s %s", op, strings.Join(ops, ", "))
}

func (g *gen) es() int {
	if g.f64 {
		return 8
	}
	return 4
}

func (g *gen) prec() int { return 8 * g.es() }

// vb is the size of a vector in bytes, lvb its log2.
func (g *gen) vb() int {
	if g.z {
		return 64
	}
	return 32
}

func (g *gen) lvb() int {
	if g.z {
		return 6
	}
	return 5
}

func (g *gen) lanes() int { return g.vb() / g.es() }

func (g *gen) ps() string {
	if g.f64 {
		return "PD"
	}
	return "PS"
}

func (g *gen) v(i int) string {
	if g.z {
		return fmt.Sprintf("Z%d", i)
	}
	return fmt.Sprintf("Y%d", i)
}

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

// maxLog is log2 of the largest group (base) and radix (pass): 16 data
// registers plus temporaries and sign constants for AVX-512, 8 for AVX2.
func (g *gen) maxLog() int {
	if g.z {
		return 4
	}
	return 3
}

// hs returns the in-register strides h (in elements).
func (g *gen) hs() []int {
	var r []int
	for h := 1; h < g.lanes(); h *= 2 {
		r = append(r, h)
	}
	return r
}

// signSym names the RODATA vector whose lane j is −1 if j&h != 0 and +1
// otherwise (16 float32 or 8 float64 lanes; AVX2 uses its first half).
func signSym(prec, h int) string { return fmt.Sprintf("fwsign%dh%d<>(SB)", prec, h) }

// permute emits dst = v with the lanes j and j^h exchanged.
func (g *gen) permute(dst, v string, h int) {
	switch {
	case !g.f64 && h == 1:
		g.ins("VPERMILPS", dst, v, "$0xb1")
	case !g.f64 && h == 2:
		g.ins("VPERMILPS", dst, v, "$0x4e")
	case g.f64 && h == 1:
		if g.z {
			g.ins("VPERMILPD", dst, v, "$0x55")
		} else {
			g.ins("VPERMILPD", dst, v, "$0x05")
		}
	case !g.z && h*g.es() == 16: // swap the 128-bit halves
		g.ins("VPERM2F128", dst, v, v, "$0x01")
	case g.z && h*g.es() == 16: // swap 128-bit lanes pairwise
		g.ins("VSHUFF32X4", dst, v, v, "$0xb1")
	case g.z && h*g.es() == 32: // swap the 256-bit halves
		g.ins("VSHUFF32X4", dst, v, v, "$0x4e")
	default:
		log.Fatalf("no permute for h=%d", h)
	}
}

// dataRegs returns the first n of the nreg vector registers as data slots
// and frees the others for temporaries.
func (g *gen) dataRegs(n, nreg int) []string {
	reg := make([]string, n)
	g.free = nil
	for i := range nreg {
		if i < n {
			reg[i] = g.v(i)
		} else {
			g.give(g.v(i))
		}
	}
	return reg
}

func (g *gen) take() string {
	r := g.free[0]
	g.free = g.free[1:]
	return r
}

func (g *gen) give(r string) { g.free = append(g.free, r) }

// butterflies runs the stages of strides 1, 2, …, len(reg)/2 over the
// slots reg (registers, renamed in place): slots a and a+st become their
// sum and difference.
func (g *gen) butterflies(reg []string) {
	for st := 1; st < len(reg); st *= 2 {
		for a := range reg {
			if a&st != 0 {
				continue
			}
			b := a + st
			t := g.take()
			g.ins("VADD"+g.ps(), t, reg[a], reg[b])
			g.ins("VSUB"+g.ps(), reg[b], reg[a], reg[b])
			g.give(reg[a])
			reg[a] = t
		}
	}
}

const (
	modeNone = iota
	modePre
	modePost
)

// genBase writes
//
//	func baseNNISA(x, pre, post *T, nv, logg int)
//
// which runs the in-vector stages and the stages across each group of
// 2^logg vectors over the nv vectors at x (nv a multiple of 2^logg),
// multiplying by pre before or by post after if they are not nil (not
// both).
func (g *gen) genBase() {
	name := fmt.Sprintf("base%d%s", g.prec(), g.suffix())
	fmt.Fprintf(&g.out, "\n// func %s(x, pre, post *%s, nv, logg int)\n", name, g.typ())
	fmt.Fprintf(&g.out, "TEXT ·%s(SB), NOSPLIT, $0-40\n", name)
	g.p("MOVQ x+0(FP), DI")
	g.p("MOVQ pre+8(FP), SI")
	g.p("MOVQ post+16(FP), DX")
	g.p("MOVQ nv+24(FP), CX")
	g.p("MOVQ logg+32(FP), BX")
	g.p("SHLQ $%d, CX", g.lvb())
	// sign constants in the top registers
	nreg := 16
	if g.z {
		nreg = 32
	}
	hs := g.hs()
	sreg := map[int]string{}
	for i, h := range hs {
		r := g.v(nreg - 1 - i)
		sreg[h] = r
		g.ins("VMOVUP"+g.ps()[1:], r, signSym(g.prec(), h))
	}
	for lg := 0; lg <= g.maxLog(); lg++ {
		g.p("CMPQ BX, $%d", lg)
		g.p("JEQ g%d", lg)
	}
	g.p("VZEROUPPER")
	g.p("RET")
	for lg := 0; lg <= g.maxLog(); lg++ {
		pfx := fmt.Sprintf("g%d", lg)
		g.label(pfx)
		g.p("XORQ AX, AX")
		g.p("TESTQ SI, SI")
		g.p("JNE %spre", pfx)
		g.p("TESTQ DX, DX")
		g.p("JNE %spost", pfx)
		for _, mode := range []int{modeNone, modePre, modePost} {
			l := pfx + []string{"none", "pre", "post"}[mode]
			if mode != modeNone {
				g.label(l)
			}
			g.baseLoop(l+"loop", 1<<lg, mode, nreg-len(hs), sreg)
		}
	}
}

func (g *gen) baseLoop(loop string, ng int, mode int, nfree int, sreg map[int]string) {
	mov := "VMOVUP" + g.ps()[1:]
	vb := g.vb()
	reg := g.dataRegs(ng, nfree)
	g.label(loop)
	for k := range ng {
		g.ins(mov, reg[k], fmt.Sprintf("%d(DI)(AX*1)", k*vb))
		if mode == modePre {
			g.ins("VMUL"+g.ps(), reg[k], reg[k], fmt.Sprintf("%d(SI)(AX*1)", k*vb))
		}
	}
	for _, h := range g.hs() {
		for k := range ng {
			// reg = reg·sign_h + permute_h(reg): x_j + x_{j^h} in the
			// lanes with j&h == 0, x_{j^h} − x_j in the others. The
			// temporaries rotate through the free registers.
			t := g.take()
			g.permute(t, reg[k], h)
			g.ins("VFMADD213"+g.ps(), reg[k], sreg[h], t)
			g.give(t)
		}
	}
	g.butterflies(reg)
	for k := range ng {
		if mode == modePost {
			g.ins("VMUL"+g.ps(), reg[k], reg[k], fmt.Sprintf("%d(DX)(AX*1)", k*vb))
		}
		g.ins(mov, fmt.Sprintf("%d(DI)(AX*1)", k*vb), reg[k])
	}
	g.p("ADDQ $%d, AX", ng*vb)
	g.p("CMPQ AX, CX")
	g.p("JLT %s", loop)
	g.p("VZEROUPPER")
	g.p("RET")
}

// genPass writes
//
//	func passNNISA(x *T, nv, stride, logr int)
//
// which runs the stages of vector strides stride·2^i, i < logr, over the
// nv vectors at x (nv a multiple of stride·2^logr).
func (g *gen) genPass() {
	name := fmt.Sprintf("pass%d%s", g.prec(), g.suffix())
	fmt.Fprintf(&g.out, "\n// func %s(x *%s, nv, stride, logr int)\n", name, g.typ())
	fmt.Fprintf(&g.out, "TEXT ·%s(SB), NOSPLIT, $0-32\n", name)
	g.p("MOVQ x+0(FP), DI")
	g.p("MOVQ nv+8(FP), CX")
	g.p("MOVQ stride+16(FP), R9")
	g.p("MOVQ logr+24(FP), BX")
	g.p("SHLQ $%d, CX", g.lvb())
	g.p("ADDQ DI, CX")           // end
	g.p("SHLQ $%d, R9", g.lvb()) // S: stride in bytes
	g.p("LEAQ (R9)(R9*2), R10")  // 3S
	g.p("LEAQ (R9)(R9*4), R11")  // 5S
	g.p("LEAQ (R10)(R9*4), R12") // 7S
	for lr := 1; lr <= g.maxLog(); lr++ {
		g.p("CMPQ BX, $%d", lr)
		g.p("JEQ r%d", lr)
	}
	g.p("RET")
	// operand for the vector k·S from base register b (k < 8)
	off := func(b string, k int) string {
		return []string{
			"(%s)", "(%s)(R9*1)", "(%s)(R9*2)", "(%s)(R10*1)",
			"(%s)(R9*4)", "(%s)(R11*1)", "(%s)(R10*2)", "(%s)(R12*1)",
		}[k]
	}
	addr := func(k int) string {
		b := "SI"
		if k >= 8 {
			b = "R8"
		}
		return fmt.Sprintf(off(b, k%8), b)
	}
	mov := "VMOVUP" + g.ps()[1:]
	nreg := 16
	if g.z {
		nreg = 32
	}
	for lr := 1; lr <= g.maxLog(); lr++ {
		r := 1 << lr
		pfx := fmt.Sprintf("r%d", lr)
		g.label(pfx)
		g.p("MOVQ R9, DX")
		g.p("SHLQ $%d, DX", lr) // block size r·S
		g.label(pfx + "outer")
		g.p("MOVQ DI, SI")
		g.p("LEAQ (DI)(R9*1), R13")
		g.label(pfx + "inner")
		if r > 8 {
			g.p("LEAQ (SI)(R9*8), R8")
		}
		reg := g.dataRegs(r, nreg)
		for k := range r {
			g.ins(mov, reg[k], addr(k))
		}
		g.butterflies(reg)
		for k := range r {
			g.ins(mov, addr(k), reg[k])
		}
		g.p("ADDQ $%d, SI", g.vb())
		g.p("CMPQ SI, R13")
		g.p("JLT %sinner", pfx)
		g.p("ADDQ DX, DI")
		g.p("CMPQ DI, CX")
		g.p("JLT %souter", pfx)
		g.p("VZEROUPPER")
		g.p("RET")
	}
}

// genLBase writes
//
//	func lbaseNNAVX512(x, s *T, nv, logg int)
//
// the lines kernel: x is nv lines of one vector each (a batch of columns
// in the lanes); for each group of 2^logg consecutive lines it multiplies
// line i by the scalar s[i] (broadcast, if s is not nil) and runs the
// stages across the lines of the group. There are no in-vector stages:
// every lane is an independent transform.
func (g *gen) genLBase() {
	name := fmt.Sprintf("lbase%d%s", g.prec(), g.suffix())
	fmt.Fprintf(&g.out, "\n// func %s(x, s *%s, nv, logg int)\n", name, g.typ())
	fmt.Fprintf(&g.out, "TEXT ·%s(SB), NOSPLIT, $0-32\n", name)
	g.p("MOVQ x+0(FP), DI")
	g.p("MOVQ s+8(FP), SI")
	g.p("MOVQ nv+16(FP), CX")
	g.p("MOVQ logg+24(FP), BX")
	g.p("SHLQ $%d, CX", g.lvb())
	for lg := 0; lg <= g.maxLog(); lg++ {
		g.p("CMPQ BX, $%d", lg)
		g.p("JEQ l%d", lg)
	}
	g.p("RET")
	mov := "VMOVUP" + g.ps()[1:]
	vb := g.vb()
	for lg := 0; lg <= g.maxLog(); lg++ {
		ng := 1 << lg
		pfx := fmt.Sprintf("l%d", lg)
		g.label(pfx)
		g.p("XORQ AX, AX")
		g.p("XORQ R8, R8")
		g.p("TESTQ SI, SI")
		g.p("JNE %ssign", pfx)
		for _, sign := range []bool{false, true} {
			loop := pfx + "plain"
			if sign {
				g.label(pfx + "sign")
				loop = pfx + "signloop"
			}
			reg := g.dataRegs(ng, 32)
			g.label(loop)
			for k := range ng {
				g.ins(mov, reg[k], fmt.Sprintf("%d(DI)(AX*1)", k*vb))
				if sign {
					g.ins("VMUL"+g.ps()+".BCST", reg[k], reg[k], fmt.Sprintf("%d(SI)(R8*1)", k*g.es()))
				}
			}
			g.butterflies(reg)
			for k := range ng {
				g.ins(mov, fmt.Sprintf("%d(DI)(AX*1)", k*vb), reg[k])
			}
			g.p("ADDQ $%d, AX", ng*vb)
			g.p("ADDQ $%d, R8", ng*g.es())
			g.p("CMPQ AX, CX")
			g.p("JLT %s", loop)
			g.p("VZEROUPPER")
			g.p("RET")
		}
	}
}

// genLScale writes
//
//	func lscaleNNAVX512(dst, x, s *T, nv int, add bool)
//
// which sets line i of dst to s[i]·(line i of x), or adds it (add), for
// the nv lines at x and dst (which may be the same). The add is one FMA,
// exact in its product when s[i] is ±1.
func (g *gen) genLScale() {
	name := fmt.Sprintf("lscale%d%s", g.prec(), g.suffix())
	fmt.Fprintf(&g.out, "\n// func %s(dst, x, s *%s, nv int, add bool)\n", name, g.typ())
	fmt.Fprintf(&g.out, "TEXT ·%s(SB), NOSPLIT, $0-33\n", name)
	g.p("MOVQ dst+0(FP), DI")
	g.p("MOVQ x+8(FP), SI")
	g.p("MOVQ s+16(FP), DX")
	g.p("MOVQ nv+24(FP), CX")
	g.p("MOVBQZX add+32(FP), BX")
	g.p("TESTQ CX, CX")
	g.p("JEQ sdone")
	mov := "VMOVUP" + g.ps()[1:]
	for _, add := range []bool{false, true} {
		l := "sset"
		if add {
			l = "sadd"
		} else {
			g.p("TESTQ BX, BX")
			g.p("JNE sadd")
		}
		g.label(l)
		g.ins(mov, "Z0", "(SI)")
		if add {
			g.ins(mov, "Z1", "(DI)")
			g.ins("VFMADD231"+g.ps()+".BCST", "Z1", "Z0", "(DX)")
			g.ins(mov, "(DI)", "Z1")
		} else {
			g.ins("VMUL"+g.ps()+".BCST", "Z0", "Z0", "(DX)")
			g.ins(mov, "(DI)", "Z0")
		}
		g.p("ADDQ $64, SI")
		g.p("ADDQ $64, DI")
		g.p("ADDQ $%d, DX", g.es())
		g.p("DECQ CX")
		g.p("JNE %s", l)
		g.p("JMP sdone")
	}
	g.label("sdone")
	g.p("VZEROUPPER")
	g.p("RET")
}

func main() {
	var out bytes.Buffer
	out.WriteString("// Code generated by go run ./_gen; DO NOT EDIT.\n\n//go:build !purego\n\n#include \"textflag.h\"\n")
	for _, z := range []bool{false, true} {
		for _, f64 := range []bool{false, true} {
			g := &gen{z: z, f64: f64}
			g.genBase()
			g.genPass()
			if z {
				g.genLBase()
				g.genLScale()
			}
			out.Write(g.out.Bytes())
		}
	}
	// Sign vectors: lane j is −1 where j&h != 0.
	out.WriteString("\n")
	for _, prec := range []int{32, 64} {
		lanes := 512 / prec
		for h := 1; h < lanes; h *= 2 {
			base := strings.TrimSuffix(signSym(prec, h), "(SB)")
			for j := range lanes {
				v := uint64(0x3f800000) // 1.0f
				if prec == 64 {
					v = 0x3ff0000000000000
				}
				if j&h != 0 {
					v |= 1 << (prec - 1)
				}
				fmt.Fprintf(&out, "DATA %s+%d(SB)/%d, $%#x\n", base, j*prec/8, prec/8, v)
			}
			fmt.Fprintf(&out, "GLOBL %s(SB), RODATA|NOPTR, $64\n", base)
		}
	}
	if err := os.WriteFile("fwht_amd64.s", out.Bytes(), 0o644); err != nil {
		log.Fatal(err)
	}
}
