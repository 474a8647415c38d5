package main

import "fmt"

// interleaved writes
//
//	func gaussRows64AVX512(dst *float64, nblk int, keys *[16]uint64)
//	func gaussRows32AVX512(dst *float32, nblk int, keys *[16]uint64)
//
// (or …AVX2): the first nblk blocks (16 values each) of L streams, L = 8
// for float64 and 16 for float32, interleaved: value c of stream i at
// dst[L·c + i]. Here a lane holds a stream (a row of a projection), not a
// pair: keys[i] is the Weyl counter of the a-word of pair 0 of stream i
// (its key), and every vector op is that of the row kernel, so the values
// are the same bit for bit. Pair l of block b goes to the lines (64
// bytes, L lanes) 16b + l (cosine) and 16b + 8 + l (sine), converted to
// float32 (VCVTPD2PS, round to nearest even, as Go's conversion) for the
// float32 kernel. The AVX2 kernels advance keys in place.
func (g *gen) interleaved(f32 bool) {
	es, prec := 8, "64"
	if f32 {
		es, prec = 4, "32"
	}
	name := "gaussRows" + prec + g.pick("AVX2", "AVX512")
	n := 16
	if g.z {
		n = 32
	}
	vr := func(i int) string { return fmt.Sprintf("%s%d", g.pick("Y", "Z"), i) }
	var regs []string
	for i := range n {
		regs = append(regs, vr(i))
	}
	typ := map[int]string{4: "float32", 8: "float64"}[es]
	fmt.Fprintf(&g.out, "\n// func %s(dst *%s, nblk int, keys *[16]uint64)\n", name, typ)
	fmt.Fprintf(&g.out, "TEXT ·%s(SB), NOSPLIT, $0-24\n", name)
	g.p("MOVQ dst+0(FP), SI")
	g.p("MOVQ nblk+8(FP), CX")
	g.p("MOVQ keys+16(FP), R8")
	g.pinned = map[string]bool{}
	var c0, c1 string // AVX-512: the counters of the two halves of the lanes
	if g.z {
		c0, c1 = regs[n-2], regs[n-1]
		regs = regs[:n-2]
		g.pinned[c0], g.pinned[c1] = true, true
		g.ins("VMOVDQU64", c0, "0(R8)")
		if f32 {
			g.ins("VMOVDQU64", c1, "64(R8)")
		}
	}
	leaked := 0
	emit := func(subs ...*gen) {
		for _, s := range subs {
			leaked += s.regs - len(s.free)
		}
		g.interleave(subs...)
	}
	g.label("block")
	g.p("TESTQ CX, CX")
	g.p("JLE done")
	if g.z {
		// The whole block unrolled: its units (a pair of one half of the
		// lanes: 8 for float64, 16 for float32), three at a time,
		// interleaved. Unit (l, h) has the counters c_h + 2l·γ.
		type unit struct{ l, h int }
		var units []unit
		for l := range 8 {
			units = append(units, unit{l, 0})
			if f32 {
				units = append(units, unit{l, 1})
			}
		}
		third := len(regs) / 3
		for i := 0; i < len(units); i += 3 {
			var subs []*gen
			for k, u := range units[i:min(i+3, len(units))] {
				ctr := []string{c0, c1}[u.h]
				sub := g.sub(regs[k*third:(k+1)*third], ctr, fmt.Sprintf("K%d", 2*k+1), fmt.Sprintf("K%d", 2*k+2))
				if u.l > 0 {
					sub.ctr = fmt.Sprintf("gamma%d", 2*u.l) // see pair
					sub.ctrBase = ctr
				}
				cs, sn := sub.pair()
				cos, sin := fmt.Sprintf("%d(SI)", 64*u.l+32*u.h), fmt.Sprintf("%d(SI)", 64*(8+u.l)+32*u.h)
				if f32 {
					sub.ins("VCVTPD2PS", "Y"+cs[1:], cs)
					sub.ins("VCVTPD2PS", "Y"+sn[1:], sn)
					sub.ins("VMOVUPS", cos, "Y"+cs[1:])
					sub.ins("VMOVUPS", sin, "Y"+sn[1:])
					sub.release(cs, sn)
				} else {
					sub.store(cs, sn, cos, sin)
				}
				subs = append(subs, sub)
			}
			emit(subs...)
		}
		g.ins("VPADDQ", c0, c0, g.c("gamma16"))
		if f32 {
			g.ins("VPADDQ", c1, c1, g.c("gamma16"))
		}
		g.p("ADDQ $1024, SI")
		g.p("DECQ CX")
		g.p("JMP block")
	} else {
		// AVX2: one quarter (or half) of the lanes of one pair at a time,
		// its counter in keys.
		g.p("MOVQ $8, DX")
		g.label("pair")
		parts := 64 / es / 4
		for q := range parts {
			ctr := fmt.Sprintf("%d(R8)", 32*q)
			a := g.sub(regs, ctr, "", "")
			cs, sn := a.pair()
			if f32 {
				a.ins("VCVTPD2PSY", "X"+cs[1:], cs)
				a.ins("VCVTPD2PSY", "X"+sn[1:], sn)
				a.ins("VMOVUPS", fmt.Sprintf("%d(SI)", 16*q), "X"+cs[1:])
				a.ins("VMOVUPS", fmt.Sprintf("%d(SI)", 512+16*q), "X"+sn[1:])
				a.release(cs, sn)
			} else {
				a.store(cs, sn, fmt.Sprintf("%d(SI)", 32*q), fmt.Sprintf("%d(SI)", 512+32*q))
			}
			emit(a)
			g.ins("VMOVDQU", "Y0", ctr)
			g.ins("VPADDQ", "Y0", "Y0", g.c("gamma2"))
			g.ins("VMOVDQU", ctr, "Y0")
		}
		g.p("ADDQ $64, SI")
		g.p("DECQ DX")
		g.p("JNZ pair")
		g.p("ADDQ $512, SI") // past the sines of the block
		g.p("DECQ CX")
		g.p("JMP block")
	}
	g.label("done")
	g.p("VZEROUPPER")
	g.p("RET")
	if leaked != 0 {
		panic(fmt.Sprintf("%s: %d registers leaked", name, leaked))
	}
}

// store stores the pair (cs, sn) at the memory operands cos and sin, and
// releases them.
func (g *gen) store(cs, sn, cos, sin string) {
	g.ins("VMOVUPD", cos, cs)
	g.ins("VMOVUPD", sin, sn)
	g.release(cs, sn)
}
