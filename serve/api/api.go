// Package api holds the JSON types of drdam serve's HTTP API (package
// serve), for the server and for clients, which import this package
// alone and none of the server's dependencies.
package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
)

// Config is the configuration of a memory: the fields of dam.Config's
// codec (dam.Fields, which drdam encode's flags also are, with "-" for
// "_"), with their names and defaults, but max_memory (the server's). PUT /v1/memories/{name} takes it; GET
// returns it, with the DrDAM-only fields left out of an MrDAM's.
type Config struct {
	Rep        string  `json:"rep,omitempty"`        // drdam (default) or mrdam
	D          int     `json:"d"`                    // dimension of the patterns (required)
	Beta       float64 `json:"beta,omitempty"`       // inverse temperature β > 0 (default 10)
	Similarity string  `json:"similarity,omitempty"` // l2 (default) or dot
	Basis      string  `json:"basis,omitempty"`      // DrDAM: sincos (default), cos, exp, expexp
	Projection string  `json:"projection,omitempty"` // DrDAM: gaussian (default), orthogonal, structured
	Y          int     `json:"y,omitempty"`          // DrDAM: random projections (default 20000)
	Seed       uint64  `json:"seed,omitempty"`       // DrDAM: of the projection (default 0)
	Generator  int     `json:"generator,omitempty"`  // DrDAM: of a dense projection's Gaussians (default 2)
	NoBias     bool    `json:"no_bias,omitempty"`    // DrDAM: no random shift in cos/sin
	Eps        float64 `json:"eps,omitempty"`        // DrDAM: clip floor ε (0: the basis default)
	OnDemand   bool    `json:"on_demand,omitempty"`  // DrDAM: regenerate a Gaussian projection's rows
	Precision  string  `json:"precision,omitempty"`  // float64 (default) or float32
}

// MemoryInfo is what GET /v1/memories/{name} returns, and a row of GET
// /v1/memories ({"memories": [...]}).
type MemoryInfo struct {
	Name   string `json:"name"`
	Config Config `json:"config"`
	Count  int    `json:"count"` // patterns stored (closed: as of when it was last open; −1 if not since the server started)
	Bytes  int64  `json:"bytes"` // of the stored state: T (8·F), or the patterns (8·K·D)
	Seq    uint64 `json:"seq"`   // writes logged since the memory was created (0 while closed)
	// Status is "ready" (open), "closed" (on disk, opened when a request
	// names it: --max-open, or the memory budget) or "damaged" (a file is
	// corrupt: the memory answers 503; Error says which and what to do).
	Status string `json:"status"`
	Error  string `json:"error,omitempty"`
}

// Rows is a batch of patterns or queries: rows of D numbers.
type Rows [][]float64

// RowsOf returns the rows of d values of the row-major x (a view: the
// rows share x's values).
func RowsOf(x []float64, d int) Rows {
	out := make(Rows, len(x)/d)
	for i := range out {
		out[i] = x[i*d : (i+1)*d]
	}
	return out
}

// Patterns is the body of POST …/patterns and …/patterns:remove (or a
// .npy body with Content-Type application/x-npy).
type Patterns struct {
	Patterns Rows `json:"patterns"`
}

// Written is the answer to an addition ({"added": n, "count": k}), a
// removal ({"removed": n, …}) or a merge ({"merged": n, …}), sent once the
// write is in the memory's synced log.
type Written struct {
	Added   int `json:"added,omitempty"`
	Removed int `json:"removed,omitempty"`
	Merged  int `json:"merged,omitempty"`
	Count   int `json:"count"`
}

// EnergyRequest is the body of POST …/energy.
type EnergyRequest struct {
	Queries Rows `json:"queries"`
	Grad    bool `json:"grad,omitempty"`
}

// EnergyResult is its answer: an energy per query, and the gradients if
// asked.
type EnergyResult struct {
	Energy []float64 `json:"energy"`
	Grad   Rows      `json:"grad,omitempty"`
}

// RecallRequest is the body of POST …/recall. Mask, if given, is one row
// of D booleans (or 0/1) for every query, or a row per query: true
// coordinates are clamped. Zero values take the defaults: step 0.1,
// max_steps 300, no box; a nil Tol takes 1e-6 (dam.DefaultTol), a Tol of
// 0 (Float(0)) runs every step.
type RecallRequest struct {
	Queries  Rows        `json:"queries"`
	Mask     any         `json:"mask,omitempty"`
	Step     float64     `json:"step,omitempty"`
	MaxSteps int         `json:"max_steps,omitempty"`
	Tol      *float64    `json:"tol,omitempty"`
	Box      *[2]float64 `json:"box,omitempty"`
}

// Limits is the answer of GET /v1/limits: what one request may ask of
// this server, so that a client can split a large batch before sending it.
type Limits struct {
	MaxBody        int64   `json:"max_body"`        // bytes of a request body (413 above)
	MaxBatch       int     `json:"max_batch"`       // rows of patterns, queries or rows to complete (413 above)
	MaxD           int     `json:"max_d"`           // dimension of a memory (422 above)
	MaxY           int     `json:"max_y"`           // Y of a DrDAM (422 above)
	MaxSteps       int     `json:"max_steps"`       // max_steps of a recall or completion (422 above)
	TimeoutSeconds float64 `json:"timeout_seconds"` // of a request's computation (408 after)
	MaxMemory      int64   `json:"max_memory"`      // the server's memory budget in bytes (507 above)
}

// Float returns a pointer to v, for the optional numbers of a request
// (Tol: Float(1e-9)).
func Float(v float64) *float64 { return &v }

// RecallResult is its answer: the final states, the steps each query
// took, its final energy and how its descent ended (converged, max-steps
// or stalled).
type RecallResult struct {
	X       Rows      `json:"x"`
	Steps   []int     `json:"steps"`
	Energy  []float64 `json:"energy"`
	Outcome []string  `json:"outcome"`
}

// CompleteRequest is the body of POST …/complete: rows in which null
// (NaN in Go) is a missing entry, to be completed by energy descent with
// the visible entries clamped. Fill, if given, is where the missing
// entries start (D numbers; default 0); step, max_steps, tol and box are
// a recall's, with its defaults (RecallRequest). (In the patterns of an
// addition, and the queries of an energy or a recall, null is refused:
// there it is a mistake, here it is the point.)
type CompleteRequest struct {
	Rows     MissingRows `json:"rows"`
	Fill     []float64   `json:"fill,omitempty"`
	Step     float64     `json:"step,omitempty"`
	MaxSteps int         `json:"max_steps,omitempty"`
	Tol      *float64    `json:"tol,omitempty"`
	Box      *[2]float64 `json:"box,omitempty"`
}

// CompleteResult is its answer, a recall's (RecallResult): the completed
// rows (their visible entries as sent, bit for bit), the steps each row
// took, its final energy and how its descent ended.
type CompleteResult struct {
	X       Rows      `json:"x"`
	Steps   []int     `json:"steps"`
	Energy  []float64 `json:"energy"`
	Outcome []string  `json:"outcome"`
}

// MissingRows are rows of numbers in which NaN is a missing entry: JSON
// writes it null, and reads null as NaN (a number is read as
// encoding/json reads it; a string, a boolean, an object or an array in
// a row is an error naming its row and column, from 1). One row written
// without the outer brackets, [v, …], is read as one row. ±Inf has no
// JSON: writing it is an error naming its row and column.
type MissingRows [][]float64

// MarshalJSON writes the rows, NaN as null.
func (m MissingRows) MarshalJSON() ([]byte, error) {
	n := 2
	for _, r := range m {
		n += 2 + 20*len(r)
	}
	b := make([]byte, 0, n)
	b = append(b, '[')
	for i, r := range m {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '[')
		for j, v := range r {
			if j > 0 {
				b = append(b, ',')
			}
			switch {
			case math.IsNaN(v):
				b = append(b, "null"...)
			case math.IsInf(v, 0):
				return nil, fmt.Errorf("row %d, column %d: %v has no JSON (a missing entry is NaN)", i+1, j+1, v)
			default:
				// encoding/json's form: exponents for the very small and
				// the very large, the shortest digits that read back.
				f := byte('f')
				if a := math.Abs(v); a != 0 && (a < 1e-6 || a >= 1e21) {
					f = 'e'
				}
				b = strconv.AppendFloat(b, v, f, -1, 64)
			}
		}
		b = append(b, ']')
	}
	return append(b, ']'), nil
}

// UnmarshalJSON reads the rows, null as NaN (see MissingRows); rows of
// different lengths are an error naming the first that differs from the
// first row.
func (m *MissingRows) UnmarshalJSON(b []byte) error {
	if string(bytes.TrimSpace(b)) == "null" {
		*m = nil
		return nil
	}
	x, rows, err := DecodeMissing(b, 0)
	if err != nil {
		return err
	}
	if rows == 0 {
		*m = MissingRows{}
		return nil
	}
	*m = MissingRows(RowsOf(x, len(x)/rows))
	return nil
}

// DecodeMissing reads a JSON array of rows of numbers and nulls (see
// MissingRows), or one row, and returns its values row-major, null as
// NaN, and the number of rows. Every row must have d values (d = 0: as
// many as the first). Its errors name the row and column, from 1.
func DecodeMissing(b []byte, d int) (x []float64, rows int, err error) {
	t := bytes.TrimSpace(b)
	if len(t) == 0 || t[0] != '[' {
		return nil, 0, fmt.Errorf("want [[…], …], rows of numbers or null, found %.40s", t)
	}
	if in := bytes.TrimSpace(t[1:]); len(in) > 0 && in[0] != '[' && in[0] != ']' {
		t = append(append([]byte{'['}, t...), ']') // one row
	}
	var cells [][]cell
	if err := json.Unmarshal(t, &cells); err != nil {
		return nil, 0, locate(t, err)
	}
	if len(cells) == 0 {
		return nil, 0, nil
	}
	if d == 0 {
		d = len(cells[0])
	}
	for i, r := range cells {
		if len(r) != d {
			return nil, 0, fmt.Errorf("row %d has %d values, want D = %d", i+1, len(r), d)
		}
	}
	x = make([]float64, 0, len(cells)*d)
	for _, r := range cells {
		for _, v := range r {
			x = append(x, float64(v))
		}
	}
	return x, len(cells), nil
}

// locate names the row and column of the value that made reading rows of
// cells fail with err (a value that is not a number or null), or returns
// err as it is if no value is to blame.
func locate(t []byte, err error) error {
	var raw [][]json.RawMessage
	if json.Unmarshal(t, &raw) != nil {
		return fmt.Errorf("want [[…], …], rows of numbers or null: %w", err)
	}
	for i, r := range raw {
		for j, v := range r {
			var c cell
			if cerr := c.UnmarshalJSON(v); cerr != nil {
				return fmt.Errorf("row %d, column %d: %w", i+1, j+1, cerr)
			}
		}
	}
	return err
}

// cell is one entry of MissingRows: a number, or null (NaN).
type cell float64

// errCell is the error of a value of a row that is neither a number nor
// null.
var errCell = errors.New("want a number, or null for a missing entry")

func (c *cell) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*c = cell(math.NaN())
		return nil
	}
	if len(b) > 0 && (b[0] == '-' || '0' <= b[0] && b[0] <= '9') {
		f, err := strconv.ParseFloat(string(b), 64)
		if err != nil {
			return fmt.Errorf("%s is out of a float64's range", b)
		}
		*c = cell(f)
		return nil
	}
	if len(b) > 40 {
		b = append(b[:40:40], "…"...)
	}
	return fmt.Errorf("%w, found %s", errCell, b)
}

// Snapshot is the answer to POST …/snapshot: the model file written (on
// the server's disk) and the patterns it holds.
type Snapshot struct {
	File  string `json:"file"`
	Count int    `json:"count"`
}

// ErrorBody is the JSON body of every error: {"error": {"status": 400,
// "field": "queries", "message": "row 2, column 5: NaN"}}.
type ErrorBody struct {
	Error ErrorDetail `json:"error"`
}

// ErrorDetail is what an error says: its HTTP status, the field of the
// request it is about (if one), and a message.
type ErrorDetail struct {
	Status  int    `json:"status"`
	Field   string `json:"field,omitempty"`
	Message string `json:"message"`
}
