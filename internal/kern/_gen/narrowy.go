package main

import "fmt"

// genBwdY writes the AVX-512 backward kernel of width w. It works on ymm
// vectors (AVX-512VL, 32 registers): on Zen 4 a broadcast of a few rows
// of W into a zmm register costs as much as a multiply-add (it takes two
// load slots), while a ymm broadcast is nearly free and, here, feeds two
// multiply-adds. The w queries are split into nh = 2 halves of qv = w/2
// (w = 1: one query, nh = 1); a ymm vector holds qv queries × rr = v/qv
// partial sums (v lanes per ymm), lane k·rr + j of half h accumulating
// Σ_c W[α = c·rr + j][d]·G[α][h·qv + k] over the L/rr chunks c of a
// panel's rows: one broadcast of rr values of W's column (a plain load for
// rr·esz = 32 bytes) and nh multiply-adds with the packed G vectors (c, h),
// all of which stay in registers. The rr partial sums of rr adjacent
// columns are added by the shuffle tree of the zmm kernels, on ymm, and
// the two halves are merged by one VPERMT2PS/PD into 64 bytes of Z in
// Narrow order (w = 1: one VPERMPS/PD of a ymm, if needed). Columns go in
// tiles of 8 (4 if G takes 16 registers), over all npanels panels.
func genBwdY(k nkernel) {
	pr, w := k.pr, k.n
	const vb = 32
	v := vb / pr.esz
	qv, nh := max(1, w/2), min(2, w)
	rr := v / qv      // rows of a panel per vector: the partial sums per column
	nch := pr.p / rr  // chunks of rows per column
	bb := rr * pr.esz // bytes of W broadcast per chunk
	tile := 8
	if nch*nh > 8 {
		tile = 4
	}
	nacc := tile * nh
	y := func(i int) string { return fmt.Sprintf("Y%d", i) }
	z := func(i int) string { return fmt.Sprintf("Z%d", i) }
	// Registers: the broadcasts in Y0 and Y1 (VEX encodings, cheaper
	// than EVEX on Zen 4), the shuffle temporaries, the merge
	// permutation, then the accumulators and G.
	const base, shP, shQ, idx = 0, 2, 3, 4
	acc := func(i, h int) int { return 5 + i*nh + h }
	gReg := func(c, h int) int { return 5 + nacc + c*nh + h }
	if gReg(nch-1, nh-1) >= 32 || tile%rr != 0 {
		panic(fmt.Sprintf("%s: bad register plan", k.name()))
	}
	// The merge permutation, from the lanes the tree leaves in each half:
	// entity i·w + k (column d0+i, query k) goes to that lane of Z.
	tbl := 64 / pr.esz // lanes of a zmm: the second table's indices start there
	out := v * nh      // lanes of Z per group of rr columns
	perm := make([]int, out)
	ident := true
	for h := range nh {
		accs := make([][]lane, rr)
		for i := range accs {
			for t := range v {
				accs[i] = append(accs[i], lane{i*w + h*qv + t/rr, 1 << (t % rr)})
			}
		}
		for t, ln := range reduceTree(k, rr, vb, accs) {
			perm[ln.ent] = h*tbl + t
			ident = ident && ln.ent == h*tbl+t
		}
	}
	sym := k.name() + "perm<>"
	needPerm := nh == 2 || !ident
	if needPerm {
		for t, p := range perm {
			emit("DATA %s+%d(SB)/%d, $%d", sym, t*pr.esz, pr.esz, p)
		}
		emit("GLOBL %s(SB), RODATA|NOPTR, $%d\n", sym, out*pr.esz)
	}
	mov := "VMOVUP" + pr.suf[1:]
	emit("// %s", k.decl())
	emit("TEXT ·%s(SB), NOSPLIT, $0-56", k.name())
	emit("\tMOVQ a+0(FP), AX\n\tMOVQ gw+8(FP), BX\n\tMOVQ z+16(FP), CX\n\tMOVQ npanels+24(FP), DX\n\tMOVQ pstride+32(FP), R9\n\tMOVQ ntiles+40(FP), R10\n\tMOVQ pfd+48(FP), SI")
	switch {
	case nh == 2:
		emit("\t%s %s(SB), %s", mov, sym, z(idx))
	case needPerm:
		emit("\t%s %s(SB), %s", mov, sym, y(idx))
	}
	emit("tile:")
	for i := range tile {
		for h := range nh {
			a := y(acc(i, h))
			emit("\tVXORPS %s, %s, %s", a, a, a)
		}
	}
	emit("\tMOVQ AX, R11\n\tMOVQ BX, R12\n\tMOVQ DX, R13")
	emit("panel:")
	for c := range nch {
		for h := range nh {
			emit("\t%s %d(R12), %s", mov, (c*nh+h)*vb, y(gReg(c, h)))
		}
	}
	emitPrefetch(tile)
	for i := range tile {
		for c := range nch {
			off := 64*i + c*bb
			if nh == 1 {
				// w = 1: the rows of the chunk are a whole vector.
				emit("\tVFMADD231%s %d(R11), %s, %s", pr.suf, off, y(gReg(c, 0)), y(acc(i, 0)))
				continue
			}
			e := y(base + (i*nch+c)%2)
			if bb == vb {
				emit("\t%s %d(R11), %s", mov, off, e)
			} else {
				emit("\t%s %d(R11), %s", bcastOp(bb, 64), off, e)
			}
			for h := range nh {
				emit("\tVFMADD231%s %s, %s, %s", pr.suf, y(gReg(c, h)), e, y(acc(i, h)))
			}
		}
	}
	emit("\tADDQ R9, R11\n\tADDQ $%d, R12\n\tDECQ R13\n\tJNZ panel", pr.p*w*pr.esz)
	for m := range tile / rr {
		res := make([]int, nh)
		for h := range nh {
			regs := make([]int, rr)
			for i := range regs {
				regs[i] = acc(m*rr+i, h)
			}
			for g := rr * pr.esz / 2; g >= pr.esz; g /= 2 {
				var next []int
				for a := 0; a < len(regs); a += 2 {
					x, yy := y(regs[a]), y(regs[a+1])
					emitHalves(g, vb, true, x, yy, y(shP), y(shQ))
					emit("\tVADD%s %s, %s, %s", pr.suf, y(shQ), y(shP), x)
					next = append(next, regs[a])
				}
				regs = next
			}
			res[h] = regs[0]
		}
		off := m * out * pr.esz
		switch {
		case nh == 2:
			emit("\tVPERMT2%s %s, %s, %s", pr.suf, z(res[1]), z(idx), z(res[0]))
			emit("\tVADD%s %d(CX), %s, %s\n\t%s %s, %d(CX)", pr.suf, off, z(res[0]), z(res[0]), mov, z(res[0]), off)
		default:
			r := y(res[0])
			if needPerm {
				emit("\tVPERM%s %s, %s, %s", pr.suf, r, y(idx), y(shP))
				r = y(shP)
			}
			emit("\tVADD%s %d(CX), %s, %s\n\t%s %s, %d(CX)", pr.suf, off, r, r, mov, r, off)
		}
	}
	emit("\tADDQ $%d, AX\n\tADDQ $%d, CX\n\tDECQ R10\n\tJNZ tile", 64*tile, tile*w*pr.esz)
	emit("\tVZEROUPPER\n\tRET\n")
}
