package baseline

import "fmt"

// Mean completes queries with the stored rows' column means. It is safe
// for concurrent use.
type Mean struct {
	mean []float64
	d    int
}

// NewMean returns the column means of the stored rows x (K×d, row-major,
// finite); x is not referenced afterwards.
func NewMean(x []float64, d int) (*Mean, error) {
	n, err := stored(x, d, false)
	if err != nil {
		return nil, err
	}
	mean := make([]float64, d)
	for r := range n {
		for j, v := range x[r*d : (r+1)*d] {
			mean[j] += v
		}
	}
	for j := range mean {
		mean[j] /= float64(n)
	}
	return &Mean{mean: mean, d: d}, nil
}

// Means returns the column means (a copy).
func (m *Mean) Means() []float64 { return append([]float64(nil), m.mean...) }

// Complete writes into dst the queries q with their hidden coordinates
// filled with the column means (see Completer). It runs on the calling
// goroutine: the work is a copy.
func (m *Mean) Complete(dst, q []float64, visible []bool) error {
	if _, err := queries(dst, q, visible, m.d); err != nil {
		return fmt.Errorf("baseline: Mean.Complete: %w", err)
	}
	for i, v := range q {
		if (visible == nil && v == v) || (visible != nil && visible[i]) {
			dst[i] = v
		} else {
			dst[i] = m.mean[i%m.d]
		}
	}
	return nil
}
