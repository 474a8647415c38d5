package vmath

// TrigLane64 is TrigBlock64 for lane l of h alone: h holds n rows of q
// lanes (len(h) == n*q), and TrigLane64 computes what TrigBlock64(h, bias,
// tc, ts, acc, q) computes for that lane (h[r*q+l] for every row r, and
// acc[l]), bit for bit, leaving the other lanes of h and acc unchanged. It
// is for a block with one live query: TrigBlock64 works on whole vectors
// of lanes, so with one query of q it computes q−1 lanes for nothing;
// TrigLane64 runs the sines and cosines over the rows instead (SinCos64)
// and then the lane's sum, row after row, with the same fused operations
// (acc = fma(ts, s, fma(tc, c, acc)), h = fma(−tc, s, ts·c)).
//
// The results equal TrigBlock64's for that lane where, in each row, the
// other lanes of the lane's vector are within the fast range |v| ≤ 2^29
// (TrigBlock64 does a whole vector in Go where one of its lanes is
// beyond); DrDAM's phases are far within it. buf is scratch of at least
// 4n values; len(tc) (and len(bias), len(ts) when non-nil) == n,
// len(acc) == q, 0 ≤ l < q.
func TrigLane64(h, bias, tc, ts, acc []float64, q, l int, buf []float64) {
	if !trigArgs("TrigLane64", len(h), bias != nil, ts != nil, len(bias), len(tc), len(ts), len(acc), q) {
		return
	}
	n := len(h) / q
	if l < 0 || l >= q {
		panic("vmath: TrigLane64: lane out of range")
	}
	if len(buf) < 4*n {
		panic("vmath: TrigLane64: buf shorter than 4·len(h)/q")
	}
	trigLane64(h, bias, tc, ts, acc, q, l, buf)
}

// trigLane64Go is TrigLane64 on the portable level: TrigBlock64's own row
// code (trigRow64) on the lane's element of each row.
func trigLane64Go(h, bias, tc, ts, acc []float64, q, l int) {
	for r := range len(h) / q {
		b, c, s := rowConsts(bias, tc, ts, r)
		i := r*q + l
		trigRow64(h[i:i+1], acc[l:l+1], b, c, s)
	}
}
