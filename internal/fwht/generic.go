package fwht

// Portable transforms, used on other architectures, with the purego tag,
// at the Portable level and for lengths below the vector kernels' minimum.
//
// The stages of strides 1 and 2 are done together on groups of four
// consecutive elements (quad), the larger strides by radix-4 passes (two
// stages per pass over memory) and, if their number is odd, one radix-2
// pass. The stages commute, so their order is free: the sign multiply of
// SignTransform is fused into the quad pass done first, and that of
// TransformSign into the quad pass done last.

func transformGo[T float32 | float64](x, s []T, mode int) {
	n := len(x)
	switch {
	case n == 1:
		if mode != modeNone {
			x[0] *= s[0]
		}
		return
	case n == 2:
		a, b := x[0], x[1]
		if mode == modePre {
			a, b = a*s[0], b*s[1]
		}
		a, b = a+b, a-b
		if mode == modePost {
			a, b = a*s[0], b*s[1]
		}
		x[0], x[1] = a, b
		return
	}
	if mode != modePost {
		quad(x, s, mode)
	}
	h := 4
	for ; 4*h <= n; h *= 4 {
		radix4(x, h)
	}
	if h < n {
		radix2(x, h)
	}
	if mode == modePost {
		quad(x, s, mode)
	}
}

// quad runs the stages of strides 1 and 2 on each group of four elements,
// multiplying by s before (modePre) or after (modePost).
func quad[T float32 | float64](x, s []T, mode int) {
	switch mode {
	case modePre:
		s = s[:len(x)]
		for i := 0; i+4 <= len(x); i += 4 {
			v, w := x[i:i+4:i+4], s[i:i+4:i+4]
			a, b, c, d := v[0]*w[0], v[1]*w[1], v[2]*w[2], v[3]*w[3]
			a, b, c, d = a+b, a-b, c+d, c-d
			v[0], v[1], v[2], v[3] = a+c, b+d, a-c, b-d
		}
	case modePost:
		s = s[:len(x)]
		for i := 0; i+4 <= len(x); i += 4 {
			v, w := x[i:i+4:i+4], s[i:i+4:i+4]
			a, b, c, d := v[0], v[1], v[2], v[3]
			a, b, c, d = a+b, a-b, c+d, c-d
			v[0], v[1], v[2], v[3] = (a+c)*w[0], (b+d)*w[1], (a-c)*w[2], (b-d)*w[3]
		}
	default:
		for i := 0; i+4 <= len(x); i += 4 {
			v := x[i : i+4 : i+4]
			a, b, c, d := v[0], v[1], v[2], v[3]
			a, b, c, d = a+b, a-b, c+d, c-d
			v[0], v[1], v[2], v[3] = a+c, b+d, a-c, b-d
		}
	}
}

// radix4 runs the stages of strides h and 2h.
func radix4[T float32 | float64](x []T, h int) {
	for i := 0; i+4*h <= len(x); i += 4 * h {
		p0 := x[i : i+h]
		p1 := x[i+h : i+2*h][:len(p0)]
		p2 := x[i+2*h : i+3*h][:len(p0)]
		p3 := x[i+3*h : i+4*h][:len(p0)]
		for j := range p0 {
			a, b, c, d := p0[j], p1[j], p2[j], p3[j]
			a, b, c, d = a+b, a-b, c+d, c-d
			p0[j], p1[j], p2[j], p3[j] = a+c, b+d, a-c, b-d
		}
	}
}

// radix2 runs the stage of stride h.
func radix2[T float32 | float64](x []T, h int) {
	for i := 0; i+2*h <= len(x); i += 2 * h {
		p0 := x[i : i+h]
		p1 := x[i+h : i+2*h][:len(p0)]
		for j := range p0 {
			a, b := p0[j], p1[j]
			p0[j], p1[j] = a+b, a-b
		}
	}
}
