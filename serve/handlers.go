package serve

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"mime"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/drdam/drdam/dam"
	"github.com/drdam/drdam/npy"
	"github.com/drdam/drdam/serve/api"
)

// MemoryInfo is what GET /v1/memories/{name} returns (see api.MemoryInfo).
type MemoryInfo = api.MemoryInfo

func (mem *memory) info() MemoryInfo {
	mem.mu.RLock()
	defer mem.mu.RUnlock()
	n := mem.m.Len()
	return MemoryInfo{Name: mem.name, Config: APIConfig(mem.cfg), Count: n, Bytes: int64(stateBytes(mem.cfg, n)), Seq: mem.seq, Status: "ready"}
}

func (s *Server) listMemories(w http.ResponseWriter, r *http.Request) error {
	out := []MemoryInfo{}
	for _, sl := range s.list() {
		out = append(out, s.info(sl))
	}
	return writeJSON(w, 200, map[string]any{"memories": out})
}

func (s *Server) getMemory(w http.ResponseWriter, r *http.Request) error {
	mem, err := s.memoryOf(r)
	if err != nil {
		return err
	}
	return writeJSON(w, 200, mem.info())
}

// createMemory makes a memory: 201, or 200 if it exists with the same
// configuration, or 409 if with another. Its model's footprint is
// reserved of the budget first (507 if it is not free; 422 if it is more
// than the whole budget), before any file is written.
func (s *Server) createMemory(w http.ResponseWriter, r *http.Request) error {
	name := r.PathValue("name")
	if !namePattern.MatchString(name) {
		return fieldErr(400, "name", "%q is not a memory name (1 to 64 letters, digits, '_', '.' or '-', not starting with '.', '_' or '-')", name)
	}
	if err := jsonBody(r); err != nil {
		return err
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return err
	}
	c, err := parseConfig(body, s.opt.Limits)
	if err != nil {
		return err
	}
	if mb := c.MaxBeta(); !(c.Beta <= mb) {
		what := fmt.Sprintf("β·D·‖ξ‖² must stay within %.3g for a %v model", c.ScaleLimit(), c.Precision)
		if c.Rep == dam.RepDrDAM && c.Similarity == dam.Dot {
			what = fmt.Sprintf("a DrDAM of the dot energy weighs a pattern by exp(β‖ξ‖²/2), at most exp(%d)", dam.MaxDotLogWeight)
		}
		return fieldErr(422, "beta", "%g is above %.4g, the largest β at which this memory could store a pattern of unit norm (the scale of data in [0, 1/√D]^D, which β assumes): %s; such a memory could store nothing of its data's scale", c.Beta, mb, what)
	}
	need := footprint(c, 0)
	if need > s.budget.limit {
		fp := dam.EstimateFootprint(c, 0)
		field := strings.ToLower(fp.Field)
		if field == "k" {
			field = "d"
		}
		return fieldErr(422, field, "the memory needs %s (mostly %s), more than this server's whole memory budget of %s (--max-memory)",
			dam.Bytes(float64(need)), fp.Largest, dam.Bytes(float64(s.budget.limit)))
	}
	s.mu.Lock()
	for {
		sl := s.slots[name]
		if sl == nil {
			break
		}
		if sl.err != nil {
			s.mu.Unlock()
			return damaged(s.opt.Dir, name, sl.err)
		}
		if ch := sl.busy; ch != nil { // being created, opened or closed
			if err := s.waitBusy(r.Context(), ch); err != nil {
				return err
			}
			continue
		}
		s.mu.Unlock()
		if !sameConfig(sl.cfg, c) {
			return fieldErr(409, "name", "memory %q exists with another configuration (%v; asked %v)", name, sl.cfg, c)
		}
		return writeJSON(w, 200, s.info(sl))
	}
	sl := &slot{name: name, dir: filepath.Join(s.opt.Dir, name), cfg: c, busy: make(chan struct{}), count: 0}
	s.slots[name] = sl
	finish := func(err error) error {
		close(sl.busy)
		sl.busy = nil
		if err != nil {
			delete(s.slots, name)
		}
		s.mu.Unlock()
		return err
	}
	if err := s.makeRoom(need, name); err != nil {
		return finish(err)
	}
	if err := s.budget.reserve(need, fmt.Sprintf("memory %q (%s)", name, dam.EstimateFootprint(c, 0).Largest)); err != nil {
		return finish(err)
	}
	s.mu.Unlock()
	mem, err := createMemory(sl.dir, name, c, s.env)
	s.mu.Lock()
	if err != nil {
		s.budget.release(need)
		var be *dam.BudgetError
		var ce *dam.ConfigError
		if errors.As(err, &be) || errors.As(err, &ce) {
			return finish(configError(422, err))
		}
		return finish(err)
	}
	mem.reserved = need
	sl.mem, sl.used = mem, time.Now()
	s.open++
	finish(nil)
	s.opt.Log.Info("memory created", "name", name, "budget", dam.Bytes(float64(need)))
	return writeJSON(w, 201, mem.info())
}

// deleteMemory deletes a memory: it is closed (a write under way
// finishes first; requests under way on it end with 409) and its folder
// renamed aside, then removed, so that a server killed meanwhile leaves no
// half-memory (New removes the rest).
func (s *Server) deleteMemory(w http.ResponseWriter, r *http.Request) error {
	name := r.PathValue("name")
	if !namePattern.MatchString(name) {
		return fieldErr(400, "name", "%q is not a memory name", name)
	}
	s.mu.Lock()
	for {
		sl := s.slots[name]
		if sl == nil {
			s.mu.Unlock()
			return fieldErr(404, "name", "no memory %q", name)
		}
		if ch := sl.busy; ch != nil {
			if err := s.waitBusy(r.Context(), ch); err != nil {
				return err
			}
			continue
		}
		delete(s.slots, name)
		mem := sl.mem
		if mem != nil {
			s.open--
		}
		s.mu.Unlock()
		if mem != nil {
			mem.close(false)
			mem.wmu.Lock()
			s.budget.release(mem.reserved)
			mem.reserved = 0
			mem.wmu.Unlock()
		}
		gone := filepath.Join(s.opt.Dir, fmt.Sprintf("%s%s-%d", deletedPrefix, name, time.Now().UnixNano()))
		if err := os.Rename(sl.dir, gone); err != nil {
			return err
		}
		if d, err := os.Open(s.opt.Dir); err == nil {
			d.Sync()
			d.Close()
		}
		if err := os.RemoveAll(gone); err != nil {
			s.opt.Log.Warn("removing a deleted memory's folder", "folder", gone, "err", err)
		}
		return writeJSON(w, 200, map[string]any{"deleted": name})
	}
}

// jsonBody refuses a body that is not declared JSON. An absent type, and
// application/x-www-form-urlencoded (what curl -d declares), are taken as
// JSON.
func jsonBody(r *http.Request) error {
	ct := r.Header.Get("Content-Type")
	if ct == "" {
		return nil
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil || mt != "application/json" && mt != formType {
		return fieldErr(415, "Content-Type", "want application/json, found %q", ct)
	}
	return nil
}

// formType is what curl -d declares; the body is read as JSON.
const formType = "application/x-www-form-urlencoded"

// readRows reads the rows of field (patterns, queries) from the request:
// a JSON body {"field": [[…], …]} or a .npy body (application/x-npy) of a
// 2-D array (or 1-D: one row). Every row must have d values, all finite,
// and there may be at most max rows. It returns the values row-major and
// the rest of the JSON body, for the other fields.
func readRows(r *http.Request, field string, d, maxRows int) ([]float64, map[string]json.RawMessage, error) {
	body, raw, v, err := readBody(r, field, d, maxRows, true, "")
	if err != nil || raw == nil { // an error, or a .npy body
		return body, nil, err
	}
	var rows [][]float64
	if t := bytes.TrimSpace(v); string(t) == "null" || len(t) > 0 && t[0] != '[' {
		return nil, nil, fieldErr(400, field, "want [[…], …], rows of D = %d numbers, found %.40s", d, t)
	}
	if i, j, found := notNumber(v); found != "" {
		// encoding/json would take null for 0, and its own message
		// names no row.
		return nil, nil, fieldErr(400, field, "row %d, column %d: want a number, found %s", i, j, found)
	}
	if err := json.Unmarshal(v, &rows); err != nil {
		var one []float64
		if json.Unmarshal(v, &one) != nil {
			return nil, nil, fieldErr(400, field, "want [[…], …], rows of D = %d numbers: %v", d, err)
		}
		rows = [][]float64{one}
	}
	data := make([]float64, 0, min(len(rows), maxRows)*d)
	for i, row := range rows {
		if len(row) != d {
			return nil, nil, fieldErr(400, field, "row %d has %d values, want D = %d", i+1, len(row), d)
		}
		if len(rows) > maxRows {
			break
		}
		data = append(data, row...)
	}
	if err := checkRows(field, data, len(rows), d, d, maxRows); err != nil {
		return nil, nil, err
	}
	delete(raw, field)
	return data, raw, nil
}

// readBody reads the body of a request whose rows are in field: a .npy
// body (application/x-npy) of a 2-D array, or a 1-D one for one row,
// returned as data (raw nil), its shape checked (413 past maxRows) and,
// with finite, its values; or a JSON object, returned whole in raw (not
// nil) with the text of field in v. note ends the message of a missing field (after
// "rows of D numbers").
func readBody(r *http.Request, field string, d, maxRows int, finite bool, note string) (data []float64, raw map[string]json.RawMessage, v json.RawMessage, err error) {
	ct := r.Header.Get("Content-Type")
	mt, _, _ := mime.ParseMediaType(ct)
	switch mt {
	case "application/x-npy":
		b, err := io.ReadAll(r.Body)
		if err != nil {
			return nil, nil, nil, err
		}
		a, err := npy.Read(bytes.NewReader(b))
		if err != nil {
			return nil, nil, nil, fieldErr(400, field, "%v", err)
		}
		rows, cols := 1, 0
		switch len(a.Shape) {
		case 1:
			cols = a.Shape[0]
		case 2:
			rows, cols = a.Shape[0], a.Shape[1]
		default:
			return nil, nil, nil, fieldErr(400, field, "want a 2-D array of rows of D = %d values, found shape %s", d, npy.FormatShape(a.Shape))
		}
		check := a.Data
		if !finite {
			check = nil
		}
		if err := checkRows(field, check, rows, cols, d, maxRows); err != nil {
			return nil, nil, nil, err
		}
		return a.Data, nil, nil, nil
	case "", "application/json", formType:
	default:
		return nil, nil, nil, fieldErr(415, "Content-Type", "want application/json or application/x-npy, found %q", ct)
	}
	dec := json.NewDecoder(r.Body)
	if err := dec.Decode(&raw); err != nil {
		if perr := passThrough(err); perr != nil {
			return nil, nil, nil, perr
		}
		return nil, nil, nil, fieldErr(400, "", "the body is not a JSON object: %v", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		if perr := passThrough(err); perr != nil {
			return nil, nil, nil, perr
		}
		return nil, nil, nil, fieldErr(400, "", "the body holds more than one JSON value")
	}
	v, ok := raw[field]
	if !ok {
		return nil, nil, nil, fieldErr(400, field, "missing: want [[…], …], rows of D = %d numbers%s", d, note)
	}
	return nil, raw, v, nil
}

// notNumber finds the first value of a JSON array of rows (or of one
// row) that is not a number — null, a string, a boolean, an object —,
// and returns its row and column (from 1) and the value as written, or
// found = "" if there is none (or v is not such an array: the decoder says
// what then). It scans the bytes with a tokenizer, allocating nothing per
// number.
func notNumber(v json.RawMessage) (row, col int, found string) {
	if !bytes.ContainsAny(v, "ntf\"{") {
		return 0, 0, "" // no null, true, false, string or object: numbers only
	}
	dec := json.NewDecoder(bytes.NewReader(v))
	dec.UseNumber()
	depth, r, c := 0, 0, 0
	for {
		tok, err := dec.Token()
		if err != nil {
			return 0, 0, ""
		}
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '[':
				depth++
				if depth == 2 {
					r++
					c = 0
				} else if depth > 2 {
					return r, c + 1, "an array"
				}
			case ']':
				depth--
				if depth == 0 {
					return 0, 0, ""
				}
			default:
				rr, cc := max(r, 1), c+1
				return rr, cc, "an object"
			}
		case json.Number:
			c++
			if depth == 1 {
				r = 1 // one row, not nested
			}
		default:
			c++
			rr := r
			if depth == 1 {
				rr = 1
			}
			if t == nil {
				return rr, c, "null"
			}
			b, _ := json.Marshal(t)
			if len(b) > 40 {
				b = append(b[:40], "…"...)
			}
			return rr, c, string(b)
		}
	}
}

// checkRows checks the shape and values of a batch of rows.
func checkRows(field string, data []float64, rows, cols, d, maxRows int) error {
	if rows == 0 {
		return fieldErr(400, field, "no rows")
	}
	if rows > maxRows {
		return fieldErr(413, field, "%d rows are more than this server takes in one request (%d)", rows, maxRows)
	}
	if cols != d {
		return fieldErr(400, field, "rows of %d values, want D = %d", cols, d)
	}
	for i, x := range data {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fieldErr(400, field, "row %d, column %d: %v", i/d+1, i%d+1, x)
		}
	}
	return nil
}

// rowError turns a dam.RowError (a value a model cannot hold) into a 422
// naming the field.
func rowError(field string, err error) error {
	var re *dam.RowError
	if errors.As(err, &re) {
		return fieldErr(422, field, "row %d%s", re.Row, re.Msg)
	}
	return err
}

// writePatterns adds or removes the patterns of the body, durably. With
// an Idempotency-Key header, a retry of a write already made is answered
// as it was (Idempotent-Replayed: true) and changes nothing. A removal of
// a row the memory never stored is refused (409), unless ?force=true: an
// MrDAM looks for it among its patterns, a DrDAM among the fingerprints of
// what was added.
func (s *Server) writePatterns(w http.ResponseWriter, r *http.Request, op byte) error {
	mem, err := s.memoryOf(r)
	if err != nil {
		return err
	}
	key, err := idempotencyKey(r)
	if err != nil {
		return err
	}
	force := false
	if op == opRemove {
		if force, err = boolParam(r, "force"); err != nil {
			return err
		}
	}
	read := func() {}
	if op == opAdd {
		read = mem.reading()
		defer read()
	}
	x, _, err := readRows(r, "patterns", mem.cfg.D, s.opt.Limits.MaxBatch)
	if err != nil {
		return err
	}
	if err := mem.cfg.CheckPatterns(x); err != nil {
		return rowError("patterns", err)
	}
	d := mem.cfg.D
	k := len(x) / d
	kd := keyed{key: key, n: k}
	if key != "" {
		kd.hash = reqHash(op, force, d, x, nil)
		e, release, err := mem.claim(r.Context().Done(), key, kd.hash)
		if err != nil {
			return err
		}
		if e != nil {
			return replay(w, e)
		}
		defer release()
	}
	var wt written
	if op == opAdd {
		wt = mem.add(x, kd, read)
	} else {
		rec := record{op: op, rows: k, cols: d, data: x}
		if key != "" {
			rec.keys = []keyed{kd}
		}
		wt = mem.write(rec, func(m dam.Memory) error {
			if k > m.Len() {
				return fieldErr(422, "patterns", "%d patterns to remove from a memory that holds %d", k, m.Len())
			}
			if force {
				return nil
			}
			if i := mem.tab.unknownRow(x, d); i >= 0 {
				msg := fmt.Sprintf("row %d was never added to this memory (no pattern added and not yet removed has exactly its values): removing it would subtract a pattern that is not there and change the memory. Remove what was added, value for value; or add ?force=true to remove it anyway", i+1)
				if !mem.tab.complete {
					msg += fmt.Sprintf(" (this memory cannot list every pattern it stores: %s; if the row is one of those, ?force=true removes it)", mem.tab.incomplete)
				}
				return fieldErr(409, "patterns", "%s", msg)
			}
			return nil
		})
	}
	if err := wt.err; err != nil {
		var ns *dam.NotStoredError
		var rf *dam.RefusedError
		switch {
		case errors.As(err, &ns):
			return fieldErr(409, "patterns", "row %d is not stored in this memory (an MrDAM removes only patterns equal, value for value, to stored ones): nothing was removed", ns.Row)
		case errors.As(err, &rf):
			// A T that the patterns left could not produce: what a
			// removal of rows never added, forced, gives.
			return fieldErr(409, "patterns", "the memory refuses the write, and is unchanged: %v", rf.Err)
		}
		return rowError("patterns", err)
	}
	if op == opAdd {
		mem.keep(x)
	}
	if op == opRemove {
		return writeJSON(w, 200, api.Written{Removed: k, Count: wt.count})
	}
	return writeJSON(w, 200, api.Written{Added: k, Count: wt.count})
}

// replay answers a retry of a keyed write with its first answer.
func replay(w http.ResponseWriter, e *keyEntry) error {
	w.Header().Set("Idempotent-Replayed", "true")
	out := api.Written{Count: e.count}
	switch e.op {
	case opAdd:
		out.Added = e.n
	case opRemove:
		out.Removed = e.n
	case opMerge:
		out.Merged = e.n
	}
	return writeJSON(w, 200, out)
}

// idempotencyKey returns the request's Idempotency-Key ("" if none), or a
// 400 if it is not one.
func idempotencyKey(r *http.Request) (string, error) {
	vs := r.Header.Values("Idempotency-Key")
	if len(vs) == 0 {
		return "", nil
	}
	if len(vs) > 1 {
		return "", fieldErr(400, "Idempotency-Key", "the header is given %d times, want once", len(vs))
	}
	if err := validKey(vs[0]); err != nil {
		return "", fieldErr(400, "Idempotency-Key", "%v", err)
	}
	return vs[0], nil
}

// boolParam reads the query parameter name: absent or "false" false,
// "true" (or empty: ?force) true.
func boolParam(r *http.Request, name string) (bool, error) {
	q := r.URL.Query()
	if !q.Has(name) {
		return false, nil
	}
	switch q.Get(name) {
	case "true", "":
		return true, nil
	case "false":
		return false, nil
	}
	return false, fieldErr(400, name, "want true or false, found %q", q.Get(name))
}

// merge adds a model file's memories, durably (with an Idempotency-Key,
// as writePatterns).
func (s *Server) merge(w http.ResponseWriter, r *http.Request) error {
	mem, err := s.memoryOf(r)
	if err != nil {
		return err
	}
	key, err := idempotencyKey(r)
	if err != nil {
		return err
	}
	if bb, ok := r.Body.(*budgetBody); ok {
		bb.factor = 2 // the file, as read (and io.ReadAll's growth)
	}
	b, err := io.ReadAll(r.Body)
	if err != nil {
		return err
	}
	// The header first: a small file may declare a model whose projection
	// takes gigabytes to build; only the memory's own configuration,
	// which passed the limits, is built, within the budget.
	h, err := dam.ReadHeader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		return fieldErr(400, "body", "not a drdam model file: %v", err)
	}
	if !sameConfig(h.Config, mem.cfg) {
		return fieldErr(409, "body", "the model is %v, the memory %v: only models of the same configuration merge", h.Config, mem.cfg)
	}
	if err := reserveFor(r, float64(footprint(mem.cfg, int(min(h.Count, 1<<31)))), "reading the merged model"); err != nil {
		return err
	}
	o, err := dam.ReadBudget(bytes.NewReader(b), int64(len(b)), s.budget.limit)
	if err != nil {
		return fieldErr(400, "body", "not a drdam model file: %v", err)
	}
	rec := record{op: opMerge, raw: b, merged: o}
	if key != "" {
		kd := keyed{key: key, hash: reqHash(opMerge, false, 0, nil, b), n: o.Len()}
		e, release, err := mem.claim(r.Context().Done(), key, kd.hash)
		if err != nil {
			return err
		}
		if e != nil {
			return replay(w, e)
		}
		defer release()
		rec.keys = []keyed{kd}
	}
	wt := mem.write(rec, nil)
	if wt.err != nil {
		return wt.err
	}
	return writeJSON(w, 200, api.Written{Merged: o.Len(), Count: wt.count})
}

// energy evaluates energies (and gradients).
func (s *Server) energy(w http.ResponseWriter, r *http.Request) error {
	mem, err := s.memoryOf(r)
	if err != nil {
		return err
	}
	x, rest, err := readRows(r, "queries", mem.cfg.D, s.opt.Limits.MaxBatch)
	if err != nil {
		return err
	}
	var grad bool
	if v, ok := rest["grad"]; ok {
		if err := json.Unmarshal(v, &grad); err != nil {
			return fieldErr(400, "grad", "want true or false, found %s", v)
		}
	}
	b, d := len(x)/mem.cfg.D, mem.cfg.D
	m, done := mem.model()
	if err := reserveFor(r, evalNeed(mem.cfg, m.Len(), b, grad), fmt.Sprintf("evaluating %d queries", b)); err != nil {
		done()
		return err
	}
	e := make([]float64, b)
	var g []float64
	if grad {
		g = make([]float64, b*d)
	}
	if b > gateFree { // a large batch waits for the compute gate; a small one does not
		s.gate <- struct{}{}
		err = m.EnergyGrad(e, g, x)
		<-s.gate
		dropLarge(m)
	} else {
		err = m.EnergyGrad(e, g, x)
	}
	done()
	if errors.Is(err, dam.ErrEmpty) {
		return fieldErr(409, "name", "memory %q stores no patterns: there is no energy to evaluate", mem.name)
	}
	if err != nil {
		return rowError("queries", err)
	}
	out := map[string]any{"energy": e}
	if grad {
		out["grad"] = api.RowsOf(g, d)
	}
	return writeJSON(w, 200, out)
}

// dropLarge frees the workspaces a model keeps after a batch larger than
// the ones a memory's footprint counts (gateFree queries): what the
// request reserved for them is given back when it ends.
func dropLarge(m dam.Memory) {
	if d, ok := m.(interface{ DropWorkspaces() }); ok {
		d.DropWorkspaces()
	}
}

// snapshot writes a snapshot and says where.
func (s *Server) snapshot(w http.ResponseWriter, r *http.Request) error {
	mem, err := s.memoryOf(r)
	if err != nil {
		return err
	}
	path, err := mem.snapshot()
	if err != nil {
		return err
	}
	abs, _ := filepath.Abs(path)
	return writeJSON(w, 200, map[string]any{"file": abs, "count": mem.info().Count})
}

// download answers the memory's model file, as of now.
func (s *Server) download(w http.ResponseWriter, r *http.Request) error {
	mem, err := s.memoryOf(r)
	if err != nil {
		return err
	}
	m, done := mem.model()
	if err := reserveFor(r, 2*(float64(stateBytes(mem.cfg, m.Len()))+4096), "writing the model file"); err != nil {
		done()
		return err
	}
	var b bytes.Buffer
	err = dam.Write(&b, m)
	done()
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Content-Disposition", fmt.Sprintf("attachment; filename=%q", mem.name+".drdam"))
	_, err = w.Write(b.Bytes())
	return err
}
