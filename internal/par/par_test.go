package par

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"
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

// TestRunDoesNotWaitForBusyWorkers: while every worker is busy with a
// long task, a short one is run by its caller alone and returns at once,
// instead of waiting until a worker is free to help (an energy query of
// drdam serve waited for a whole batch's Add behind it).
func TestRunDoesNotWaitForBusyWorkers(t *testing.T) {
	if Workers() < 2 {
		t.Skip("one core: no workers to be busy")
	}
	release := make(chan struct{})
	var started sync.WaitGroup
	started.Add(Workers())
	long := &Task{F: func(i int) {
		started.Done()
		<-release
	}}
	go long.Run(Workers())
	started.Wait() // the caller and every worker are in the long task
	var sum atomic.Int64
	short := &Task{F: func(i int) { sum.Add(int64(i)) }}
	done := make(chan struct{})
	go func() { short.Run(10); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("a short task waited for the busy workers")
	}
	close(release)
	if sum.Load() != 45 {
		t.Errorf("the short task's indices summed to %d, want 45", sum.Load())
	}
}

// TestRunConcurrent: tasks run from many goroutines at once, each run
// again and again, call each index exactly once per run.
func TestRunConcurrent(t *testing.T) {
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			var hits [37]atomic.Int32
			task := &Task{F: func(i int) { hits[i].Add(1) }}
			for r := range 200 {
				n := (g*7 + r) % 38
				task.Run(n)
				for i := range hits {
					want := int32(0)
					if i < n {
						want = 1
					}
					if got := hits[i].Swap(0); got != want {
						t.Errorf("run %d, n = %d: index %d ran %d times", r, n, i, got)
						return
					}
				}
			}
		})
	}
	wg.Wait()
}
