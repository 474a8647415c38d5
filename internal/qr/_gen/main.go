// Command _gen writes the amd64 micro-kernels of package qr:
// mul_amd64.s. Run it from the package directory:
//
//	go run ./_gen
//
// The mul kernels compute, for four rows i of C and n columns j (n a
// multiple of 8),
//
//	C[i][j] = fma(A[i][k−1], B[k−1][j], … fma(A[i][1], B[1][j], fma(A[i][0], B[0][j], C₀[i][j]))),
//
// with C₀ = C, or 0 if the argument zero is not 0: one FMA chain per
// element in the order of p, with A[i][p] broadcast and B[p][j..] loaded
// as vectors: the AVX-512 kernel in tiles of 4×32 (16 zmm accumulators)
// and then 4×8, the AVX2 kernel in tiles of 4×8 (8 ymm accumulators).
//
// The dot kernels add a[i]·b[i] to chain i mod 32 of acc (n a multiple of
// 32): four zmm or eight ymm accumulators. The axpy kernels set
// y[i] = fma(f, x[i], y[i]) (n a multiple of 32).
//
// The scal kernels set y[i] = s·x[i] (n a multiple of 32), and
// transpose512 transposes 8×8 blocks: data movement and exactly rounded
// products, the same on every level.
//
// Vectorizing across independent chains only, never along one, is what
// makes every level compute the same bits as the portable Go code.
package main

import (
	"fmt"
	"os"
	"strings"
)

var out strings.Builder

func emit(format string, args ...any) { fmt.Fprintf(&out, format+"\n", args...) }

// header loads the arguments of
//
//	func name(c *float64, ldc int, a *float64, lda int, b *float64, ldb int, n, k int)
//
// into DI (C), R8 (ldc bytes), R14 (3·ldc bytes), SI (A), R9 (lda bytes),
// R15 (3·lda bytes), DX (B), R10 (ldb bytes), R12 (n), R13 (A + k·8, the
// end of the walk along row 0 of A).
func header(name string) {
	emit("// func %s(c *float64, ldc int, a *float64, lda int, b *float64, ldb int, n, k, zero int)", name)
	emit("TEXT ·%s(SB), NOSPLIT, $0-72", name)
	emit("\tMOVQ c+0(FP), DI\n\tMOVQ ldc+8(FP), R8\n\tSHLQ $3, R8\n\tLEAQ (R8)(R8*2), R14")
	emit("\tMOVQ a+16(FP), SI\n\tMOVQ lda+24(FP), R9\n\tSHLQ $3, R9\n\tLEAQ (R9)(R9*2), R15")
	emit("\tMOVQ b+32(FP), DX\n\tMOVQ ldb+40(FP), R10\n\tSHLQ $3, R10")
	emit("\tMOVQ n+48(FP), R12\n\tMOVQ k+56(FP), R13\n\tLEAQ (SI)(R13*8), R13")
	emit("\tMOVQ DI, CX\n\tMOVQ DX, BX")
}

// row returns the address of row i of the tile at base (stride reg and
// 3·stride reg3) at byte displacement disp.
func row(disp int, base, stride, stride3 string, i int) string {
	switch i {
	case 0:
		return fmt.Sprintf("%d(%s)", disp, base)
	case 1:
		return fmt.Sprintf("%d(%s)(%s*1)", disp, base, stride)
	case 2:
		return fmt.Sprintf("%d(%s)(%s*2)", disp, base, stride)
	}
	return fmt.Sprintf("%d(%s)(%s*1)", disp, base, stride3)
}

// tile writes one tile loop of nv vectors of w bytes (reg prefix r) per
// row: load C (or zero the accumulators), walk p from 0 to k−1, store C. Accumulators are
// r(i·nv + j); B vectors r(16 + j) for zmm, r(8 + j) for ymm; broadcasts
// r(20 + i) for zmm, r(12 + i) for ymm.
func tile(label, r string, w, nv int) {
	acc := func(i, j int) string { return fmt.Sprintf("%s%d", r, i*nv+j) }
	bv, bc := 16, 20
	if r == "Y" {
		bv, bc = 8, 12
	}
	emit("\tCMPQ zero+64(FP), $0\n\tJNE %s_zero", label)
	for i := range 4 {
		for j := range nv {
			emit("\tVMOVUPD %s, %s", row(j*w, "CX", "R8", "R14", i), acc(i, j))
		}
	}
	emit("\tJMP %s_start\n%s_zero:", label, label)
	for i := range 4 {
		for j := range nv {
			emit("\tVXORPD %s, %s, %s", acc(i, j), acc(i, j), acc(i, j))
		}
	}
	emit("%s_start:", label)
	emit("\tMOVQ SI, AX\n\tMOVQ BX, R11")
	emit("%s:", label)
	for j := range nv {
		emit("\tVMOVUPD %d(R11), %s%d", j*w, r, bv+j)
	}
	for i := range 4 {
		emit("\tVBROADCASTSD %s, %s%d", row(0, "AX", "R9", "R15", i), r, bc+i)
		for j := range nv {
			emit("\tVFMADD231PD %s%d, %s%d, %s", r, bv+j, r, bc+i, acc(i, j))
		}
	}
	emit("\tADDQ $8, AX\n\tADDQ R10, R11\n\tCMPQ AX, R13\n\tJNE %s", label)
	for i := range 4 {
		for j := range nv {
			emit("\tVMOVUPD %s, %s", acc(i, j), row(j*w, "CX", "R8", "R14", i))
		}
	}
	emit("\tADDQ $%d, CX\n\tADDQ $%d, BX", nv*w, nv*w)
}

func gen512() {
	header("mul4x512")
	emit("wide:\n\tCMPQ R12, $32\n\tJLT narrow")
	tile("k32", "Z", 64, 4)
	emit("\tSUBQ $32, R12\n\tJMP wide")
	emit("narrow:\n\tCMPQ R12, $8\n\tJLT done")
	tile("k8", "Z", 64, 1)
	emit("\tSUBQ $8, R12\n\tJMP narrow")
	emit("done:\n\tVZEROUPPER\n\tRET\n")
}

func gen256() {
	header("mul4x256")
	emit("loop:\n\tCMPQ R12, $8\n\tJLT done")
	tile("k8", "Y", 32, 2)
	emit("\tSUBQ $8, R12\n\tJMP loop")
	emit("done:\n\tVZEROUPPER\n\tRET\n")
}

// genDot writes dot512 and dot256:
//
//	func name(a, b *float64, n int, acc *[32]float64)
func genDot() {
	for _, v := range []struct {
		name, r string
		w, nacc int
	}{{"dot512", "Z", 64, 4}, {"dot256", "Y", 32, 8}} {
		emit("// func %s(a, b *float64, n int, acc *[32]float64)", v.name)
		emit("TEXT ·%s(SB), NOSPLIT, $0-32", v.name)
		emit("\tMOVQ a+0(FP), SI\n\tMOVQ b+8(FP), DI\n\tMOVQ n+16(FP), CX\n\tMOVQ acc+24(FP), DX\n\tLEAQ (SI)(CX*8), CX")
		for j := range v.nacc {
			emit("\tVMOVUPD %d(DX), %s%d", j*v.w, v.r, j)
		}
		emit("%s_loop:", v.name)
		for j := range v.nacc {
			emit("\tVMOVUPD %d(SI), %s%d", j*v.w, v.r, 8+j)
		}
		for j := range v.nacc {
			emit("\tVFMADD231PD %d(DI), %s%d, %s%d", j*v.w, v.r, 8+j, v.r, j)
		}
		emit("\tADDQ $256, SI\n\tADDQ $256, DI\n\tCMPQ SI, CX\n\tJNE %s_loop", v.name)
		for j := range v.nacc {
			emit("\tVMOVUPD %s%d, %d(DX)", v.r, j, j*v.w)
		}
		emit("\tVZEROUPPER\n\tRET\n")
	}
}

// genAxpy writes axpy512 and axpy256:
//
//	func name(f float64, x, y *float64, n int)
func genAxpy() {
	for _, v := range []struct {
		name, r string
		w, nv   int
	}{{"axpy512", "Z", 64, 4}, {"axpy256", "Y", 32, 8}} {
		emit("// func %s(f float64, x, y *float64, n int)", v.name)
		emit("TEXT ·%s(SB), NOSPLIT, $0-32", v.name)
		emit("\tVBROADCASTSD f+0(FP), %s15\n\tMOVQ x+8(FP), SI\n\tMOVQ y+16(FP), DI\n\tMOVQ n+24(FP), CX\n\tLEAQ (SI)(CX*8), CX", v.r)
		emit("%s_loop:", v.name)
		for j := range v.nv {
			emit("\tVMOVUPD %d(DI), %s%d", j*v.w, v.r, j)
		}
		for j := range v.nv {
			emit("\tVFMADD231PD %d(SI), %s15, %s%d", j*v.w, v.r, v.r, j)
		}
		for j := range v.nv {
			emit("\tVMOVUPD %s%d, %d(DI)", v.r, j, j*v.w)
		}
		emit("\tADDQ $256, SI\n\tADDQ $256, DI\n\tCMPQ SI, CX\n\tJNE %s_loop", v.name)
		emit("\tVZEROUPPER\n\tRET\n")
	}
}

// genScal writes scal512 and scal256:
//
//	func name(s float64, x, y *float64, n int)
func genScal() {
	for _, v := range []struct {
		name, r string
		w       int
	}{{"scal512", "Z", 64}, {"scal256", "Y", 32}} {
		nv := 256 / v.w
		emit("// func %s(s float64, x, y *float64, n int)", v.name)
		emit("TEXT ·%s(SB), NOSPLIT, $0-32", v.name)
		emit("\tVBROADCASTSD s+0(FP), %s15\n\tMOVQ x+8(FP), SI\n\tMOVQ y+16(FP), DI\n\tMOVQ n+24(FP), CX\n\tLEAQ (SI)(CX*8), CX", v.r)
		emit("%s_loop:", v.name)
		for j := range nv {
			emit("\tVMULPD %d(SI), %s15, %s%d", j*v.w, v.r, v.r, j)
		}
		for j := range nv {
			emit("\tVMOVUPD %s%d, %d(DI)", v.r, j, j*v.w)
		}
		emit("\tADDQ $256, SI\n\tADDQ $256, DI\n\tCMPQ SI, CX\n\tJNE %s_loop", v.name)
		emit("\tVZEROUPPER\n\tRET\n")
	}
}

// genTranspose writes
//
//	func transpose512(a *float64, lda int, b *float64, ldb int, nblocks int)
//
// which sets B[c][i] = A[i][c] for the 8 rows i of A and the columns c of
// nblocks blocks of 8: each block is 8 zmm rows, transposed by 2×2, 4×4
// and 8×8 interleaves (VUNPCKL/HPD, then VSHUFF64X2 twice).
func genTranspose() {
	emit("// func transpose512(a *float64, lda int, b *float64, ldb int, nblocks int)")
	emit("TEXT ·transpose512(SB), NOSPLIT, $0-40")
	emit("\tMOVQ a+0(FP), SI\n\tMOVQ lda+8(FP), R8\n\tSHLQ $3, R8\n\tMOVQ b+16(FP), DI\n\tMOVQ ldb+24(FP), R9\n\tSHLQ $3, R9\n\tMOVQ nblocks+32(FP), CX")
	emit("\tLEAQ (R8)(R8*2), R10\n\tLEAQ (R9)(R9*2), R11")
	emit("tr_loop:")
	// Rows 0–3 from SI, rows 4–7 from DX = SI + 4·lda.
	emit("\tLEAQ (SI)(R8*4), DX")
	for i := range 8 {
		base := "SI"
		if i >= 4 {
			base = "DX"
		}
		emit("\tVMOVUPD %s, Z%d", row(0, base, "R8", "R10", i%4), i)
	}
	for i := 0; i < 8; i += 2 {
		emit("\tVUNPCKLPD Z%d, Z%d, Z%d", i+1, i, 8+i)
		emit("\tVUNPCKHPD Z%d, Z%d, Z%d", i+1, i, 9+i)
	}
	// u0 = (t0, t2) lanes 0,2; u1 = (t0, t2) lanes 1,3; u2, u3 from (t1, t3); u4…u7 likewise from t4…t7.
	for h := 0; h < 8; h += 4 {
		emit("\tVSHUFF64X2 $0x88, Z%d, Z%d, Z%d", 10+h, 8+h, 16+h)
		emit("\tVSHUFF64X2 $0xDD, Z%d, Z%d, Z%d", 10+h, 8+h, 17+h)
		emit("\tVSHUFF64X2 $0x88, Z%d, Z%d, Z%d", 11+h, 9+h, 18+h)
		emit("\tVSHUFF64X2 $0xDD, Z%d, Z%d, Z%d", 11+h, 9+h, 19+h)
	}
	// Column c: (u_x, u_{x+4}) with x = 0, 2, 1, 3 for c = 0/4, 1/5, 2/6, 3/7.
	for c := range 4 {
		x := []int{0, 2, 1, 3}[c]
		emit("\tVSHUFF64X2 $0x88, Z%d, Z%d, Z%d", 20+x, 16+x, 24+c)
		emit("\tVSHUFF64X2 $0xDD, Z%d, Z%d, Z%d", 20+x, 16+x, 28+c)
	}
	emit("\tLEAQ (DI)(R9*4), DX")
	for c := range 8 {
		base := "DI"
		if c >= 4 {
			base = "DX"
		}
		emit("\tVMOVUPD Z%d, %s", 24+c, row(0, base, "R9", "R11", c%4))
	}
	emit("\tADDQ $64, SI\n\tLEAQ (DI)(R9*8), DI\n\tDECQ CX\n\tJNZ tr_loop")
	emit("\tVZEROUPPER\n\tRET\n")
}

func main() {
	emit("// Code generated by go run ./_gen; DO NOT EDIT.\n\n//go:build !purego\n\n#include \"textflag.h\"\n")
	gen512()
	gen256()
	genDot()
	genAxpy()
	genScal()
	genTranspose()
	if err := os.WriteFile("mul_amd64.s", []byte(out.String()), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
