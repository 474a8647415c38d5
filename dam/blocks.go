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

// generate writes block b's rows into w (resized).
func (o *onDemand[T]) generate(w *kern.Panels[T], rows *[]float64, b int) {
	lo, n := o.span(b)
	hi := min(lo+n, o.y)
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

// sorf is a structured projection: each block of N rows is
// S·H_u D₁ H_u D₂ H_u D₃ (S including the normalization), applied to each
// query with three fast Walsh–Hadamard transforms (package internal/fwht).
type sorf[T kern.Float] struct {
	s     *features.SORF
	signs []T // the signs of features.SORF, converted
	scale []T // its row scales, converted
}

func newSORF[T kern.Float](s *features.SORF) *sorf[T] {
	return &sorf[T]{s: s, signs: padTo[T](s.Signs, len(s.Signs), 0, 0), scale: padTo[T](s.Scale, len(s.Scale), 0, 0)}
}

func (f *sorf[T]) dim() int { return f.s.D }

func (f *sorf[T]) count() (int, int) { return f.s.Blocks(), f.s.Blocks() * f.s.N }

func (f *sorf[T]) span(b int) (int, int) { return b * f.s.N, f.s.N }

func (f *sorf[T]) maxRows() int { return f.s.N }

func (f *sorf[T]) blockSigns(b int) (d1, d2, d3 []T) {
	n := f.s.N
	blk := f.signs[3*b*n : 3*(b+1)*n]
	return blk[:n], blk[n : 2*n], blk[2*n:]
}

// forward transforms each query of xp (in the first D of N coordinates,
// the rest zero) and scatters the N phases into the query's lane of h.
func (f *sorf[T]) forward(h []T, xp *kern.Panels[T], b int, sc *scratch[T]) {
	l, n, d := kern.Lanes[T](), f.s.N, f.s.D
	d1, d2, d3 := f.blockSigns(b)
	sc.buf = alignedT(sc.buf, n)
	v := sc.buf
	rs := f.scale[b*n : (b+1)*n]
	clear(h)
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
		hq := h[qp*n*l:]
		for r, x := range v {
			hq[r*l+lane] = x * rs[r]
		}
	}
}

// backwardAdd gathers each query's lane of g, applies the transposed
// chain and adds the first D coordinates to the query's row of z.
func (f *sorf[T]) backwardAdd(z *kern.Panels[T], g []T, b int, sc *scratch[T]) {
	l, n, d := kern.Lanes[T](), f.s.N, f.s.D
	d1, d2, d3 := f.blockSigns(b)
	sc.buf = alignedT(sc.buf, n)
	v := sc.buf
	rs := f.scale[b*n : (b+1)*n]
	for q := range z.R {
		qp, lane := q/l, q%l
		gq := g[qp*n*l:]
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
// on a 64-byte boundary (the transforms run about 18% faster so).
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
