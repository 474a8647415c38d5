package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// This file holds the service's fault cases on folders of their own: a
// flipped log byte with --check and --salvage, a torn tail, temporary
// files, a garbled memory.json, the budget under ulimit -v, the kill loop.

// walOffsets returns the offsets of the records of a write-ahead log
// (after the 10-byte magic: u32 n | u32 crc | n bytes each).
func walOffsets(b []byte) []int {
	var offs []int
	if len(b) < 10 || !bytes.HasPrefix(b, []byte("DRDAMWAL")) {
		return nil
	}
	for off := 10; off+8 <= len(b); {
		n := int(binary.LittleEndian.Uint32(b[off:]))
		if off+8+n > len(b) {
			break
		}
		offs = append(offs, off)
		off += 8 + n
	}
	return offs
}

// walState is what the byte-flip cases share: a folder with memories bad
// (5 acknowledged additions, 20 patterns) and good (2, 8 patterns), the
// server killed, one byte flipped in the middle of bad's log.
type walState struct {
	once    sync.Once
	dir     string
	err     error
	flipped int // offset of the flipped byte
	rec     int // the record it is in
	srv     *server
	srvErr  error
}

var wal walState

func (b *battery) walSetup() *walState {
	wal.once.Do(func() {
		wal.dir = filepath.Join(b.work, "serve-wal")
		os.RemoveAll(wal.dir)
		s, err := b.startServer(wal.dir, "", 0, nil)
		if err != nil {
			s.kill()
			wal.err = err
			return
		}
		for _, n := range []string{"bad", "good"} {
			if a := b.do(s, "PUT", "/v1/memories/"+n, "application/json", []byte(`{"d": 8, "y": 1000, "projection": "structured"}`), nil, false); a.status != 201 {
				wal.err = fmt.Errorf("PUT %s: %d %v", n, a.status, a.err)
			}
		}
		for k := range 5 {
			if a := b.addBatch(s, "bad", 8, 10+k, ""); a.status != 200 {
				wal.err = fmt.Errorf("add: %d %v", a.status, a.err)
			}
		}
		for k := range 2 {
			if a := b.addBatch(s, "good", 8, 50+k, ""); a.status != 200 {
				wal.err = fmt.Errorf("add: %d %v", a.status, a.err)
			}
		}
		s.kill()
		if wal.err != nil {
			return
		}
		p := filepath.Join(wal.dir, "bad", "wal.log")
		data, err := os.ReadFile(p)
		if err != nil {
			wal.err = err
			return
		}
		offs := walOffsets(data)
		wal.rec = len(offs) / 2
		if len(offs) >= 4 {
			wal.flipped = offs[wal.rec] + 40
		} else {
			wal.flipped = len(data) / 2
		}
		b.logf("wal.log: %d bytes, records at %v; flipping byte %d (record %d)", len(data), offs, wal.flipped, wal.rec)
		data[wal.flipped] ^= 0x10
		wal.err = os.WriteFile(p, data, 0o644)
		if wal.err == nil {
			wal.srv, wal.srvErr = b.startServer(wal.dir, "", 0, nil)
		}
	})
	return &wal
}

func walCases() []tcase {
	return []tcase{
		{"fault/wal-flip-503", "serve/fault", func(b *battery) result {
			w := b.walSetup()
			if w.err != nil {
				return result{class: unclear, msg: w.err.Error(), note: "setup failed"}
			}
			if w.srvErr != nil {
				cl, note := w.srv.crashed()
				if cl == "" || cl == fatal && w.srv.sig == 0 {
					cl = unclear
				}
				return result{class: cl, msg: w.srvErr.Error(), note: "the server did not start: " + note}
			}
			mi, a := b.info(w.srv, "bad", false)
			var eb errBody
			json.Unmarshal(a.body, &eb)
			msg := fmt.Sprintf("%d %s", a.status, eb.Error.Message)
			switch {
			case a.status == 200 && mi.Count < 20:
				return result{class: lost, msg: fmt.Sprintf("200, count %d", mi.Count), note: "acknowledged additions dropped with the corrupt record and those after it (20 acknowledged)"}
			case a.status == 200:
				return result{class: silentWrong, msg: fmt.Sprintf("200, count %d", mi.Count), note: "a corrupt log served as if intact"}
			case a.status != 503:
				return result{class: unclear, msg: msg, note: "want 503"}
			case !strings.Contains(eb.Error.Message, "wal.log") || !strings.Contains(eb.Error.Message, "byte"):
				return result{class: unclear, msg: msg, note: "does not name wal.log and the byte"}
			}
			return result{class: ok, msg: msg}
		}},
		{"fault/wal-flip-others-served", "serve/fault", func(b *battery) result {
			w := b.walSetup()
			if w.err != nil || w.srvErr != nil {
				return result{class: unclear, msg: fmt.Sprint(w.err, w.srvErr), note: "no server"}
			}
			mi, a := b.info(w.srv, "good", false)
			if a.status != 200 || mi.Count != 8 {
				return result{class: lost, msg: fmt.Sprintf("%d count %d %s", a.status, mi.Count, excerpt(string(a.body), 100)), note: "want 200 with its 8 patterns"}
			}
			logs := w.srv.stderr.String()
			msg := fmt.Sprintf("good: 200, count %d; log: %s", mi.Count, firstLineWith(logs, "damaged"))
			w.srv.stop()
			return result{class: ok, msg: msg}
		}},
		{"fault/wal-flip-check", "serve/fault", func(b *battery) result {
			w := b.walSetup()
			if w.err != nil {
				return result{class: unclear, msg: w.err.Error(), note: "setup failed"}
			}
			if w.srv != nil {
				w.srv.stop()
			}
			p := b.run(runOpts{dir: b.work}, "serve", "--data", w.dir, "--check")
			if cl, note := crashClass(p); cl != "" {
				return result{class: cl, msg: note}
			}
			out := p.stdout + p.stderr
			msg := firstLineWith(out, "DAMAGED")
			if p.exit == 0 {
				return result{class: silentWrong, msg: msg, note: "exit 0 on a corrupt log"}
			}
			if p.exit != 1 || !strings.Contains(out, "wal.log") {
				return result{class: unclear, msg: errLine(p), note: fmt.Sprintf("exit %d; want 1, naming wal.log", p.exit)}
			}
			return result{class: ok, msg: msg}
		}},
		{"fault/wal-flip-salvage", "serve/fault", func(b *battery) result {
			w := b.walSetup()
			if w.err != nil {
				return result{class: unclear, msg: w.err.Error(), note: "setup failed"}
			}
			if w.srv != nil {
				w.srv.stop()
			}
			p := b.run(runOpts{dir: b.work}, "serve", "--data", w.dir, "--salvage")
			if cl, note := crashClass(p); cl != "" {
				return result{class: cl, msg: note}
			}
			if p.exit != 0 {
				return result{class: unclear, msg: errLine(p), note: fmt.Sprintf("exit %d, want 0", p.exit)}
			}
			aside, _ := filepath.Glob(filepath.Join(w.dir, "bad", "wal.log.damaged-*"))
			if len(aside) == 0 {
				return result{class: silentWrong, msg: firstLineWith(p.stdout, "kept"), note: "no wal.log.damaged-* kept"}
			}
			return result{class: ok, msg: firstLineWith(p.stdout, "kept") + "; " + filepath.Base(aside[0])}
		}},
		{"fault/wal-flip-after-salvage", "serve/fault", func(b *battery) result {
			w := b.walSetup()
			if w.err != nil {
				return result{class: unclear, msg: w.err.Error(), note: "setup failed"}
			}
			s, err := b.startServer(w.dir, "", 0, nil)
			defer s.stop()
			if err != nil {
				return result{class: unclear, msg: err.Error(), note: "the server did not start after --salvage"}
			}
			mi, a := b.info(s, "bad", false)
			msg := fmt.Sprintf("%d count %d %s", a.status, mi.Count, excerpt(string(a.body), 120))
			// The flipped record held 4 patterns (one addition): the 4 other
			// additions are intact, 16 patterns.
			switch {
			case a.status != 200:
				return result{class: unclear, msg: msg, note: "the salvaged memory is not served"}
			case mi.Count < 16:
				return result{class: lost, msg: msg, note: "want the 16 patterns of the 4 intact additions"}
			case mi.Count > 16:
				return result{class: silentWrong, msg: msg, note: "more than the 16 patterns of the intact additions"}
			}
			if a := b.addBatch(s, "bad", 8, 99, ""); a.status != 200 {
				return result{class: unclear, msg: msg, note: fmt.Sprintf("an addition after the salvage: %d", a.status)}
			}
			return result{class: ok, msg: msg}
		}},
	}
}

// tornTail: the last record cut after 30 bytes (a crash while appending)
// is cut off at start, silently for the clients but logged.
func tornTail(b *battery) result {
	dir := filepath.Join(b.caseDir(b.cur), "data")
	s, err := b.startServer(dir, "", 0, nil)
	if err != nil {
		s.kill()
		return result{class: unclear, msg: err.Error(), note: "setup"}
	}
	b.do(s, "PUT", "/v1/memories/m", "application/json", []byte(`{"d": 8, "rep": "mrdam"}`), nil, false)
	for k := range 3 {
		b.addBatch(s, "m", 8, k, "")
	}
	s.kill()
	p := filepath.Join(dir, "m", "wal.log")
	data, _ := os.ReadFile(p)
	offs := walOffsets(data)
	if len(offs) < 3 {
		return result{class: unclear, msg: fmt.Sprintf("wal.log: %d records", len(offs)), note: "setup"}
	}
	last := offs[len(offs)-1]
	os.WriteFile(p, data[:last+30], 0o644)
	s, err = b.startServer(dir, "", 0, nil)
	defer s.stop()
	if err != nil {
		cl, note := s.crashed()
		if cl == "" || cl == fatal && s.sig == 0 {
			cl = unclear
		}
		return result{class: cl, msg: err.Error(), note: "did not start after a torn tail: " + note}
	}
	mi, a := b.info(s, "m", false)
	msg := fmt.Sprintf("%d count %d", a.status, mi.Count)
	if a.status != 200 {
		return result{class: unclear, msg: msg + " " + excerpt(string(a.body), 150), note: "want 200 with the 8 patterns of the 2 whole records"}
	}
	if mi.Count != 8 {
		return result{class: lost, msg: msg, note: "want the 8 patterns of the 2 whole records"}
	}
	logs := s.stderr.String()
	l := firstLineWith(logs, "torn")
	if !strings.Contains(logs, "torn") {
		return result{class: unclear, msg: msg, note: "the cut was not logged"}
	}
	return result{class: ok, msg: msg + "; log: " + l}
}

// tempFiles: temporary files that killed writes left are removed at start,
// and each logged.
func tempFiles(b *battery) result {
	dir := filepath.Join(b.caseDir(b.cur), "data")
	s, err := b.startServer(dir, "", 0, nil)
	if err != nil {
		s.kill()
		return result{class: unclear, msg: err.Error(), note: "setup"}
	}
	b.do(s, "PUT", "/v1/memories/m", "application/json", []byte(`{"d": 4, "rep": "mrdam"}`), nil, false)
	s.stop()
	temps := []string{filepath.Join(dir, ".x.tmp-1"), filepath.Join(dir, "m", ".wal.log.tmp-9"), filepath.Join(dir, "m", ".snapshot-00000000000000000001.drdam.tmp-123")}
	for _, t := range temps {
		os.WriteFile(t, []byte("partial"), 0o644)
	}
	s, err = b.startServer(dir, "", 0, nil)
	defer s.stop()
	if err != nil {
		return result{class: unclear, msg: err.Error(), note: "did not start"}
	}
	var left []string
	for _, t := range temps {
		if _, err := os.Stat(t); err == nil {
			left = append(left, filepath.Base(t))
		}
	}
	logs := s.stderr.String()
	n := strings.Count(logs, "temporary")
	msg := fmt.Sprintf("%d of 3 removed, %d logged: %s", 3-len(left), n, firstLineWith(logs, "temporary"))
	if len(left) > 0 {
		return result{class: silentWrong, msg: msg, note: "left: " + strings.Join(left, ", ")}
	}
	if n < 3 {
		return result{class: unclear, msg: msg, note: "not every removal logged"}
	}
	return result{class: ok, msg: msg}
}

// garbled: a garbled memory.json makes that memory 503 (naming the file),
// and the others are served.
type garbledState struct {
	once sync.Once
	s    *server
	err  error
}

var garbled garbledState

func garbledCases() []tcase {
	setup := func(b *battery) *garbledState {
		garbled.once.Do(func() {
			dir := filepath.Join(b.work, "serve-garbled")
			os.RemoveAll(dir)
			s, err := b.startServer(dir, "", 0, nil)
			if err != nil {
				s.kill()
				garbled.err = err
				return
			}
			b.do(s, "PUT", "/v1/memories/m", "application/json", []byte(`{"d": 4, "rep": "mrdam"}`), nil, false)
			b.do(s, "PUT", "/v1/memories/n", "application/json", []byte(`{"d": 4, "rep": "mrdam"}`), nil, false)
			b.addBatch(s, "m", 4, 1, "")
			s.stop()
			os.WriteFile(filepath.Join(dir, "n", "memory.json"), []byte("{garbled"), 0o644)
			garbled.s, garbled.err = b.startServer(dir, "", 0, nil)
		})
		return &garbled
	}
	return []tcase{
		{"fault/garbled-memory-json-503", "serve/fault", func(b *battery) result {
			g := setup(b)
			if g.err != nil {
				return result{class: unclear, msg: g.err.Error(), note: "the server did not start with one garbled memory.json"}
			}
			_, a := b.info(g.s, "n", false)
			var eb errBody
			json.Unmarshal(a.body, &eb)
			msg := fmt.Sprintf("%d %s", a.status, eb.Error.Message)
			if a.status == 200 {
				return result{class: silentWrong, msg: msg + excerpt(string(a.body), 100), note: "a garbled memory served"}
			}
			if a.status != 503 || !strings.Contains(eb.Error.Message, "memory.json") {
				return result{class: unclear, msg: msg, note: "want 503 naming memory.json"}
			}
			return result{class: ok, msg: msg}
		}},
		{"fault/garbled-memory-json-others", "serve/fault", func(b *battery) result {
			g := setup(b)
			if g.err != nil {
				return result{class: unclear, msg: g.err.Error(), note: "the server did not start: the other memories are not served"}
			}
			defer g.s.stop()
			mi, a := b.info(g.s, "m", false)
			if a.status != 200 || mi.Count != 4 {
				return result{class: lost, msg: fmt.Sprintf("%d count %d", a.status, mi.Count), note: "want the other memory with its 4 patterns"}
			}
			return result{class: ok, msg: fmt.Sprintf("m: 200, count %d", mi.Count)}
		}},
	}
}

// budget: 20 PUTs of memories of about 400 MB under ulimit -v 4000000:
// 201 until the budget, 507 after, the server alive and answering.
type budgetState struct {
	once        sync.Once
	s           *server
	err         error
	made, full  int
	other       []string
	firstRefuse string
}

var budgetSt budgetState

func budgetCases() []tcase {
	setup := func(b *battery) *budgetState {
		budgetSt.once.Do(func() {
			dir := filepath.Join(b.work, "serve-budget")
			os.RemoveAll(dir)
			s, err := b.startServer(dir, "", 4000000, nil)
			budgetSt.s = s
			if err != nil {
				budgetSt.err = err
				return
			}
			for i := range 20 {
				a := b.do(s, "PUT", fmt.Sprintf("/v1/memories/m%02d", i), "application/json", []byte(`{"d": 100, "y": 450000}`), nil, false)
				switch {
				case a.err != nil:
					budgetSt.err = fmt.Errorf("PUT %d: %v", i, a.err)
					return
				case a.status == 201 && budgetSt.full == 0:
					budgetSt.made++
				case a.status == 507:
					budgetSt.full++
					if budgetSt.firstRefuse == "" {
						budgetSt.firstRefuse = string(a.body)
					}
				default:
					budgetSt.other = append(budgetSt.other, fmt.Sprintf("PUT %d: %d %s", i, a.status, excerpt(string(a.body), 100)))
				}
			}
		})
		return &budgetSt
	}
	dead := func(bs *budgetState) result {
		if cl, note := bs.s.crashed(); cl != "" {
			return result{class: cl, msg: note, note: fmt.Sprintf("after %d memories made", bs.made)}
		}
		return result{class: unclear, msg: fmt.Sprint(bs.err)}
	}
	return []tcase{
		{"fault/budget-20-puts-400MB", "serve/fault", func(b *battery) result {
			bs := setup(b)
			if bs.err != nil {
				return dead(bs)
			}
			msg := fmt.Sprintf("%d made, %d refused 507: %s", bs.made, bs.full, excerpt(bs.firstRefuse, 160))
			if len(bs.other) > 0 {
				return result{class: unclear, msg: msg, note: strings.Join(bs.other, "; ")}
			}
			if bs.made < 2 || bs.full == 0 {
				return result{class: unclear, msg: msg, note: "want some made and the rest 507"}
			}
			if !strings.Contains(bs.firstRefuse, "budget") {
				return result{class: unclear, msg: msg, note: "the 507 does not name the budget"}
			}
			return result{class: ok, msg: msg}
		}},
		{"fault/budget-healthz-after", "serve/fault", func(b *battery) result {
			bs := setup(b)
			if bs.err != nil {
				return dead(bs)
			}
			a := b.do(bs.s, "GET", "/healthz", "", nil, nil, false)
			if a.err != nil || a.status != 200 {
				return dead(bs)
			}
			return result{class: ok, msg: fmt.Sprintf("%d %s", a.status, strings.TrimSpace(string(a.body)))}
		}},
		{"fault/budget-add-energy-after", "serve/fault", func(b *battery) result {
			bs := setup(b)
			defer bs.s.stop()
			if bs.err != nil {
				return dead(bs)
			}
			a := b.addBatch(bs.s, "m00", 100, 1, "")
			e := b.do(bs.s, "POST", "/v1/memories/m00/energy", "application/json", jsonBody(map[string]any{"queries": batch(100, 1)}), nil, false)
			msg := fmt.Sprintf("add %d, energy %d %s", a.status, e.status, excerpt(string(e.body), 100))
			if a.err != nil || e.err != nil {
				return dead(bs)
			}
			if a.status != 200 || e.status != 200 {
				return result{class: unclear, msg: msg, note: "the memories made do not answer"}
			}
			if cl, note := bs.s.crashed(); cl != "" {
				return result{class: cl, msg: msg, note: note}
			}
			return result{class: ok, msg: msg}
		}},
	}
}

// killLoop: SIGKILL the server 20 times while a client adds batches, each
// with an Idempotency-Key, retrying a batch under its key until it is
// acknowledged; the final count is exactly the acknowledged additions.
func killLoop(b *battery) result {
	dir := filepath.Join(b.caseDir(b.cur), "data")
	s, err := b.startServer(dir, "", 0, nil)
	if err != nil {
		s.kill()
		return result{class: unclear, msg: err.Error(), note: "setup"}
	}
	addr := s.addr
	if a := b.do(s, "PUT", "/v1/memories/m", "application/json", []byte(`{"d": 8, "y": 512, "projection": "structured", "seed": 3}`), nil, false); a.status != 201 {
		s.kill()
		return result{class: unclear, msg: fmt.Sprintf("PUT: %d %v", a.status, a.err), note: "setup"}
	}
	var mu sync.Mutex
	acked, retries, others := 0, 0, []string{}
	stop := make(chan struct{})
	clientDone := make(chan struct{})
	target := &server{addr: addr}
	go func() {
		defer close(clientDone)
		for k := 0; ; k++ {
			key := fmt.Sprintf("battery-kill-%d", k)
			body := jsonBody(map[string]any{"patterns": batch(8, k)})
			for try := 0; ; try++ {
				a := b.doQuiet(target, "POST", "/v1/memories/m/patterns", body, map[string]string{"Idempotency-Key": key})
				if a.err == nil && a.status == 200 {
					mu.Lock()
					acked++
					mu.Unlock()
					break
				}
				if a.err == nil && a.status < 500 {
					mu.Lock()
					others = append(others, fmt.Sprintf("batch %d: %d %s", k, a.status, excerpt(string(a.body), 100)))
					mu.Unlock()
					break
				}
				mu.Lock()
				retries++
				mu.Unlock()
				if try > 400 {
					return
				}
				time.Sleep(25 * time.Millisecond)
			}
			select {
			case <-stop:
				return
			default:
			}
		}
	}()
	rng := rand.New(rand.NewPCG(27, 20))
	kills := 0
	for range 20 {
		time.Sleep(time.Duration(40+rng.IntN(160)) * time.Millisecond)
		s.kill()
		kills++
		if cl, note := s.crashed(); cl != "" && cl != fatal {
			close(stop)
			<-clientDone
			return result{class: cl, msg: note}
		}
		s, err = b.startServer(dir, addr, 0, nil)
		if err != nil {
			close(stop)
			<-clientDone
			cl, note := s.crashed()
			if cl == "" || cl == fatal && s.sig == 0 {
				cl = unclear
			}
			return result{class: cl, msg: err.Error(), note: fmt.Sprintf("the server did not restart after kill %d: %s", kills, note)}
		}
	}
	time.Sleep(300 * time.Millisecond)
	close(stop)
	<-clientDone
	defer s.stop()
	mi, a := b.info(s, "m", false)
	mu.Lock()
	defer mu.Unlock()
	msg := fmt.Sprintf("%d kills, %d batches acknowledged (%d patterns), %d retries; count %d", kills, acked, 4*acked, retries, mi.Count)
	if a.status != 200 {
		return result{class: unclear, msg: msg, note: fmt.Sprintf("GET m: %d", a.status)}
	}
	if len(others) > 0 {
		return result{class: unclear, msg: msg, note: strings.Join(others, "; ")}
	}
	switch {
	case mi.Count < 4*acked:
		return result{class: lost, msg: msg, note: fmt.Sprintf("%d acknowledged patterns missing", 4*acked-mi.Count)}
	case mi.Count > 4*acked:
		return result{class: silentWrong, msg: msg, note: fmt.Sprintf("%d patterns more than acknowledged: retried batches stored twice", mi.Count-4*acked)}
	}
	return result{class: ok, msg: msg}
}

// doQuiet is do without the log line (the kill loop's client sends
