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
	wg   sync.WaitGroup
}

var (
	startOnce sync.Once
	jobs      chan *Task
	nworkers  int
)

func start() {
	nworkers = runtime.GOMAXPROCS(0) - 1
	jobs = make(chan *Task, 64)
	for range nworkers {
		go func() {
			for t := range jobs {
				t.work()
				t.wg.Done()
			}
		}()
	}
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
// returned. With n ≤ 1, or on one core, it runs them on the caller.
func (t *Task) Run(n int) {
	startOnce.Do(start)
	t.n = n
	t.next.Store(0)
	helpers := min(nworkers, n-1)
	if helpers <= 0 {
		t.work()
		return
	}
	t.wg.Add(helpers)
	for range helpers {
		jobs <- t
	}
	t.work()
	t.wg.Wait()
}

// Workers returns how many goroutines can run jobs at once (the workers
// and the caller).
func Workers() int {
	startOnce.Do(start)
	return nworkers + 1
}
