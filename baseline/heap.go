package baseline

// nearest keeps the k nearest of the rows offered to it in increasing row
// order: a max-heap on (distance, row), so that of two rows at the same
// distance the lower row index is kept.
type nearest struct {
	d   []float64
	idx []int
	k   int
}

func newNearest(k int) nearest {
	return nearest{d: make([]float64, 0, k), idx: make([]int, 0, k), k: k}
}

func (h *nearest) reset(k int) {
	h.d, h.idx, h.k = h.d[:0], h.idx[:0], k
}

// less reports whether the heap's entry a is after entry b.
func (h *nearest) after(a, b int) bool {
	return h.d[a] > h.d[b] || (h.d[a] == h.d[b] && h.idx[a] > h.idx[b])
}

func (h *nearest) swap(a, b int) {
	h.d[a], h.d[b] = h.d[b], h.d[a]
	h.idx[a], h.idx[b] = h.idx[b], h.idx[a]
}

// offer offers row i at distance d; rows come in increasing i.
func (h *nearest) offer(d float64, i int) {
	if len(h.d) < h.k {
		h.d = append(h.d, d)
		h.idx = append(h.idx, i)
		for c := len(h.d) - 1; c > 0; {
			p := (c - 1) / 2
			if !h.after(c, p) {
				break
			}
			h.swap(c, p)
			c = p
		}
		return
	}
	if !(d < h.d[0]) {
		return // farther, or as far with a higher index
	}
	h.d[0], h.idx[0] = d, i
	for p := 0; ; {
		c := 2*p + 1
		if c >= len(h.d) {
			break
		}
		if c+1 < len(h.d) && h.after(c+1, c) {
			c++
		}
		if !h.after(c, p) {
			break
		}
		h.swap(c, p)
		p = c
	}
}

// sorted orders the kept rows by (distance, row), nearest first.
func (h *nearest) sorted() {
	for i := 1; i < len(h.d); i++ {
		for j := i; j > 0 && h.after(j-1, j); j-- {
			h.swap(j-1, j)
		}
	}
}
