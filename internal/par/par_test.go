package par

import (
	"bytes"
	"runtime"
	"strconv"
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
				if !onceEach(t, hits[:], r, n) {
					return
				}
			}
		})
	}
	wg.Wait()
}

// TestRunWaves: RunWaves calls each index exactly once per run, from many
// goroutines at once and with F calling Poll; with waves shorter than an
// index, the helpers leave after every index and Poll asks them back.
func TestRunWaves(t *testing.T) {
	if Workers() < 2 {
		t.Skip("one core: no helpers to leave and come back")
	}
	var wg sync.WaitGroup
	var helped atomic.Int32
	for g := range 4 {
		wg.Go(func() {
			var hits [64]atomic.Int32
			var task Task
			var caller atomic.Int64
			task.F = func(i int) {
				hits[i].Add(1)
				task.Poll()
				if goid() != caller.Load() {
					helped.Add(1)
				}
				time.Sleep(50 * time.Microsecond) // longer than a wave
			}
			caller.Store(goid())
			for r := range 20 {
				n := (g*13 + r*7) % 65
				task.RunWaves(n, time.Microsecond)
				if !onceEach(t, hits[:], r, n) {
					return
				}
			}
		})
	}
	wg.Wait()
	// A helper that is never asked back runs at most one index of a run
	// (it leaves after every index): more than 2 a run on average means
	// Poll asked them back (measured: about 500 indices of 80 runs; 77
	// with Poll's re-post removed).
	const runs = 4 * 20
	t.Logf("%d indices of %d runs on a helper", helped.Load(), runs)
	if helped.Load() <= 2*runs {
		t.Errorf("%d indices of %d runs on a helper: the helpers that left were not asked back", helped.Load(), runs)
	}
}

// goid returns an identifier of the calling goroutine (the address of a
// goroutine-local variable would not do: stacks move), from its stack's
// header line.
func goid() int64 {
	var buf [64]byte
	b := buf[:runtime.Stack(buf[:], false)]
	b = bytes.TrimPrefix(b, []byte("goroutine "))
	id, _ := strconv.ParseInt(string(b[:bytes.IndexByte(b, ' ')]), 10, 64)
	return id
}

// onceEach reports whether run r of n indices ran each index below n once
// and none above (hits counts the calls of each index, and is reset).
func onceEach(t *testing.T, hits []atomic.Int32, r, n int) bool {
	t.Helper()
	for i := range hits {
		want := int32(0)
		if i < n {
			want = 1
		}
		if got := hits[i].Swap(0); got != want {
			t.Errorf("run %d, n = %d: index %d ran %d times", r, n, i, got)
			return false
		}
	}
	return true
}

// TestRunWavesYields: on one processor, a goroutine made runnable while a
// RunWaves spins (200 indices of 100 µs, 20 ms) runs within about
// yieldEvery (0.5 ms; measured 0.50 ms), because the run gives up the
// processor that often. Without that it waits for Go to preempt the run
// (measured 5–16 ms). The bound, 2.5 ms, sits between; the best of three
// tries counts, so that a shared machine's pause in one try does not fail
// the test. Run plain (no waves) keeps the processor: logged, to show the
// difference.
func TestRunWavesYields(t *testing.T) {
	Workers() // start the workers as the machine has them, before one processor
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	spin := func(d time.Duration) {
		for t0 := time.Now(); time.Since(t0) < d; {
		}
	}
	var task Task
	task.F = func(int) { spin(100 * time.Microsecond) }
	waited := func(run func()) time.Duration {
		ran := make(chan time.Duration, 1)
		t0 := time.Now()
		go func() { ran <- time.Since(t0) }()
		run()
		return <-ran
	}
	best := time.Hour
	for range 3 {
		best = min(best, waited(func() { task.RunWaves(200, 4*time.Millisecond) }))
	}
	t.Logf("a goroutine waited %v during RunWaves, %v during Run", best, waited(func() { task.Run(200) }))
	if best > 5*yieldEvery {
		t.Errorf("a goroutine waited %v for the processor during RunWaves (best of 3), want ≤ %v", best, 5*yieldEvery)
	}
}
