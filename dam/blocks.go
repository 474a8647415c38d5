package dam

import (
	"sync"
	"unsafe"

	"github.com/drdam/drdam/features"
	"github.com/drdam/drdam/internal/fwht"
	"github.com/drdam/drdam/internal/kern"
)

// blocks is what the engine needs of a projection (or of MrDAM's
// patterns): its rows cut into blocks, and the two products of one block
// with a batch of queries in panel layout. Implementations are safe for
// concurrent use by different groups, each with its own scratch.
type blocks[T kern.Float] interface {
	// dim returns D.
	dim() int
	// count returns the number of blocks and of padded rows, a multiple of
	// the lane count (per-row parameters have this length).
	count() (nb, rows int)
	// span returns the first row and the number of rows of block b, a
	// multiple of the lane count.
	span(b int) (lo, n int)
	// maxRows returns the largest number of rows of a block.
	maxRows() int
	// forward writes the phases W_b·x of every query of xp into h, in the
	// layout of kern.Forward (query panel, row, lane).
	forward(h []T, xp *kern.Panels[T], b int, sc *scratch[T])
	// backwardAdd adds W_bᵀ·g of every query to z, for g in the layout of
	// forward's h. It follows forward of the same block with the same
	// scratch.
	backwardAdd(z *kern.Panels[T], g []T, b int, sc *scratch[T])
}

// narrowBlocks is a block source whose products also take a small batch
// (at most kern.MaxNarrow queries) in the layout of kern.Narrow, with the
// small-batch kernels; h and g keep the layout of forward with one query
// panel.
type narrowBlocks[T kern.Float] interface {
	forwardNarrow(h []T, xn *kern.Narrow[T], b int, sc *scratch[T])
	backwardAddNarrow(z *kern.Narrow[T], g []T, b int, sc *scratch[T])
}

// narrowPipe is a narrowBlocks source that runs the transposed product of
// block b with the forward product of block bn in one pass
// (kern.StepNarrow): the results of backwardAddNarrow(z, g, b) and
// forwardNarrow(h, xn, bn).
type narrowPipe[T kern.Float] interface {
	stepNarrow(z *kern.Narrow[T], g []T, b int, h []T, xn *kern.Narrow[T], bn int)
}

// scratch is per-group working memory of a block source.
type scratch[T kern.Float] struct {
	buf  []T            // SORF: one query's transform
	rows []float64      // on demand: generated rows
	w    kern.Panels[T] // on demand: the current block in panels
	blk  int            // on demand: which block w holds, −1 for none
}

// stored is a projection (or the patterns) stored in panels: blocks of
// BlockPanels panels, the products from package kern.
type stored[T kern.Float] struct {
	w  *kern.Panels[T]
	bp int
}

func newStored[T kern.Float](w *kern.Panels[T]) *stored[T] {
	return &stored[T]{w: w, bp: kern.BlockPanels(w.Cp)}
}

func (s *stored[T]) dim() int { return s.w.C }

func (s *stored[T]) count() (int, int) {
	return (s.w.NP + s.bp - 1) / s.bp, s.w.NP * kern.Lanes[T]()
}

func (s *stored[T]) panels(b int) (p0, p1 int) { return b * s.bp, min((b+1)*s.bp, s.w.NP) }

func (s *stored[T]) span(b int) (int, int) {
	p0, p1 := s.panels(b)
	l := kern.Lanes[T]()
	return p0 * l, (p1 - p0) * l
}

func (s *stored[T]) maxRows() int { return min(s.bp, s.w.NP) * kern.Lanes[T]() }

func (s *stored[T]) forward(h []T, xp *kern.Panels[T], b int, _ *scratch[T]) {
	p0, p1 := s.panels(b)
	kern.Forward(h, s.w, xp, p0, p1)
}

func (s *stored[T]) backwardAdd(z *kern.Panels[T], g []T, b int, _ *scratch[T]) {
	p0, p1 := s.panels(b)
	kern.BackwardAdd(z, s.w, g, p0, p1)
}

func (s *stored[T]) forwardNarrow(h []T, xn *kern.Narrow[T], b int, _ *scratch[T]) {
	p0, p1 := s.panels(b)
	kern.ForwardNarrow(h, s.w, xn, p0, p1)
}

func (s *stored[T]) backwardAddNarrow(z *kern.Narrow[T], g []T, b int, _ *scratch[T]) {
	p0, p1 := s.panels(b)
	kern.BackwardAddNarrow(z, s.w, g, p0, p1)
}

func (s *stored[T]) stepNarrow(z *kern.Narrow[T], g []T, b int, h []T, xn *kern.Narrow[T], bn int) {
	p0, p1 := s.panels(b)
	q0, q1 := s.panels(bn)
	kern.StepNarrow(z, s.w, g, p0, p1, h, s.w, xn, q0, q1)
}

// onDemand is a dense seeded projection that stores only a bounded cache:
// the rows of every other block are regenerated from the seed whenever the
// block is used (the paper's Algorithm 1), so memory stays O(Y + D + cache)
// at the price of generating the Gaussians again at every evaluation.
type onDemand[T kern.Float] struct {
	src      features.RowSource
	y, d, bp int
	np       int // panels of the whole projection
	cache    []*kern.Panels[T]
	once     []sync.Once
}

// onDemandCache is the memory, in bytes, that an on-demand projection may
// keep: the first blocks that fit are generated once and kept.
const onDemandCache = 64 << 20

func newOnDemand[T kern.Float](src features.RowSource) *onDemand[T] {
	y, d := src.Dims()
	l := kern.Lanes[T]()
	cp := kern.PadD(d)
	o := &onDemand[T]{src: src, y: y, d: d, bp: kern.BlockPanels(cp), np: (y + l - 1) / l}
	nb, _ := o.count()
	blockBytes := o.bp * cp * l * int(elemSize[T]())
	nc := min(nb, onDemandCache/blockBytes)
	o.cache = make([]*kern.Panels[T], nc)
	o.once = make([]sync.Once, nc)
	return o
}

func (o *onDemand[T]) dim() int { return o.d }

func (o *onDemand[T]) count() (int, int) {
	return (o.np + o.bp - 1) / o.bp, o.np * kern.Lanes[T]()
}

func (o *onDemand[T]) span(b int) (int, int) {
	l := kern.Lanes[T]()
	p0, p1 := b*o.bp, min((b+1)*o.bp, o.np)
	return p0 * l, (p1 - p0) * l
}

func (o *onDemand[T]) maxRows() int { return min(o.bp, o.np) * kern.Lanes[T]() }

// generate writes block b's rows into w (resized): whole panels in place
// when the source interleaves (features.Seeded.Interleaves), the others
// through rows.
func (o *onDemand[T]) generate(w *kern.Panels[T], rows *[]float64, b int) {
	lo, n := o.span(b)
	hi := min(lo+n, o.y)
	l := kern.Lanes[T]()
	if s, ok := o.src.(*features.Seeded); ok && s.Interleaves() && hi == lo+n {
		// Every value is written: no need to zero the storage first.
		np, cp := n/l, kern.PadD(o.d)
		if cap(w.Data) < np*cp*l {
			w.Data = make([]T, np*cp*l)
		}
		w.R, w.C, w.Cp, w.NP, w.Data = n, o.d, cp, np, w.Data[:np*cp*l]
		for p := range np {
			rowGroup(s, w.Data[p*cp*l:(p+1)*cp*l], lo+p*l)
		}
		return
	}
	*rows = grow(*rows, (hi-lo)*o.d)
	o.src.Rows(*rows, lo, hi)
	w.Resize(n, o.d)
	w.SetRows(0, *rows, 1)
}

// block returns the panels of block b: cached, or generated into the
// scratch (kept there for the backward pass of the same block).
func (o *onDemand[T]) block(b int, sc *scratch[T]) *kern.Panels[T] {
	if b < len(o.cache) {
		o.once[b].Do(func() {
			var w kern.Panels[T]
			var rows []float64
			o.generate(&w, &rows, b)
			o.cache[b] = &w
		})
		return o.cache[b]
	}
	if sc.blk != b+1 { // blk holds b+1 so that the zero value means "none"
		o.generate(&sc.w, &sc.rows, b)
		sc.blk = b + 1
	}
	return &sc.w
}

func (o *onDemand[T]) forward(h []T, xp *kern.Panels[T], b int, sc *scratch[T]) {
	w := o.block(b, sc)
	kern.Forward(h, w, xp, 0, w.NP)
}

func (o *onDemand[T]) backwardAdd(z *kern.Panels[T], g []T, b int, sc *scratch[T]) {
	w := o.block(b, sc)
	kern.BackwardAdd(z, w, g, 0, w.NP)
}

func (o *onDemand[T]) forwardNarrow(h []T, xn *kern.Narrow[T], b int, sc *scratch[T]) {
	w := o.block(b, sc)
	kern.ForwardNarrow(h, w, xn, 0, w.NP)
}

func (o *onDemand[T]) backwardAddNarrow(z *kern.Narrow[T], g []T, b int, sc *scratch[T]) {
	w := o.block(b, sc)
	kern.BackwardAddNarrow(z, w, g, 0, w.NP)
}

// sorf is a structured projection: each SORF block of N rows is
// S·H_u D₁ H_u D₂ H_u D₃ (S including the normalization), applied with
// three fast Walsh–Hadamard transforms (package internal/fwht). The
// engine's blocks are groups of m consecutive SORF blocks (m·N ≈ 256 rows
// at small N), so that small transforms go through fwht many at a time.
type sorf[T kern.Float] struct {
	s     *features.SORF
	m     int    // SORF blocks per engine block
	diag  [3][]T // D₁, D₂, D₃ of every SORF block, each Blocks()·N long
	scale []T    // the row scales, converted
}

// sorfGroupRows is about how many rows an engine block of SORF blocks has
// (16 KiB of lines): fewer, smaller calls cost more than they transform.
const sorfGroupRows = 256

func newSORF[T kern.Float](s *features.SORF) *sorf[T] {
	nb, n := s.Blocks(), s.N
	f := &sorf[T]{s: s, m: max(1, sorfGroupRows/n), scale: padTo[T](s.Scale, len(s.Scale), 0, 0)}
	for i := range f.diag {
		f.diag[i] = make([]T, nb*n)
		for b := range nb {
			src := s.Signs[(3*b+i)*n : (3*b+i+1)*n]
			for r, v := range src {
				f.diag[i][b*n+r] = T(v)
			}
		}
	}
	return f
}

func (f *sorf[T]) dim() int { return f.s.D }

func (f *sorf[T]) count() (int, int) {
	nb := f.s.Blocks()
	return (nb + f.m - 1) / f.m, nb * f.s.N
}

// sub returns the first SORF block and the number of SORF blocks of
// engine block b.
func (f *sorf[T]) sub(b int) (first, k int) {
	first = b * f.m
	return first, min(f.m, f.s.Blocks()-first)
}

func (f *sorf[T]) span(b int) (int, int) {
	first, k := f.sub(b)
	return first * f.s.N, k * f.s.N
}

func (f *sorf[T]) maxRows() int { return min(f.m, f.s.Blocks()) * f.s.N }

// forward transforms each query of xp (in the first D of N coordinates,
// the rest zero) by each SORF block of engine block b and scatters the
// phases into the query's lane of h.
func (f *sorf[T]) forward(h []T, xp *kern.Panels[T], b int, sc *scratch[T]) {
	l, n, d := kern.Lanes[T](), f.s.N, f.s.D
	lo, rows := f.span(b)
	sc.buf = alignedT(sc.buf, n)
	v := sc.buf
	// The lanes of no query (the last panel's padding) are zero, as the
	// panel products leave them; the others are all written below, so
	// only a last panel with padding is cleared (one memclr: faster than
	// clearing its padding lanes row by row).
	if xp.R < xp.NP*l {
		clear(h[(xp.NP-1)*rows*l : xp.NP*rows*l])
	}
	for r0 := 0; r0 < rows; r0 += n {
		d1, d2, d3 := f.diag[0][lo+r0:lo+r0+n], f.diag[1][lo+r0:lo+r0+n], f.diag[2][lo+r0:lo+r0+n]
		rs := f.scale[lo+r0 : lo+r0+n]
		for q := range xp.R {
			qp, lane := q/l, q%l
			base := qp * xp.Cp * l
			for i := range d {
				v[i] = xp.Data[base+i*l+lane]
			}
			clear(v[d:])
			signTransform(v, d3)
			signTransform(v, d2)
			signTransform(v, d1)
			hq := h[(qp*rows+r0)*l:]
			for r, x := range v {
				hq[r*l+lane] = x * rs[r]
			}
		}
	}
}

// backwardAdd gathers each query's lane of g, applies the transposed
// chain of each SORF block and adds the first D coordinates to the
// query's row of z.
func (f *sorf[T]) backwardAdd(z *kern.Panels[T], g []T, b int, sc *scratch[T]) {
	l, n, d := kern.Lanes[T](), f.s.N, f.s.D
	lo, rows := f.span(b)
	sc.buf = alignedT(sc.buf, n)
	v := sc.buf
	for r0 := 0; r0 < rows; r0 += n {
		d1, d2, d3 := f.diag[0][lo+r0:lo+r0+n], f.diag[1][lo+r0:lo+r0+n], f.diag[2][lo+r0:lo+r0+n]
		rs := f.scale[lo+r0 : lo+r0+n]
		for q := range z.R {
			qp, lane := q/l, q%l
			gq := g[(qp*rows+r0)*l:]
			for r := range v {
				v[r] = gq[r*l+lane] * rs[r]
			}
			transformSign(v, d1)
			transformSign(v, d2)
			transformSign(v, d3)
			base := qp * z.Cp * l
			for i := range d {
				z.Data[base+i*l+lane] += v[i]
			}
		}
	}
}

// panels reports whether the lines transforms run in vector assembly:
// then the engine takes each query panel through forwardPanel and
// backwardPanel; elsewhere each query is transformed on its own by
// forward and backwardAdd, which is faster there.
func (f *sorf[T]) panels() bool { return fwht.LinesFast() }

// forwardPanel writes the phases of the queries of panel qp of xp for
// engine block b into hq (its rows × L), with every query of the panel in
// its lane: the panel's D lines are copied into each SORF block's N lines
// (padded with zero lines), and all of them go through the three
// transforms together (fwht's lines transforms), then the row scales.
// Each lane gets, bit for bit, what forward's per-query transforms give it.
func (f *sorf[T]) forwardPanel(hq []T, xp *kern.Panels[T], qp, b int) {
	l, n, d := kern.Lanes[T](), f.s.N, f.s.D
	lo, rows := f.span(b)
	hq = hq[:rows*l]
	src := xp.Data[qp*xp.Cp*l : qp*xp.Cp*l+d*l]
	for r0 := 0; r0 < rows; r0 += n {
		copy(hq[r0*l:], src)
		clear(hq[(r0+d)*l : (r0+n)*l])
	}
	linesBatchSignTransform(hq, f.diag[2][lo:lo+rows], n)
	linesBatchSignTransform(hq, f.diag[1][lo:lo+rows], n)
	linesBatchSignTransform(hq, f.diag[0][lo:lo+rows], n)
	linesScale(hq, hq, f.scale[lo:lo+rows], false)
}

// backwardPanel adds the transposed chain applied to the gradient weights
// gq (the block's rows × L, overwritten) of the queries of panel qp to
// their rows of z: d₃ ⊙ H(d₂ ⊙ H(d₁ ⊙ H(s ⊙ g))) for each SORF block, the
// last sign multiply fused into the add.
func (f *sorf[T]) backwardPanel(z *kern.Panels[T], gq []T, qp, b int) {
	l, n, d := kern.Lanes[T](), f.s.N, f.s.D
	lo, rows := f.span(b)
	gq = gq[:rows*l]
	linesBatchSignTransform(gq, f.scale[lo:lo+rows], n)
	linesBatchSignTransform(gq, f.diag[0][lo:lo+rows], n)
	linesBatchSignTransform(gq, f.diag[1][lo:lo+rows], n)
	zq := z.Data[qp*z.Cp*l : qp*z.Cp*l+d*l]
	for r0 := 0; r0 < rows; r0 += n {
		linesScale(zq, gq[r0*l:(r0+d)*l], f.diag[2][lo+r0:lo+r0+d], true)
	}
}

func linesBatchSignTransform[T kern.Float](x, s []T, n int) {
	if is32[T]() {
		fwht.LinesBatchSignTransform32(f32(x), f32(s), n)
	} else {
		fwht.LinesBatchSignTransform64(f64(x), f64(s), n)
	}
}

func linesScale[T kern.Float](dst, x, s []T, add bool) {
	if is32[T]() {
		fwht.LinesScale32(f32(dst), f32(x), f32(s), add)
	} else {
		fwht.LinesScale64(f64(dst), f64(x), f64(s), add)
	}
}

func signTransform[T kern.Float](x, s []T) {
	if is32[T]() {
		fwht.SignTransform32(f32(x), f32(s))
	} else {
		fwht.SignTransform64(f64(x), f64(s))
	}
}

func transformSign[T kern.Float](x, s []T) {
	if is32[T]() {
		fwht.TransformSign32(f32(x), f32(s))
	} else {
		fwht.TransformSign64(f64(x), f64(s))
	}
}

func elemSize[T kern.Float]() uintptr {
	if is32[T]() {
		return 4
	}
	return 8
}

// alignedT returns s resized to n, reallocated if needed so that it starts
// on a 64-byte boundary, where the transforms run faster
// (internal/fwht/README.md has the measurement).
func alignedT[T kern.Float](s []T, n int) []T {
	if cap(s) >= n && uintptr(unsafe.Pointer(unsafe.SliceData(s)))%64 == 0 {
		return s[:n]
	}
	es := int(elemSize[T]())
	buf := make([]T, n+64/es)
	off := 0
	for uintptr(unsafe.Pointer(&buf[off]))%64 != 0 {
		off++
	}
	return buf[off : off+n : off+n]
}
