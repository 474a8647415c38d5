package vmath

// TrigLane32 is TrigBlock32 for lane l of h alone: h holds n rows of q
// lanes (len(h) == n*q), and TrigLane32 computes what TrigBlock32(h, bias,
// tc, ts, acc, q) computes for that lane (h[r*q+l] for every row r, and
// acc[l]), bit for bit, leaving the other lanes of h and acc unchanged. It
// is for a block with one live query: TrigBlock32 works on whole vectors
// of lanes, so with one query of q it computes q−1 lanes for nothing;
// TrigLane32 runs the sines and cosines over the rows instead (SinCos32)
// and then the lane's sum, row after row, with the same fused operations
// (acc = fma(ts, s, fma(tc, c, acc)), h = fma(−tc, s, ts·c)).
//
// The results equal TrigBlock32's for that lane where, in each row, the
// other lanes of the lane's vector are within the fast range |v| ≤ 2^20
// (TrigBlock32 does a whole vector in Go where one of its lanes is
// beyond); DrDAM's phases are far within it, and a query's other lanes
// (no query) are zero. buf is scratch of at least 4n values; len(tc) (and
// len(bias), len(ts) when non-nil) == n, len(acc) == q, 0 ≤ l < q.
func TrigLane32(h, bias, tc, ts, acc []float32, q, l int, buf []float32) {
	if laneArgs("TrigLane32", len(h), bias != nil, ts != nil, len(bias), len(tc), len(ts), len(acc), q, l, len(buf)) {
		trigLane32(h, bias, tc, ts, acc, q, l, buf)
	}
}

// TrigLane64 is TrigLane32 in float64, for TrigBlock64 (see there); the
// fast range is |v| ≤ 2^29.
func TrigLane64(h, bias, tc, ts, acc []float64, q, l int, buf []float64) {
	if laneArgs("TrigLane64", len(h), bias != nil, ts != nil, len(bias), len(tc), len(ts), len(acc), q, l, len(buf)) {
		trigLane64(h, bias, tc, ts, acc, q, l, buf)
	}
}

// laneArgs checks the arguments of TrigLane32 and TrigLane64 (those of
// TrigBlock, the lane and the scratch) and reports whether there is work.
func laneArgs(op string, lh int, bias, ts bool, lb, ltc, lts, lacc, q, l, lbuf int) bool {
	if !trigArgs(op, lh, bias, ts, lb, ltc, lts, lacc, q) {
		return false
	}
	if l < 0 || l >= q {
		panic("vmath: " + op + ": lane out of range")
	}
	if lbuf < 4*(lh/q) {
		panic("vmath: " + op + ": buf shorter than 4·len(h)/q")
	}
	return true
}

// trigLaneGo is TrigLane on the portable level: laneRow on every row.
func trigLaneGo[T float32 | float64](h, bias, tc, ts, acc []T, q, l int, row func(h, acc []T, b, c, s T)) {
	for r := range len(h) / q {
		laneRow(h, bias, tc, ts, acc, q, l, r, row)
	}
}

// laneRow is TrigBlock's own row code (row: trigRow32, trigRow64) on
// lane l of row r.
func laneRow[T float32 | float64](h, bias, tc, ts, acc []T, q, l, r int, row func(h, acc []T, b, c, s T)) {
	b, c, s := rowConsts(bias, tc, ts, r)
	i := r*q + l
	row(h[i:i+1], acc[l:l+1], b, c, s)
}
