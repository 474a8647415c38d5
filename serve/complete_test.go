package serve

import (
	"bytes"
	"encoding/json"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/drdam/drdam/dam"
	"github.com/drdam/drdam/serve/api"
)

// TestComplete: stored patterns of an MrDAM at β = 1000, with half their
// entries null, come back from POST …/complete equal to the stored
// patterns within 1e-9, their visible entries bit for bit, and equal bit
// for bit to dam.Complete on a model built offline from the same patterns
// (the same arithmetic); a .npy body with NaNs answers the same.
//
// Why 1e-9: for the L2 energy of an MrDAM the missing entries' fixed point
// is Σ_μ p_μ ξ_μ, with p the softmax of −β/2 ‖x − ξ_μ‖². Once x is near
// pattern ν, every other weight is at most exp(−β δ²/2), δ² its squared
// distance to ν on the visible entries alone (checked below to make that
// below 1e-11, so that the K−1 others move an entry, by at most 1/√D
// each, less than 1e-11); and with step 0.5 the distance to the fixed point halves
// each step (the Hessian is I − β·Cov_p(ξ) ≈ I there), so 200 steps leave
// 2⁻²⁰⁰ of it. 1e-9 is far above both, and far below the 0.01 by which a
// wrong pattern would miss.
func TestComplete(t *testing.T) {
	const d, k, beta = 16, 4, 1000
	_, url := testServer(t, t.TempDir(), Options{})
	// Gray patterns in [0, 1/√D)^D, drawn independently (patterns'
	// values are too alike for this β), of a seed that draws them far
	// enough apart (checked below).
	rnd := rand.New(rand.NewPCG(4, 1))
	xi := make([]float64, k*d)
	for j := range xi {
		xi[j] = rnd.Float64() / math.Sqrt(d)
	}
	if st, b := call(t, "PUT", url+"/v1/memories/m", map[string]any{"d": d, "rep": "mrdam", "beta": beta}, nil); st != 201 {
		t.Fatalf("create: %d %s", st, b)
	}
	if st, b := call(t, "POST", url+"/v1/memories/m/patterns", map[string]any{"patterns": api.RowsOf(xi, d)}, nil); st != 200 {
		t.Fatalf("add: %d %s", st, b)
	}
	miss := func(q, i int) bool { return (i+q)%2 == 0 }
	x := slices.Clone(xi)
	for j := range x {
		if miss(j/d, j%d) {
			x[j] = math.NaN()
		}
	}
	for q := range k {
		for o := range k {
			if o == q {
				continue
			}
			var dd float64
			for i := range d {
				if !miss(q, i) {
					dd += (xi[q*d+i] - xi[o*d+i]) * (xi[q*d+i] - xi[o*d+i])
				}
			}
			if w := math.Exp(-beta * dd / 2); w > 1e-11 {
				t.Fatalf("patterns %d and %d are %.3g apart on %d's visible entries: a weight of %.3g, too close for this test", q+1, o+1, dd, q+1, w)
			}
		}
	}
	// The columns' means as the fill: the start a user would take.
	fill := make([]float64, d)
	for j, v := range xi {
		fill[j%d] += v / k
	}
	opt := dam.CompleteOptions{RecallOptions: dam.RecallOptions{Step: 0.5, MaxSteps: 200}, Fill: fill}
	offline, err := dam.NewMrDAM(dam.Config{D: d, Beta: beta, Rep: dam.RepMrDAM})
	if err != nil {
		t.Fatal(err)
	}
	if err := offline.Add(xi); err != nil {
		t.Fatal(err)
	}
	want, err := dam.Complete(offline, x, opt)
	if err != nil {
		t.Fatal(err)
	}

	var got CompleteResult
	req := api.CompleteRequest{Rows: api.MissingRows(api.RowsOf(x, d)), Fill: fill, Step: 0.5, MaxSteps: 200, Tol: api.Float(0)} // every step, as opt
	if st, b := call(t, "POST", url+"/v1/memories/m/complete", req, &got); st != 200 {
		t.Fatalf("complete: %d %s", st, b)
	}
	if len(got.X) != k || len(got.Steps) != k || len(got.Energy) != k || len(got.Outcome) != k {
		t.Fatalf("answer of %d rows, %d steps, %d energies, %d outcomes; want %d each", len(got.X), len(got.Steps), len(got.Energy), len(got.Outcome), k)
	}
	for q, row := range got.X {
		for i, v := range row {
			j := q*d + i
			if math.Float64bits(v) != math.Float64bits(want.X[j]) {
				t.Errorf("row %d, column %d: %v, dam.Complete's %v", q+1, i+1, v, want.X[j])
			}
			if !miss(q, i) && math.Float64bits(v) != math.Float64bits(xi[j]) {
				t.Errorf("row %d, column %d: visible %v came back %v", q+1, i+1, xi[j], v)
			}
			if math.Abs(v-xi[j]) > 1e-9 {
				t.Errorf("row %d, column %d: completed to %v, stored %v", q+1, i+1, v, xi[j])
			}
		}
		tr := want.Energy[q]
		if got.Steps[q] != want.Steps[q] || got.Energy[q] != tr[len(tr)-1] || got.Outcome[q] != want.Outcome[q].String() {
			t.Errorf("row %d: %d steps, energy %v, %s; dam.Complete's %d, %v, %v", q+1, got.Steps[q], got.Energy[q], got.Outcome[q], want.Steps[q], tr[len(tr)-1], want.Outcome[q])
		}
	}

	// A .npy body with NaNs takes the default options (step 0.1, 300
	// steps, dam.DefaultTol): the answer is dam.Complete's with them.
	def, err := dam.Complete(offline, x, dam.CompleteOptions{RecallOptions: dam.RecallOptions{Step: 0.1, MaxSteps: 300, Tol: dam.DefaultTol}})
	if err != nil {
		t.Fatal(err)
	}
	var npyAns CompleteResult
	if st, b := call(t, "POST", url+"/v1/memories/m/complete", npyBytes(t, k, d, x), &npyAns); st != 200 {
		t.Fatalf("complete, .npy: %d %s", st, b)
	}
	for q, row := range npyAns.X {
		for i, v := range row {
			if math.Float64bits(v) != math.Float64bits(def.X[q*d+i]) {
				t.Fatalf(".npy: row %d, column %d: %v, dam.Complete's %v", q+1, i+1, v, def.X[q*d+i])
			}
		}
	}
}

// TestCompleteBad: every bad completion is answered with its status and
// field, and names the row and column where there is one.
func TestCompleteBad(t *testing.T) {
	lim := Limits{MaxBatch: 8, MaxSteps: 50}
	_, url := testServer(t, t.TempDir(), Options{Limits: lim})
	call(t, "PUT", url+"/v1/memories/m", map[string]any{"d": 4, "rep": "mrdam", "beta": 10}, nil)
	call(t, "PUT", url+"/v1/memories/empty", map[string]any{"d": 4, "rep": "mrdam"}, nil)
	call(t, "POST", url+"/v1/memories/m/patterns", map[string]any{"patterns": [][]float64{{0.1, 0.2, 0.3, 0.4}, {0.2, 0.1, 0, 0}}}, nil)
	row := `[0.1,null,0.3,0.4]`
	nine := `{"rows": [` + strings.Repeat(row+",", 8) + row + `]}`
	inf := npyBytes(t, 1, 4, []float64{0.1, math.Inf(1), math.NaN(), 0})
	for _, tc := range []struct {
		name, path, ct, body string
		status               int
		field, says          string
	}{
		{"a string", "m", "", `{"rows": [` + row + `,[0.1,0.2,"x",null]]}`, 400, "rows", `row 2, column 3: want a number, or null for a missing entry, found "x"`},
		{"a boolean", "m", "", `{"rows": [[true,null,0,0]]}`, 400, "rows", "row 1, column 1: want a number, or null for a missing entry, found true"},
		{"an array in a row", "m", "", `{"rows": [[0,[1],0,0]]}`, 400, "rows", "row 1, column 2"},
		{"a number out of range", "m", "", `{"rows": [[0,1e400,0,null]]}`, 400, "rows", "row 1, column 2: 1e400 is out of a float64's range"},
		{"wrong length", "m", "", `{"rows": [` + row + `,[0.1,null]]}`, 400, "rows", "row 2 has 2 values, want D = 4"},
		{"no rows", "m", "", `{"rows": []}`, 400, "rows", "no rows"},
		{"no rows field", "m", "", `{"queries": [` + row + `]}`, 400, "rows", "missing"},
		{"rows null", "m", "", `{"rows": null}`, 400, "rows", ""},
		{"too many rows", "m", "", nine, 413, "rows", "9 rows"},
		{"max_steps over the limit", "m", "", `{"rows": [` + row + `], "max_steps": 51}`, 422, "max_steps", "limit of 50"},
		{"negative step", "m", "", `{"rows": [` + row + `], "step": -1}`, 422, "step", ""},
		{"empty box", "m", "", `{"rows": [` + row + `], "box": [1, 0]}`, 422, "box", ""},
		{"a mask", "m", "", `{"rows": [` + row + `], "mask": [true,false,true,true]}`, 400, "mask", "takes no mask"},
		{"fill of wrong length", "m", "", `{"rows": [` + row + `], "fill": [0, 0]}`, 400, "fill", "2 values, want D = 4"},
		{"fill with null", "m", "", `{"rows": [` + row + `], "fill": [0, null, 0, 0]}`, 400, "fill", "column 2 is null"},
		{"fill of rows", "m", "", `{"rows": [` + row + `], "fill": [[0, 0, 0, 0]]}`, 400, "fill", ""},
		{"fill a string", "m", "", `{"rows": [` + row + `], "fill": "mean"}`, 400, "fill", ""},
		{"a value too large", "m", "", `{"rows": [[1e300,null,0,0]]}`, 422, "rows", "row 1"},
		{"Inf in a .npy", "m", "application/x-npy", string(inf), 400, "rows", "row 1, column 2 is +Inf"},
		{".npy of wrong width", "m", "application/x-npy", string(npyBytes(t, 1, 3, []float64{0, 0, math.NaN()})), 400, "rows", "want D = 4"},
		{"unknown memory", "nope", "", `{"rows": [` + row + `]}`, 404, "name", ""},
		{"empty memory", "empty", "", `{"rows": [` + row + `]}`, 409, "name", "stores no patterns"},
		{"wrong Content-Type", "m", "text/csv", "0.1,,0.3,0.4", 415, "Content-Type", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ct := tc.ct
			if ct == "" {
				ct = "application/json"
			}
			resp, err := http.Post(url+"/v1/memories/"+tc.path+"/complete", ct, strings.NewReader(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			var eb ErrorBody
			json.Unmarshal(b, &eb)
			if resp.StatusCode != tc.status || eb.Error.Status != tc.status || eb.Error.Field != tc.field || eb.Error.Message == "" {
				t.Errorf("%d %s; want %d, field %q and a message", resp.StatusCode, b, tc.status, tc.field)
			}
			if !strings.Contains(eb.Error.Message, tc.says) {
				t.Errorf("message %q, want it to say %q", eb.Error.Message, tc.says)
			}
		})
	}
	// One row without the outer brackets, and a row with nothing visible
	// (it descends from the fill), are completions.
	var out CompleteResult
	if st, b := call(t, "POST", url+"/v1/memories/m/complete", `{"rows": [null,null,null,null], "fill": [0.1,0.1,0.1,0.1], "max_steps": 5}`, &out); st != 200 || len(out.X) != 1 || out.Steps[0] != 5 {
		t.Errorf("one row, nothing visible: %d %s", st, b)
	}
}

// TestCompleteBudget: a completion whose descent would not fit in the
// budget is 507 and leaves it as it found it, and a small one passes.
func TestCompleteBudget(t *testing.T) {
	cfg := dam.Config{D: 64, Y: 20000, Beta: 10}
	one := footprint(cfg, 0)
	s, url := testServer(t, t.TempDir(), Options{MaxMemory: one + one/2})
	call(t, "PUT", url+"/v1/memories/m", map[string]any{"d": 64, "y": 20000}, nil)
	call(t, "POST", url+"/v1/memories/m/patterns", map[string]any{"patterns": api.RowsOf(patterns(2, 64, 1), 64)}, nil)
	before := s.budget.inUse()
	x := patterns(4096, 64, 2)
	for i := 0; i < len(x); i += 3 {
		x[i] = math.NaN()
	}
	st, b := call(t, "POST", url+"/v1/memories/m/complete", npyBytes(t, 4096, 64, x), nil)
	if st != 507 || !strings.Contains(errorOf(t, b).Message, "memory budget") || !strings.Contains(errorOf(t, b).Message, "completion of 4096 rows") {
		t.Errorf("a large completion past the budget: %d %.300s", st, b)
	}
	if st, b := call(t, "POST", url+"/v1/memories/m/complete", api.CompleteRequest{Rows: api.MissingRows(api.RowsOf(x[:2*64], 64)), MaxSteps: 3}, nil); st != 200 {
		t.Errorf("a small completion: %d %s", st, b)
	}
	if used := s.budget.inUse(); used != before {
		t.Errorf("in use %d after the requests, %d before: a request's reservation was not given back", used, before)
	}
}

// TestCompleteOpenAPI: the route is in the OpenAPI document, with its
// fields.
func TestCompleteOpenAPI(t *testing.T) {
	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	var post struct {
		RequestBody struct {
			Content map[string]struct {
				Schema struct {
					Properties map[string]any `json:"properties"`
				} `json:"schema"`
			} `json:"content"`
		} `json:"requestBody"`
	}
	if err := json.Unmarshal(openAPI, &doc); err != nil {
		t.Fatal(err)
	}
	raw, ok := doc.Paths["/v1/memories/{name}/complete"]["post"]
	if !ok {
		t.Fatal("no POST /v1/memories/{name}/complete in openapi.json")
	}
	if err := json.Unmarshal(raw, &post); err != nil {
		t.Fatal(err)
	}
	props := post.RequestBody.Content["application/json"].Schema.Properties
	for _, f := range []string{"rows", "fill", "step", "max_steps", "tol", "box"} {
		if _, ok := props[f]; !ok {
			t.Errorf("openapi.json: /complete has no field %q", f)
		}
	}
	if _, ok := post.RequestBody.Content["application/x-npy"]; !ok {
		t.Error("openapi.json: /complete takes no .npy body")
	}
}

// FuzzComplete sends any body, as JSON or .npy, to POST …/complete on a
// memory of 2 patterns: the server never panics, answers 200 with the
// rows' visible entries as sent, or an error of the API's (400, 409, 413,
// 415, 422) as an ErrorBody with its status.
func FuzzComplete(f *testing.F) {
	for _, b := range []string{`{"rows": [[0.1,null,0.3,null]]}`, `{"rows": [null,null,null,null], "fill": [0,0,0,0.5]}`,
		`{"rows": [[0.1,null,"a",0]], "max_steps": 3}`, `{"rows": [[1e400,null,0,0]]}`, `{"rows": [[0,0,0,0],[null]]}`,
		`{"rows": [[0.1,null,0,0]], "box": [0, 1], "tol": 1e-6, "step": 0.5}`} {
		f.Add(false, []byte(b))
	}
	f.Add(true, npyBytes(f, 2, 4, []float64{0.1, math.NaN(), 0.3, 0.4, math.NaN(), 0, math.NaN(), 0.5}))
	s, err := New(Options{Dir: f.TempDir(), Limits: Limits{MaxBody: 1 << 16, MaxBatch: 16, MaxSteps: 20}})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { s.Close() })
	h := s.Handler()
	send := func(path, ct string, body []byte) *httptest.ResponseRecorder {
		req := httptest.NewRequest("POST", path, bytes.NewReader(body))
		req.Header.Set("Content-Type", ct)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		return w
	}
	req := httptest.NewRequest("PUT", "/v1/memories/m", strings.NewReader(`{"d": 4, "y": 200, "projection": "structured"}`))
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	if w.Code != 201 {
		f.Fatalf("create: %d %s", w.Code, w.Body)
	}
	if w := send("/v1/memories/m/patterns", "application/json", []byte(`{"patterns": [[0.1,0.2,0.3,0.4],[0.4,0.3,0.2,0.1]]}`)); w.Code != 200 {
		f.Fatalf("add: %d %s", w.Code, w.Body)
	}
	ok := map[int]bool{200: true, 400: true, 409: true, 413: true, 415: true, 422: true}
	f.Fuzz(func(t *testing.T, isNpy bool, body []byte) {
		ct := "application/json"
		if isNpy {
			ct = "application/x-npy"
		}
		w := send("/v1/memories/m/complete", ct, body)
		if !ok[w.Code] {
			t.Fatalf("status %d: %s", w.Code, w.Body)
		}
		if w.Code >= 400 {
			var eb ErrorBody
			if err := json.Unmarshal(w.Body.Bytes(), &eb); err != nil || eb.Error.Status != w.Code || eb.Error.Message == "" {
				t.Fatalf("error body %q", w.Body)
			}
			return
		}
		var out CompleteResult
		if err := json.Unmarshal(w.Body.Bytes(), &out); err != nil || len(out.X) == 0 || len(out.Steps) != len(out.X) {
			t.Fatalf("answer %q: %v", w.Body, err)
		}
	})
}
