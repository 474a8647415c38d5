package serve

import (
	"bytes"
	"encoding/json"
	"github.com/drdam/drdam/serve/api"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestBadRequests tries every kind of bad request on a server with a token
// and small limits: each is answered with a JSON error of the right
// status that names the field, and leaves the stored memory as it was
// (same count, same sequence number of writes).
func TestBadRequests(t *testing.T) {
	const token = "s3cret"
	lim := Limits{MaxBody: 1 << 16, MaxBatch: 8, MaxD: 64, MaxY: 10000, MaxSteps: 50}
	_, url := testServer(t, t.TempDir(), Options{Token: token, Limits: lim})
	auth := "Bearer " + token
	do := func(method, path, ct, body string, hdr map[string]string) (int, ErrorBody, string) {
		t.Helper()
		req, err := http.NewRequest(method, url+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		if ct != "" {
			req.Header.Set("Content-Type", ct)
		}
		req.Header.Set("Authorization", auth)
		for k, v := range hdr {
			if v == "" {
				req.Header.Del(k)
			} else {
				req.Header.Set(k, v)
			}
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		var eb ErrorBody
		json.Unmarshal(b, &eb)
		return resp.StatusCode, eb, string(b)
	}
	const j = "application/json"
	if st, _, b := do("PUT", "/v1/memories/m", j, `{"d": 4, "y": 500, "projection": "structured"}`, nil); st != 201 {
		t.Fatalf("create: %d %s", st, b)
	}
	if st, _, b := do("POST", "/v1/memories/m/patterns", j, `{"patterns": [[0.1,0.2,0.3,0.4],[0.2,0.1,0,0]]}`, nil); st != 200 {
		t.Fatalf("add: %d %s", st, b)
	}
	row := `[0.1,0.2,0.3,0.4]`
	big := `{"patterns": [` + strings.Repeat(row+",", 5000) + row + `]}`
	nine := `{"patterns": [` + strings.Repeat(row+",", 8) + row + `]}`
	var npyNaN bytes.Buffer
	npyNaN.Write(npyBytes(t, 1, 4, []float64{0.1, 0, 0, 0}))
	nan := npyNaN.Bytes()
	copy(nan[len(nan)-16:], []byte{0, 0, 0, 0, 0, 0, 0xf8, 0x7f}) // column 3: NaN
	for _, tc := range []struct {
		name, method, path, ct, body string
		hdr                          map[string]string
		status                       int
		field                        string
	}{
		{"no token", "GET", "/v1/memories", "", "", map[string]string{"Authorization": ""}, 401, "Authorization"},
		{"wrong token", "GET", "/v1/memories", "", "", map[string]string{"Authorization": "Bearer nope"}, 401, "Authorization"},
		{"token without Bearer", "GET", "/v1/memories", "", "", map[string]string{"Authorization": token}, 401, "Authorization"},
		{"unknown memory", "GET", "/v1/memories/nope", "", "", nil, 404, "name"},
		{"add to an unknown memory", "POST", "/v1/memories/nope/patterns", j, `{"patterns": [` + row + `]}`, nil, 404, "name"},
		{"name with a dot first", "PUT", "/v1/memories/.hidden", j, `{"d": 4}`, nil, 400, "name"},
		{"name too long", "PUT", "/v1/memories/" + strings.Repeat("a", 65), j, `{"d": 4}`, nil, 400, "name"},
		{"path escape", "PUT", "/v1/memories/..%2Fetc", j, `{"d": 4}`, nil, 400, "name"},
		{"unknown route", "GET", "/v2/memories", "", "", nil, 404, ""},
		{"wrong method", "PATCH", "/v1/memories/m", j, `{}`, nil, 405, ""},
		{"create: bad JSON", "PUT", "/v1/memories/n", j, `{"d": 4,`, nil, 400, ""},
		{"create: two JSON values", "PUT", "/v1/memories/n", j, `{"d": 4} {}`, nil, 400, ""},
		{"create: no d", "PUT", "/v1/memories/n", j, `{"y": 100}`, nil, 400, "d"},
		{"create: d not a number", "PUT", "/v1/memories/n", j, `{"d": "four"}`, nil, 400, "d"},
		{"create: d over the limit", "PUT", "/v1/memories/n", j, `{"d": 65}`, nil, 422, "d"},
		{"create: huge y", "PUT", "/v1/memories/n", j, `{"d": 4, "y": 1000000000}`, nil, 422, "y"},
		{"create: unknown field", "PUT", "/v1/memories/n", j, `{"d": 4, "colour": "red"}`, nil, 400, "colour"},
		{"create: unknown basis", "PUT", "/v1/memories/n", j, `{"d": 4, "basis": "sine"}`, nil, 400, "basis"},
		{"create: negative beta", "PUT", "/v1/memories/n", j, `{"d": 4, "y": 500, "beta": -1}`, nil, 422, "beta"},
		{"create: y with mrdam", "PUT", "/v1/memories/n", j, `{"d": 4, "rep": "mrdam", "y": 100}`, nil, 400, "y"},
		{"create: not JSON", "PUT", "/v1/memories/n", "text/plain", `d=4`, nil, 415, "Content-Type"},
		{"add: bad JSON", "POST", "/v1/memories/m/patterns", j, `{"patterns": [[0.1,`, nil, 400, ""},
		{"add: no patterns field", "POST", "/v1/memories/m/patterns", j, `{"rows": [` + row + `]}`, nil, 400, "patterns"},
		{"add: wrong length", "POST", "/v1/memories/m/patterns", j, `{"patterns": [[0.1,0.2,0.3]]}`, nil, 400, "patterns"},
		{"add: ragged", "POST", "/v1/memories/m/patterns", j, `{"patterns": [` + row + `,[1,2]]}`, nil, 400, "patterns"},
		{"add: strings", "POST", "/v1/memories/m/patterns", j, `{"patterns": [["a","b","c","d"]]}`, nil, 400, "patterns"},
		{"add: no rows", "POST", "/v1/memories/m/patterns", j, `{"patterns": []}`, nil, 400, "patterns"},
		{"add: too many rows", "POST", "/v1/memories/m/patterns", j, nine, nil, 413, "patterns"},
		{"add: body too large", "POST", "/v1/memories/m/patterns", j, big, nil, 413, ""},
		{"add: NaN in .npy", "POST", "/v1/memories/m/patterns", "application/x-npy", string(nan), nil, 400, "patterns"},
		{"add: a value too large", "POST", "/v1/memories/m/patterns", j, `{"patterns": [[1e300,0,0,0]]}`, nil, 422, "patterns"},
		{"add: not an .npy", "POST", "/v1/memories/m/patterns", "application/x-npy", "NUMPY?", nil, 400, "patterns"},
		{"add: wrong Content-Type", "POST", "/v1/memories/m/patterns", "text/csv", "1,2,3,4", nil, 415, "Content-Type"},
		{"remove: more than stored", "POST", "/v1/memories/m/patterns:remove", j, `{"patterns": [` + row + `,` + row + `,` + row + `]}`, nil, 422, "patterns"},
		{"energy: wrong length", "POST", "/v1/memories/m/energy", j, `{"queries": [[1,2]]}`, nil, 400, "queries"},
		{"energy: grad not a boolean", "POST", "/v1/memories/m/energy", j, `{"queries": [` + row + `], "grad": "yes"}`, nil, 400, "grad"},
		{"recall: max_steps over the limit", "POST", "/v1/memories/m/recall", j, `{"queries": [` + row + `], "max_steps": 51}`, nil, 422, "max_steps"},
		{"recall: negative step", "POST", "/v1/memories/m/recall", j, `{"queries": [` + row + `], "step": -0.1}`, nil, 422, "step"},
		{"recall: empty box", "POST", "/v1/memories/m/recall", j, `{"queries": [` + row + `], "box": [1, 0]}`, nil, 422, "box"},
		{"recall: box of three", "POST", "/v1/memories/m/recall", j, `{"queries": [` + row + `], "box": [0, 1, 2]}`, nil, 400, "box"},
		{"recall: a query too large for the model", "POST", "/v1/memories/m/recall", j, `{"queries": [[1e300, 0, 0, 0]]}`, nil, 422, "queries"},
		{"recall: mask of wrong length", "POST", "/v1/memories/m/recall", j, `{"queries": [` + row + `], "mask": [true, false]}`, nil, 400, "mask"},
		{"recall: mask rows not B", "POST", "/v1/memories/m/recall", j, `{"queries": [` + row + `,` + row + `,` + row + `], "mask": [[1,0,0,0],[1,0,0,0]]}`, nil, 400, "mask"},
		{"recall: mask of strings", "POST", "/v1/memories/m/recall", j, `{"queries": [` + row + `], "mask": ["a","b","c","d"]}`, nil, 400, "mask"},
		{"merge: not a model", "PUT", "/v1/memories/m/merge", "application/octet-stream", "not a model", nil, 400, "body"},
		{"add: null in a row", "POST", "/v1/memories/m/patterns", j, `{"patterns": [[0.1,null,0.3,0.4]]}`, nil, 400, "patterns"},
		{"add: a string in row 2", "POST", "/v1/memories/m/patterns", j, `{"patterns": [` + row + `,[0.1,0.2,"x",0.4]]}`, nil, 400, "patterns"},
		{"add: a boolean in one row", "POST", "/v1/memories/m/patterns", j, `{"patterns": [0.1,0.2,0.3,true]}`, nil, 400, "patterns"},
		{"add: patterns null", "POST", "/v1/memories/m/patterns", j, `{"patterns": null}`, nil, 400, "patterns"},
		{"add: patterns a number", "POST", "/v1/memories/m/patterns", j, `{"patterns": 3}`, nil, 400, "patterns"},
		{"energy: null in a query", "POST", "/v1/memories/m/energy", j, `{"queries": [[null,0,0,0]]}`, nil, 400, "queries"},
		{"create: beta past what a pattern can take", "PUT", "/v1/memories/n", j, `{"d": 4, "y": 500, "beta": 1e308}`, nil, 422, "beta"},
		{"create: dot beta past 1400", "PUT", "/v1/memories/n", j, `{"d": 4, "y": 500, "similarity": "dot", "beta": 2000}`, nil, 422, "beta"},
		{"add: Idempotency-Key with a space", "POST", "/v1/memories/m/patterns", j, `{"patterns": [` + row + `]}`, map[string]string{"Idempotency-Key": "a b"}, 400, "Idempotency-Key"},
		{"remove: a row never added", "POST", "/v1/memories/m/patterns:remove", j, `{"patterns": [[0.3,0.3,0.3,0.3]]}`, nil, 409, "patterns"},
		{"remove: force not a boolean", "POST", "/v1/memories/m/patterns:remove?force=yes", j, `{"patterns": [` + row + `]}`, nil, 400, "force"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, eb, raw := do(tc.method, tc.path, tc.ct, tc.body, tc.hdr)
			if st != tc.status {
				t.Errorf("status %d, want %d: %s", st, tc.status, raw)
			}
			if eb.Error.Status != st || eb.Error.Message == "" || eb.Error.Field != tc.field {
				t.Errorf("error body %s: want status %d, field %q and a message", raw, st, tc.field)
			}
			if want, ok := wantMessage[tc.name]; ok && !strings.Contains(eb.Error.Message, want) {
				t.Errorf("message %q, want it to say %q", eb.Error.Message, want)
			}
		})
	}
	st, _, b := do("GET", "/v1/memories/m", "", "", nil)
	var info MemoryInfo
	json.Unmarshal([]byte(b), &info)
	if st != 200 || info.Count != 2 || info.Seq != 1 {
		t.Errorf("after the bad requests: %s; want the 2 patterns of the one write", b)
	}
}

// wantMessage is what some of TestBadRequests' errors must say.
var wantMessage = map[string]string{
	"add: null in a row":                        "row 1, column 2: want a number, found null",
	"add: a string in row 2":                    `row 2, column 3: want a number, found "x"`,
	"add: a boolean in one row":                 "row 1, column 4: want a number, found true",
	"energy: null in a query":                   "row 1, column 1: want a number, found null",
	"create: beta past what a pattern can take": "the largest β at which this memory could store a pattern of unit norm",
	"create: dot beta past 1400":                "exp(700)",
	"remove: a row never added":                 "row 1 was never added",
}

// TestTimeout: a recall that runs past the server's time limit is stopped
// between two steps and answered 408, and the memory is unchanged.
func TestTimeout(t *testing.T) {
	_, url := testServer(t, t.TempDir(), Options{Limits: Limits{Timeout: 50 * time.Millisecond}})
	const d = 64
	call(t, "PUT", url+"/v1/memories/m", map[string]any{"d": d, "y": 20000}, nil)
	call(t, "POST", url+"/v1/memories/m/patterns", map[string]any{"patterns": api.RowsOf(patterns(8, d, 1), d)}, nil)
	t0 := time.Now()
	st, b := call(t, "POST", url+"/v1/memories/m/recall", map[string]any{"queries": api.RowsOf(patterns(8, d, 2), d), "max_steps": 10000, "tol": 0}, nil)
	var eb ErrorBody
	json.Unmarshal(b, &eb)
	if st != 408 || eb.Error.Status != 408 {
		t.Errorf("a long recall: %d %s, want 408", st, b)
	}
	if el := time.Since(t0); el > 5*time.Second {
		t.Errorf("answered after %v: the limit is 50 ms", el)
	}
}
