package serve

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/drdam/drdam/dam"
	"github.com/drdam/drdam/internal/atomicfile"
	"github.com/prometheus/client_golang/prometheus"
)

// A memory on disk is a folder DIR/NAME holding
//
//	memory.json              its configuration (written once, atomically)
//	snapshot-SEQ.drdam       a model file of every record up to SEQ
//	wal.log                  the records after it (see wal.go), the first
//	                         of them the memory's tables as of the snapshot
//	gallery.npy              the first patterns added, for the web page
//
// Opening it loads the newest snapshot and applies the log's records with
// a larger sequence number; a snapshot is written (atomically, then the
// log replaced) every SnapshotEvery records and at a graceful shutdown.

// memory is one named memory, open.
type memory struct {
	name string
	dir  string
	cfg  dam.Config
	env  *memEnv

	// wmu serializes the writers: the append of a record, its
	// application and the publication of the model, snapshots and close.
	wmu sync.Mutex
	// qmu guards queue, the additions waiting for a writer (add).
	qmu   sync.Mutex
	queue []*queuedAdd
	// readers counts the additions whose bodies are being read, and
	// readersDone hears when it falls to 0 (reading, awaitReaders).
	readers     atomic.Int32
	readersDone chan struct{}
	// mu guards m and seq. A DrDAM is copied on write: a writer stores a
	// batch in a copy of the model (T copied, the projection shared),
	// outside mu, and publishes it under mu; a published DrDAM is never
	// changed again, so readers take the pointer and compute without a
	// lock (a descent on the model of its start). An MrDAM, whose copy
	// would be all its patterns, is changed in place under mu, and its
	// readers hold mu for reading for each evaluation (a descent, for
	// each step). Either way no query sees a half-applied batch.
	mu      sync.RWMutex
	m       dam.Memory
	seq     uint64 // the last record applied
	log     *wal
	snap    uint64 // the sequence number of the newest snapshot
	pending int    // records since that snapshot
	closed  atomic.Bool
	// snapRetry is when a snapshot that failed (a full disk) is tried
	// again; wmu guards it.
	snapRetry time.Time
	// reserved is what the memory holds of the server's budget (its
	// model's footprint); wmu guards it.
	reserved int64

	// kmu guards tab's keys and flights: the answers of idempotent
	// writes, and the keyed writes under way. tab's fingerprints are
	// the writers' (wmu).
	kmu     sync.Mutex
	tab     *tables
	flights map[string]chan struct{}

	gal gallery // the first patterns added, for the web page (gallery.go)
}

// memEnv is what a server gives the memories it opens.
type memEnv struct {
	budget *budget
	log    *slog.Logger
	wr     *writing
}

// DamageError says that a file of a memory is damaged (corrupt, not torn
// by a crash): the memory is not opened, and answers 503 with it.
type DamageError struct {
	File string // the damaged file
	Off  int64  // the byte where the damage is, if known (−1 not)
	Msg  string
}

func (e *DamageError) Error() string { return e.File + ": " + e.Msg }

// createMemory makes the folder of a new memory and opens it; if
// anything fails, the folder is removed.
func createMemory(dir, name string, c dam.Config, env *memEnv) (*memory, error) {
	if err := os.Mkdir(dir, 0o755); err != nil {
		return nil, err
	}
	b, err := json.MarshalIndent(apiConfig(c), "", "  ")
	if err == nil {
		err = atomicfile.Write(filepath.Join(dir, "memory.json"), func(w io.Writer) error {
			_, err := w.Write(append(b, '\n'))
			return err
		})
	}
	var mem *memory
	if err == nil {
		mem, err = openMemory(dir, name, c, env)
	}
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return mem, nil
}

// readConfig reads the configuration of the memory in dir.
func readConfig(dir string) (dam.Config, error) {
	p := filepath.Join(dir, "memory.json")
	b, err := os.ReadFile(p)
	if err != nil {
		return dam.Config{}, err
	}
	c, err := parseConfig(b, unlimited)
	if err != nil {
		return dam.Config{}, &DamageError{File: p, Off: -1, Msg: "not a memory's configuration: " + err.Error()}
	}
	return c, nil
}

// openMemory opens the memory of configuration c kept in dir: its newest
// snapshot, then its log's later records. A torn tail of the log is cut
// (and logged); damage is a *DamageError.
func openMemory(dir, name string, c dam.Config, env *memEnv) (*memory, error) {
	mem := &memory{name: name, dir: dir, cfg: c, env: env, readersDone: make(chan struct{}, 1), flights: map[string]chan struct{}{}}
	if err := mem.loadSnapshot(); err != nil {
		return nil, err
	}
	stateSeq := uint64(0)
	now := time.Now()
	p := filepath.Join(dir, "wal.log")
	// A new log (a new memory, or one whose log is missing) starts with
	// the tables of what the snapshot holds: empty, or not knowing its
	// patterns.
	init := mem.stateRecord(mem.legacyTables())
	log, torn, err := openWAL(p, &init, func(r record) error {
		if r.op == opState {
			if mem.tab != nil {
				return errors.New("a second state record")
			}
			if r.seq > mem.seq {
				return fmt.Errorf("the log starts after record %d but the newest snapshot holds records up to %d: records %d–%d are in neither",
					r.seq, mem.seq, mem.seq+1, r.seq)
			}
			t, err := decodeTables(r.raw, now)
			if err != nil {
				return err
			}
			if (t.fp != nil) != (c.Rep == dam.RepDrDAM) {
				return errors.New("the state record's fingerprints do not match the memory's kind")
			}
			mem.tab, stateSeq = t, r.seq
			return nil
		}
		if mem.tab == nil {
			mem.tab = mem.legacyTables()
		}
		if r.seq <= stateSeq {
			return fmt.Errorf("record %d follows the state of record %d", r.seq, stateSeq)
		}
		if r.seq > mem.seq {
			if r.seq != mem.seq+1 {
				return fmt.Errorf("records %d–%d are in neither the newest snapshot (up to %d) nor the log", mem.seq+1, r.seq-1, mem.seq)
			}
			if r.op == opAdd || r.op == opRemove {
				if r.cols != c.D {
					return fmt.Errorf("patterns of %d values in a memory of D = %d", r.cols, c.D)
				}
			}
			if err := mem.applyTo(mem.m, r); err != nil {
				return err
			}
			mem.seq = r.seq
			mem.pending++
		}
		mem.tab.apply(r, true, now) // records up to the snapshot too: the tables are as of the state record
		return nil
	})
	if err != nil {
		return nil, err
	}
	mem.log = log
	if mem.tab == nil {
		mem.tab = mem.legacyTables()
	}
	if torn > 0 {
		env.log.Warn("write-ahead log: torn last record cut (a crash while it was appended; it was never acknowledged)",
			"memory", name, "file", p, "bytes", torn, "records kept", mem.seq-mem.snap)
	}
	if log.version < 2 {
		// A log of an older drdam: snapshot now, and start a log of
		// this version (with the tables).
		if err := mem.snapshotLocked(true); err != nil {
			log.close()
			return nil, fmt.Errorf("upgrading the write-ahead log %s: %w", p, err)
		}
	}
	return mem, nil
}

// legacyTables returns the tables of a memory whose log has none (one of
// an older drdam): no key; a DrDAM that stores patterns cannot list
// their fingerprints.
func (mem *memory) legacyTables() *tables {
	t := newTables(mem.cfg.Rep == dam.RepDrDAM)
	if t.fp != nil && mem.m.Len() > 0 {
		t.complete = false
		t.incomplete = fmt.Sprintf("its %d patterns stored before this drdam kept fingerprints", mem.m.Len())
	}
	return t
}

// stateRecord returns the state record of tables t at the memory's
// sequence number.
func (mem *memory) stateRecord(t *tables) record {
	return record{seq: mem.seq, op: opState, at: time.Now().UnixNano(), raw: t.encode()}
}

// snapshots returns the sequence numbers of the snapshots in dir, newest
// first.
func snapshots(dir string) []uint64 {
	matches, _ := filepath.Glob(filepath.Join(dir, "snapshot-*.drdam"))
	var seqs []uint64
	for _, p := range matches {
		s := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(p), "snapshot-"), ".drdam")
		if n, err := strconv.ParseUint(s, 10, 64); err == nil {
			seqs = append(seqs, n)
		}
	}
	sort.Slice(seqs, func(i, j int) bool { return seqs[i] > seqs[j] })
	return seqs
}

// loadSnapshot loads the newest snapshot of the memory, or makes an empty
// memory if there is none. A snapshot that cannot be read is damage: it
// is never skipped for an older one (whose later records the log no
// longer holds).
func (mem *memory) loadSnapshot() error {
	c := mem.cfg
	c.MaxMemory = mem.env.budget.limit
	seqs := snapshots(mem.dir)
	if len(seqs) == 0 {
		m, err := dam.New(c)
		if err != nil {
			return err
		}
		mem.m = m
		return nil
	}
	path := snapshotPath(mem.dir, seqs[0])
	m, err := dam.LoadBudget(path, c.MaxMemory)
	if err != nil {
		var be *dam.BudgetError
		if errors.As(err, &be) || errors.Is(err, os.ErrPermission) {
			return err
		}
		return &DamageError{File: path, Off: -1, Msg: "the newest snapshot cannot be read: " + strings.TrimPrefix(err.Error(), "read "+path+": ")}
	}
	if !sameConfig(m.Config(), mem.cfg) {
		return &DamageError{File: path, Off: -1, Msg: fmt.Sprintf("the snapshot is a model of %v, the memory (memory.json) of %v", m.Config(), mem.cfg)}
	}
	mem.m, mem.seq, mem.snap = m, seqs[0], seqs[0]
	return nil
}

// sameConfig reports whether two configurations describe the same model
// (the budget a model was built with aside).
func sameConfig(a, b dam.Config) bool {
	a.MaxMemory, b.MaxMemory = 0, 0
	return a == b
}

func snapshotPath(dir string, seq uint64) string {
	return filepath.Join(dir, fmt.Sprintf("snapshot-%020d.drdam", seq))
}

func (mem *memory) snapshotPath(seq uint64) string { return snapshotPath(mem.dir, seq) }

// applyTo applies a record to m.
func (mem *memory) applyTo(m dam.Memory, r record) error {
	switch r.op {
	case opAdd:
		return m.Add(r.data)
	case opRemove:
		return m.Remove(r.data)
	case opMerge:
		o := r.merged
		if o == nil {
			var err error
			c := mem.cfg
			if o, err = dam.ReadBudget(bytes.NewReader(r.raw), int64(len(r.raw)), mem.env.budget.limit); err != nil {
				return err
			}
			if !sameConfig(o.Config(), c) {
				return fmt.Errorf("a merged model of %v in a memory of %v", o.Config(), c)
			}
		}
		return m.Merge(o)
	}
	return fmt.Errorf("unknown operation %d", r.op)
}

// model returns the published model and a function to call when done with
// it: for a DrDAM, which is never changed once published, nothing is
// held; for an MrDAM, mu is held for reading until done is called.
func (mem *memory) model() (m dam.Memory, done func()) {
	mem.mu.RLock()
	m = mem.m
	if _, ok := m.(*dam.DrDAM); ok {
		mem.mu.RUnlock()
		return m, func() {}
	}
	return m, mem.mu.RUnlock
}

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

// delta returns how a record changes the count of a memory of k patterns.
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

// snapshotLocked writes a snapshot of every record applied and replaces
// the log by one holding only the tables (or, if force, does so even when
// nothing was written since the last); wmu must be held (or the memory
// not yet shared). If the snapshot is written but the log cannot be
// replaced, the old log stays in use (its records are older than the
// snapshot, and skipped when it is replayed) and the error is logged.
func (mem *memory) snapshotLocked(force bool) error {
	if !force && mem.pending == 0 && mem.snap == mem.seq && fileExists(mem.snapshotPath(mem.seq)) {
		return nil
	}
	path := mem.snapshotPath(mem.seq)
	if err := dam.Save(path, mem.m); err != nil {
		return err
	}
	mem.kmu.Lock()
	init := mem.stateRecord(mem.tab)
	mem.kmu.Unlock()
	old := mem.snap
	mem.snap, mem.pending = mem.seq, 0
	if old != mem.seq {
		os.Remove(mem.snapshotPath(old))
	}
	if err := mem.log.reset(&init); err != nil {
		if mem.log.version < 2 {
			return err
		}
		mem.env.log.Warn("snapshot written, but the write-ahead log could not be replaced; it is kept (its records are in the snapshot)", "memory", mem.name, "err", err)
	}
	return nil
}

// snapshot writes a snapshot now and returns its path.
func (mem *memory) snapshot() (string, error) {
	mem.wmu.Lock()
	defer mem.wmu.Unlock()
	if mem.closed.Load() {
		return "", errClosed
	}
	if err := mem.snapshotLocked(false); err != nil {
		return "", err
	}
	return mem.snapshotPath(mem.seq), nil
}

// close snapshots the memory (if keep) and closes its log. A snapshot
// that fails (a full disk) loses nothing: the log holds every write.
func (mem *memory) close(keep bool) error {
	mem.wmu.Lock()
	defer mem.wmu.Unlock()
	if mem.closed.Load() {
		return nil
	}
	mem.closed.Store(true)
	var err error
	if keep {
		if err = mem.snapshotLocked(false); err != nil {
			err = fmt.Errorf("snapshot at close (the write-ahead log keeps every write): %w", err)
		}
	}
	if cerr := mem.log.close(); err == nil {
		err = cerr
	}
	return err
}

// noSpace reports whether err is a full disk (or quota).
func noSpace(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT)
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
