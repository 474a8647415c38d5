package kern

import "github.com/drdam/drdam/internal/par"

// BlockPanels returns how many panels of a projection with padded width cp
// make a block of about 512 KiB (half the L2 cache of the machines drdam
// was tuned on), at least 1.
func BlockPanels(cp int) int { return max(1, (512<<10)/(cp*64)) }

// Groups returns how many groups of consecutive blocks a pass over nblocks
// blocks is split into: each group is one job with its own partial sums.
// It depends on the problem size only, never on the number of cores, so
// that results are the same on every machine.
func Groups(nblocks int) int { return min(nblocks, 8) }

// GroupBlocks returns the blocks [b0, b1) of group g of Groups(nblocks).
func GroupBlocks(g, nblocks int) (b0, b1 int) {
	ng := Groups(nblocks)
	return g * nblocks / ng, (g + 1) * nblocks / ng
}

// Product runs the two products of a whole projection on every core, block
// by block: Forward of each block into its own slice of H, and BackwardAdd
// of each block into the partial sum of Z of its group, which Sum adds in
// group order. It is what the model's products cost, without the model's
// elementwise passes; the benchmarks use it.
type Product[T Float] struct {
	W, X *Panels[T]
	H    []T          // Forward's output, block after block
	Z    []*Panels[T] // one partial Z per group
	bp   int          // panels per block
	fwd  par.Task
	bwd  par.Task
}

// NewProduct prepares the products of w with the queries x.
func NewProduct[T Float](w, x *Panels[T]) *Product[T] {
	p := &Product[T]{W: w, X: x, bp: BlockPanels(w.Cp)}
	nb := p.Blocks()
	p.H = make([]T, BlockLen[T](x.NP, 0, w.NP))
	p.Z = make([]*Panels[T], Groups(nb))
	for i := range p.Z {
		p.Z[i] = NewPanels[T](x.R, x.C)
	}
	p.fwd.F = func(g int) {
		b0, b1 := GroupBlocks(g, p.Blocks())
		for b := b0; b < b1; b++ {
			p0, p1 := p.block(b)
			Forward(p.hBlock(p0, p1), p.W, p.X, p0, p1)
		}
	}
	p.bwd.F = func(g int) {
		b0, b1 := GroupBlocks(g, p.Blocks())
		z := p.Z[g]
		clear(z.Data)
		for b := b0; b < b1; b++ {
			p0, p1 := p.block(b)
			BackwardAdd(z, p.W, p.hBlock(p0, p1), p0, p1)
		}
	}
	return p
}

// Blocks returns the number of blocks.
func (p *Product[T]) Blocks() int { return (p.W.NP + p.bp - 1) / p.bp }

func (p *Product[T]) block(i int) (p0, p1 int) { return i * p.bp, min((i+1)*p.bp, p.W.NP) }

func (p *Product[T]) hBlock(p0, p1 int) []T {
	return p.H[BlockLen[T](p.X.NP, 0, p0):BlockLen[T](p.X.NP, 0, p1)]
}

// Forward computes H for every block.
func (p *Product[T]) Forward() { p.fwd.Run(len(p.Z)) }

// Backward computes the partial Z of every group from H (used as G).
func (p *Product[T]) Backward() { p.bwd.Run(len(p.Z)) }

// Sum adds the partial Z of every group, in group order, into z.
func (p *Product[T]) Sum(z *Panels[T]) {
	for _, zg := range p.Z {
		for i, v := range zg.Data {
			z.Data[i] += v
		}
	}
}
