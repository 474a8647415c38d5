package dam

import (
	"unsafe"

	"github.com/drdam/drdam/features"
	"github.com/drdam/drdam/internal/kern"
	"github.com/drdam/drdam/internal/par"
)

// smallBatch enables the small-batch products (kern.ForwardNarrow and
// kern.BackwardAddNarrow) for batches of at most kern.MaxNarrow queries on
// the block sources that take them; tests turn it off to compare with the
// panel products.
var smallBatch = true

// panelsFrom builds the compute layout of a projection in chunks of rows,
// in parallel, without a float64 copy of the whole matrix.
func panelsFrom[T kern.Float](src features.RowSource) *kern.Panels[T] {
	y, d := src.Dims()
	w := kern.NewPanels[T](y, d)
	if s, ok := src.(*features.Seeded); ok && s.Interleaves() {
		// Whole panels are written in place by the generator; a last
		// partial one goes through rows.
		l := kern.Lanes[T]()
		full := y / l
		per := max(1, (1<<20)/(d*l)) // panels per job, about 4–8 MiB
		task := par.Task{F: func(i int) {
			for p := i * per; p < min(full, (i+1)*per); p++ {
				rowGroup(s, w.Data[p*w.Cp*l:(p+1)*w.Cp*l], p*l)
			}
		}}
		task.Run((full + per - 1) / per)
		if full*l < y {
			rows := make([]float64, (y-full*l)*d)
			s.Rows(rows, full*l, y)
			w.SetRows(full*l, rows, 1)
		}
		return w
	}
	chunk := max(16, ((1<<20)/d)&^15) // about 8 MiB of float64 rows
	if s, ok := src.(*features.Seeded); ok && s.Kind == features.Orthogonal {
		// Regenerating an orthogonal block costs O(D³): cut only at
		// block boundaries (whole blocks of D rows, as many as fit in
		// about 8 MiB). A chunk may end inside a panel of 16 rows: its
		// rows are distinct elements, so two jobs may write them at once.
		chunk = d * max(1, (1<<20)/(d*d))
	}
	n := (y + chunk - 1) / chunk
	// One row buffer per running job, reused: allocating one per chunk
	// would leave Y·D float64s of garbage, which the collector lets grow to
	// the size of the live panels before it runs (twice the resident
	// memory at the paper's sizes).
	bufs := make(chan []float64, par.Workers())
	task := par.Task{F: func(i int) {
		lo, hi := i*chunk, min((i+1)*chunk, y)
		var rows []float64
		select {
		case rows = <-bufs:
		default:
			rows = make([]float64, min(chunk, y)*d)
		}
		src.Rows(rows[:(hi-lo)*d], lo, hi)
		w.SetRows(lo, rows[:(hi-lo)*d], 1)
		bufs <- rows
	}}
	task.Run(n)
	return w
}

// rowGroup writes the panel of the rows [lo, lo+L) of s into dst (its
// Cp·L values), generated in place (s.Interleaves()).
func rowGroup[T kern.Float](s *features.Seeded, dst []T, lo int) {
	if is32[T]() {
		s.RowGroup32(f32(dst), lo)
	} else {
		s.RowGroup64(f64(dst), lo)
	}
}

// padTo returns v converted to T, minus shift, padded with fill to length
// n.
func padTo[T kern.Float](v []float64, n int, shift, fill float64) []T {
	out := make([]T, n)
	for i := range out {
		if i < len(v) {
			out[i] = T(v[i] - shift)
		} else {
			out[i] = T(fill)
		}
	}
	return out
}

// rowParams are the per-row inputs of the elementwise pass, in the compute
// precision and padded to the rows of the block source.
type rowParams[T kern.Float] struct {
	pass   pass[T] // the elementwise pass that reads them
	bias   []T     // trigonometric: phase shift, or nil
	r1, r2 []T     // trigonometric: T_c, T_s (nil for Cos); positive: log T⁺, log T⁻ (nil for one half)
	shift  float64 // positive: subtracted from r1 and r2 (their maximum), added back to the log-sum
}

// group is the state of one job of an evaluation: a contiguous range of
// blocks with its own buffers and partial sums.
type group[T kern.Float] struct {
	h       []T            // block buffer: phases, then gradient weights
	acc     []T            // one query panel of block sums
	mt      []T            // running max per query lane (positive)
	mOld    []T            // one query panel of maxima before a block
	z       kern.Panels[T] // partial Zᵀ of the group
	zn      kern.Narrow[T] // the same for a small batch
	h2      []T            // the next block's buffer, when the products are pipelined
	s, m    []float64      // per query lane: sum (trig) or normalizer, and max (positive)
	touched []bool         // per query lane: something accumulated (positive)
	sc      scratch[T]     // the block source's scratch
	lane    []T            // TrigLane's scratch (oneLane)
}

// eval evaluates Σ_α over the rows of a block source for a batch of
// queries: the trigonometric sums Σ_α (T_c cos + T_s sin) and their
// gradient weights, or the log-sum-exp of the scores h + r1 (and −h + r2)
// with their softmax weights, and Z = Wᵀ·G. It is the shared engine of
// DrDAM (the projection, queries scaled by √β) and MrDAM (the patterns,
// queries scaled by β). An eval is one workspace: not for concurrent use.
type eval[T kern.Float] struct {
	src      blocks[T]
	p        *rowParams[T]
	withGrad bool

	xp             kern.Panels[T]
	nsrc           narrowBlocks[T] // src, if the batch is small and it takes one
	pb             panelBlocks[T]  // src, if it takes the query panels one by one now
	xn             kern.Narrow[T]  // the queries for nsrc
	groups         []group[T]
	b, nqp, nb, ng int
	task           par.Task
	zTask          par.Task  // combineZ over query panels
	zOut           []float64 // combineZ's destination

	// Results, per query (length B): s is the trigonometric sum, or the
	// softmax normalizer at max m; z (B×D, float64) is Z, scaled to m.
	s, m []float64
}

// run evaluates the B = len(x)/D queries x, scaled by xscale. If z is not
// nil (B×D), it receives Z.
func (ev *eval[T]) run(src blocks[T], p *rowParams[T], x []float64, xscale float64, z []float64) {
	l := kern.Lanes[T]()
	d := src.dim()
	b := len(x) / d
	ev.src, ev.p, ev.withGrad, ev.b = src, p, z != nil, b
	ev.nsrc = nil
	if ns, ok := src.(narrowBlocks[T]); ok && smallBatch && b >= 1 && b <= kern.MaxNarrow[T]() {
		ev.nsrc = ns
		ev.xn.Resize(b, d)
		ev.xn.SetRows(0, x, xscale)
		ev.nqp = 1
	} else {
		ev.xp.Resize(b, d)
		ev.xp.SetRows(0, x, xscale)
		ev.nqp = ev.xp.NP
	}
	ev.nb, _ = src.count()
	ev.ng = kern.Groups(ev.nb)
	if len(ev.groups) < ev.ng {
		ev.groups = append(ev.groups, make([]group[T], ev.ng-len(ev.groups))...)
	}
	hPanels := ev.nqp // query panels whose phases a block buffer holds
	ev.pb = nil
	if pb, ok := src.(panelBlocks[T]); ok && pb.panels() {
		ev.pb, hPanels = pb, 1
	}
	for i := range ev.ng {
		g := &ev.groups[i]
		g.h = growT(g.h, hPanels*src.maxRows()*l)
		if _, ok := ev.nsrc.(narrowPipe[T]); ok && ev.withGrad {
			g.h2 = growT(g.h2, src.maxRows()*l)
		}
		g.acc = growT(g.acc, l)
		g.mOld = growT(g.mOld, l)
		switch {
		case ev.withGrad && ev.nsrc != nil:
			g.zn.Resize(b, d)
		case ev.withGrad:
			g.z.Resize(b, d)
		}
		g.s = grow(g.s, ev.nqp*l)
		clear(g.s)
		p.pass.initGroup(ev, g)
	}
	if ev.task.F == nil {
		ev.task.F = ev.group
	}
	ev.task.Run(ev.ng)
	ev.combine(z)
}

func growT[T kern.Float](s []T, n int) []T {
	if cap(s) >= n {
		return s[:n]
	}
	return make([]T, n)
}

func growBool(s []bool, n int) []bool {
	if cap(s) >= n {
		return s[:n]
	}
	return make([]bool, n)
}

// panelBlocks is implemented by the block sources that run each query
// panel through a block on its own (SORF with the lines transforms): the
// group then takes every panel through the forward product, the
// elementwise pass and the backward product before the next, so that its
// phases stay in cache (N lines, not the whole batch's).
type panelBlocks[T kern.Float] interface {
	// panels reports whether the per-panel methods are to be used now.
	panels() bool
	// forwardPanel writes the phases of query panel qp for block b into
	// hq (the block's rows × L).
	forwardPanel(hq []T, xp *kern.Panels[T], qp, b int)
	// backwardPanel adds Wᵀ·g of query panel qp for block b into z; gq
	// (the gradient weights in hq's layout) may be overwritten.
	backwardPanel(z *kern.Panels[T], gq []T, qp, b int)
}

// group runs the blocks of group gi: forward product, elementwise pass,
// transposed product, block by block. For a panelBlocks source, query
// panel by query panel within a block. With a small batch on a block
// source that pipelines (a stored projection), the transposed product of
// each block runs with the forward product of the next (kern.StepNarrow),
// into the other of two block buffers.
func (ev *eval[T]) group(gi int) {
	l := kern.Lanes[T]()
	g := &ev.groups[gi]
	b0, b1 := kern.GroupBlocks(gi, ev.nb)
	if pb := ev.pb; pb != nil {
		for blk := b0; blk < b1; blk++ {
			lo, n := ev.src.span(blk)
			hq := g.h[:n*l]
			for qp := range ev.nqp {
				pb.forwardPanel(hq, &ev.xp, qp, blk)
				ev.p.pass.elementwisePanel(ev, g, hq, qp, lo, n)
				if ev.withGrad {
					pb.backwardPanel(&g.z, hq, qp, blk)
				}
			}
		}
		ev.p.pass.finishGroup(g)
		return
	}
	pipe, _ := ev.nsrc.(narrowPipe[T])
	if !ev.withGrad {
		pipe = nil
	}
	h, hn := g.h, g.h2
	for blk := b0; blk < b1; blk++ {
		lo, n := ev.src.span(blk)
		hb := h[:ev.nqp*n*l]
		switch {
		case pipe != nil && blk > b0: // done by the previous step
		case ev.nsrc != nil:
			ev.nsrc.forwardNarrow(hb, &ev.xn, blk, &g.sc)
		default:
			ev.src.forward(hb, &ev.xp, blk, &g.sc)
		}
		ev.elementwise(g, hb, lo, n)
		switch {
		case !ev.withGrad:
		case pipe != nil && blk+1 < b1:
			_, nn := ev.src.span(blk + 1)
			pipe.stepNarrow(&g.zn, hb, blk, hn[:nn*l], &ev.xn, blk+1)
			h, hn = hn, h
		case ev.nsrc != nil:
			ev.nsrc.backwardAddNarrow(&g.zn, hb, blk, &g.sc)
		default:
			ev.src.backwardAdd(&g.z, hb, blk, &g.sc)
		}
	}
	ev.p.pass.finishGroup(g)
}

// elementwise turns the phases h of the n rows from lo of a block into
// gradient weights, query panel by query panel (pass.elementwisePanel).
func (ev *eval[T]) elementwise(g *group[T], h []T, lo, n int) {
	l := kern.Lanes[T]()
	for qp := range ev.nqp {
		ev.p.pass.elementwisePanel(ev, g, h[qp*n*l:(qp+1)*n*l], qp, lo, n)
	}
}

// rowsOf returns the rows [lo, lo+n) of a per-row parameter, or nil.
func rowsOf[T kern.Float](v []T, lo, n int) []T {
	if v == nil {
		return nil
	}
	return v[lo : lo+n]
}

// combine adds the groups' partial results in group order: for the
// positive case, each group is first rescaled to the common maximum.
func (ev *eval[T]) combine(z []float64) {
	l := kern.Lanes[T]()
	b := ev.b
	ev.s = grow(ev.s, b)
	ev.m = grow(ev.m, b)
	clear(ev.s)
	ev.p.pass.combine(ev)
	if z == nil {
		return
	}
	// Z, query panel by query panel on every core: each query's row is
	// summed over the groups in group order whoever computes it, so the
	// result does not depend on the number of cores.
	ev.zOut = z
	if ev.zTask.F == nil {
		ev.zTask.F = ev.combineZ
	}
	ev.zTask.Run((b + l - 1) / l)
}

// combineZ adds the groups' partial Z of the queries of panel qp into
// ev.zOut, rescaled to the common maximum for the positive case.
func (ev *eval[T]) combineZ(qp int) {
	l := kern.Lanes[T]()
	d := ev.src.dim()
	cp := kern.PadD(d)
	z := ev.zOut
	for q := qp * l; q < min((qp+1)*l, ev.b); q++ {
		zr := z[q*d : (q+1)*d]
		clear(zr)
		base := qp*cp*l + q%l
		for gi := range ev.ng {
			g := &ev.groups[gi]
			sc, ok := ev.p.pass.groupScale(ev, g, q)
			if !ok {
				continue
			}
			if ev.nsrc != nil {
				g.zn.AddRow(zr, q, sc)
				continue
			}
			gz := g.z.Data[base:]
			for c := range zr {
				zr[c] += sc * float64(gz[c*l])
			}
		}
	}
}

// The elementwise passes, by precision. The slices are reinterpreted with
// unsafe rather than through an interface, which would allocate.

func is32[T kern.Float]() bool { return unsafe.Sizeof(T(0)) == 4 }

// f32 and f64 view a []T of the matching size as the concrete type (nil
// stays nil).
func f32[T kern.Float](v []T) []float32 {
	if v == nil {
		return nil
	}
	return unsafe.Slice((*float32)(unsafe.Pointer(unsafe.SliceData(v))), len(v))
}

func f64[T kern.Float](v []T) []float64 {
	if v == nil {
		return nil
	}
	return unsafe.Slice((*float64)(unsafe.Pointer(unsafe.SliceData(v))), len(v))
}
