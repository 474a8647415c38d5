package main

import (
	"fmt"
	"strings"
)

// The small-batch kernels (../narrow.go), for batches of at most L/2
// queries. A projection panel is read as by the other kernels (64 bytes per
// column d: the L rows of the panel); X and Z are Narrow matrices: tiles
// of L columns, each holding R rows of L consecutive values
// (x + tile·xs + (q·L + d mod L)·esz).
//
// Both kernels compute every output as the same chain of fused
// multiply-adds, in the same order, as the panel kernels (fwd/bwd in
// main.go) do in their query lanes, so that a query's results do not
// depend on the size of its batch: only which values share a vector
// changes.
//
// fwdn kernels add, for npanels panels of W (a, then pskip bytes after
// each panel's k columns), C[q][rows] += Σ_d W[rows][d]·X[q][d] over k
// columns (a multiple of 16) for q queries, the rows of the panel in the
// lanes: per d, one vector of W and one broadcast of X[q][d] per query,
// one accumulator per query, summed in the order of d. Query q's vector
// is at c + q·64 (two ymm halves with AVX2), loaded first (the running sum
// of earlier columns, or zero) and stored back, the panels 64·L bytes
// apart; the driver transposes these tiles into the layout of Forward.
//
// bwdn kernels add Σ_α W[α][d]·G[α][q] to Z[q][d] for q queries, ntiles
// tiles of L columns and npanels panels (pstride bytes apart): the
// columns of a tile of W are transposed in registers, V×V at a time (V
// lanes per vector), into vectors of one row over V columns, and each row
// α, in order, adds its vector times the broadcast G[α][q] (at
// gw + panel·L·L·esz + (α·L + q)·esz, the layout of Forward's h) to
// query q's accumulator: the chain of the panel kernels, which broadcast
// W[α][d] and multiply it by G[α] in the query lanes. Accumulators are
// loaded from and stored to Z's tile (z, zs bytes per tile).

// nkernel is a small-batch kernel.
type nkernel struct {
	dir string // fwdn or bwdn
	pr  prec
	isa string // 512 or 256
	q   int    // queries
}

func (k nkernel) name() string {
	return fmt.Sprintf("%s%sx%sq%d", k.dir, k.pr.name, k.isa, k.q)
}

func (k nkernel) decl() string {
	switch k.dir {
	case "fwdn":
		return fmt.Sprintf("func %s(a, x, c unsafe.Pointer, k, npanels, xs, pskip int)", k.name())
	case "stepn":
		return fmt.Sprintf("func %s(ab, gw, z, af, x, c unsafe.Pointer, ntiles, zs, xs int)", k.name())
	}
	return fmt.Sprintf("func %s(a, gw, z unsafe.Pointer, npanels, pstride, ntiles, zs int)", k.name())
}

// isaRegs returns the vector size in bytes and the register prefix of an
// ISA.
func isaRegs(isa string) (vb int, r string) {
	if isa == "512" {
		return 64, "Z"
	}
	return 32, "Y"
}

// narrowKernels lists the small-batch kernels: for 1…L/2 queries with
// AVX-512, 1…4 per call with AVX2 (which has 16 registers).
func narrowKernels() []nkernel {
	var ks []nkernel
	for _, isa := range []string{"512", "256"} {
		for _, pr := range []prec{f32, f64} {
			maxq := pr.p / 2
			if isa == "256" {
				maxq = 4
			}
			for _, dir := range []string{"fwdn", "bwdn"} {
				for q := 1; q <= maxq; q++ {
					ks = append(ks, nkernel{dir, pr, isa, q})
				}
			}
		}
	}
	return ks
}

func genFwdN(k nkernel) {
	pr, q := k.pr, k.q
	vb, rp := isaRegs(k.isa)
	zmm := k.isa == "512"
	halves := 64 / vb
	reg := func(i int) string { return fmt.Sprintf("%s%d", rp, i) }
	// AVX-512: two W registers alternate over d. AVX2: one pair of W
	// registers (the two halves of a column), two broadcast temporaries.
	accBase, tmp := 2, 2
	if !zmm {
		accBase = 4
	}
	acc := func(qq, h int) string { return reg(accBase + qq*halves + h) }
	mov := "VMOVUP" + pr.suf[1:]
	emit("// %s", k.decl())
	emit("TEXT ·%s(SB), NOSPLIT, $0-56", k.name())
	emit("\tMOVQ a+0(FP), AX\n\tMOVQ x+8(FP), R8\n\tMOVQ c+16(FP), CX\n\tMOVQ k+24(FP), DX\n\tMOVQ npanels+32(FP), R9\n\tMOVQ xs+40(FP), R10\n\tMOVQ pskip+48(FP), R12")
	emit("\tSHRQ $4, DX")
	emit("panel:")
	for qq := range q {
		for h := range halves {
			emit("\t%s %d(CX), %s", mov, 64*qq+h*vb, acc(qq, h))
		}
	}
	emit("\tMOVQ R8, BX\n\tMOVQ DX, R11")
	emit("loop:")
	for u := range 16 {
		wr := u % 2
		if !zmm {
			wr = 0
		}
		for h := range halves {
			emit("\t%s %d(AX), %s", mov, 64*u+h*vb, reg(wr+h))
		}
		for qq := range q {
			// X[q][d] of column u of this step of 16: tile u/L.
			x := fmt.Sprintf("%d(BX)", (qq*pr.p+u%pr.p)*pr.esz)
			if u >= pr.p {
				x = fmt.Sprintf("%d(BX)(R10*1)", (qq*pr.p+u%pr.p)*pr.esz)
			}
			if zmm {
				emit("\tVFMADD231%s.BCST %s, %s, %s", pr.suf, x, reg(wr), acc(qq, 0))
				continue
			}
			t := reg(tmp + qq%2)
			emit("\t%s %s, %s", pr.bcast, x, t)
			for h := range halves {
				emit("\tVFMADD231%s %s, %s, %s", pr.suf, reg(wr+h), t, acc(qq, h))
			}
		}
	}
	emit("\tADDQ $1024, AX")
	for range 16 / pr.p {
		emit("\tADDQ R10, BX")
	}
	emit("\tDECQ R11\n\tJNZ loop")
	for qq := range q {
		for h := range halves {
			emit("\t%s %s, %d(CX)", mov, acc(qq, h), 64*qq+h*vb)
		}
	}
	emit("\tADDQ R12, AX\n\tADDQ $%d, CX\n\tDECQ R9\n\tJNZ panel", 64*pr.p)
	emit("\tVZEROUPPER\n\tRET\n")
}

// genNarrow writes every small-batch kernel and appends its declaration.
func genNarrow(decl *strings.Builder) {
	for _, k := range append(narrowKernels(), stepKernels()...) {
		switch k.dir {
		case "fwdn":
			genFwdN(k)
		case "bwdn":
			genBwdN(k)
		default:
			genStepN(k)
		}
		fmt.Fprintf(decl, "\n//go:noescape\n%s\n", k.decl())
	}
}
