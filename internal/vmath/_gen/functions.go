package main

import (
	"fmt"
)

// The vectorized functions: polynomials, sin and cos, exp.

// horner evaluates p = poly(x) into temporary p (x a register), the
// coefficients named prefix0.. (highest degree first).
func (g *gen) horner(p int, x string, prefix string, poly []float64, scale float64) {
	for i, c := range poly {
		name := g.coef(fmt.Sprintf("%s%d", prefix, i), c*scale)
		if i == 0 {
			g.kc(name, p)
			continue
		}
		g.op3("VFMADD213", g.t(p), x, g.k(name))
	}
}

// sincos computes the sine and cosine of the lanes of temporary x (kept)
// using temporaries t[0..6]; it returns the registers holding sin and cos.
// If a lane has |x| > big (or is ±Inf) it jumps to label big before
// anything is stored.
func (g *gen) sincos(x int, t []int, big string) (sinReg, cosReg int) {
	r, kf, k, s, c, t3, t4 := t[0], t[1], t[2], t[3], t[4], t[5], t[6]
	X := g.t(x)
	// r = |x|
	if g.z {
		g.ins("VPANDN"+g.d(), g.t(r), g.k("sign"), X)
		g.ins("VCMP"+g.ps(), "K1", g.t(r), g.k("big"), "$0x1e") // GT_OQ
		g.p("KORTESTW K1, K1")
	} else {
		g.and(g.t(r), X, g.k("abs"))
		g.ins("VCMP"+g.ps(), g.t(t3), g.t(r), g.k("big"), "$0x1e")
		g.ins("VTEST"+g.ps(), g.t(t3), g.t(t3))
	}
	g.p("JNE %s", big)
	// kf = |x|·2/π + magic: the low mantissa bits of kf hold the quadrant
	// j = round(|x|·2/π); k = j as a float.
	if !g.f64 {
		g.kc("twoOverPi", kf)
		g.op3("VFMADD213", g.t(kf), g.t(r), g.k("magic"))
		g.op3("VSUB", g.t(k), g.t(kf), g.k("magic"))
		// r = |x| − j·π/2 (Cody–Waite, three parts, FMA).
		g.op3("VFNMADD231", g.t(r), g.t(k), g.k("pio2a"))
		g.op3("VFNMADD231", g.t(r), g.t(k), g.k("pio2b"))
		g.op3("VFNMADD231", g.t(r), g.t(k), g.k("pio2c"))
	} else {
		// As math.sin: j = floor(fl(|x|·2/π) + 1/2) (the same octant
		// choice), and r = ((|x| − j·π/2a) − j·π/2b) − fl(j·π/2c) with
		// Go's constants, bit for bit the z of math.sin (the first two
		// products are exact there too).
		g.op3("VMUL", g.t(kf), g.t(r), g.k("twoOverPi"))
		g.op3("VADD", g.t(kf), g.t(kf), g.k("half"))
		if g.z {
			g.ins("VRNDSCALEPD", g.t(k), g.t(kf), "$9")
		} else {
			g.ins("VROUNDPD", g.t(k), g.t(kf), "$9")
		}
		g.op3("VADD", g.t(kf), g.t(k), g.k("magic"))
		g.op3("VFNMADD231", g.t(r), g.t(k), g.k("pio2a"))
		g.op3("VFNMADD231", g.t(r), g.t(k), g.k("pio2b"))
		g.op3("VMUL", g.t(t3), g.t(k), g.k("pio2c"))
		g.op3("VSUB", g.t(r), g.t(r), g.t(t3))
	}
	z := k
	g.op3("VMUL", g.t(z), g.t(r), g.t(r))
	sp, cp := sin32, cos32
	if g.f64 {
		sp, cp = sin64, cos64
	}
	// sin r = r + (r·z)·S(z)
	g.horner(s, g.t(z), "sin", sp, 1)
	g.op3("VMUL", g.t(t3), g.t(z), g.t(r))
	g.op3("VFMADD213", g.t(s), g.t(t3), g.t(r))
	// cos r = C(z)
	g.horner(c, g.t(z), "cos", cp, 1)
	// Quadrant j: swap when j is odd; negate sin when bit 1 of j differs
	// from the sign of x, cos when bits 0 and 1 of j differ.
	bits := 32
	if g.f64 {
		bits = 64
	}
	g.ins("VPSLL"+g.d(), g.t(t3), g.t(kf), fmt.Sprintf("$%d", bits-1))
	g.ins("VPSLL"+g.d(), g.t(t4), g.t(kf), fmt.Sprintf("$%d", bits-2))
	so, co := z, kf
	if g.z {
		g.ins("VPMOV"+g.d()+"2M", "K2", g.t(t3))
		g.ins("VBLENDM"+g.ps(), g.t(so), "K2", g.t(s), g.t(c))
		g.ins("VBLENDM"+g.ps(), g.t(co), "K2", g.t(c), g.t(s))
		g.xor(g.t(r), g.t(t4), X)
		g.ins("VPTERNLOG"+g.d(), g.t(so), g.t(r), g.k("sign"), "$0x78") // so ^= r & sign
		g.xor(g.t(t4), g.t(t4), g.t(t3))
		g.ins("VPTERNLOG"+g.d(), g.t(co), g.t(t4), g.k("sign"), "$0x78")
	} else {
		g.ins("VBLENDV"+g.ps(), g.t(so), g.t(s), g.t(c), g.t(t3))
		g.ins("VBLENDV"+g.ps(), g.t(co), g.t(c), g.t(s), g.t(t3))
		g.xor(g.t(r), g.t(t4), X)
		g.and(g.t(r), g.t(r), g.k("sign"))
		g.xor(g.t(so), g.t(so), g.t(r))
		g.xor(g.t(t4), g.t(t4), g.t(t3))
		g.and(g.t(t4), g.t(t4), g.k("sign"))
		g.xor(g.t(co), g.t(co), g.t(t4))
	}
	return so, co
}

// exp computes e^x for the lanes of temporary x (clobbered) using
// temporaries t[0..3] and returns the register holding the result. If
// maskOf >= 0, lanes where temporary maskOf equals −Inf give 0 (kmask is
// the AVX-512 mask register to use).
func (g *gen) exp(x int, t []int, maskOf int, kmask string) int {
	a, kf, k, p := t[0], t[1], t[2], t[3]
	X := g.t(x)
	if maskOf >= 0 {
		// lanes with score −Inf (NEQ_UQ keeps NaN lanes)
		if g.z {
			g.ins("VCMP"+g.ps(), kmask, g.t(maskOf), g.k("negInf"), "$4")
		} else {
			g.ins("VCMP"+g.ps(), g.t(maskOf), g.t(maskOf), g.k("negInf"), "$4")
		}
	}
	// Clamp to [expLo, expHi], keeping NaN (MIN/MAX return their second
	// source when either is NaN).
	hi := g.kr("expHi", a)
	g.op3("VMIN", X, hi, X)
	lo := g.kr("expLo", a)
	g.op3("VMAX", X, lo, X)
	// kf = x·log2e + 1.5·2^p: j = round(x/ln2) in the low bits; k = j.
	g.kc("log2e", kf)
	g.op3("VFMADD213", g.t(kf), X, g.k("expMagic"))
	g.op3("VSUB", g.t(k), g.t(kf), g.k("expMagic"))
	g.op3("VFNMADD231", X, g.t(k), g.k("ln2a"))
	g.op3("VFNMADD231", X, g.t(k), g.k("ln2b"))
	poly := exp32
	if g.f64 {
		poly = exp64
	}
	if g.z {
		g.horner(p, X, "exp", poly, 1)
		// p·2^k, with correct overflow and (gradual) underflow.
		if maskOf >= 0 {
			g.ins("VSCALEF"+g.ps()+".Z", g.t(p), kmask, g.t(p), g.t(k))
		} else {
			g.ins("VSCALEF"+g.ps(), g.t(p), g.t(p), g.t(k))
		}
		return p
	}
	// AVX2: the polynomial is scaled by 1/4 and multiplied by 2^(h−B) and
	// 2^(u−h−B), u = j + 2B + 2, h = u>>1 (B the exponent bias): both
	// factors are normal for every clamped x, and only the last product
	// rounds.
	g.horner(p, X, "expq", poly, 0.25)
	mant := 23
	if g.f64 {
		mant = 52
	}
	g.ins("VPSUB"+g.d(), g.t(kf), g.t(kf), g.k("scaleBias"))
	g.ins("VPSRL"+g.d(), g.t(k), g.t(kf), "$1")
	g.ins("VPSUB"+g.d(), g.t(kf), g.t(kf), g.t(k))
	g.ins("VPSLL"+g.d(), g.t(k), g.t(k), fmt.Sprintf("$%d", mant))
	g.ins("VPSLL"+g.d(), g.t(kf), g.t(kf), fmt.Sprintf("$%d", mant))
	g.op3("VMUL", g.t(p), g.t(p), g.t(k))
	g.op3("VMUL", g.t(p), g.t(p), g.t(kf))
	if maskOf >= 0 {
		g.and(g.t(p), g.t(p), g.t(maskOf))
	}
	return p
}
