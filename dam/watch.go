package dam

// State copies the current state of query q (0 ≤ q < B) of a descent
// into dst (grown to D values if too short) and returns it: while q is
// descending, the point its next Step evaluates; once it stopped, its
// final state. It lets a caller watch a descent between steps (drdam
// serve streams it); it returns nil if q is out of range or the descent
// has not started.
func (ds *Descent) State(q int, dst []float64) []float64 {
	d := ds.d
	if q < 0 || q >= len(ds.steps) {
		return nil
	}
	dst = grow(dst, d)
	for k := range ds.na {
		if ds.idx[k] == q {
			copy(dst, ds.xa[k*d:(k+1)*d])
			return dst
		}
	}
	copy(dst, ds.x[q*d:(q+1)*d])
	return dst
}
