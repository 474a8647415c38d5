package main

import "fmt"

// cell is the content of a lane during a transposition: the value of W
// at (row, col) of the V×V block.
type cell struct{ col, row int }

// shufOp is one shuffle of a transposition stage: dst = op(a, b) in Intel
// terms (Go's operand order is reversed when it is emitted).
type shufOp struct {
	ins string // mnemonic, with its immediate if any
	sim func(a, b []cell, esz int) []cell
}

// pairStep applies lo and hi to the slots in1 and in2 of a stage and puts
// the results in the slots outLo and outHi of the next.
type pairStep struct {
	in1, in2, outLo, outHi int
	lo, hi                 shufOp
}

func chunks(n, esz int) int { return n * esz / 16 }

// perChunk applies f to each 128-bit chunk of a and b.
func perChunk(a, b []cell, esz int, f func(a, b []cell) []cell) []cell {
	cl := 16 / esz
	var out []cell
	for c := range chunks(len(a), esz) {
		out = append(out, f(a[c*cl:(c+1)*cl], b[c*cl:(c+1)*cl])...)
	}
	return out
}

var (
	unpcklps = shufOp{"VUNPCKLPS", func(a, b []cell, esz int) []cell {
		return perChunk(a, b, esz, func(a, b []cell) []cell { return []cell{a[0], b[0], a[1], b[1]} })
	}}
	unpckhps = shufOp{"VUNPCKHPS", func(a, b []cell, esz int) []cell {
		return perChunk(a, b, esz, func(a, b []cell) []cell { return []cell{a[2], b[2], a[3], b[3]} })
	}}
	unpcklpd = shufOp{"VUNPCKLPD", func(a, b []cell, esz int) []cell {
		return perChunk(a, b, esz, func(a, b []cell) []cell {
			h := len(a) / 2
			return append(append([]cell{}, a[:h]...), b[:h]...)
		})
	}}
	unpckhpd = shufOp{"VUNPCKHPD", func(a, b []cell, esz int) []cell {
		return perChunk(a, b, esz, func(a, b []cell) []cell {
			h := len(a) / 2
			return append(append([]cell{}, a[h:]...), b[h:]...)
		})
	}}
)

// shuff is VSHUFF64X2 with immediate imm: 128-bit chunks imm[1:0] and
// imm[3:2] of a, then imm[5:4] and imm[7:6] of b.
func shuff(imm int) shufOp {
	return shufOp{fmt.Sprintf("VSHUFF64X2 $%#x,", imm), func(a, b []cell, esz int) []cell {
		cl := 16 / esz
		var out []cell
		for i, src := range [][]cell{a, a, b, b} {
			c := imm >> (2 * i) & 3
			out = append(out, src[c*cl:(c+1)*cl]...)
		}
		return out
	}}
}

// perm2 is VPERM2F128 with immediate imm (ymm): the 128-bit halves
// imm[1:0] and imm[5:4] of (a.lo, a.hi, b.lo, b.hi).
func perm2(imm int) shufOp {
	return shufOp{fmt.Sprintf("VPERM2F128 $%#x,", imm), func(a, b []cell, esz int) []cell {
		cl := 16 / esz
		halves := [][]cell{a[:cl], a[cl:], b[:cl], b[cl:]}
		return append(append([]cell{}, halves[imm&3]...), halves[imm>>4&3]...)
	}}
}

// transposeStages returns the stages that transpose V column vectors (V
// lanes of esz bytes in a vector of vb bytes) into row vectors.
func transposeStages(vb, esz int) [][]pairStep {
	var st [][]pairStep
	add := func(steps ...pairStep) { st = append(st, steps) }
	v := vb / esz
	// Within 128-bit chunks: interleave pairs of columns, then (float32)
	// pairs of pairs, so that slot 4m+a (2m+a) holds, in chunk c, row
	// 4c+a (2c+a) of columns 4m… (2m…).
	var s1, s2 []pairStep
	if esz == 4 {
		for k := range v / 2 {
			s1 = append(s1, pairStep{2 * k, 2*k + 1, 2 * k, 2*k + 1, unpcklps, unpckhps})
		}
		for m := range v / 4 {
			s2 = append(s2, pairStep{4 * m, 4*m + 2, 4 * m, 4*m + 1, unpcklpd, unpckhpd},
				pairStep{4*m + 1, 4*m + 3, 4*m + 2, 4*m + 3, unpcklpd, unpckhpd})
		}
		add(s1...)
		add(s2...)
	} else {
		for k := range v / 2 {
			s1 = append(s1, pairStep{2 * k, 2*k + 1, 2 * k, 2*k + 1, unpcklpd, unpckhpd})
		}
		add(s1...)
	}
	cl := 16 / esz // rows per chunk
	switch vb {
	case 32:
		// Then the two chunks: row c·cl+a is chunk c of slots a and cl+a.
		var s3 []pairStep
		for a := range cl {
			s3 = append(s3, pairStep{a, cl + a, a, cl + a, perm2(0x20), perm2(0x31)})
		}
		add(s3...)
	default:
		// Four chunks: first the halves of slots a, a+cl (and of a+2cl,
		// a+3cl), then row c·cl+a from chunks c of those.
		var s3, s4 []pairStep
		for _, x := range []int{0, 2 * cl} {
			for a := range cl {
				s3 = append(s3, pairStep{x + a, x + cl + a, x + a, x + cl + a, shuff(0x44), shuff(0xEE)})
			}
		}
		for a := range cl {
			s4 = append(s4, pairStep{a, 2*cl + a, a, cl + a, shuff(0x88), shuff(0xDD)},
				pairStep{cl + a, 3*cl + a, 2*cl + a, 3*cl + a, shuff(0x88), shuff(0xDD)})
		}
		add(s3...)
		add(s4...)
	}
	return st
}

// emitTranspose writes the transposition of the V column vectors in
// registers 0…V−1 (register V spare) and returns the register of each row,
// after checking the result by simulation.
func emitTranspose(vb, esz int, reg func(int) string) []int {
	v := vb / esz
	val := make([][]cell, v)
	at := make([]int, v) // slot → register
	for i := range v {
		at[i] = i
		for j := range v {
			val[i] = append(val[i], cell{col: i, row: j})
		}
	}
	spare := v
	for _, stage := range transposeStages(vb, esz) {
		nval, nat := make([][]cell, v), make([]int, v)
		for _, p := range stage {
			r1, r2 := at[p.in1], at[p.in2]
			emit("\t%s %s, %s, %s", p.lo.ins, reg(r2), reg(r1), reg(spare))
			emit("\t%s %s, %s, %s", p.hi.ins, reg(r2), reg(r1), reg(r2))
			nval[p.outLo] = p.lo.sim(val[p.in1], val[p.in2], esz)
			nval[p.outHi] = p.hi.sim(val[p.in1], val[p.in2], esz)
			nat[p.outLo], nat[p.outHi] = spare, r2
			spare = r1
		}
		val, at = nval, nat
	}
	for r := range v {
		for i, c := range val[r] {
			if c != (cell{col: i, row: r}) {
				panic(fmt.Sprintf("transpose %d×%d: slot %d lane %d holds %+v", v, v, r, i, c))
			}
		}
	}
	return at
}

// genBwdN writes a backward kernel. With AVX-512 a tile of L columns is
// one block: L zmm columns transposed into L rows, each row feeding q
// chains, with G broadcast from memory by the multiply-add. (On Zen 4 this
// beats working on ymm halves of the tile with 2·q chains: the 8×8
// transpositions take more shuffles.) With AVX2 (16 registers) a tile is
// nsub column blocks of V = 8 float32 or 4 float64 lanes, which take turns,
// each over all panels, with nsub row blocks per panel, explicit broadcasts
// and at most 4 queries.
func genBwdN(k nkernel) {
	pr, q := k.pr, k.q
	evex := k.isa == "512"
	vb, rp := isaRegs(k.isa)
	esz, l := pr.esz, pr.p
	v := vb / esz
	nsub := l / v // column blocks of a tile of L columns, and row blocks of a panel
	reg := func(i int) string { return fmt.Sprintf("%s%d", rp, i) }
	// Registers: the transposition's V slots and a spare, (AVX2) two
	// broadcast temporaries, one accumulator per query.
	tmp, accBase, nregs := v+1, v+1, 32
	if !evex {
		accBase, nregs = v+3, 16
	}
	acc := func(qq int) string { return reg(accBase + qq) }
	if accBase+q > nregs {
		panic(k.name() + ": too many registers")
	}
	mov := "VMOVUP" + pr.suf[1:]
	emit("// %s", k.decl())
	emit("TEXT ·%s(SB), NOSPLIT, $0-56", k.name())
	emit("\tMOVQ a+0(FP), AX\n\tMOVQ gw+8(FP), BX\n\tMOVQ z+16(FP), CX\n\tMOVQ npanels+24(FP), DX\n\tMOVQ pstride+32(FP), R9\n\tMOVQ ntiles+40(FP), R10\n\tMOVQ zs+48(FP), R8")
	emit("tile:")
	for s := range nsub {
		for qq := range q {
			emit("\t%s %d(CX), %s", mov, qq*l*esz+s*vb, acc(qq))
		}
		emit("\tMOVQ AX, R11\n\tMOVQ BX, R12\n\tMOVQ DX, R13")
		emit("panel%d:", s)
		for h := range nsub {
			for i := range v {
				emit("\t%s %d(R11), %s", mov, (s*v+i)*64+h*vb, reg(i))
			}
			rows := emitTranspose(vb, esz, reg)
			for r := range v {
				for qq := range q {
					g := fmt.Sprintf("%d(R12)", ((h*v+r)*l+qq)*esz)
					if evex {
						emit("\tVFMADD231%s.BCST %s, %s, %s", pr.suf, g, reg(rows[r]), acc(qq))
						continue
					}
					t := reg(tmp + (r*q+qq)%2)
					emit("\t%s %s, %s", pr.bcast, g, t)
					emit("\tVFMADD231%s %s, %s, %s", pr.suf, reg(rows[r]), t, acc(qq))
				}
			}
		}
		emit("\tADDQ R9, R11\n\tADDQ $%d, R12\n\tDECQ R13\n\tJNZ panel%d", l*l*esz, s)
		for qq := range q {
			emit("\t%s %s, %d(CX)", mov, acc(qq), qq*l*esz+s*vb)
		}
	}
	emit("\tADDQ $%d, AX\n\tADDQ R8, CX\n\tDECQ R10\n\tJNZ tile", 64*l)
	emit("\tVZEROUPPER\n\tRET\n")
}
