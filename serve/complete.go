package serve

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"

	"github.com/drdam/drdam/dam"
	"github.com/drdam/drdam/serve/api"
)

// CompleteResult is the answer of a completion (see api.CompleteResult).
type CompleteResult = api.CompleteResult

// complete completes the rows of the body, in which null (NaN in a .npy
// body) is a missing entry, by a recall's descent (descend: the budget,
// the compute gate, the time limit) with the visible entries clamped and
// the missing ones started at fill (or 0): dam.CompletionStart, so that
// the answer is dam.Complete's. The options are a recall's
// (recallOptions), but mask: the nulls are the mask.
//
// null here is a missing entry; in the patterns of an addition, and the
// queries of an energy or a recall (readRows), it is refused.
func (s *Server) complete(w http.ResponseWriter, r *http.Request) error {
	mem, err := s.memoryOf(r)
	if err != nil {
		return err
	}
	d := mem.cfg.D
	x, rest, err := readMissing(r, d, s.opt.Limits.MaxBatch)
	if err != nil {
		return err
	}
	b := len(x) / d
	if _, ok := rest["mask"]; ok {
		return fieldErr(400, "mask", "a completion takes no mask: the visible entries of its rows are clamped and the null ones completed")
	}
	o, err := s.recallOptions(rest, b, d)
	if err != nil {
		return err
	}
	fill, err := readFill(rest, d)
	if err != nil {
		return err
	}
	// The start and the mask, beside what descend reserves.
	if err := reserveFor(r, float64(b)*float64(d)*9, fmt.Sprintf("the start of a completion of %d rows", b)); err != nil {
		return err
	}
	x0, ro, err := dam.CompletionStart(x, d, dam.CompleteOptions{RecallOptions: o, Fill: fill})
	if err != nil {
		var re *dam.RowError
		if errors.As(err, &re) {
			return fieldErr(400, "rows", "row %d%s", re.Row, re.Msg)
		}
		return fieldErr(400, "rows", "%v", err)
	}
	res, err := s.descend(r, mem, x0, ro, nil)
	if err != nil {
		// descend names the queries for a row the model refuses (a
		// value too large for it); here they are the rows.
		var fe *FieldError
		if errors.As(err, &fe) && fe.Field == "queries" {
			fe.Field = "rows"
		}
		return err
	}
	out := CompleteResult{X: api.RowsOf(res.X, d), Steps: res.Steps, Energy: make([]float64, b), Outcome: make([]string, b)}
	for i, tr := range res.Energy {
		out.Energy[i] = tr[len(tr)-1]
		out.Outcome[i] = res.Outcome[i].String()
	}
	return writeJSON(w, 200, out)
}

// readMissing reads the rows of a completion: a JSON body {"rows": [[…],
// …], …} whose rows hold numbers and nulls (api.DecodeMissing: null is
// NaN), or a .npy body (application/x-npy) of a 2-D array (or 1-D: one
// row) whose NaNs are the missing entries. It returns the values
// row-major and the rest of the JSON body (nil for a .npy), and checks
// the shape as readRows does (400, 413 past maxRows), not the values:
// dam.CompletionStart does.
func readMissing(r *http.Request, d, maxRows int) ([]float64, map[string]json.RawMessage, error) {
	const field = "rows"
	body, raw, v, err := readBody(r, field, d, maxRows, false, ", null for a missing entry")
	if err != nil || raw == nil { // an error, or a .npy body
		return body, nil, err
	}
	delete(raw, field)
	x, rows, err := api.DecodeMissing(v, d)
	if err != nil {
		return nil, nil, fieldErr(400, field, "%v", err)
	}
	if err := checkRows(field, nil, rows, d, d, maxRows); err != nil {
		return nil, nil, err
	}
	return x, raw, nil
}

// readFill reads the fill of a completion, D numbers where the missing
// entries start (nil if absent or null: 0).
func readFill(rest map[string]json.RawMessage, d int) ([]float64, error) {
	v, ok := rest["fill"]
	if !ok || string(bytes.TrimSpace(v)) == "null" {
		return nil, nil
	}
	t := bytes.TrimSpace(v)
	if len(t) == 0 || t[0] != '[' || bytes.HasPrefix(bytes.TrimSpace(t[1:]), []byte("[")) {
		return nil, fieldErr(400, "fill", "want [D numbers], found %.40s", t)
	}
	fill, _, err := api.DecodeMissing(t, 0)
	if err != nil {
		return nil, fieldErr(400, "fill", "want [D = %d numbers]: %v", d, err)
	}
	if len(fill) != d {
		return nil, fieldErr(400, "fill", "%d values, want D = %d", len(fill), d)
	}
	for j, f := range fill {
		if math.IsNaN(f) {
			return nil, fieldErr(400, "fill", "column %d is null: the fill is where every missing entry starts, want a number", j+1)
		}
	}
	return fill, nil
}
