package main

import (
	"fmt"
	"strings"
)

// The small-batch kernels (../narrow.go), for batches of at most L/2
// queries. A projection panel is read as before (64 bytes per column d,
// the L rows of the panel); X and Z are Narrow matrices, W values per
// column (W = the batch rounded up to a power of two).
//
// fwdn kernels compute, for npanels consecutive panels of W (a, 64·k bytes
// each, k = padded D), the sums C[q][rows] = Σ_d W[rows][d]·X[q][d] for q
// queries, the rows of the panel in the lanes: per d, one vector of W and
// one broadcast X[q][d] (at x + d·xs + q·esz) per query. Query q's vector
// goes to c + q·64 (two ymm halves with AVX2), the panels 64·L bytes apart;
// the driver transposes these tiles into the layout of Forward.
//
// bwdn kernels add Wᵀ·G to Z for a Narrow Z of width w: a vector holds w
// queries × rr = V/w partial sums (V lanes per vector), lane k·rr + j
// accumulating Σ_c W[α = c·rr + j][d]·G[α][k] over the L/rr chunks c of a
// panel's rows — one broadcast of rr values of W's column and one
// multiply-add with the packed G vector c (at g + panel·64·w... see
// packG). The rr partial sums of rr adjacent columns are then added by a
// tree of shuffles into one vector of Z (columns d0..d0+rr, w values
// each), put in the column-major order of Narrow by one permutation.
// Columns go in tiles of 16 (zmm) or 8 (ymm) whose accumulators stay in
// registers over all npanels panels (pstride bytes apart).

// nkernel is a small-batch kernel.
type nkernel struct {
	dir string // fwdn or bwdn
	pr  prec
	isa string // 512 or 256
	n   int    // fwdn: queries; bwdn: width w of Z
}

func (k nkernel) name() string {
	c := "q"
	if k.dir == "bwdn" {
		c = "w"
	}
	return fmt.Sprintf("%s%sx%s%s%d", k.dir, k.pr.name, k.isa, c, k.n)
}

func (k nkernel) decl() string {
	if k.dir == "fwdn" {
		return fmt.Sprintf("func %s(a, x, c unsafe.Pointer, k, npanels, xs, pskip int)", k.name())
	}
	return fmt.Sprintf("func %s(a, gw, z unsafe.Pointer, npanels, pstride, ntiles, pfd int)", k.name())
}

// isaRegs returns the vector size in bytes, the register count and the
// register prefix of an ISA.
func isaRegs(isa string) (vb, nregs int, r string) {
	if isa == "512" {
		return 64, 32, "Z"
	}
	return 32, 16, "Y"
}

// narrowKernels lists the small-batch kernels: forward for 1…L/2 queries
// (AVX2: 1…4 per call), backward for every width.
func narrowKernels() []nkernel {
	var ks []nkernel
	for _, isa := range []string{"512", "256"} {
		for _, pr := range []prec{f32, f64} {
			maxq := pr.p / 2
			if isa == "256" {
				maxq = 4
			}
			for q := 1; q <= maxq; q++ {
				ks = append(ks, nkernel{"fwdn", pr, isa, q})
			}
			for w := 1; w <= pr.p/2; w *= 2 {
				ks = append(ks, nkernel{"bwdn", pr, isa, w})
			}
		}
	}
	return ks
}

// fwdnSets returns how many sets of accumulators a forward kernel of q
// queries interleaves over d, so that enough independent multiply-adds are
// in flight: a power of two giving at least 12 zmm (8 ymm) accumulators.
func fwdnSets(q int, zmm bool) int {
	per, want := q, 12
	if !zmm {
		per, want = 2*q, 8
	}
	s := 1
	for s*per < want && s < 16 {
		s *= 2
	}
	return s
}

func genFwdN(k nkernel) {
	pr, q := k.pr, k.n
	vb, nregs, rp := isaRegs(k.isa)
	zmm := k.isa == "512"
	halves := 64 / vb
	s := fwdnSets(q, zmm)
	reg := func(i int) string { return fmt.Sprintf("%s%d", rp, i) }
	// With AVX-512 two W registers alternate over d; with AVX2 there is
	// one pair of W registers, and broadcasts go through two temporaries.
	accBase, tmp := 2, 2
	if !zmm {
		accBase = 4
	}
	if accBase+s*q*halves > nregs {
		panic("fwdn: too many accumulators")
	}
	acc := func(set, qq, h int) string { return reg(accBase + (set*q+qq)*halves + h) }
	mov := "VMOVUP" + pr.suf[1:]
	emit("// %s", k.decl())
	emit("TEXT ·%s(SB), NOSPLIT, $0-56", k.name())
	emit("\tMOVQ a+0(FP), AX\n\tMOVQ x+8(FP), R8\n\tMOVQ c+16(FP), CX\n\tMOVQ k+24(FP), DX\n\tMOVQ npanels+32(FP), R9\n\tMOVQ xs+40(FP), R10\n\tMOVQ pskip+48(FP), R12")
	emit("\tSHRQ $4, DX")
	emit("panel:")
	for set := range s {
		for qq := range q {
			for h := range halves {
				a := acc(set, qq, h)
				if zmm {
					emit("\tVPXORD %s, %s, %s", a, a, a)
				} else {
					emit("\tVXORPS %s, %s, %s", a, a, a)
				}
			}
		}
	}
	emit("\tMOVQ R8, BX\n\tMOVQ DX, R11")
	emit("loop:")
	for u := range 16 {
		set, wr := u%s, u%2
		if !zmm {
			wr = 0
		}
		for h := range halves {
			emit("\t%s %d(AX), %s", mov, 64*u+h*vb, reg(wr+h))
		}
		for qq := range q {
			if zmm {
				emit("\tVFMADD231%s.BCST %d(BX), %s, %s", pr.suf, qq*pr.esz, reg(wr), acc(set, qq, 0))
				continue
			}
			t := reg(tmp + qq%2)
			emit("\t%s %d(BX), %s", pr.bcast, qq*pr.esz, t)
			for h := range halves {
				emit("\tVFMADD231%s %s, %s, %s", pr.suf, reg(wr+h), t, acc(set, qq, h))
			}
		}
		emit("\tADDQ R10, BX")
	}
	emit("\tADDQ $1024, AX\n\tDECQ R11\n\tJNZ loop")
	for hs := s / 2; hs >= 1; hs /= 2 {
		for set := range hs {
			for qq := range q {
				for h := range halves {
					emit("\tVADD%s %s, %s, %s", pr.suf, acc(set+hs, qq, h), acc(set, qq, h), acc(set, qq, h))
				}
			}
		}
	}
	for qq := range q {
		for h := range halves {
			a, off := acc(0, qq, h), 64*qq+h*vb
			emit("\tVADD%s %d(CX), %s, %s\n\t%s %s, %d(CX)", pr.suf, off, a, a, mov, a, off)
		}
	}
	emit("\tADDQ R12, AX\n\tADDQ $%d, CX\n\tDECQ R9\n\tJNZ panel", 64*pr.p)
	emit("\tVZEROUPPER\n\tRET\n")
}

// lane is the symbolic content of a lane during a reduction: a partial
// sum of entity ent (column i of the group, query k: ent = i·w + k) over
// the residues in mask.
type lane struct{ ent, mask int }

// halvesOf splits the lanes of x and y for one level of the reduction
// tree, where each entity's partial sums fill aligned groups of 2·g bytes:
// p gets the first g bytes of every group, q the second, from x and y as
// the emitted shuffle arranges them (esz bytes per lane, vb per vector).
func halvesOf(g, esz, vb int, x, y []lane) (p, q []lane) {
	n := len(x)
	cl := 16 / esz // lanes per 128-bit chunk
	switch {
	case g == 32 || (g == 16 && vb == 32):
		// VSHUFF64X2 $0x44/$0xEE (zmm halves), VPERM2F128 $0x20/$0x31.
		h := n / 2
		p = append(append(p, x[:h]...), y[:h]...)
		q = append(append(q, x[h:]...), y[h:]...)
	case g == 16:
		// VSHUFF64X2 $0x88/$0xDD: chunks 0 and 2 of x, then of y.
		for _, v := range [][]lane{x, y} {
			p = append(append(p, v[0:cl]...), v[2*cl:3*cl]...)
			q = append(append(q, v[cl:2*cl]...), v[3*cl:4*cl]...)
		}
	default:
		// VUNPCKLPD/VUNPCKHPD (g = 8) or VSHUFPS $0x88/$0xDD (g = 4),
		// within each 128-bit chunk.
		u := g / esz // lanes per unit
		for c := 0; c < n; c += cl {
			xc, yc := x[c:c+cl], y[c:c+cl]
			if g == 8 {
				p = append(append(p, xc[:u]...), yc[:u]...)
				q = append(append(q, xc[u:]...), yc[u:]...)
			} else {
				p = append(p, xc[0], xc[2], yc[0], yc[2])
				q = append(q, xc[1], xc[3], yc[1], yc[3])
			}
		}
	}
	return p, q
}

// emitHalves writes the shuffles of halvesOf; evex allows registers
// above 15 in ymm code (VSHUFF32X4 for VPERM2F128).
func emitHalves(g, vb int, evex bool, x, y, p, q string) {
	switch {
	case g == 32:
		emit("\tVSHUFF64X2 $0x44, %s, %s, %s\n\tVSHUFF64X2 $0xEE, %s, %s, %s", y, x, p, y, x, q)
	case g == 16 && vb == 32 && evex:
		emit("\tVSHUFF32X4 $0, %s, %s, %s\n\tVSHUFF32X4 $3, %s, %s, %s", y, x, p, y, x, q)
	case g == 16 && vb == 32:
		emit("\tVPERM2F128 $0x20, %s, %s, %s\n\tVPERM2F128 $0x31, %s, %s, %s", y, x, p, y, x, q)
	case g == 16:
		emit("\tVSHUFF64X2 $0x88, %s, %s, %s\n\tVSHUFF64X2 $0xDD, %s, %s, %s", y, x, p, y, x, q)
	case g == 8:
		emit("\tVUNPCKLPD %s, %s, %s\n\tVUNPCKHPD %s, %s, %s", y, x, p, y, x, q)
	default:
		emit("\tVSHUFPS $0x88, %s, %s, %s\n\tVSHUFPS $0xDD, %s, %s, %s", y, x, p, y, x, q)
	}
}

// reducePlan simulates the reduction tree of rr accumulators of a bwdn
// kernel and returns the permutation that puts its result in Narrow order
// (lane i·w + k: column d0+i, query k), or nil if that is the identity.
func reducePlan(k nkernel, rr, w, vb int) []int {
	v := vb / k.pr.esz
	accs := make([][]lane, rr)
	for i := range accs {
		for t := range v {
			accs[i] = append(accs[i], lane{i*w + t/rr, 1 << (t % rr)})
		}
	}
	res := reduceTree(k, rr, vb, accs)
	perm := make([]int, v)
	ident := true
	for t, ln := range res {
		perm[ln.ent] = t
		ident = ident && ln.ent == t
	}
	if ident {
		return nil
	}
	return perm
}

// reduceTree simulates the reduction tree of the accumulators accs, whose
// entities have rr partial sums each, and returns the lanes of the result:
// every entity once, complete.
func reduceTree(k nkernel, rr, vb int, accs [][]lane) []lane {
	esz := k.pr.esz
	v := vb / esz
	for g := rr * esz / 2; g >= esz; g /= 2 {
		var next [][]lane
		for a := 0; a < len(accs); a += 2 {
			p, q := halvesOf(g, esz, vb, accs[a], accs[a+1])
			s := make([]lane, v)
			for t := range s {
				if p[t].ent != q[t].ent || p[t].mask&q[t].mask != 0 {
					panic(fmt.Sprintf("%s: bad reduction at g = %d", k.name(), g))
				}
				s[t] = lane{p[t].ent, p[t].mask | q[t].mask}
			}
			next = append(next, s)
		}
		accs = next
	}
	seen := map[int]bool{}
	for _, ln := range accs[0] {
		if ln.mask != 1<<rr-1 || seen[ln.ent] {
			panic(fmt.Sprintf("%s: incomplete reduction", k.name()))
		}
		seen[ln.ent] = true
	}
	return accs[0]
}

// bcastOp returns the instruction that broadcasts n bytes to a vector of
// vb bytes.
func bcastOp(n, vb int) string {
	switch {
	case n == 32:
		return "VBROADCASTF64X4"
	case n == 16 && vb == 64:
		return "VBROADCASTF32X4"
	case n == 16:
		return "VBROADCASTF128"
	case n == 8:
		return "VBROADCASTSD"
	case n == 4:
		return "VBROADCASTSS"
	}
	panic(fmt.Sprintf("no broadcast of %d bytes", n))
}

func genBwdN(k nkernel) {
	pr, w := k.pr, k.n
	vb, _, rp := isaRegs(k.isa)
	zmm := k.isa == "512"
	v := vb / pr.esz
	rr := v / w       // rows of a panel per vector
	nch := pr.p / rr  // vectors of G per panel
	bb := rr * pr.esz // bytes of W broadcast per multiply-add
	reg := func(i int) string { return fmt.Sprintf("%s%d", rp, i) }
	// Registers: accumulators, G (if it fits), broadcast temporaries,
	// shuffle temporaries, the permuted result, the permutation.
	tile, gReg, tmp, shP, out, permReg := 16, 16, 24, 26, 28, 31
	if !zmm {
		tile, tmp, gReg, shP, out, permReg = 8, 8, 10, 12, 14, 15
	}
	gInRegs := zmm || nch <= 2
	if bb == vb && !gInRegs {
		panic("bwdn: W from memory needs G in registers")
	}
	perm := reducePlan(k, rr, w, vb)
	sym := k.name() + "perm<>"
	if perm != nil {
		sz := pr.esz
		if !zmm && pr.esz == 8 {
			sz = 0 // VPERMPD takes an immediate
		}
		for t, p := range perm {
			if sz > 0 {
				emit("DATA %s+%d(SB)/%d, $%d", sym, t*sz, sz, p)
			}
		}
		if sz > 0 {
			emit("GLOBL %s(SB), RODATA|NOPTR, $%d\n", sym, vb)
		}
	}
	mov := "VMOVUP" + pr.suf[1:]
	emit("// %s", k.decl())
	emit("TEXT ·%s(SB), NOSPLIT, $0-56", k.name())
	emit("\tMOVQ a+0(FP), AX\n\tMOVQ gw+8(FP), BX\n\tMOVQ z+16(FP), CX\n\tMOVQ npanels+24(FP), DX\n\tMOVQ pstride+32(FP), R9\n\tMOVQ ntiles+40(FP), R10\n\tMOVQ pfd+48(FP), SI")
	permImm := 0
	if perm != nil {
		if !zmm && pr.esz == 8 {
			for t, p := range perm {
				permImm |= p << (2 * t)
			}
		} else {
			emit("\t%s %s(SB), %s", mov, sym, reg(permReg))
		}
	}
	emit("tile:")
	for i := range tile {
		if zmm {
			emit("\tVPXORD %s, %s, %s", reg(i), reg(i), reg(i))
		} else {
			emit("\tVXORPS %s, %s, %s", reg(i), reg(i), reg(i))
		}
	}
	emit("\tMOVQ AX, R11\n\tMOVQ BX, R12\n\tMOVQ DX, R13")
	emit("panel:")
	if gInRegs {
		for c := range nch {
			emit("\t%s %d(R12), %s", mov, c*vb, reg(gReg+c))
		}
	}
	emitPrefetch(tile)
	for i := range tile {
		for c := range nch {
			off := 64*i + c*bb
			if bb == vb {
				emit("\tVFMADD231%s %d(R11), %s, %s", pr.suf, off, reg(gReg+c), reg(i))
				continue
			}
			t := reg(tmp + (i*nch+c)%2)
			emit("\t%s %d(R11), %s", bcastOp(bb, vb), off, t)
			gop := reg(gReg + c)
			if !gInRegs {
				gop = fmt.Sprintf("%d(R12)", c*vb)
			}
			emit("\tVFMADD231%s %s, %s, %s", pr.suf, gop, t, reg(i))
		}
	}
	emit("\tADDQ R9, R11\n\tADDQ $%d, R12\n\tDECQ R13\n\tJNZ panel", pr.p*w*pr.esz)
	for m := range tile / rr {
		regs := make([]int, rr)
		for i := range regs {
			regs[i] = m*rr + i
		}
		for g := rr * pr.esz / 2; g >= pr.esz; g /= 2 {
			var next []int
			for a := 0; a < len(regs); a += 2 {
				x, y := reg(regs[a]), reg(regs[a+1])
				emitHalves(g, vb, false, x, y, reg(shP), reg(shP+1))
				emit("\tVADD%s %s, %s, %s", pr.suf, reg(shP+1), reg(shP), x)
				next = append(next, regs[a])
			}
			regs = next
		}
		res := reg(regs[0])
		switch {
		case perm == nil:
		case !zmm && pr.esz == 8:
			emit("\tVPERMPD $%#x, %s, %s", permImm, res, reg(out))
			res = reg(out)
		default:
			emit("\tVPERM%s %s, %s, %s", pr.suf, res, reg(permReg), reg(out))
			res = reg(out)
		}
		emit("\tVADD%s %d(CX), %s, %s\n\t%s %s, %d(CX)", pr.suf, m*vb, res, res, mov, res, m*vb)
	}
	emit("\tADDQ $%d, AX\n\tADDQ $%d, CX\n\tDECQ R10\n\tJNZ tile", 64*tile, tile*w*pr.esz)
	emit("\tVZEROUPPER\n\tRET\n")
}

// genNarrow writes every small-batch kernel and appends its declaration.
func genNarrow(decl *strings.Builder) {
	for _, k := range narrowKernels() {
		switch {
		case k.dir == "fwdn":
			genFwdN(k)
		case k.isa == "512":
			genBwdY(k)
		default:
			genBwdN(k)
		}
		fmt.Fprintf(decl, "\n//go:noescape\n%s\n", k.decl())
	}
}

// emitPrefetch writes the prefetches of a backward kernel's panel step:
// the lines at distance pfd (SI) from the tile's columns (R11), which
// StepNarrow points at the forward product's next columns.
func emitPrefetch(tile int) {
	for i := range tile {
		emit("\tPREFETCHT0 %d(R11)(SI*1)", 64*i)
	}
}
