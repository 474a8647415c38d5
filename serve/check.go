package serve

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/drdam/drdam/dam"
	"github.com/drdam/drdam/internal/atomicfile"
)

// MemoryCheck is what Check found of one memory's files.
type MemoryCheck struct {
	Name    string
	Damaged bool     // a file is corrupt: the server does not open it (503)
	Notes   []string // one line per file: what it holds, or what is wrong
}

// Check reads every memory's files in dir without changing anything: its
// configuration, its newest snapshot (whole, against its checksum) and
// its write-ahead log (every record, against its checksum and the
// sequence), and reports each. It can run beside a server (a log being
// appended may then show a torn tail that is a write in progress).
func Check(dir string) ([]MemoryCheck, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []MemoryCheck
	for _, e := range ents {
		if !e.IsDir() || !namePattern.MatchString(e.Name()) || !fileExists(filepath.Join(dir, e.Name(), "memory.json")) {
			continue
		}
		out = append(out, checkMemory(filepath.Join(dir, e.Name()), e.Name()))
	}
	return out, nil
}

// checkMemory checks the files of the memory in dir.
func checkMemory(dir, name string) MemoryCheck {
	mc := MemoryCheck{Name: name}
	bad := func(format string, args ...any) {
		mc.Damaged = true
		mc.Notes = append(mc.Notes, "DAMAGED "+fmt.Sprintf(format, args...))
	}
	note := func(format string, args ...any) { mc.Notes = append(mc.Notes, fmt.Sprintf(format, args...)) }
	cfg, err := readConfig(dir)
	if err != nil {
		bad("%v", err)
	} else {
		note("memory.json: %v", cfg)
	}
	snap := uint64(0)
	if seqs := snapshots(dir); len(seqs) == 0 {
		note("no snapshot (every write is in the log)")
	} else {
		p := snapshotPath(dir, seqs[0])
		h, err := dam.StatModel(p)
		switch {
		case err != nil:
			bad("%s: %v", filepath.Base(p), strings.TrimPrefix(err.Error(), "read "+p+": "))
		case cfg != (dam.Config{}) && !sameConfig(h.Config, cfg):
			bad("%s: a model of %v, the memory of %v", filepath.Base(p), h.Config, cfg)
		default:
			note("%s: %d patterns, records 1–%d, checksum ok", filepath.Base(p), h.Count, seqs[0])
		}
		snap = seqs[0]
		if len(seqs) > 1 {
			note("%d older snapshot(s) beside it (a snapshot interrupted before it removed them): not read", len(seqs)-1)
		}
	}
	p := filepath.Join(dir, "wal.log")
	f, err := os.Open(p)
	if errors.Is(err, os.ErrNotExist) {
		note("wal.log: absent (made when the memory opens)")
		return mc
	}
	if err != nil {
		bad("wal.log: %v", err)
		return mc
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		bad("wal.log: %v", err)
		return mc
	}
	version, why := logVersion(f, st.Size())
	if version == 0 {
		if why == "torn" {
			note("wal.log: created and never written (a crash): rewritten when the memory opens")
		} else {
			bad("wal.log: not a drdam write-ahead log: it %s", why)
		}
		return mc
	}
	first, first0 := true, false
	var state uint64
	var problems []string
	sc, _ := scanLog(f, st.Size(), version, false, func(r record, off int64) error {
		switch {
		case r.op == opState && !first:
			problems = append(problems, fmt.Sprintf("a second state record at byte %d", off))
		case r.op == opState:
			state, first0 = r.seq, true
			if _, err := decodeTables(r.raw, time.Now()); err != nil {
				problems = append(problems, fmt.Sprintf("the state record at byte %d: %v", off, err))
			}
			if r.seq > snap {
				problems = append(problems, fmt.Sprintf("the log starts after record %d, the newest snapshot holds records up to %d: records %d–%d are in neither", r.seq, snap, snap+1, r.seq))
			}
		case first && r.seq > snap+1:
			problems = append(problems, fmt.Sprintf("the log's first record is %d, the newest snapshot holds records up to %d: records %d–%d are in neither", r.seq, snap, snap+1, r.seq-1))
		case (r.op == opAdd || r.op == opRemove) && cfg.D > 0 && r.cols != cfg.D:
			problems = append(problems, fmt.Sprintf("the record at byte %d (sequence number %d) holds patterns of %d values, the memory's D is %d", off, r.seq, r.cols, cfg.D))
		}
		first = false
		return nil
	})
	what := fmt.Sprintf("%d intact record(s)", sc.records)
	switch {
	case sc.records == 0:
	case first0 && sc.records == 1:
		what = fmt.Sprintf("the tables as of record %d, no later record", state)
	case first0:
		what = fmt.Sprintf("the tables as of record %d, then %d record(s) %d–%d", state, sc.records-1, state+1, sc.last)
	default:
		what += fmt.Sprintf(", sequence numbers %d–%d", sc.first, sc.last)
	}
	note("wal.log: format %d, %d bytes: %s", version, st.Size(), what)
	for _, d := range sc.damage {
		bad("wal.log: corrupt: %s", d)
	}
	for _, pr := range problems {
		bad("wal.log: %s", pr)
	}
	if sc.torn > 0 && len(sc.damage) == 0 {
		note("wal.log: a torn last record of %d bytes at byte %d (a crash while it was appended, never acknowledged): cut when the memory opens", sc.torn, sc.end)
	}
	return mc
}

// SalvageReport says what Salvage did to one memory.
type SalvageReport struct {
	Name  string
	Notes []string
}

// Salvage rebuilds every damaged memory of dir from what is intact, and
// touches nothing else. The server must not be running (Salvage takes the
// folder's lock). For a damaged memory:
//   - a damaged memory.json is rebuilt from the newest readable
//     snapshot's header (if there is none, the memory cannot be salvaged);
//   - a damaged snapshot is moved aside and the next older readable one
//     used, or none (its records are then lost: said so);
//   - every intact record of the log with a later sequence number is
//     applied in order (one the model refuses is skipped and said so),
//     and a new snapshot written with them;
//   - the damaged log is moved aside (wal.log.damaged-TIME) and a new one
//     holding the tables started; the sequence numbers lost are named.
//
// No file is deleted: what is moved aside stays in the memory's folder.
func Salvage(dir string) ([]SalvageReport, error) {
	release, _, err := atomicfile.Own(filepath.Join(dir, ".lock"))
	if err != nil {
		var he *atomicfile.HeldError
		if errors.As(err, &he) {
			return nil, fmt.Errorf("the data folder %s is in use by process %d: stop the server before salvaging", dir, he.PID)
		}
		return nil, err
	}
	defer release()
	checks, err := Check(dir)
	if err != nil {
		return nil, err
	}
	var out []SalvageReport
	for _, mc := range checks {
		if !mc.Damaged {
			continue
		}
		rep := SalvageReport{Name: mc.Name}
		if err := salvageMemory(filepath.Join(dir, mc.Name), &rep); err != nil {
			rep.Notes = append(rep.Notes, "NOT SALVAGED: "+err.Error())
		}
		out = append(out, rep)
	}
	return out, nil
}

// aside moves the file p aside (p.damaged-TIME) and says so in rep.
func aside(p string, rep *SalvageReport) error {
	to := p + ".damaged-" + time.Now().UTC().Format("20060102T150405.000000000Z")
	if err := os.Rename(p, to); err != nil {
		return err
	}
	rep.Notes = append(rep.Notes, fmt.Sprintf("moved %s to %s (kept, not deleted)", filepath.Base(p), filepath.Base(to)))
	return nil
}

func salvageMemory(dir string, rep *SalvageReport) error {
	note := func(format string, args ...any) { rep.Notes = append(rep.Notes, fmt.Sprintf(format, args...)) }
	// The newest readable snapshot; damaged newer ones are moved aside.
	var m dam.Memory
	snap := uint64(0)
	for _, seq := range snapshots(dir) {
		p := snapshotPath(dir, seq)
		mm, err := dam.Load(p)
		if err != nil {
			note("%s cannot be read: %v", filepath.Base(p), err)
			if err := aside(p, rep); err != nil {
				return err
			}
			continue
		}
		m, snap = mm, seq
		break
	}
	cfg, err := readConfig(dir)
	if err != nil {
		if m == nil {
			return fmt.Errorf("memory.json cannot be read (%v) and no snapshot says the configuration", err)
		}
		cfg = m.Config()
		cfg.MaxMemory = 0
		jp := filepath.Join(dir, "memory.json")
		if fileExists(jp) {
			if err := aside(jp, rep); err != nil {
				return err
			}
		}
		if err := writeConfig(dir, cfg); err != nil {
			return err
		}
		note("memory.json rebuilt from the snapshot's header: %v", cfg)
	}
	if m != nil && !sameConfig(m.Config(), cfg) {
		return fmt.Errorf("the snapshot is a model of %v, memory.json says %v: decide which is right by hand", m.Config(), cfg)
	}
	if m == nil {
		if m, err = dam.New(cfg); err != nil {
			return err
		}
		if snap == 0 && len(rep.Notes) > 0 {
			note("no readable snapshot: starting from an empty memory, the records in the damaged snapshot are lost")
		}
	}
	usedSnap := snap
	// What applies a record to the model (a merge reads its model file
	// within the default budget).
	applier := &memory{cfg: cfg, env: &memEnv{budget: &budget{limit: dam.DefaultBudget()}}}
	// The tables: the state record's, if it is intact and as of a
	// snapshot no newer than the one used; else fingerprints unknown.
	var tab *tables
	seq := snap
	applied, skipped := 0, 0
	var seen []uint64
	p := filepath.Join(dir, "wal.log")
	f, err := os.Open(p)
	logDamaged := false
	if err == nil {
		st, _ := f.Stat()
		version, _ := logVersion(f, st.Size())
		if version > 0 {
			sc, _ := scanLog(f, st.Size(), version, false, func(r record, off int64) error {
				seen = append(seen, r.seq)
				if r.op == opState {
					if t, err := decodeTables(r.raw, time.Now()); err == nil && r.seq <= usedSnap && tab == nil {
						tab = t
					}
					return nil
				}
				if tab == nil {
					tab = newTables(cfg.Rep == dam.RepDrDAM)
					tab.complete, tab.incomplete = false, "salvaged: the tables of the log were lost"
				}
				if r.seq <= seq {
					tab.apply(r, true, time.Now())
					return nil
				}
				if (r.op == opAdd || r.op == opRemove) && r.cols != cfg.D {
					note("record %d (byte %d) skipped: patterns of %d values, D is %d", r.seq, off, r.cols, cfg.D)
					skipped++
					return nil
				}
				if err := applier.applyTo(m, r); err != nil {
					note("record %d (byte %d, %s) skipped: the model refuses it: %v", r.seq, off, opNames[r.op], err)
					skipped++
					return nil
				}
				tab.apply(r, true, time.Now())
				seq = r.seq
				applied++
				return nil
			})
			logDamaged = len(sc.damage) > 0 || sc.torn > 0
			for _, d := range sc.damage {
				note("wal.log: %s", d)
			}
		} else {
			logDamaged = true
		}
		f.Close()
	}
	if tab == nil {
		tab = newTables(cfg.Rep == dam.RepDrDAM)
		if m.Len() > 0 && tab.fp != nil {
			tab.complete, tab.incomplete = false, "salvaged: the tables of the log were lost"
		}
	}
	// The sequence numbers lost: those between the snapshot and the last
	// record applied that no intact record holds.
	sort.Slice(seen, func(i, j int) bool { return seen[i] < seen[j] })
	var gaps []string
	have := map[uint64]bool{}
	for _, s := range seen {
		have[s] = true
	}
	for s := usedSnap + 1; s <= seq; s++ {
		if !have[s] {
			a := s
			for s+1 <= seq && !have[s+1] {
				s++
			}
			gaps = append(gaps, fmt.Sprintf("%d–%d", a, s))
		}
	}
	note("kept %d intact record(s) after snapshot %d, skipped %d; %d patterns stored", applied, usedSnap, skipped, m.Len())
	if len(gaps) > 0 {
		note("lost: record(s) %s (in the damaged bytes)", strings.Join(gaps, ", "))
	}
	if tab.fp != nil && !tab.complete {
		note("fingerprints incomplete (%s): removals of patterns it cannot account for need ?force=true", tab.incomplete)
	}
	if err := dam.Save(snapshotPath(dir, seq), m); err != nil {
		return err
	}
	note("wrote %s", filepath.Base(snapshotPath(dir, seq)))
	if fileExists(p) {
		// Moved aside even when only the snapshot or memory.json was
		// damaged: its records are in the new snapshot, and the new log
		// starts with the tables.
		if err := aside(p, rep); err != nil {
			return err
		}
	}
	if logDamaged {
		note("the new wal.log starts at record %d", seq)
	}
	init := stateRecord(seq, tab)
	if err := writeLog(p, &init); err != nil {
		return err
	}
	for _, s := range snapshots(dir) {
		if s < seq {
			os.Remove(snapshotPath(dir, s)) // superseded by the one just written (readable ones only: the damaged were moved aside)
		}
	}
	return nil
}

// writeConfig writes memory.json atomically.
func writeConfig(dir string, c dam.Config) error {
	b, err := json.MarshalIndent(APIConfig(c), "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(dir, "memory.json"), func(w io.Writer) error {
		_, err := w.Write(append(b, '\n'))
		return err
	})
}
