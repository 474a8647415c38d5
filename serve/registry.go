package serve

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/drdam/drdam/dam"
)

// slot is a memory the server knows, open or not: every folder of Dir
// with a memory.json. An open memory (mem) holds its footprint of the
// budget; a closed one is opened when a request names it (closing the
// least recently used idle memories if Options.MaxOpen or the budget ask
// for room); a damaged one (err) answers 503 until it is salvaged.
type slot struct {
	name, dir string
	cfg       dam.Config // from memory.json (zero if it could not be read)
	mem       *memory    // nil while closed
	err       error      // why it cannot be opened: damage (503)
	refs      int        // requests using mem
	used      time.Time  // when a request last released it
	busy      chan struct{}
	count     int // patterns, as of when it was last open (−1: never, in this process)
}

// memoryOf returns the open memory the request names, opening it if it is
// closed; the request holds it until it ends (so that it is not closed
// under it). A name that cannot be one is 400; no such memory 404; a
// damaged one 503; one that the budget cannot open 507.
func (s *Server) memoryOf(r *http.Request) (*memory, error) {
	name := r.PathValue("name")
	if !namePattern.MatchString(name) {
		return nil, fieldErr(400, "name", "%q is not a memory name (1 to 64 letters, digits, '_', '.' or '-', not starting with '.', '_' or '-')", name)
	}
	mem, release, err := s.acquire(r.Context(), name)
	if err != nil {
		return nil, err
	}
	if st := stateOf(r); st != nil {
		st.releases = append(st.releases, release)
	} else {
		release() // not through the handler table (a test)
	}
	return mem, nil
}

// acquire returns the memory name, open, and a function that releases it.
func (s *Server) acquire(ctx context.Context, name string) (*memory, func(), error) {
	s.mu.Lock()
	for {
		sl := s.slots[name]
		if sl == nil {
			s.mu.Unlock()
			return nil, nil, fieldErr(404, "name", "no memory %q", name)
		}
		if ch := sl.busy; ch != nil {
			if err := s.waitBusy(ctx, ch); err != nil {
				return nil, nil, err
			}
			continue
		}
		if sl.err != nil {
			s.mu.Unlock()
			return nil, nil, damaged(s.opt.Dir, name, sl.err)
		}
		if sl.mem != nil {
			sl.refs++
			mem := sl.mem
			s.mu.Unlock()
			return mem, func() {
				s.mu.Lock()
				sl.refs--
				sl.used = time.Now()
				s.mu.Unlock()
			}, nil
		}
		err := s.openSlot(sl) // unlocks and locks s.mu
		if err != nil {
			s.mu.Unlock()
			var de *DamageError
			if errors.As(err, &de) {
				return nil, nil, damaged(s.opt.Dir, name, err)
			}
			return nil, nil, err
		}
	}
}

// waitBusy waits, s.mu held, until a slot that is being opened, closed or
// created (its busy channel ch) is done, releasing s.mu meanwhile; it
// returns with s.mu held, or, if ctx ends first, with ctx's error and
// s.mu released.
func (s *Server) waitBusy(ctx context.Context, ch chan struct{}) error {
	s.mu.Unlock()
	select {
	case <-ch:
		s.mu.Lock()
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// damaged is the 503 of a damaged memory.
func damaged(dir, name string, err error) error {
	return fieldErr(503, "name", "memory %q is damaged and was not opened: %v. Nothing was changed; the other memories are served. "+
		"'drdam serve --data %s --check' reports every log and snapshot; 'drdam serve --data %s --salvage' keeps every intact record (the damaged file is moved aside, never deleted)",
		name, err, dir, dir)
}

// openSlot opens the closed memory of sl, first closing idle memories if
// MaxOpen or the budget ask for room; s.mu is held, and released while
// the files are read. Damage is kept in sl.err (and logged).
func (s *Server) openSlot(sl *slot) error {
	sl.busy = make(chan struct{})
	finish := func() {
		close(sl.busy)
		sl.busy = nil
	}
	s.mu.Unlock()
	need := s.openNeed(sl)
	s.mu.Lock()
	if err := s.makeRoom(need, sl.name); err != nil {
		finish()
		return err
	}
	if err := s.budget.reserve(need, fmt.Sprintf("opening memory %q", sl.name)); err != nil {
		finish()
		return err
	}
	s.mu.Unlock()
	mem, err := openMemory(sl.dir, sl.name, sl.cfg, s.env)
	if err == nil {
		mem.reserved = need
		mem.wmu.Lock()
		err = mem.resize()
		mem.wmu.Unlock()
		if err != nil {
			mem.log.close()
			s.budget.release(mem.reserved - need)
		}
	}
	s.mu.Lock()
	finish()
	if err != nil {
		s.budget.release(need)
		var de *DamageError
		if errors.As(err, &de) {
			sl.err = err
			s.opt.Log.Error("memory damaged: not opened (it answers 503); the other memories are served", "memory", sl.name, "err", err)
		}
		return err
	}
	sl.mem, sl.count, sl.used = mem, mem.m.Len(), time.Now()
	s.open++
	s.opt.Log.Info("memory opened", "name", sl.name, "patterns", mem.m.Len(), "seq", mem.seq, "budget", dam.Bytes(float64(mem.reserved)))
	return nil
}

// resize makes the memory's reservation what it needs (its model's
// footprint and its tables); wmu is held.
func (mem *memory) resize() error {
	need := mem.need(mem.m.Len(), 0) - mem.reserved
	if need <= 0 {
		mem.fitReservation()
		return nil
	}
	if err := mem.env.budget.reserve(need, fmt.Sprintf("memory %q's %d patterns", mem.name, mem.m.Len())); err != nil {
		return err
	}
	mem.reserved += need
	return nil
}

// openNeed is what opening sl reserves first: its model's footprint; an
// MrDAM's patterns are counted from the snapshot's header and the log's
// size (at most its bytes over 8·D), and corrected once it is open.
func (s *Server) openNeed(sl *slot) int64 {
	k := 0
	if sl.cfg.Rep == dam.RepMrDAM {
		if seqs := snapshots(sl.dir); len(seqs) > 0 {
			if h, err := dam.StatModel(snapshotPath(sl.dir, seqs[0])); err == nil {
				k = int(min(h.Count, 1<<31))
			}
		}
		if fi, err := os.Stat(filepath.Join(sl.dir, "wal.log")); err == nil {
			k += int(fi.Size() / int64(8*sl.cfg.D))
		}
	}
	return footprint(sl.cfg, k)
}

// makeRoom closes the least recently used idle memories (no request
// holds them) until one more may be open (MaxOpen) and need bytes of the
// budget are free. For the budget it closes only memories idle for at
// least IdleClose (a memory used a moment ago would be reopened at once,
// and opening one regenerates its projection: seconds); if that is not
// enough the caller's reservation is refused (507). s.mu is held, and
// released while memories are closed.
func (s *Server) makeRoom(need int64, except string) error {
	for {
		full := s.opt.MaxOpen > 0 && s.open >= s.opt.MaxOpen
		short := s.budget.inUse()+need > s.budget.limit
		if !full && !short {
			return nil
		}
		var victim *slot
		for _, sl := range s.slots {
			if sl.mem == nil || sl.refs > 0 || sl.busy != nil {
				continue
			}
			if !full && time.Since(sl.used) < s.opt.IdleClose {
				continue
			}
			if victim == nil || sl.used.Before(victim.used) {
				victim = sl
			}
		}
		if victim == nil {
			if full {
				return fieldErr(503, "name", "%d memories are open (--max-open) and every one is in use: retry in a moment", s.open)
			}
			return nil // the reservation says what is short
		}
		s.closeSlot(victim, "to make room for "+except)
	}
}

// closeSlot closes the open memory of sl (snapshot, log closed) and gives
// its budget back; s.mu is held, and released while it closes.
func (s *Server) closeSlot(sl *slot, why string) {
	mem := sl.mem
	sl.busy = make(chan struct{})
	s.mu.Unlock()
	err := mem.close(true)
	mem.wmu.Lock()
	n, reserved := mem.m.Len(), mem.reserved
	mem.reserved = 0
	mem.wmu.Unlock()
	s.mu.Lock()
	s.budget.release(reserved)
	close(sl.busy)
	sl.busy, sl.mem, sl.count = nil, nil, n
	s.open--
	if err != nil {
		s.opt.Log.Error("closing memory", "memory", sl.name, "err", err)
	}
	s.opt.Log.Info("memory closed (opened again when a request names it)", "memory", sl.name, "why", why)
}

// list returns the slots, by name.
func (s *Server) list() []*slot {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.list0()
}

// info describes sl: an open memory's own info, or a closed or damaged
// one's configuration and last known count.
func (s *Server) info(sl *slot) MemoryInfo {
	s.mu.Lock()
	mem, err, count, cfg := sl.mem, sl.err, sl.count, sl.cfg
	s.mu.Unlock()
	if mem != nil {
		return mem.info()
	}
	in := MemoryInfo{Name: sl.name, Config: APIConfig(cfg), Count: count, Status: "closed"}
	if count >= 0 {
		in.Bytes = int64(stateBytes(cfg, count))
	}
	if err != nil {
		in.Status, in.Error = "damaged", err.Error()
	}
	return in
}
