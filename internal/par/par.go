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
	"time"
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

	// RunWaves: a helper leaves after wave of work and is asked back by
	// Poll; away counts the helpers that left (and have not been asked
	// back), left when the last one did; yieldAt is when a goroutine of
	// the run last gave up its processor (0 outside RunWaves).
	wave    time.Duration
	away    atomic.Int32
	left    atomic.Int64 // nanoseconds since start0
	yieldAt atomic.Int64 // nanoseconds since start0
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
	wave := t.wave
	t.mu.Unlock()
	t.work(wave)
	t.mu.Lock()
	t.active--
	if t.active == 0 {
		t.cond.Broadcast()
	}
	t.mu.Unlock()
}

// work claims and runs indices until none is left, calling Poll after
// each (two atomic loads outside RunWaves). A helper of RunWaves (wave >
// 0) leaves after the index that ends its wave, counted away for Poll to
// ask it back; the caller (wave 0) works on.
func (t *Task) work(wave time.Duration) {
	var t0 time.Time
	if wave > 0 {
		t0 = time.Now()
	}
	for k := time.Duration(1); ; k++ {
		i := int(t.next.Add(1)) - 1
		if i >= t.n {
			return
		}
		t.F(i)
		t.Poll()
		if wave <= 0 {
			continue
		}
		// Leave at the end of the index nearest to wave: when another
		// index (of the mean length so far) would end further past wave
		// than this one ends before it.
		el := time.Since(t0)
		if el+el/(2*k) >= wave && int(t.next.Load()) < t.n {
			t.left.Store(int64(time.Since(start0)))
			t.away.Add(1)
			return
		}
	}
}

// start0 is the origin of Task.left and Task.yieldAt.
var start0 = time.Now()

// RunWaves is Run, sharing the cores with other goroutines: each helper
// leaves the run after about wave of work (at the end of the index it is
// on) and parks, so that its processor looks for other goroutines and for
// network input (Go polls the network when a processor is idle, or every
// 10 ms), and the caller, which works on without stopping, asks it back
// at its next index or the next call of Poll. Unlike runs of a wave's
// indices one after another, no goroutine waits at the end of a wave for
// the others to finish their index. Besides, the goroutines of the run
// give up their processor (runtime.Gosched) about every yieldEvery, at an
// index end or a call of Poll, so that a goroutine made runnable meanwhile
// (a request that the network poller found) waits for a processor about
// that long at most, not until a wave ends or Go preempts the run (10 ms).
// With wave ≤ 0 it is Run.
func (t *Task) RunWaves(n int, wave time.Duration) {
	t.mu.Lock()
	t.wave = wave
	t.mu.Unlock()
	t.away.Store(0)
	if wave > 0 {
		t.yieldAt.Store(max(1, int64(time.Since(start0))))
	}
	t.Run(n)
	t.yieldAt.Store(0)
	t.mu.Lock()
	t.wave = 0
	t.mu.Unlock()
	t.away.Store(0) // helpers that left at the end: not to be asked back
}

// yieldEvery is how often the goroutines of a RunWaves give up their
// processor: often enough that a short query waiting beside a long update
// is scheduled within a fraction of a wave, rarely enough that the
// Gosched calls cost nothing measurable. Its effect on the memory
// service's tail latency is measured in BENCHMARKS.md ("The memory
// service under load", "Kept: a write's goroutines yield").
const yieldEvery = 500 * time.Microsecond

// Poll asks back a helper of RunWaves that left its wave, if one has been
// away for a moment (so that its processor has looked for other work), and
// gives up the processor if the run's goroutines have not for yieldEvery.
// F may call it, to do both sooner than at the end of its index; outside
// RunWaves it costs two atomic loads.
func (t *Task) Poll() {
	if at := t.yieldAt.Load(); at != 0 {
		if now := int64(time.Since(start0)); now-at >= int64(yieldEvery) && t.yieldAt.CompareAndSwap(at, now) {
			runtime.Gosched()
		}
	}
	if t.away.Load() == 0 || time.Since(start0)-time.Duration(t.left.Load()) < awayMin {
		return
	}
	t.mu.Lock()
	gen, ok := t.gen, t.open && t.away.Load() > 0
	if ok {
		t.away.Add(-1)
	}
	t.mu.Unlock()
	if ok {
		jobs <- job{t, gen}
	}
}

// awayMin is how long a helper of RunWaves stays away at least.
const awayMin = 20 * time.Microsecond

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
	t.work(0)
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
