// Package par runs independent jobs on all cores without allocating: a
// process-wide set of persistent worker goroutines takes job indices from
// a shared counter, and the caller works too.
//
// Results must not depend on which goroutine runs which index: callers give
// each index its own output and combine the outputs in index order, so that
// the result is the same for any number of cores.
package par

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// Task is a reusable job description. Create it once (for example in a
// workspace) and call Run as often as needed: Run allocates nothing.
type Task struct {
	F    func(i int) // the job; called once for each i in [0, n)
	n    int
	next atomic.Int64

	// A helper joins a run only while it is open, and the run's caller,
	// once it has claimed its last index, closes it and waits for the
	// helpers that joined: a helper that comes late (the workers were busy
	// with other tasks) finds it closed and leaves at once, so a caller
	// never waits for workers that it did not need.
	mu     sync.Mutex
	cond   sync.Cond
	gen    uint64 // the run
	open   bool
	active int // helpers working on the run
}

// job asks a worker to help run gen of a task.
type job struct {
	t   *Task
	gen uint64
}

var (
	startOnce sync.Once
	jobs      chan job
	nworkers  int
)

func start() {
	nworkers = runtime.GOMAXPROCS(0) - 1
	jobs = make(chan job, 64)
	for range nworkers {
		go func() {
			for j := range jobs {
				j.t.help(j.gen)
			}
		}()
	}
}

// help works on run gen of t if it is still open.
func (t *Task) help(gen uint64) {
	t.mu.Lock()
	if t.gen != gen || !t.open {
		t.mu.Unlock()
		return
	}
	t.active++
	t.mu.Unlock()
	t.work()
	t.mu.Lock()
	t.active--
	if t.active == 0 {
		t.cond.Broadcast()
	}
	t.mu.Unlock()
}

func (t *Task) work() {
	for {
		i := int(t.next.Add(1)) - 1
		if i >= t.n {
			return
		}
		t.F(i)
	}
}

// Run calls t.F(i) for every i in [0, n) and returns when all calls have
// returned. With n ≤ 1, or on one core, it runs them on the caller. The
// workers help when they are free; the caller does not wait for those that
// come after it has claimed the last index.
func (t *Task) Run(n int) {
	startOnce.Do(start)
	helpers := min(nworkers, n-1)
	t.mu.Lock()
	if t.cond.L == nil {
		t.cond.L = &t.mu
	}
	t.gen++
	t.n = n
	t.next.Store(0)
	t.open = helpers > 0
	gen := t.gen
	t.mu.Unlock()
	for range helpers {
		jobs <- job{t, gen}
	}
	t.work()
	if helpers <= 0 {
		return
	}
	t.mu.Lock()
	t.open = false
	for t.active > 0 {
		t.cond.Wait()
	}
	t.mu.Unlock()
}

// Workers returns how many goroutines can run jobs at once (the workers
// and the caller).
func Workers() int {
	startOnce.Do(start)
	return nworkers + 1
}
