package serve

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"runtime"

	"github.com/drdam/drdam/dam"
	"github.com/drdam/drdam/serve/api"
)

// RecallResult is the answer of a recall (see api.RecallResult).
type RecallResult = api.RecallResult

// recallOptions reads the options of a recall from the rest of its JSON
// body: step (0.1), max_steps (300), tol (dam.DefaultTol; 0 runs every
// step), box [lo, hi] and mask (one
// row of D booleans or 0/1 for every query, or a row per query).
func (s *Server) recallOptions(rest map[string]json.RawMessage, b, d int) (dam.RecallOptions, error) {
	o := dam.RecallOptions{Step: 0.1, MaxSteps: 300, Tol: dam.DefaultTol}
	num := func(field string, dst *float64) error {
		if v, ok := rest[field]; ok {
			if err := json.Unmarshal(v, dst); err != nil || math.IsNaN(*dst) || math.IsInf(*dst, 0) {
				return fieldErr(400, field, "want a number, found %s", v)
			}
		}
		return nil
	}
	if err := num("step", &o.Step); err != nil {
		return o, err
	}
	if !(o.Step > 0) {
		return o, fieldErr(422, "step", "want a step > 0, found %v", o.Step)
	}
	if err := num("tol", &o.Tol); err != nil {
		return o, err
	}
	if o.Tol < 0 {
		return o, fieldErr(422, "tol", "want a tolerance ≥ 0, found %v", o.Tol)
	}
	if v, ok := rest["max_steps"]; ok {
		if err := json.Unmarshal(v, &o.MaxSteps); err != nil || o.MaxSteps < 0 {
			return o, fieldErr(400, "max_steps", "want a whole number ≥ 0, found %s", v)
		}
		if o.MaxSteps > s.opt.Limits.MaxSteps {
			return o, fieldErr(422, "max_steps", "%d is more than this server's limit of %d", o.MaxSteps, s.opt.Limits.MaxSteps)
		}
	}
	if v, ok := rest["box"]; ok && string(v) != "null" {
		var box []float64
		if err := json.Unmarshal(v, &box); err != nil || len(box) != 2 {
			return o, fieldErr(400, "box", "want [lo, hi], found %s", v)
		}
		if !(box[0] <= box[1]) {
			return o, fieldErr(422, "box", "[%v, %v] is empty", box[0], box[1])
		}
		o.Box = &dam.Box{Lo: box[0], Hi: box[1]}
	}
	if v, ok := rest["mask"]; ok && string(v) != "null" {
		m, err := parseMask(v, b, d)
		if err != nil {
			return o, err
		}
		o.Clamp = m
	}
	return o, nil
}

// parseMask reads a clamp mask: [v…] of D values for every query, or
// [[v…], …] of B rows, each value a boolean or a number (nonzero: true).
func parseMask(v json.RawMessage, b, d int) ([]bool, error) {
	var rows [][]any
	if json.Unmarshal(v, &rows) != nil {
		var one []any
		if err := json.Unmarshal(v, &one); err != nil {
			return nil, fieldErr(400, "mask", "want [D values] or [[D values], …] of booleans or 0/1: %v", err)
		}
		rows = [][]any{one}
	}
	if len(rows) != 1 && len(rows) != b {
		return nil, fieldErr(400, "mask", "%d rows: want one (for every query) or one per query (%d)", len(rows), b)
	}
	out := make([]bool, 0, len(rows)*d)
	for i, row := range rows {
		if len(row) != d {
			return nil, fieldErr(400, "mask", "row %d has %d values, want D = %d", i+1, len(row), d)
		}
		for j, x := range row {
			switch x := x.(type) {
			case bool:
				out = append(out, x)
			case float64:
				out = append(out, x != 0)
			default:
				return nil, fieldErr(400, "mask", "row %d, column %d: want a boolean or a number, found %v", i+1, j+1, x)
			}
		}
	}
	return out, nil
}

// recallBody reads the memory and the queries of a recall's request, and
// the rest of its JSON body (the options).
func (s *Server) recallBody(r *http.Request) (*memory, []float64, map[string]json.RawMessage, error) {
	mem, err := s.memoryOf(r)
	if err != nil {
		return nil, nil, nil, err
	}
	x, rest, err := readRows(r, "queries", mem.cfg.D, s.opt.Limits.MaxBatch)
	if err != nil {
		return nil, nil, nil, err
	}
	return mem, x, rest, nil
}

// recall descends the queries of the body (see descend); the request's
// timeout stops it with 408.
func (s *Server) recall(w http.ResponseWriter, r *http.Request) error {
	mem, x, rest, err := s.recallBody(r)
	if err != nil {
		return err
	}
	d := mem.cfg.D
	o, err := s.recallOptions(rest, len(x)/d, d)
	if err != nil {
		return err
	}
	res, err := s.descend(r, mem, x, o, nil)
	if err != nil {
		return err
	}
	out := RecallResult{X: api.RowsOf(res.X, d), Steps: res.Steps, Energy: make([]float64, len(res.Steps)), Outcome: make([]string, len(res.Steps))}
	for i, tr := range res.Energy {
		out.Energy[i] = tr[len(tr)-1]
		out.Outcome[i] = res.Outcome[i].String()
	}
	return writeJSON(w, 200, out)
}

// descend runs a descent on mem from x, calling each (if not nil) after
// every step with the descent. A DrDAM's descent runs on the model
// published when it starts, without a lock (writers publish new models
// meanwhile); an MrDAM's holds the read lock for each step, so writers
// get in between. Every step passes the compute gate, so that short
// queries (an energy) are not queued behind the steps of many descents.
func (s *Server) descend(r *http.Request, mem *memory, x []float64, o dam.RecallOptions, each func(*dam.Descent) error) (*dam.Result, error) {
	d := mem.cfg.D
	b := len(x) / d
	m, done := mem.model()
	_, published := m.(*dam.DrDAM)
	k := m.Len()
	done()
	need := evalNeed(mem.cfg, k, b, true) + dam.EstimateDescent(b, d, o.MaxSteps) + float64(b*d)*25
	if err := reserveFor(r, need, fmt.Sprintf("a descent of %d queries", b)); err != nil {
		return nil, err
	}
	if b > gateFree {
		defer dropLarge(m)
	}
	ds, err := dam.NewDescent(m, o)
	if err != nil {
		return nil, fieldErr(422, "", "%v", err)
	}
	if err := ds.Start(x); err != nil {
		// A query the model refuses (a value too large for it: dam's
		// checks of queries) is the queries'; what else Start refuses is
		// the mask's shape.
		var re *dam.RowError
		if errors.As(err, &re) {
			return nil, fieldErr(422, "queries", "%v", err)
		}
		return nil, fieldErr(400, "mask", "%v", err)
	}
	ctx := r.Context()
	for {
		if mem.closed.Load() {
			return nil, errClosed
		}
		select {
		case s.gate <- struct{}{}:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if !published {
			mem.mu.RLock()
		}
		fin, err := ds.Step()
		if !published {
			mem.mu.RUnlock()
		}
		<-s.gate
		runtime.Gosched() // let a waiting short query run before the next step
		if errors.Is(err, dam.ErrEmpty) {
			return nil, fieldErr(409, "name", "memory %q stores no patterns: there is nothing to recall", mem.name)
		}
		if err != nil {
			return nil, rowError("queries", err)
		}
		if each != nil {
			if err := each(ds); err != nil {
				return nil, err
			}
		}
		if fin {
			return ds.Result(), nil
		}
	}
}
