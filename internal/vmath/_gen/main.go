// Command _gen writes vmath_amd64.s, the AVX2+FMA and AVX-512 kernels of
// package vmath. Run it from internal/vmath with
//
//	go run ./_gen
//
// Every kernel is written once, in terms of the small emitter below, and
// instantiated for two precisions (float32, float64) and two instruction
// sets (AVX2 with 256-bit Y registers, AVX-512 with 512-bit Z registers).
// Helpers take their operands in Intel order (destination first); the
// emitter reverses them into Go assembler order.
package main

import (
	"bytes"
	"fmt"
	"log"
	"math"
	"math/big"
	"os"
	"sort"
	"strings"
)

// Constants. Every constant is stored as a 32-byte RODATA symbol holding
// the value replicated; AVX2 code uses it as a memory operand, AVX-512 code
// broadcasts its first element.

const (
	piStr  = "3.14159265358979323846264338327950288419716939937510582097494459"
	ln2Str = "0.693147180559945309417232121458176568075500134360255254120680009"
)

func bigf(s string) *big.Float {
	f, _, err := big.ParseFloat(s, 10, 300, big.ToNearestEven)
	if err != nil {
		log.Fatal(err)
	}
	return f
}

// split32 splits v into n float32 parts whose sum approximates v.
func split32(v *big.Float, n int) []float64 {
	r := new(big.Float).SetPrec(300).Set(v)
	var out []float64
	for range n {
		f, _ := r.Float32()
		out = append(out, float64(f))
		r.Sub(r, new(big.Float).SetFloat64(float64(f)))
	}
	return out
}

// Polynomials, highest degree first.
var (
	// Cephes sinf/cosf on [-π/4, π/4]: sin r = r + r·z·S(z), cos r = C(z),
	// z = r².
	sin32 = []float64{-1.9515295891e-4, 8.3321608736e-3, -1.6666654611e-1}
	cos32 = []float64{2.443315711809948e-5, -1.388731625493765e-3, 4.166664568298827e-2, -0.5, 1}
	// Go's math.sin/cos (Cephes sin.c) on [-π/4, π/4].
	sin64 = []float64{
		1.58962301576546568060e-10, -2.50507477628578072866e-8, 2.75573136213857245213e-6,
		-1.98412698295895385996e-4, 8.33333333332211858878e-3, -1.66666666666666307295e-1,
	}
	cos64 = []float64{
		-1.13585365213876817300e-11, 2.08757008419747316778e-9, -2.75573141792967388112e-7,
		2.48015872888517045348e-5, -1.38888888888730564116e-3, 4.16666666666665929218e-2,
		-0.5, 1,
	}
	// exp r on [-ln2/2, ln2/2]: 1 + r + r²·g(r), g a Chebyshev fit of
	// (e^r − 1 − r)/r² (mpmath chebyfit); relative error of the
	// polynomial 1.1e-8 (float32) and 1.8e-17 (float64).
	exp32 = []float64{
		0.0013926176119935578884, 0.0083631730745137109028, 0.041666554662050533982,
		0.1666657702559798819, 0.5, 1, 1,
	}
	exp64 = []float64{
		2.5100375832561233664e-8, 2.7620075879983366586e-7, 2.7557268480310025526e-6,
		0.000024801521322368693266, 0.00019841269863040545271, 0.0013888888917196719077,
		0.0083333333333300644495, 0.041666666666624161903, 0.16666666666666667452,
		0.50000000000000010211, 1, 1,
	}
)

type constant struct {
	size int
	bits []uint64 // one element, or all the elements (iota)
}

var (
	symbols = map[string]constant{}
	cvals   = map[string]float64{} // float constants by local name, per precision
	cints   = map[string]uint64{}
)

func init() {
	pio2 := new(big.Float).Quo(bigf(piStr), big.NewFloat(2))
	ln2 := bigf(ln2Str)
	p32 := split32(pio2, 3)
	l32 := split32(ln2, 2)
	set := func(prec int, name string, v float64) { cvals[fmt.Sprint(prec, name)] = v }
	set(32, "big", 0x1p20)
	set(32, "twoOverPi", 2/math.Pi)
	set(32, "magic", 0x1p23)
	set(32, "pio2a", p32[0])
	set(32, "pio2b", p32[1])
	set(32, "pio2c", p32[2])
	set(32, "expHi", 89)
	set(32, "expLo", -104)
	set(32, "log2e", math.Log2E)
	set(32, "expMagic", 0x1.8p23)
	set(32, "ln2a", l32[0])
	set(32, "ln2b", l32[1])
	set(32, "negInf", math.Inf(-1))

	// Go's own math.sin splitting of π/4, doubled (exact).
	const (
		PI4A = 7.85398125648498535156e-1
		PI4B = 3.77489470793079817668e-8
		PI4C = 2.69515142907905952645e-15
	)
	set(64, "big", 0x1p29)
	set(64, "twoOverPi", 2/math.Pi)
	set(64, "magic", 0x1p52)
	set(64, "half", 0.5)
	set(64, "pio2a", 2*PI4A)
	set(64, "pio2b", 2*PI4B)
	set(64, "pio2c", 2*PI4C)
	set(64, "expHi", 710)
	set(64, "expLo", -746)
	set(64, "log2e", math.Log2E)
	set(64, "expMagic", 0x1.8p52)
	set(64, "ln2a", 6.93147180369123816490e-01) // math.exp's Ln2Hi
	set(64, "ln2b", 1.90821492927058770002e-10) // Ln2Lo
	set(64, "negInf", math.Inf(-1))

	cints["32sign"] = 0x80000000
	cints["32abs"] = 0x7fffffff
	cints["64sign"] = 0x8000000000000000
	cints["64abs"] = 0x7fffffffffffffff
	// bits(expMagic) − (2·bias + 2), see expCore.
	cints["32scaleBias"] = uint64(math.Float32bits(0x1.8p23)) - 256
	cints["64scaleBias"] = math.Float64bits(0x1.8p52) - 2048
}

// Emitter.

type gen struct {
	out     bytes.Buffer
	body    bytes.Buffer
	z       bool // AVX-512
	f64     bool
	ntemp   int               // registers 0..ntemp-1 are temporaries
	creg    map[string]string // AVX-512: constant → register
	cload   []string          // AVX-512: prologue loads
	nextReg int
}

func (g *gen) prec() int {
	if g.f64 {
		return 64
	}
	return 32
}
func (g *gen) ps() string {
	if g.f64 {
		return "PD"
	}
	return "PS"
}
func (g *gen) d() string { // integer element suffix
	if g.f64 {
		return "Q"
	}
	return "D"
}
func (g *gen) es() int {
	if g.f64 {
		return 8
	}
	return 4
}
func (g *gen) lanes() int {
	w := 32
	if g.z {
		w = 64
	}
	return w / g.es()
}
func (g *gen) v(i int) string {
	if i < 0 || i >= 32 || (!g.z && i >= 16) {
		log.Fatalf("bad register %d", i)
	}
	if g.z {
		return fmt.Sprintf("Z%d", i)
	}
	return fmt.Sprintf("Y%d", i)
}

// t returns temporary i, checking it is not a constant register.
func (g *gen) t(i int) string {
	if i >= g.ntemp {
		log.Fatalf("temporary %d beyond %d", i, g.ntemp)
	}
	return g.v(i)
}

func (g *gen) p(format string, args ...any) {
	fmt.Fprintf(&g.body, "\t"+format+"\n", args...)
}
func (g *gen) label(l string) { fmt.Fprintf(&g.body, "%s:\n", l) }

// ins emits op with operands given in Intel order. An operand "bcst:M"
// is memory M with embedded broadcast.
func (g *gen) ins(op string, intel ...string) {
	ops := make([]string, len(intel))
	for i, o := range intel {
		if m, ok := strings.CutPrefix(o, "bcst:"); ok {
			if i != len(intel)-1 && !(i == len(intel)-2 && strings.HasPrefix(intel[len(intel)-1], "$")) {
				log.Fatalf("%s: broadcast operand %s not last", op, o)
			}
			op += ".BCST"
			o = m
		}
		ops[len(intel)-1-i] = o
	}
	g.p("%s %s", op, strings.Join(ops, ", "))
}

func sym(prec int, name string) string { return fmt.Sprintf("vm%d%s<>(SB)", prec, name) }

func (g *gen) register(name string) string {
	key := fmt.Sprint(g.prec(), name)
	s := sym(g.prec(), name)
	if _, ok := symbols[s]; ok {
		return s
	}
	if v, ok := cvals[key]; ok {
		if g.f64 {
			symbols[s] = constant{8, []uint64{math.Float64bits(v)}}
		} else {
			symbols[s] = constant{4, []uint64{uint64(math.Float32bits(float32(v)))}}
		}
	} else if b, ok := cints[key]; ok {
		symbols[s] = constant{g.es(), []uint64{b}}
	} else {
		log.Fatalf("no constant %s", key)
	}
	return s
}

// coef defines the constant name (a polynomial coefficient) as v.
func (g *gen) coef(name string, v float64) string {
	cvals[fmt.Sprint(g.prec(), name)] = v
	return name
}

// k returns an operand for constant name usable as the last (Intel)
// source operand: memory for AVX2, a register or a broadcast for AVX-512.
func (g *gen) k(name string) string {
	s := g.register(name)
	if !g.z {
		return s
	}
	if r, ok := g.creg[name]; ok {
		return r
	}
	if g.nextReg < g.ntemp {
		return "bcst:" + s
	}
	r := g.v(g.nextReg)
	g.nextReg--
	g.creg[name] = r
	bc := "VBROADCASTSS"
	if g.f64 {
		bc = "VBROADCASTSD"
	}
	g.cload = append(g.cload, fmt.Sprintf("%s %s, %s", bc, s, r))
	return r
}

// kr returns a register holding constant name, loading it into temporary
// tmp if needed.
func (g *gen) kr(name string, tmp int) string {
	o := g.k(name)
	if !g.z {
		g.ins("VMOVUP"+g.ps()[1:], g.t(tmp), o)
		return g.t(tmp)
	}
	if m, ok := strings.CutPrefix(o, "bcst:"); ok {
		bc := "VBROADCASTSS"
		if g.f64 {
			bc = "VBROADCASTSD"
		}
		g.ins(bc, g.t(tmp), m)
		return g.t(tmp)
	}
	return o
}

// kc copies constant name into temporary dst.
func (g *gen) kc(name string, dst int) {
	r := g.kr(name, dst)
	if r != g.t(dst) {
		g.ins("VMOVAP"+g.ps()[1:], g.t(dst), r)
	}
}

func (g *gen) fn(name, sig string, argSize int, args []string, body func()) {
	g.body.Reset()
	g.creg = map[string]string{}
	g.cload = nil
	g.nextReg = 31
	if !g.z {
		g.nextReg = -1
	}
	body()
	fmt.Fprintf(&g.out, "\n// func %s%s\n", name, sig)
	fmt.Fprintf(&g.out, "TEXT ·%s(SB), NOSPLIT, $0-%d\n", name, argSize)
	for _, a := range args {
		fmt.Fprintf(&g.out, "\t%s\n", a)
	}
	for _, l := range g.cload {
		fmt.Fprintf(&g.out, "\t%s\n", l)
	}
	g.out.Write(g.body.Bytes())
}

// Vector helpers (Intel order: destination first).

func (g *gen) op3(op string, d, a, b string) { g.ins(op+g.ps(), d, a, b) }
func (g *gen) mov(d, a string)               { g.ins("VMOVAP"+g.ps()[1:], d, a) }

// load/store with optional tail mask. For AVX-512 the mask is K4, for
// AVX2 it is Y15.
func (g *gen) load(d, mem string, masked bool) {
	switch {
	case !masked:
		g.ins("VMOVUP"+g.ps()[1:], d, mem)
	case g.z:
		g.ins("VMOVUP"+g.ps()[1:]+".Z", d, "K4", mem)
	default:
		g.ins("VMASKMOV"+g.ps(), d, "Y15", mem)
	}
}

func (g *gen) store(mem, s string, masked bool) {
	switch {
	case !masked:
		g.ins("VMOVUP"+g.ps()[1:], mem, s)
	case g.z:
		g.ins("VMOVUP"+g.ps()[1:], mem, "K4", s)
	default:
		g.ins("VMASKMOV"+g.ps(), mem, "Y15", s)
	}
}

func (g *gen) bcastMem(d, mem string) {
	if g.f64 {
		g.ins("VBROADCASTSD", d, mem)
	} else {
		g.ins("VBROADCASTSS", d, mem)
	}
}

func (g *gen) xor(d, a, b string) {
	if g.z {
		g.ins("VPXOR"+g.d(), d, a, b)
	} else {
		g.ins("VXOR"+g.ps(), d, a, b)
	}
}
func (g *gen) and(d, a, b string) {
	if g.z {
		g.ins("VPAND"+g.d(), d, a, b)
	} else {
		g.ins("VAND"+g.ps(), d, a, b)
	}
}

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

// tailMask sets the tail mask (K4 or Y15) for CX remaining elements
// (0 < CX < lanes), clobbering DX (and Y14).
func (g *gen) tailMask() {
	if g.z {
		g.p("MOVL $1, DX")
		g.p("SHLL CX, DX")
		g.p("DECL DX")
		g.p("KMOVW DX, K4")
		return
	}
	if g.f64 {
		g.p("VMOVQ CX, X14")
		g.p("VPBROADCASTQ X14, Y14")
		g.p("VMOVDQU vmiota64<>(SB), Y15")
		g.p("VPCMPGTQ Y15, Y14, Y15")
	} else {
		g.p("VMOVD CX, X14")
		g.p("VPBROADCASTD X14, Y14")
		g.p("VMOVDQU vmiota32<>(SB), Y15")
		g.p("VPCMPGTD Y15, Y14, Y15")
	}
}

// Kernels.

// elementwise writes a loop over n elements (AX from start, R9 = n) with a
// masked tail; body(mem func, masked) emits one vector.
func (g *gen) elementwise(body func(masked bool)) {
	w := g.lanes()
	g.p("MOVQ R9, BX")
	g.p("SUBQ $%d, BX", w)
	g.label("loop")
	g.p("CMPQ AX, BX")
	g.p("JGT tail")
	body(false)
	g.p("ADDQ $%d, AX", w)
	g.p("JMP loop")
	g.label("tail")
	g.p("MOVQ R9, CX")
	g.p("SUBQ AX, CX")
	g.p("JLE done")
	g.tailMask()
	body(true)
}

func (g *gen) mem(base string) string { return fmt.Sprintf("(%s)(AX*%d)", base, g.es()) }

func (g *gen) genSinCos() {
	T := g.typ()
	name := "sinCos" + fmt.Sprint(g.prec()) + g.suffix()
	g.ntemp = 8
	if !g.z {
		g.ntemp = 14
	}
	g.fn(name, fmt.Sprintf("(s, c, x *%s, n, i int) int", T), 48,
		[]string{"MOVQ s+0(FP), R8", "MOVQ c+8(FP), R10", "MOVQ x+16(FP), R11", "MOVQ n+24(FP), R9", "MOVQ i+32(FP), AX"},
		func() {
			g.elementwise(func(masked bool) {
				g.load(g.t(0), g.mem("R11"), masked)
				s, c := g.sincos(0, []int{1, 2, 3, 4, 5, 6, 7}, "big")
				g.store(g.mem("R8"), g.t(s), masked)
				g.store(g.mem("R10"), g.t(c), masked)
			})
			g.label("done")
			g.p("MOVQ R9, ret+40(FP)")
			g.p("VZEROUPPER")
			g.p("RET")
			g.label("big")
			g.p("MOVQ AX, ret+40(FP)")
			g.p("VZEROUPPER")
			g.p("RET")
		})
}

func (g *gen) genExp() {
	T := g.typ()
	name := "exp" + fmt.Sprint(g.prec()) + g.suffix()
	g.ntemp = 5
	if !g.z {
		g.ntemp = 14
	}
	g.fn(name, fmt.Sprintf("(dst, x *%s, n int)", T), 24,
		[]string{"MOVQ dst+0(FP), R8", "MOVQ x+8(FP), R11", "MOVQ n+16(FP), R9", "XORQ AX, AX"},
		func() {
			g.elementwise(func(masked bool) {
				g.load(g.t(0), g.mem("R11"), masked)
				y := g.exp(0, []int{1, 2, 3, 4}, -1, "")
				g.store(g.mem("R8"), g.t(y), masked)
			})
			g.label("done")
			g.p("VZEROUPPER")
			g.p("RET")
		})
}

// Block kernels: rows BX in [r0, n=R9), lanes CX in [0, q=R12) step
// lanes, flat index AX = BX·q + CX.

func (g *gen) rows(sfx string, rowSetup func(), lane func()) {
	w := g.lanes()
	g.p("CMPQ BX, R9")
	g.p("JGE done%s", sfx)
	g.label("row" + sfx)
	rowSetup()
	g.label("lane" + sfx)
	lane()
	g.p("ADDQ $%d, AX", w)
	g.p("ADDQ $%d, CX", w)
	g.p("CMPQ CX, R12")
	g.p("JLT lane%s", sfx)
	g.p("XORQ CX, CX")
	g.p("INCQ BX")
	g.p("CMPQ BX, R9")
	g.p("JLT row%s", sfx)
	g.label("done" + sfx)
}

func (g *gen) lmem(base string) string { return fmt.Sprintf("(%s)(CX*%d)", base, g.es()) }
func (g *gen) rmem(base string) string { return fmt.Sprintf("(%s)(BX*%d)", base, g.es()) }

// rowConst broadcasts base[BX] into register d, or zero if base (a
// pointer register) is nil.
func (g *gen) rowConst(d, base, lbl string) {
	g.p("TESTQ %s, %s", base, base)
	g.p("JZ %s", lbl)
	g.bcastMem(d, g.rmem(base))
	g.p("JMP %sok", lbl)
	g.label(lbl)
	g.xor(d, d, d)
	g.label(lbl + "ok")
}

func (g *gen) genTrigBlock() {
	T := g.typ()
	name := "trigBlock" + fmt.Sprint(g.prec()) + g.suffix()
	g.ntemp = 13
	bias, tc, ts := 10, 11, 12
	g.fn(name, fmt.Sprintf("(h, bias, tc, ts, acc *%s, n, q, r0, l0 int) int", T), 80,
		[]string{
			"MOVQ h+0(FP), R8", "MOVQ bias+8(FP), R10", "MOVQ tc+16(FP), R11", "MOVQ ts+24(FP), R13",
			"MOVQ acc+32(FP), SI", "MOVQ n+40(FP), R9", "MOVQ q+48(FP), R12", "MOVQ r0+56(FP), BX",
			"MOVQ l0+64(FP), CX", "MOVQ BX, AX", "IMULQ R12, AX", "ADDQ CX, AX",
		},
		func() {
			g.rows("", func() {
				g.rowConst(g.t(bias), "R10", "nobias")
				g.bcastMem(g.t(tc), g.rmem("R11"))
				g.rowConst(g.t(ts), "R13", "nots")
			}, func() {
				g.load(g.t(0), g.mem("R8"), false)
				g.op3("VADD", g.t(0), g.t(0), g.t(bias))
				s, c := g.sincos(0, []int{1, 2, 3, 4, 5, 6, 7}, "big")
				// acc += tc·c + ts·s; h = ts·c − tc·s
				g.load(g.t(8), g.lmem("SI"), false)
				g.op3("VFMADD231", g.t(8), g.t(c), g.t(tc))
				g.op3("VFMADD231", g.t(8), g.t(s), g.t(ts))
				g.store(g.lmem("SI"), g.t(8), false)
				g.op3("VMUL", g.t(9), g.t(c), g.t(ts))
				g.op3("VFNMADD231", g.t(9), g.t(s), g.t(tc))
				g.store(g.mem("R8"), g.t(9), false)
			})
			g.p("MOVQ AX, ret+72(FP)")
			g.p("VZEROUPPER")
			g.p("RET")
			g.label("big")
			g.p("MOVQ AX, ret+72(FP)")
			g.p("VZEROUPPER")
			g.p("RET")
		})
}

func (g *gen) genExpBlockMax() {
	T := g.typ()
	name := "expBlockMax" + fmt.Sprint(g.prec()) + g.suffix()
	g.ntemp = 6
	lt, ltm := 4, 5
	g.fn(name, fmt.Sprintf("(m, h, lt, ltm *%s, n, q int)", T), 48,
		[]string{
			"MOVQ m+0(FP), SI", "MOVQ h+8(FP), R8", "MOVQ lt+16(FP), R10", "MOVQ ltm+24(FP), R11",
			"MOVQ n+32(FP), R9", "MOVQ q+40(FP), R12", "XORQ AX, AX", "XORQ BX, BX", "XORQ CX, CX",
		},
		func() {
			g.p("TESTQ R11, R11")
			g.p("JNZ expexp")
			g.rows("", func() {
				g.bcastMem(g.t(lt), g.rmem("R10"))
			}, func() {
				g.op3("VADD", g.t(0), g.t(lt), g.mem("R8"))
				g.load(g.t(1), g.lmem("SI"), false)
				// m = a > m ? a : m (MAX returns its second source unless the
				// first is greater)
				g.op3("VMAX", g.t(1), g.t(0), g.t(1))
				g.store(g.lmem("SI"), g.t(1), false)
			})
			g.p("VZEROUPPER")
			g.p("RET")
			g.label("expexp")
			g.rows("2", func() {
				g.bcastMem(g.t(lt), g.rmem("R10"))
				g.bcastMem(g.t(ltm), g.rmem("R11"))
			}, func() {
				g.load(g.t(2), g.mem("R8"), false)
				g.op3("VADD", g.t(0), g.t(lt), g.t(2))
				g.op3("VSUB", g.t(3), g.t(ltm), g.t(2))
				g.load(g.t(1), g.lmem("SI"), false)
				g.op3("VMAX", g.t(1), g.t(0), g.t(1))
				g.op3("VMAX", g.t(1), g.t(3), g.t(1))
				g.store(g.lmem("SI"), g.t(1), false)
			})
			g.p("VZEROUPPER")
			g.p("RET")
		})
}

func (g *gen) genExpBlockWeights() {
	T := g.typ()
	name := "expBlockWeights" + fmt.Sprint(g.prec()) + g.suffix()
	g.ntemp = 14
	lt, ltm := 12, 13
	g.fn(name, fmt.Sprintf("(sum, h, lt, ltm, m *%s, n, q int)", T), 56,
		[]string{
			"MOVQ sum+0(FP), SI", "MOVQ h+8(FP), R8", "MOVQ lt+16(FP), R10", "MOVQ ltm+24(FP), R11",
			"MOVQ m+32(FP), DI", "MOVQ n+40(FP), R9", "MOVQ q+48(FP), R12", "XORQ AX, AX", "XORQ BX, BX", "XORQ CX, CX",
		},
		func() {
			g.p("TESTQ R11, R11")
			g.p("JNZ expexp")
			g.rows("", func() {
				g.bcastMem(g.t(lt), g.rmem("R10"))
			}, func() {
				// a = h + lt; w = exp(a − m), 0 where a = −Inf
				g.op3("VADD", g.t(0), g.t(lt), g.mem("R8"))
				g.op3("VSUB", g.t(1), g.t(0), g.lmem("DI"))
				w := g.exp(1, []int{2, 3, 4, 5}, 0, "K3")
				g.op3("VADD", g.t(6), g.t(w), g.lmem("SI"))
				g.store(g.lmem("SI"), g.t(6), false)
				g.store(g.mem("R8"), g.t(w), false)
			})
			g.p("VZEROUPPER")
			g.p("RET")
			g.label("expexp")
			g.rows("2", func() {
				g.bcastMem(g.t(lt), g.rmem("R10"))
				g.bcastMem(g.t(ltm), g.rmem("R11"))
			}, func() {
				g.load(g.t(10), g.mem("R8"), false)
				g.load(g.t(11), g.lmem("DI"), false)
				g.op3("VADD", g.t(0), g.t(lt), g.t(10))
				g.op3("VSUB", g.t(1), g.t(0), g.t(11))
				wp := g.exp(1, []int{2, 3, 4, 5}, 0, "K3")
				g.op3("VSUB", g.t(6), g.t(ltm), g.t(10))
				g.op3("VSUB", g.t(7), g.t(6), g.t(11))
				wm := g.exp(7, []int{8, 9, 1, 0}, 6, "K5")
				g.op3("VADD", g.t(10), g.t(wp), g.t(wm))
				g.op3("VADD", g.t(10), g.t(10), g.lmem("SI"))
				g.store(g.lmem("SI"), g.t(10), false)
				g.op3("VSUB", g.t(wp), g.t(wp), g.t(wm))
				g.store(g.mem("R8"), g.t(wp), false)
			})
			g.p("VZEROUPPER")
			g.p("RET")
		})
}

func main() {
	var out bytes.Buffer
	out.WriteString("// Code generated by go run ./_gen; DO NOT EDIT.\n\n//go:build !purego\n\n#include \"textflag.h\"\n")
	for _, z := range []bool{false, true} {
		for _, f64 := range []bool{false, true} {
			g := &gen{z: z, f64: f64}
			g.genSinCos()
			g.genExp()
			g.genTrigBlock()
			g.genExpBlockMax()
			g.genExpBlockWeights()
			out.Write(g.out.Bytes())
		}
	}
	// Constant data.
	out.WriteString("\n")
	names := make([]string, 0, len(symbols))
	for s := range symbols {
		names = append(names, s)
	}
	sort.Strings(names)
	for _, s := range names {
		c := symbols[s]
		base := strings.TrimSuffix(s, "(SB)")
		for off := 0; off < 32; off += c.size {
			fmt.Fprintf(&out, "DATA %s+%d(SB)/%d, $%#x\n", base, off, c.size, c.bits[0])
		}
		fmt.Fprintf(&out, "GLOBL %s(SB), RODATA|NOPTR, $32\n", base)
	}
	for i := 0; i < 8; i++ {
		fmt.Fprintf(&out, "DATA vmiota32<>+%d(SB)/4, $%d\n", 4*i, i)
	}
	out.WriteString("GLOBL vmiota32<>(SB), RODATA|NOPTR, $32\n")
	for i := 0; i < 4; i++ {
		fmt.Fprintf(&out, "DATA vmiota64<>+%d(SB)/8, $%d\n", 8*i, i)
	}
	out.WriteString("GLOBL vmiota64<>(SB), RODATA|NOPTR, $32\n")
	if err := os.WriteFile("vmath_amd64.s", out.Bytes(), 0o644); err != nil {
		log.Fatal(err)
	}
}
