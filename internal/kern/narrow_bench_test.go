package kern

import (
	"fmt"
	"testing"

	"github.com/drdam/drdam/internal/cpuid"
	"github.com/drdam/drdam/internal/par"
)

// smallW is the projection of BenchmarkSmallBatch, made once: the shape of
// the peers' config c (D = 12288, Y = 2·10⁴; 0.98 GB in float32).
var smallW *Panels[float32]

// BenchmarkSmallBatch times both products of one energy-and-gradient step
// at config c's shape for B = 1, 2, 4 and 8 queries, as the engine runs
// them: block by block (BlockPanels) in Groups jobs on every core, the
// backward product of a block right after its forward one, while the
// block is in cache. "step" is the engine's way: StepNarrow for each
// block's backward product with the next block's forward one; "narrow" is
// ForwardNarrow then BackwardAddNarrow, block by block; "panels" Forward
// and BackwardAdd on a query panel padded to 16 lanes. It reports the bandwidth of the single
// pass over W that the step needs (GB/s). The memory traffic of W makes it
// sensitive to other work on the machine; compare the minimum of several
// runs.
func BenchmarkSmallBatch(b *testing.B) {
	const d, y = 12288, 20000
	for _, nb := range []int{1, 2, 4, 8} {
		for _, path := range []string{"step", "narrow", "panels"} {
			for _, lv := range cpuid.Supported()[1:] {
				b.Run(fmt.Sprintf("D%d_Y%d_B%d/%s-%v", d, y, nb, path, lv), func(b *testing.B) {
					if smallW == nil {
						smallW = NewPanels[float32](y, d)
						fill(smallW.Data, 1)
					}
					defer cpuid.Set(cpuid.Set(lv))
					s := newStep(smallW, nb, path)
					for b.Loop() {
						s.task.Run(len(s.h))
					}
					b.ReportMetric(float64(len(smallW.Data)*4)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GB/s")
				})
			}
		}
	}
}

// step is one pass of both products over w, block by block.
type step struct {
	h, h2 [][]float32 // per group: the block buffers
	zn    []*Narrow[float32]
	zp    []*Panels[float32]
	task  par.Task
}

func newStep(w *Panels[float32], nb int, path string) *step {
	bp := BlockPanels(w.Cp)
	nblk := (w.NP + bp - 1) / bp
	ng := Groups(nblk)
	s := &step{h: make([][]float32, ng), h2: make([][]float32, ng)}
	xn, xp := NewNarrow[float32](nb, w.C), NewPanels[float32](nb, w.C)
	fill(xn.Data, 2)
	fill(xp.Data, 2)
	for i := range ng {
		s.h[i] = make([]float32, BlockLen[float32](1, 0, bp))
		s.h2[i] = make([]float32, BlockLen[float32](1, 0, bp))
		s.zn = append(s.zn, NewNarrow[float32](nb, w.C))
		s.zp = append(s.zp, NewPanels[float32](nb, w.C))
	}
	block := func(blk int) (p0, p1, n int) {
		p0, p1 = blk*bp, min((blk+1)*bp, w.NP)
		return p0, p1, BlockLen[float32](1, p0, p1)
	}
	s.task.F = func(g int) {
		b0, b1 := GroupBlocks(g, nblk)
		h, hn := s.h[g], s.h2[g]
		if path == "step" {
			p0, p1, n := block(b0)
			ForwardNarrow(h[:n], w, xn, p0, p1)
		}
		for blk := b0; blk < b1; blk++ {
			p0, p1, n := block(blk)
			switch {
			case path == "panels":
				Forward(h[:n], w, xp, p0, p1)
				BackwardAdd(s.zp[g], w, h[:n], p0, p1)
			case path == "narrow":
				ForwardNarrow(h[:n], w, xn, p0, p1)
				BackwardAddNarrow(s.zn[g], w, h[:n], p0, p1)
			case blk+1 < b1:
				q0, q1, nn := block(blk + 1)
				StepNarrow(s.zn[g], w, h[:n], p0, p1, hn[:nn], w, xn, q0, q1)
				h, hn = hn, h
			default:
				BackwardAddNarrow(s.zn[g], w, h[:n], p0, p1)
			}
		}
	}
	return s
}

// BenchmarkNarrowProducts times each small-batch product alone on one
// panel of config c's width (D = 12288: 768 KiB of float32, read from the
// cache), against the panel product on the same batch, for B = 1, 2, 4
// and 8, at each level. Run it with -cpu 1; GFLOP/s counts the useful
// multiply-adds (2·B·16·D per product).
func BenchmarkNarrowProducts(b *testing.B) {
	const d = 12288
	w := NewPanels[float32](16, d)
	fill(w.Data, 1)
	for _, nb := range []int{1, 2, 4, 8} {
		xn, xp := NewNarrow[float32](nb, d), NewPanels[float32](nb, d)
		fill(xn.Data, 2)
		fill(xp.Data, 2)
		zn, zp := NewNarrow[float32](nb, d), NewPanels[float32](nb, d)
		h := make([]float32, BlockLen[float32](1, 0, 1))
		fill(h, 3)
		ops := map[string]func(){
			"fwd/narrow": func() { ForwardNarrow(h, w, xn, 0, 1) },
			"fwd/panels": func() { Forward(h, w, xp, 0, 1) },
			"bwd/narrow": func() { BackwardAddNarrow(zn, w, h, 0, 1) },
			"bwd/panels": func() { BackwardAdd(zp, w, h, 0, 1) },
		}
		for _, name := range []string{"fwd/narrow", "fwd/panels", "bwd/narrow", "bwd/panels"} {
			for _, lv := range cpuid.Supported()[1:] {
				b.Run(fmt.Sprintf("B%d/%s-%v", nb, name, lv), func(b *testing.B) {
					defer cpuid.Set(cpuid.Set(lv))
					for b.Loop() {
						ops[name]()
					}
					b.ReportMetric(float64(2*nb*16*d)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
				})
			}
		}
	}
}
