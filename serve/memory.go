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
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/drdam/drdam/dam"
	"github.com/drdam/drdam/internal/atomicfile"
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
	b, err := json.MarshalIndent(APIConfig(c), "", "  ")
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
	init := stateRecord(mem.seq, mem.legacyTables())
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

// stateRecord returns the state record of tables t as of record seq.
func stateRecord(seq uint64, t *tables) record {
	return record{seq: seq, op: opState, at: time.Now().UnixNano(), raw: t.encode()}
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
	init := stateRecord(mem.seq, mem.tab)
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
