package main

import "fmt"

// stepKernels lists the fused kernels (AVX-512 only): up to 6 queries per
// call in float32 (the registers: 17 for the transposition, two
// accumulators per query, two for W's columns), 4 in float64.
func stepKernels() []nkernel {
	var ks []nkernel
	for _, pr := range []prec{f32, f64} {
		for q := 1; q <= min(6, pr.p/2); q++ {
			ks = append(ks, nkernel{"stepn", pr, "512", q})
		}
	}
	return ks
}

// stepPrefetch is how far ahead of its reads (in bytes) the fused kernel
// prefetches the forward panel: on the machine of the issue (2 cores of a
// shared Zen 4, config c) 1 or 2 KiB ahead took about 8% off the step,
// 4 and 8 KiB less, 32 KiB nothing.
const stepPrefetch = 2048

// genStepN writes a fused kernel: for each tile of L columns, the backward
// product of one panel (at ab, G at gw, Z's tile at z; genBwdN's) and the
// forward product of another (at af, X's tile at x; genFwdN's), the two
// interleaved row by row. The forward panel is read from memory while the
// backward one, read by the previous forward product, is in cache: the
// hardware prefetcher (helped by a software prefetch, stepPrefetch ahead)
// keeps streaming the forward panel while the backward product computes,
// at a grain of one tile (1 KiB of each panel in float32). Every sum is the chain of the separate kernels: the forward
// accumulators (at c + q·64, loaded first and stored at the end) run over
// every column in order, the backward ones over the panel's rows.
func genStepN(k nkernel) {
	pr, q := k.pr, k.q
	esz, l := pr.esz, pr.p
	reg := func(i int) string { return fmt.Sprintf("Z%d", i) }
	// Registers: the transposition's L slots and a spare, the backward
	// accumulators, the forward accumulators, two W columns.
	bacc := func(qq int) string { return reg(l + 1 + qq) }
	facc := func(qq int) string { return reg(l + 1 + q + qq) }
	wf := func(u int) string { return reg(l + 1 + 2*q + u%2) }
	if l+1+2*q+2 > 32 {
		panic(k.name() + ": too many registers")
	}
	mov := "VMOVUP" + pr.suf[1:]
	emit("// %s", k.decl())
	emit("TEXT ·%s(SB), NOSPLIT, $0-72", k.name())
	emit("\tMOVQ ab+0(FP), AX\n\tMOVQ gw+8(FP), BX\n\tMOVQ z+16(FP), CX\n\tMOVQ af+24(FP), DX\n\tMOVQ x+32(FP), SI\n\tMOVQ c+40(FP), DI\n\tMOVQ ntiles+48(FP), R10\n\tMOVQ zs+56(FP), R8\n\tMOVQ xs+64(FP), R9")
	for qq := range q {
		emit("\t%s %d(DI), %s", mov, 64*qq, facc(qq))
	}
	emit("tile:")
	for qq := range q {
		emit("\t%s %d(CX), %s", mov, qq*l*esz, bacc(qq))
	}
	for i := range l {
		emit("\t%s %d(AX), %s", mov, 64*i, reg(i))
	}
	rows := emitTranspose(64, esz, reg)
	for r := range l {
		for qq := range q {
			emit("\tVFMADD231%s.BCST %d(BX), %s, %s", pr.suf, (r*l+qq)*esz, reg(rows[r]), bacc(qq))
		}
		emit("\t%s %d(DX), %s", mov, 64*r, wf(r))
		emit("\tPREFETCHT0 %d(DX)", 64*r+stepPrefetch)
		for qq := range q {
			emit("\tVFMADD231%s.BCST %d(SI), %s, %s", pr.suf, (qq*l+r)*esz, wf(r), facc(qq))
		}
	}
	for qq := range q {
		emit("\t%s %s, %d(CX)", mov, bacc(qq), qq*l*esz)
	}
	emit("\tADDQ $%d, AX\n\tADDQ R8, CX\n\tADDQ $%d, DX\n\tADDQ R9, SI\n\tDECQ R10\n\tJNZ tile", 64*l, 64*l)
	for qq := range q {
		emit("\t%s %s, %d(DI)", mov, facc(qq), 64*qq)
	}
	emit("\tVZEROUPPER\n\tRET\n")
}
