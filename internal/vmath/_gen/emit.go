package main

import (
	"bytes"
	"fmt"
	"log"
	"math"
	"strings"
)

// The emitter: a generator for one precision and one instruction set,
// with helpers that write instructions in Intel operand order.

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

// ret returns from a kernel: it stores reg as the result at ret+off(FP)
// (unless reg is ""), clears the upper halves of the vector registers and
// returns.
func (g *gen) ret(reg string, off int) {
	if reg != "" {
		g.p("MOVQ %s, ret+%d(FP)", reg, off)
	}
	g.p("VZEROUPPER")
	g.p("RET")
}
