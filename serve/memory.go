package serve

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/drdam/drdam/dam"
	"github.com/drdam/drdam/internal/atomicfile"
	"github.com/prometheus/client_golang/prometheus"
)

// A memory on disk is a folder DIR/NAME holding
//
//	memory.json              its configuration (written once, atomically)
//	snapshot-SEQ.drdam       a model file of every record up to SEQ
//	wal.log                  the records after it (see wal.go)
//
// Opening it loads the newest snapshot and applies the log's records with
// a larger sequence number; a snapshot is written (atomically, then the
// log emptied) every SnapshotEvery records and at a graceful shutdown.

// memory is one named memory, open.
type memory struct {
	name string
	dir  string
	cfg  dam.Config

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

	gal gallery // the first patterns added, for the web page (gallery.go)
}

// createMemory makes the folder of a new memory and opens it.
func createMemory(dir, name string, c dam.Config) (*memory, error) {
	if err := os.Mkdir(dir, 0o755); err != nil {
		return nil, err
	}
	b, err := json.MarshalIndent(apiConfig(c), "", "  ")
	if err != nil {
		return nil, err
	}
	if err := atomicfile.Write(filepath.Join(dir, "memory.json"), func(w io.Writer) error {
		_, err := w.Write(append(b, '\n'))
		return err
	}); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return openMemory(dir, name)
}

// openMemory opens the memory kept in dir.
func openMemory(dir, name string) (*memory, error) {
	b, err := os.ReadFile(filepath.Join(dir, "memory.json"))
	if err != nil {
		return nil, err
	}
	c, err := parseConfig(b, unlimited)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, "memory.json"), err)
	}
	mem := &memory{name: name, dir: dir, cfg: c, readersDone: make(chan struct{}, 1)}
	if err := mem.loadSnapshot(); err != nil {
		return nil, err
	}
	mem.log, _, err = openWAL(filepath.Join(dir, "wal.log"), func(r record) error {
		if r.seq <= mem.seq {
			return nil // in the snapshot already
		}
		if err := mem.apply(r); err != nil {
			return err
		}
		mem.seq = r.seq
		mem.pending++
		return nil
	})
	if err != nil {
		return nil, err
	}
	return mem, nil
}

// loadSnapshot loads the newest snapshot of the memory, or makes an empty
// memory if there is none.
func (mem *memory) loadSnapshot() error {
	matches, _ := filepath.Glob(filepath.Join(mem.dir, "snapshot-*.drdam"))
	var seqs []uint64
	for _, p := range matches {
		s := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(p), "snapshot-"), ".drdam")
		if n, err := strconv.ParseUint(s, 10, 64); err == nil {
			seqs = append(seqs, n)
		}
	}
	sort.Slice(seqs, func(i, j int) bool { return seqs[i] > seqs[j] })
	if len(seqs) == 0 {
		m, err := dam.New(mem.cfg)
		if err != nil {
			return err
		}
		mem.m = m
		return nil
	}
	path := mem.snapshotPath(seqs[0])
	m, err := dam.Load(path)
	if err != nil {
		return err
	}
	if m.Config() != mem.cfg {
		return fmt.Errorf("%s: the model is %v, the memory %v", path, m.Config(), mem.cfg)
	}
	mem.m, mem.seq, mem.snap = m, seqs[0], seqs[0]
	return nil
}

func (mem *memory) snapshotPath(seq uint64) string {
	return filepath.Join(mem.dir, fmt.Sprintf("snapshot-%020d.drdam", seq))
}

// apply applies a record to the model (when the log is replayed).
func (mem *memory) apply(r record) error { return mem.applyTo(mem.m, r) }

// applyTo applies a record to m.
func (mem *memory) applyTo(m dam.Memory, r record) error {
	switch r.op {
	case opAdd, opRemove:
		if r.cols != mem.cfg.D {
			return fmt.Errorf("patterns of %d values in a memory of D = %d", r.cols, mem.cfg.D)
		}
		if r.op == opAdd {
			return m.Add(r.data)
		}
		return m.Remove(r.data)
	case opMerge:
		o, err := dam.Read(bytes.NewReader(r.raw), int64(len(r.raw)))
		if err != nil {
			return err
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

// write checks, logs and applies one record, then syncs the log: when
// write returns nil the record is in the synced log and in the published
// model. check runs first, on the model (so that a removal can be checked
// against the count), and may refuse the record. The work of the
// application passes the server's compute gate (see Server).
func (mem *memory) write(r record, check func(m dam.Memory) error, wr *writing) error {
	mem.wmu.Lock()
	return mem.writeHeld(r, check, wr)
}

// writeHeld is write with wmu held; it releases it.
//
// The sync runs after wmu is released, so that the next writer's append
// and application (CPU) overlap this one's sync (I/O); the records are in
// the log in the order they were applied, and a writer answers only once a
// sync that covers its record has returned. A query may see a write whose
// sync is still under way: if the machine dies then, that write, never
// acknowledged, may be lost, as a write in flight may.
func (mem *memory) writeHeld(r record, check func(m dam.Memory) error, wr *writing) error {
	unlocked := false
	defer func() {
		if !unlocked {
			mem.wmu.Unlock()
		}
	}()
	if mem.closed.Load() {
		return errClosed
	}
	cur := mem.m // only writers change it, and wmu is held
	if check != nil {
		if err := check(cur); err != nil {
			return err
		}
	}
	r.seq = mem.seq + 1
	if err := mem.log.append(r); err != nil {
		return err
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
			return fmt.Errorf("%w; and removing it from the log: %v", err, cerr)
		}
		return err
	}
	mem.mu.Lock()
	mem.m, mem.seq = next, r.seq
	mem.mu.Unlock()
	mem.pending++
	if wr.every > 0 && mem.pending >= wr.every {
		if err := mem.snapshotLocked(); err != nil { // syncs the model file, and empties the log
			return fmt.Errorf("the snapshot after the write failed: %w", err)
		}
		return nil
	}
	log := mem.log
	unlocked = true
	mem.wmu.Unlock()
	return log.sync()
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
	done chan error
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
// that holds it is durable. If a group fails as a whole (the model refuses
// it), its additions are written again one by one, so that each gets its
// own answer. read is called once the addition is queued (see reading).
func (mem *memory) add(data []float64, read func(), wr *writing) error {
	me := &queuedAdd{data: data, done: make(chan error, 1)}
	mem.qmu.Lock()
	mem.queue = append(mem.queue, me)
	mem.qmu.Unlock()
	read() // queued: a writer need not wait for it
	for {
		select {
		case err := <-me.done:
			return err
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
		err := mem.writeHeld(mem.addRecord(data), nil, wr)
		if err != nil && n > 1 && !errors.Is(err, errClosed) {
			for _, q := range group {
				q.done <- mem.write(mem.addRecord(q.data), nil, wr)
			}
			continue
		}
		for _, q := range group {
			q.done <- err
		}
	}
}

// addRecord is the record that adds the patterns data (rows × D).
func (mem *memory) addRecord(data []float64) record {
	d := mem.cfg.D
	return record{op: opAdd, rows: len(data) / d, cols: d, data: data}
}

// snapshotLocked writes a snapshot of every record applied and empties
// the log; wmu must be held.
func (mem *memory) snapshotLocked() error {
	if mem.pending == 0 && mem.snap == mem.seq && fileExists(mem.snapshotPath(mem.seq)) {
		return nil
	}
	path := mem.snapshotPath(mem.seq)
	if err := dam.Save(path, mem.m); err != nil {
		return err
	}
	if err := mem.log.reset(); err != nil {
		return err
	}
	old := mem.snap
	mem.snap, mem.pending = mem.seq, 0
	if old != mem.seq {
		os.Remove(mem.snapshotPath(old))
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
	if err := mem.snapshotLocked(); err != nil {
		return "", err
	}
	return mem.snapshotPath(mem.seq), nil
}

// close snapshots the memory (if keep) and closes its log.
func (mem *memory) close(keep bool) error {
	mem.wmu.Lock()
	defer mem.wmu.Unlock()
	if mem.closed.Load() {
		return nil
	}
	mem.closed.Store(true)
	var err error
	if keep {
		err = mem.snapshotLocked()
	}
	if cerr := mem.log.close(); err == nil {
		err = cerr
	}
	return err
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
