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
	return MemoryInfo{Name: mem.name, Config: apiConfig(mem.cfg), Count: n, Bytes: int64(stateBytes(mem.cfg, n)), Seq: mem.seq, Status: "ready"}
}

func (s *Server) listMemories(w http.ResponseWriter, r *http.Request) error {
	out := []MemoryInfo{}
	for _, mem := range s.list() {
		out = append(out, mem.info())
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
// configuration, or 409 if with another.
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
	s.mu.Lock()
	defer s.mu.Unlock()
	if mem := s.mems[name]; mem != nil {
		if mem.cfg != c {
			return fieldErr(409, "name", "memory %q exists with another configuration (%v; asked %v)", name, mem.cfg, c)
		}
		return writeJSON(w, 200, mem.info())
	}
	if _, err := dam.New(c); err != nil { // the budget, before any file
		return flagToField(422, err)
	}
	mem, err := createMemory(filepath.Join(s.opt.Dir, name), name, c)
	if err != nil {
		return err
	}
	s.mems[name] = mem
	return writeJSON(w, 201, mem.info())
}

func (s *Server) deleteMemory(w http.ResponseWriter, r *http.Request) error {
	mem, err := s.memoryOf(r)
	if err != nil {
		return err
	}
	s.mu.Lock()
	delete(s.mems, mem.name)
	s.mu.Unlock()
	if err := mem.close(false); err != nil {
		return err
	}
	if err := os.RemoveAll(mem.dir); err != nil {
		return err
	}
	return writeJSON(w, 200, map[string]any{"deleted": mem.name})
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
	ct := r.Header.Get("Content-Type")
	mt, _, _ := mime.ParseMediaType(ct)
	switch mt {
	case "application/x-npy":
		b, err := io.ReadAll(r.Body)
		if err != nil {
			return nil, nil, err
		}
		a, err := npy.Read(bytes.NewReader(b))
		if err != nil {
			return nil, nil, fieldErr(400, field, "%v", err)
		}
		rows, cols := 1, 0
		switch len(a.Shape) {
		case 1:
			cols = a.Shape[0]
		case 2:
			rows, cols = a.Shape[0], a.Shape[1]
		default:
			return nil, nil, fieldErr(400, field, "want a 2-D array of rows of D = %d values, found shape %s", d, npy.FormatShape(a.Shape))
		}
		if err := checkRows(field, a.Data, rows, cols, d, maxRows); err != nil {
			return nil, nil, err
		}
		return a.Data, nil, nil
	case "", "application/json", formType:
	default:
		return nil, nil, fieldErr(415, "Content-Type", "want application/json or application/x-npy, found %q", ct)
	}
	var raw map[string]json.RawMessage
	dec := json.NewDecoder(r.Body)
	if err := dec.Decode(&raw); err != nil {
		var mb *http.MaxBytesError
		if errors.As(err, &mb) {
			return nil, nil, err
		}
		return nil, nil, fieldErr(400, "", "the body is not a JSON object: %v", err)
	}
	v, ok := raw[field]
	if !ok {
		return nil, nil, fieldErr(400, field, "missing: want [[…], …], rows of D = %d numbers", d)
	}
	var rows [][]float64
	if err := json.Unmarshal(v, &rows); err != nil {
		var one []float64
		if json.Unmarshal(v, &one) != nil {
			return nil, nil, fieldErr(400, field, "want [[…], …], rows of D = %d numbers: %v", d, err)
		}
		rows = [][]float64{one}
	}
	data := make([]float64, 0, len(rows)*d)
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

// writePatterns adds or removes the patterns of the body, durably.
func (s *Server) writePatterns(w http.ResponseWriter, r *http.Request, op byte) error {
	mem, err := s.memoryOf(r)
	if err != nil {
		return err
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
	k := len(x) / mem.cfg.D
	check := func(m dam.Memory) error {
		if op == opRemove && k > m.Len() {
			return fieldErr(422, "patterns", "%d patterns to remove from a memory that holds %d", k, m.Len())
		}
		return nil
	}
	if op == opAdd {
		err = mem.add(x, read, s.wr)
	} else {
		err = mem.write(record{op: op, rows: k, cols: mem.cfg.D, data: x}, check, s.wr)
	}
	if err != nil {
		return rowError("patterns", err)
	}
	if op == opAdd {
		mem.keep(x)
	}
	info := mem.info()
	key := "added"
	if op == opRemove {
		key = "removed"
	}
	return writeJSON(w, 200, map[string]any{key: k, "count": info.Count})
}

// merge adds a model file's memories, durably.
func (s *Server) merge(w http.ResponseWriter, r *http.Request) error {
	mem, err := s.memoryOf(r)
	if err != nil {
		return err
	}
	b, err := io.ReadAll(r.Body)
	if err != nil {
		return err
	}
	// The header first: a small file may declare a model whose projection
	// takes gigabytes to build; only the memory's own configuration,
	// which passed the limits, is built.
	h, err := dam.ReadHeader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		return fieldErr(400, "body", "not a drdam model file: %v", err)
	}
	if h.Config != mem.cfg {
		return fieldErr(409, "body", "the model is %v, the memory %v: only models of the same configuration merge", h.Config, mem.cfg)
	}
	o, err := dam.ReadBudget(bytes.NewReader(b), int64(len(b)), 0)
	if err != nil {
		return fieldErr(400, "body", "not a drdam model file: %v", err)
	}
	if err := mem.write(record{op: opMerge, raw: b}, nil, s.wr); err != nil {
		return err
	}
	return writeJSON(w, 200, map[string]any{"merged": o.Len(), "count": mem.info().Count})
}

// energy evaluates energies (and gradients) under the read lock.
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
	e := make([]float64, b)
	var g []float64
	if grad {
		g = make([]float64, b*d)
	}
	m, done := mem.model()
	if b > gateFree { // a large batch waits for the compute gate; a small one does not
		s.gate <- struct{}{}
		err = m.EnergyGrad(e, g, x)
		<-s.gate
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
	var b bytes.Buffer
	m, done := mem.model()
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
