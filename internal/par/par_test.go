package par

import (
	"sync/atomic"
	"testing"
)

func TestRun(t *testing.T) {
	var hits [1000]atomic.Int32
	task := &Task{F: func(i int) { hits[i].Add(1) }}
	for _, n := range []int{0, 1, 2, 7, 1000} {
		for i := range hits {
			hits[i].Store(0)
		}
		task.Run(n)
		for i := range hits {
			want := int32(0)
			if i < n {
				want = 1
			}
			if hits[i].Load() != want {
				t.Fatalf("n = %d: index %d ran %d times", n, i, hits[i].Load())
			}
		}
	}
	if a := testing.AllocsPerRun(100, func() { task.Run(8) }); a != 0 {
		t.Errorf("Run allocates %v times", a)
	}
}
