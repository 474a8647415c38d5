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
// backward product of a block right after its forward one. "narrow" is
// ForwardNarrow and BackwardAddNarrow, "panels" Forward and BackwardAdd on
// a query panel padded to 16 lanes. It reports the bandwidth of the single
// pass over W that the step needs (GB/s).
func BenchmarkSmallBatch(b *testing.B) {
	const d, y = 12288, 20000
	for _, nb := range []int{1, 2, 4, 8} {
		for _, path := range []string{"narrow", "panels"} {
			for _, lv := range cpuid.Supported()[1:] {
				b.Run(fmt.Sprintf("D%d_Y%d_B%d/%s-%v", d, y, nb, path, lv), func(b *testing.B) {
					if smallW == nil {
						smallW = NewPanels[float32](y, d)
						fill(smallW.Data, 1)
					}
					defer cpuid.Set(cpuid.Set(lv))
					s := newStep(smallW, nb, path == "narrow")
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
	h    [][]float32 // per group: the block buffer
	zn   []*Narrow[float32]
	zp   []*Panels[float32]
	task par.Task
}

func newStep(w *Panels[float32], nb int, narrow bool) *step {
	bp := BlockPanels(w.Cp)
	nblk := (w.NP + bp - 1) / bp
	s := &step{h: make([][]float32, Groups(nblk))}
	xn, xp := NewNarrow[float32](nb, w.C), NewPanels[float32](nb, w.C)
	fill(xn.Data, 2)
	fill(xp.Data, 2)
	for i := range s.h {
		s.h[i] = make([]float32, BlockLen[float32](1, 0, bp))
		s.zn = append(s.zn, NewNarrow[float32](nb, w.C))
		s.zp = append(s.zp, NewPanels[float32](nb, w.C))
	}
	s.task.F = func(g int) {
		b0, b1 := GroupBlocks(g, nblk)
		for blk := b0; blk < b1; blk++ {
			p0, p1 := blk*bp, min((blk+1)*bp, w.NP)
			h := s.h[g][:BlockLen[float32](1, p0, p1)]
			if narrow {
				ForwardNarrow(h, w, xn, p0, p1)
				BackwardAddNarrow(s.zn[g], w, h, p0, p1)
			} else {
				Forward(h, w, xp, p0, p1)
				BackwardAdd(s.zp[g], w, h, p0, p1)
			}
		}
	}
	return s
}
