// Command _gen writes the amd64 micro-kernels of package kern:
// kernels_amd64.s and kernels_amd64.go (the small-batch kernels are
// described in narrow.go). Run it from the package directory:
//
//	go run ./_gen
//
// Layouts (see ../doc.go): a projection is stored in panels of P rows
// (P = 16 for float32, 8 for float64) so that one row of a panel, the P
// values W[pP..pP+P)[d], fills one 64-byte zmm register; query batches are
// stored in panels of Q lanes (Q = P), one 64-byte vector per row.
//
// fwd kernels compute C[i][lanes] = Σ_k A(i, k)·B[k][lanes] for MR rows i
// of one W panel (A(i, k) = W[row i][d = k], at a + k·64 + i·esz) and NV
// query panels (B panel j at b + j·sb, 64 bytes per k), writing C panel j at
// c + j·sc, row i at +i·64.
//
// bwd kernels accumulate C[i][lanes] += Σ_α A(i, α)·B[α][lanes] for MR
// consecutive columns d0+i of W (A(i, α) = W[α][d0+i], at
// a + panel·pstride + i·64 + (α mod P)·esz) over npanels panels, with B the
// NV query panels of G (64 bytes per α), C the NV query panels of Zᵀ.
package main

import (
	"fmt"
	"os"
	"strings"
)

type prec struct {
	name  string // "32" or "64"
	esz   int    // element size
	p     int    // panel rows (lanes per zmm)
	suf   string // PS or PD
	bcast string // VBROADCASTSS or VBROADCASTSD (AVX2)
}

var f32 = prec{"32", 4, 16, "PS", "VBROADCASTSS"}
var f64 = prec{"64", 8, 8, "PD", "VBROADCASTSD"}

type kernel struct {
	dir    string // fwd or bwd
	pr     prec
	isa    string // 512 or 256
	mr, nv int
}

func (k kernel) name() string {
	return fmt.Sprintf("%s%sx%sm%dv%d", k.dir, k.pr.name, k.isa, k.mr, k.nv)
}

var out strings.Builder

func emit(format string, args ...any) { fmt.Fprintf(&out, format+"\n", args...) }

// bRef returns the address of query panel j at displacement disp from base
// register base, with the panel stride in register stride.
func bRef(disp int, base, stride string, j int) string {
	switch j {
	case 0:
		return fmt.Sprintf("%d(%s)", disp, base)
	case 1:
		return fmt.Sprintf("%d(%s)(%s*1)", disp, base, stride)
	case 2:
		return fmt.Sprintf("%d(%s)(%s*2)", disp, base, stride)
	}
	panic("nv > 3")
}

func gen512(k kernel) {
	pr := k.pr
	acc := func(i, j int) string { return fmt.Sprintf("Z%d", 8+i*k.nv+j) }
	bre := func(set, j int) string { return fmt.Sprintf("Z%d", set*4+j) }
	if k.mr*k.nv > 24 {
		panic("too many accumulators")
	}
	if k.dir == "fwd" {
		emit("// func %s(a, b, c unsafe.Pointer, k, sb, sc int)", k.name())
		emit("TEXT ·%s(SB), NOSPLIT, $0-48", k.name())
		emit("\tMOVQ a+0(FP), AX\n\tMOVQ b+8(FP), BX\n\tMOVQ c+16(FP), CX\n\tMOVQ k+24(FP), DX\n\tMOVQ sb+32(FP), R11\n\tMOVQ sc+40(FP), R12")
		for i := 0; i < k.mr; i++ {
			for j := 0; j < k.nv; j++ {
				emit("\tVPXORD %s, %s, %s", acc(i, j), acc(i, j), acc(i, j))
			}
		}
		// Main loop unrolled by 4 over k, then a remainder loop.
		emit("\tMOVQ DX, R13\n\tSHRQ $2, R13\n\tJZ rem")
		emit("loop4:")
		for u := 0; u < 4; u++ {
			set := u % 2
			for j := 0; j < k.nv; j++ {
				emit("\tVMOVUP%s %s, %s", pr.suf[1:], bRef(64*u, "BX", "R11", j), bre(set, j))
			}
			for i := 0; i < k.mr; i++ {
				for j := 0; j < k.nv; j++ {
					emit("\tVFMADD231%s.BCST %d(AX), %s, %s", pr.suf, 64*u+pr.esz*i, bre(set, j), acc(i, j))
				}
			}
		}
		emit("\tADDQ $256, AX\n\tADDQ $256, BX\n\tDECQ R13\n\tJNZ loop4")
		emit("rem:\n\tANDQ $3, DX\n\tJZ store")
		emit("loop1:")
		for j := 0; j < k.nv; j++ {
			emit("\tVMOVUP%s %s, %s", pr.suf[1:], bRef(0, "BX", "R11", j), bre(0, j))
		}
		for i := 0; i < k.mr; i++ {
			for j := 0; j < k.nv; j++ {
				emit("\tVFMADD231%s.BCST %d(AX), %s, %s", pr.suf, pr.esz*i, bre(0, j), acc(i, j))
			}
		}
		emit("\tADDQ $64, AX\n\tADDQ $64, BX\n\tDECQ DX\n\tJNZ loop1")
		emit("store:")
		for i := 0; i < k.mr; i++ {
			for j := 0; j < k.nv; j++ {
				emit("\tVMOVUP%s %s, %s", pr.suf[1:], acc(i, j), bRef(64*i, "CX", "R12", j))
			}
		}
		emit("\tVZEROUPPER\n\tRET\n")
		return
	}
	emit("// func %s(a, b, c unsafe.Pointer, npanels, pstride, sb, sc int)", k.name())
	emit("TEXT ·%s(SB), NOSPLIT, $0-56", k.name())
	emit("\tMOVQ a+0(FP), AX\n\tMOVQ b+8(FP), BX\n\tMOVQ c+16(FP), CX\n\tMOVQ npanels+24(FP), DX\n\tMOVQ pstride+32(FP), R9\n\tMOVQ sb+40(FP), R11\n\tMOVQ sc+48(FP), R12")
	for i := 0; i < k.mr; i++ {
		for j := 0; j < k.nv; j++ {
			emit("\tVMOVUP%s %s, %s", pr.suf[1:], bRef(64*i, "CX", "R12", j), acc(i, j))
		}
	}
	emit("loop:")
	for kk := 0; kk < pr.p; kk++ {
		set := kk % 2
		for j := 0; j < k.nv; j++ {
			emit("\tVMOVUP%s %s, %s", pr.suf[1:], bRef(64*kk, "BX", "R11", j), bre(set, j))
		}
		for i := 0; i < k.mr; i++ {
			for j := 0; j < k.nv; j++ {
				emit("\tVFMADD231%s.BCST %d(AX), %s, %s", pr.suf, 64*i+pr.esz*kk, bre(set, j), acc(i, j))
			}
		}
	}
	emit("\tADDQ R9, AX\n\tADDQ $%d, BX\n\tDECQ DX\n\tJNZ loop", 64*pr.p)
	for i := 0; i < k.mr; i++ {
		for j := 0; j < k.nv; j++ {
			emit("\tVMOVUP%s %s, %s", pr.suf[1:], acc(i, j), bRef(64*i, "CX", "R12", j))
		}
	}
	emit("\tVZEROUPPER\n\tRET\n")
}

// gen256 writes an AVX2 kernel: a 64-byte panel row is two ymm halves, so
// NV = 1 and the accumulators are MR×2 ymm registers; broadcasts go
// through a temporary register.
func gen256(k kernel) {
	pr := k.pr
	if k.nv != 1 || k.mr*2+2+1 > 16 {
		panic("bad AVX2 kernel shape")
	}
	acc := func(i, h int) string { return fmt.Sprintf("Y%d", 3+i*2+h) }
	const b0, b1, tmp = "Y0", "Y1", "Y2"
	if k.dir == "fwd" {
		emit("// func %s(a, b, c unsafe.Pointer, k, sb, sc int)", k.name())
		emit("TEXT ·%s(SB), NOSPLIT, $0-48", k.name())
		emit("\tMOVQ a+0(FP), AX\n\tMOVQ b+8(FP), BX\n\tMOVQ c+16(FP), CX\n\tMOVQ k+24(FP), DX")
		for i := 0; i < k.mr; i++ {
			for h := 0; h < 2; h++ {
				emit("\tVXORPS %s, %s, %s", acc(i, h), acc(i, h), acc(i, h))
			}
		}
		emit("loop:")
		emit("\tVMOVUP%s (BX), %s\n\tVMOVUP%s 32(BX), %s", pr.suf[1:], b0, pr.suf[1:], b1)
		for i := 0; i < k.mr; i++ {
			emit("\t%s %d(AX), %s", pr.bcast, pr.esz*i, tmp)
			emit("\tVFMADD231%s %s, %s, %s", pr.suf, b0, tmp, acc(i, 0))
			emit("\tVFMADD231%s %s, %s, %s", pr.suf, b1, tmp, acc(i, 1))
		}
		emit("\tADDQ $64, AX\n\tADDQ $64, BX\n\tDECQ DX\n\tJNZ loop")
		for i := 0; i < k.mr; i++ {
			emit("\tVMOVUP%s %s, %d(CX)\n\tVMOVUP%s %s, %d(CX)", pr.suf[1:], acc(i, 0), 64*i, pr.suf[1:], acc(i, 1), 64*i+32)
		}
		emit("\tVZEROUPPER\n\tRET\n")
		return
	}
	emit("// func %s(a, b, c unsafe.Pointer, npanels, pstride, sb, sc int)", k.name())
	emit("TEXT ·%s(SB), NOSPLIT, $0-56", k.name())
	emit("\tMOVQ a+0(FP), AX\n\tMOVQ b+8(FP), BX\n\tMOVQ c+16(FP), CX\n\tMOVQ npanels+24(FP), DX\n\tMOVQ pstride+32(FP), R9")
	for i := 0; i < k.mr; i++ {
		emit("\tVMOVUP%s %d(CX), %s\n\tVMOVUP%s %d(CX), %s", pr.suf[1:], 64*i, acc(i, 0), pr.suf[1:], 64*i+32, acc(i, 1))
	}
	emit("loop:")
	for kk := 0; kk < pr.p; kk++ {
		emit("\tVMOVUP%s %d(BX), %s\n\tVMOVUP%s %d(BX), %s", pr.suf[1:], 64*kk, b0, pr.suf[1:], 64*kk+32, b1)
		for i := 0; i < k.mr; i++ {
			emit("\t%s %d(AX), %s", pr.bcast, 64*i+pr.esz*kk, tmp)
			emit("\tVFMADD231%s %s, %s, %s", pr.suf, b0, tmp, acc(i, 0))
			emit("\tVFMADD231%s %s, %s, %s", pr.suf, b1, tmp, acc(i, 1))
		}
	}
	emit("\tADDQ R9, AX\n\tADDQ $%d, BX\n\tDECQ DX\n\tJNZ loop", 64*pr.p)
	for i := 0; i < k.mr; i++ {
		emit("\tVMOVUP%s %s, %d(CX)\n\tVMOVUP%s %s, %d(CX)", pr.suf[1:], acc(i, 0), 64*i, pr.suf[1:], acc(i, 1), 64*i+32)
	}
	emit("\tVZEROUPPER\n\tRET\n")
}

// Kernels is the list of micro-kernels; the drivers in ../gemm.go refer to
// them by name.
var kernels = []kernel{
	// AVX-512: MR rows × NV query panels of 64 bytes.
	{"fwd", f32, "512", 8, 3}, {"fwd", f32, "512", 8, 2}, {"fwd", f32, "512", 16, 1},
	{"bwd", f32, "512", 8, 3}, {"bwd", f32, "512", 8, 2}, {"bwd", f32, "512", 16, 1},
	{"fwd", f64, "512", 8, 3}, {"fwd", f64, "512", 8, 2}, {"fwd", f64, "512", 8, 1},
	{"bwd", f64, "512", 8, 3}, {"bwd", f64, "512", 8, 2}, {"bwd", f64, "512", 8, 1},
	// AVX2: MR rows × one query panel (two ymm halves).
	{"fwd", f32, "256", 4, 1}, {"bwd", f32, "256", 4, 1},
	{"fwd", f64, "256", 4, 1}, {"bwd", f64, "256", 4, 1},
}

func main() {
	emit("// Code generated by go run ./_gen; DO NOT EDIT.\n")
	emit("//go:build !purego\n")
	emit("#include \"textflag.h\"\n")
	var decl strings.Builder
	decl.WriteString("// Code generated by go run ./_gen; DO NOT EDIT.\n\n//go:build !purego\n\npackage kern\n\nimport \"unsafe\"\n")
	for _, k := range kernels {
		if k.isa == "512" {
			gen512(k)
		} else {
			gen256(k)
		}
		if k.dir == "fwd" {
			fmt.Fprintf(&decl, "\n//go:noescape\nfunc %s(a, b, c unsafe.Pointer, k, sb, sc int)\n", k.name())
		} else {
			fmt.Fprintf(&decl, "\n//go:noescape\nfunc %s(a, b, c unsafe.Pointer, npanels, pstride, sb, sc int)\n", k.name())
		}
	}
	genNarrow(&decl)
	if err := os.WriteFile("kernels_amd64.s", []byte(out.String()), 0o644); err != nil {
		panic(err)
	}
	if err := os.WriteFile("kernels_amd64.go", []byte(decl.String()), 0o644); err != nil {
		panic(err)
	}
}
