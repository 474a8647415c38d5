package serve

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/drdam/drdam/dam"
	"github.com/prometheus/client_golang/prometheus"
)

// This file is a memory's write path (the rest of a memory is memory.go):
// copy on write, the checks, the record and its sync, the group commit of
// additions, idempotency keys, and the memory's share of the budget.

// copyOnWrite returns the model a write is applied to: a copy of a DrDAM
// (its T, sharing the projection; updated in waves of wave, see
// Options.Wave), or an MrDAM itself.
func copyOnWrite(m dam.Memory, wave time.Duration) (dam.Memory, bool, error) {
	d, ok := m.(*dam.DrDAM)
	if !ok {
		return m, false, nil
	}
	n, err := d.WithBeta(d.Config().Beta)
	if err != nil {
		return nil, false, err
	}
	if err := n.SetSum(d.Sum()); err != nil {
		return nil, false, err
	}
	n.SetWave(wave)
	return n, true, nil
}

// writing is how a server's memories write: its options (Options.
// SnapshotEvery and Options.Wave), its compute gate, and the metrics of
// the writes (nil for none).
type writing struct {
	every int
	wave  time.Duration
	gate  chan struct{}
	apply *prometheus.HistogramVec // seconds applying a record to the model, by operation
	group prometheus.Histogram     // additions per record (add)
}

// opNames names the operations in the metrics.
var opNames = map[byte]string{opAdd: "add", opRemove: "remove", opMerge: "merge"}

// errClosed is the error of a memory deleted or shut down meanwhile.
var errClosed = errors.New("the memory was deleted or the server is shutting down")

// SyncError says that a write was applied and is in the log, but the
// log's sync failed: it may not be durable. A retry with the same
// Idempotency-Key syncs again and answers the write without applying it
// twice.
type SyncError struct{ Err error }

func (e *SyncError) Error() string {
	return fmt.Sprintf("the write was applied, but syncing the log failed (%v): it may be lost if the machine stops; retry it with the same Idempotency-Key (without one, a retry stores it twice)", e.Err)
}

func (e *SyncError) Unwrap() error { return e.Err }

// written is the outcome of a write: the patterns in the memory after its
// record.
type written struct {
	count int
	err   error
}

// footprint returns what a memory of k patterns holds of the budget: its
// model (dam.EstimateFootprint), the copy of T that a write to a DrDAM
// makes (copy on write: writes to a memory are serialized, so one at a
// time), and the evaluation workspaces a model keeps for reuse, those of
// small batches (8 of gateFree queries with gradients; a larger batch's
// are dropped after it, dropLarge).
func footprint(c dam.Config, k int) int64 {
	return int64(dam.EstimateFootprint(c, k).Bytes + tCopy(c) + 8*dam.EstimateEval(c, k, gateFree, true))
}

// What a memory's tables hold (tables), counted in its reservation: a
// DrDAM's fingerprint of a pattern, an entry of a Go map[uint64]uint32
// (measured 24–38 bytes an entry from 10³ to 10⁶ entries, Go 1.26), and an
// idempotency key's answer (the key, up to 255 bytes, its entry, its place
// in the order).
const (
	fpBytes  = 40
	keyBytes = 400
)

// need is what the memory holds of the budget with count patterns and
// keys more keyed answers than it has: footprint, and its tables.
func (mem *memory) need(count, keys int) int64 {
	n := footprint(mem.cfg, count)
	mem.kmu.Lock()
	if mem.tab != nil {
		if mem.tab.fp != nil {
			n += int64(fpBytes * max(len(mem.tab.fp), count))
		}
		n += int64(keyBytes * (len(mem.tab.keys) + keys))
	}
	mem.kmu.Unlock()
	return n
}

// tCopy is what a copy of a DrDAM's T allocates: T (F float64), its
// per-row copy in the compute precision and the per-row shift.
func tCopy(c dam.Config) float64 {
	c.Beta = 1
	c, err := c.Validate()
	if err != nil || c.Rep != dam.RepDrDAM {
		return 0
	}
	es := 8.0
	if c.Precision == dam.Float32 {
		es = 4
	}
	f, y := float64(c.FeatureDim()), float64(c.Y)
	return f*(8+es) + (y+64)*(8+es)
}

// delta returns how a record changes a memory's count of patterns.
func (r record) delta() int {
	switch r.op {
	case opAdd:
		return r.rows
	case opRemove:
		return -r.rows
	case opMerge:
		return r.merged.Len()
	}
	return 0
}

// write checks, logs and applies one record, then syncs the log: when
// write returns without error the record is in the synced log and in the
// published model. check runs first, on the model (so that a removal can
// be checked against what is stored), and may refuse the record. The work
// of the application passes the server's compute gate (see Server).
func (mem *memory) write(r record, check func(m dam.Memory) error) written {
	mem.wmu.Lock()
	return mem.writeHeld(r, check)
}

// writeHeld is write with wmu held; it releases it.
//
// The sync runs after wmu is released, so that the next writer's append
// and application (CPU) overlap this one's sync (I/O); the records are in
// the log in the order they were applied, and a writer answers only once a
// sync that covers its record has returned. A query may see a write whose
// sync is still under way: if the machine dies then, that write, never
// acknowledged, may be lost, as a write in flight may.
func (mem *memory) writeHeld(r record, check func(m dam.Memory) error) written {
	unlocked := false
	defer func() {
		if !unlocked {
			mem.wmu.Unlock()
		}
	}()
	wr := mem.env.wr
	if mem.closed.Load() {
		return written{err: errClosed}
	}
	cur := mem.m // only writers change it, and wmu is held
	if check != nil {
		if err := check(cur); err != nil {
			return written{err: err}
		}
	}
	r.seq, r.at = mem.seq+1, time.Now().UnixNano()
	count := cur.Len() + r.delta()
	for i := range r.keys {
		r.keys[i].count = count
	}
	// The budget: an MrDAM grows with its patterns, a DrDAM's tables with
	// its fingerprints, both with their keys (a DrDAM's copy of T is in
	// its footprint).
	if need := mem.need(count, len(r.keys)) - mem.reserved; need > 0 {
		if err := mem.env.budget.reserve(need, fmt.Sprintf("memory %q's %d more patterns", mem.name, count-cur.Len())); err != nil {
			return written{err: err}
		}
		mem.reserved += need
	}
	fail := func(err error) written {
		mem.fitReservation()
		return written{err: err}
	}
	if err := mem.log.append(r); err != nil {
		return fail(err)
	}
	next, copied, err := copyOnWrite(cur, wr.wave)
	if err == nil {
		wr.gate <- struct{}{}
		t0 := time.Now()
		if copied {
			err = mem.applyTo(next, r)
		} else {
			mem.mu.Lock()
			err = mem.applyTo(next, r)
			mem.mu.Unlock()
		}
		<-wr.gate
		if wr.apply != nil {
			wr.apply.WithLabelValues(opNames[r.op]).Observe(time.Since(t0).Seconds())
		}
	}
	if err != nil {
		// The model refused what the checks let through (a T that would
		// overflow): it is unchanged (a copy was dropped, an MrDAM's Add
		// changes nothing when it fails), and so must the log be. Cut the
		// record off again.
		if cerr := mem.log.cutLast(); cerr != nil {
			return fail(fmt.Errorf("%w; and removing it from the log: %v", err, cerr))
		}
		return fail(err)
	}
	if next.Len() != count {
		panic(fmt.Sprintf("serve: a record of %d patterns left %d in a memory of %d", r.delta(), next.Len(), cur.Len()))
	}
	mem.mu.Lock()
	mem.m, mem.seq = next, r.seq
	mem.mu.Unlock()
	now := time.Now()
	mem.kmu.Lock()
	mem.tab.apply(r, false, now)
	mem.kmu.Unlock()
	mem.fitReservation() // an MrDAM that shrank
	mem.pending++
	if wr.every > 0 && mem.pending >= wr.every && now.After(mem.snapRetry) {
		// The snapshot also makes this record durable (the model file is
		// synced before the log is replaced). If it fails (a full disk),
		// the write still stands: the log is synced below, and the
		// snapshot is tried again after a while.
		if err := mem.snapshotLocked(false); err == nil {
			mem.markSynced(r)
			return written{count: count}
		} else {
			mem.snapRetry = now.Add(10 * time.Second)
			mem.env.log.Warn("snapshot failed; the write-ahead log keeps every write, and the snapshot is tried again after 10 s", "memory", mem.name, "err", err)
		}
	}
	log := mem.log
	unlocked = true
	mem.wmu.Unlock()
	if err := log.sync(); err != nil {
		return written{count: count, err: &SyncError{Err: err}}
	}
	mem.markSynced(r)
	return written{count: count}
}

// fitReservation releases what the memory holds of the budget beyond what
// it needs (an MrDAM after a removal, keys that expired, a write that
// failed); wmu must be held.
func (mem *memory) fitReservation() {
	if extra := mem.reserved - mem.need(mem.m.Len(), 0); extra > 0 {
		mem.env.budget.release(extra)
		mem.reserved -= extra
	}
}

// markSynced notes that the keys of record r are durable.
func (mem *memory) markSynced(r record) {
	if len(r.keys) == 0 {
		return
	}
	mem.kmu.Lock()
	for _, k := range r.keys {
		if e := mem.tab.keys[k.key]; e != nil && e.seq == r.seq {
			e.synced = true
		}
	}
	mem.kmu.Unlock()
}

// claim looks up an Idempotency-Key. If a write with it was made, it
// returns its answer (syncing the log first if that write's sync had
// failed); a request with the same key but another body is refused (422).
// If a write with it is under way, it waits for it. Otherwise it returns
// nil and a release to call when the request is done: until then, other
// requests with the key wait.
func (mem *memory) claim(done <-chan struct{}, key string, hash uint64) (*keyEntry, func(), error) {
	for {
		mem.kmu.Lock()
		mem.tab.expire(time.Now())
		if e := mem.tab.keys[key]; e != nil {
			synced, ent := e.synced, *e
			mem.kmu.Unlock()
			if ent.hash != hash {
				return nil, nil, fieldErr(422, "Idempotency-Key", "the key %q was used for another request (record %d, a %s of %d); a key names one request, its retries send the same body",
					key, ent.seq, opNames[ent.op], ent.n)
			}
			if !synced {
				if err := mem.log.sync(); err != nil {
					return nil, nil, &SyncError{Err: err}
				}
				mem.kmu.Lock()
				e.synced = true
				mem.kmu.Unlock()
			}
			return &ent, nil, nil
		}
		if ch := mem.flights[key]; ch != nil {
			mem.kmu.Unlock()
			select {
			case <-ch:
				continue
			case <-done:
				return nil, nil, errors.New("the request ended while a request with the same Idempotency-Key was under way")
			}
		}
		ch := make(chan struct{})
		mem.flights[key] = ch
		mem.kmu.Unlock()
		return nil, func() {
			mem.kmu.Lock()
			delete(mem.flights, key)
			mem.kmu.Unlock()
			close(ch)
		}, nil
	}
}

// A writer that had to wait for another write leaves the processors
// idle for linger before it takes the queue, and then waits, at most
// maxLinger, for the additions whose bodies are being read
// (awaitReaders), so that the additions that arrived during the other
// write join its group rather than wait for a whole write each. While a
// write computes on every core the server reads little of its clients'
// requests (Go polls the network when a processor is idle, or every
// 10 ms): the bodies that arrived meanwhile are read in the moment
// between two writes, and without the linger the first of them would
// start the next write alone. A lone client, whose additions never wait
// for a write, never lingers.
const (
	linger    = time.Millisecond
	maxLinger = 2 * time.Millisecond
)

// reading counts an addition whose body is being read (the handler calls
// it before reading); the function it returns says that the body is read
// (or refused), and may be called more than once.
func (mem *memory) reading() (done func()) {
	mem.readers.Add(1)
	var once sync.Once
	return func() {
		once.Do(func() {
			if mem.readers.Add(-1) == 0 {
				select {
				case mem.readersDone <- struct{}{}:
				default:
				}
			}
		})
	}
}

// awaitReaders waits, at most maxLinger, until no addition's body is
// being read.
func (mem *memory) awaitReaders() {
	if mem.readers.Load() == 0 {
		return
	}
	t := time.NewTimer(maxLinger)
	defer t.Stop()
	for mem.readers.Load() > 0 {
		select {
		case <-mem.readersDone:
		case <-t.C:
			return
		}
	}
}

// maxGroup bounds the values (rows × D) of the additions that add
// combines into one record: 32 MiB of float64, some 5 000 patterns of
// D = 784 (a request larger than that is written alone).
const maxGroup = 1 << 22

// queuedAdd is an addition waiting in a memory's queue (add).
type queuedAdd struct {
	data []float64 // rows × D
	key  keyed     // its Idempotency-Key, if it has one
	done chan written
}

// add adds the patterns data (rows × D) durably, as write does; additions
// that arrive while another write is under way wait in a queue, and the
// writer that next holds wmu takes as many of them as maxGroup allows and
// writes them as one record (one append, one application, one sync: a
// group commit). A group is one Add of all its rows, both live and when
// the log is replayed, so the model after a restart is the same, bit for
// bit, as the one that answered; one larger Add is also faster than
// several small ones (fewer passes over the features: BENCHMARKS.md, "The
// memory service under load"). Each request is answered when the record
// that holds it is durable, with the count after that record. If a group
// fails as a whole (the model refuses it), its additions are written
// again one by one, so that each gets its own answer. read is called once
// the addition is queued (see reading). key (if its key is not empty) is
// the request's Idempotency-Key, kept in the record.
func (mem *memory) add(data []float64, key keyed, read func()) written {
	me := &queuedAdd{data: data, key: key, done: make(chan written, 1)}
	mem.qmu.Lock()
	mem.queue = append(mem.queue, me)
	mem.qmu.Unlock()
	read() // queued: a writer need not wait for it
	wr := mem.env.wr
	for {
		select {
		case w := <-me.done:
			return w
		default:
		}
		waited := !mem.wmu.TryLock()
		if waited {
			mem.wmu.Lock()
		}
		mem.qmu.Lock()
		queued := slices.Contains(mem.queue, me)
		mem.qmu.Unlock()
		if !queued {
			// Another writer took this addition: it answers. (Every
			// addition still queued has its own writer waiting.)
			mem.wmu.Unlock()
			return <-me.done
		}
		if waited {
			// Another write was under way: the server is busy writing,
			// and the requests that arrived meanwhile are mostly unread.
			time.Sleep(linger)
		}
		mem.awaitReaders()
		mem.qmu.Lock()
		n, size := 0, 0
		for n < len(mem.queue) && (n == 0 || size+len(mem.queue[n].data) <= maxGroup) {
			size += len(mem.queue[n].data)
			n++
		}
		group := slices.Clone(mem.queue[:n])
		mem.queue = slices.Delete(mem.queue, 0, n)
		mem.qmu.Unlock()
		data := group[0].data
		if n > 1 {
			data = make([]float64, 0, size)
			for _, q := range group {
				data = append(data, q.data...)
			}
		}
		if wr.group != nil {
			wr.group.Observe(float64(n))
		}
		w := mem.writeHeld(mem.addRecord(data, group...), nil)
		if w.err != nil && n > 1 && !errors.Is(w.err, errClosed) && !isSyncError(w.err) {
			for _, q := range group {
				q.done <- mem.write(mem.addRecord(q.data, q), nil)
			}
			continue
		}
		for _, q := range group {
			q.done <- w
		}
	}
}

func isSyncError(err error) bool {
	var se *SyncError
	return errors.As(err, &se)
}

// addRecord is the record that adds the patterns data (rows × D) for the
// queued additions group (their keys).
func (mem *memory) addRecord(data []float64, group ...*queuedAdd) record {
	d := mem.cfg.D
	r := record{op: opAdd, rows: len(data) / d, cols: d, data: data}
	for _, q := range group {
		if q.key.key != "" {
			r.keys = append(r.keys, q.key)
		}
	}
	return r
}
