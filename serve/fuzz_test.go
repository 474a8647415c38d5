package serve

import (
	"bytes"
	"encoding/json"
	"net/http/httptest"
	"testing"

	"github.com/drdam/drdam/dam"
)

// FuzzHandlers sends any body, with any of the API's content types, to
// every route of a memory holding 2 patterns: the server never panics,
// answers a status of the API's (2xx, or an error among 400, 404, 405,
// 408, 409, 413, 415, 422) with a JSON body, an error as ErrorBody with its
// status, and never leaves the memory with a count that its writes'
// answers do not account for.
func FuzzHandlers(f *testing.F) {
	routes := []struct{ method, path string }{
		{"PUT", "/v1/memories/f"}, {"PUT", "/v1/memories/g"}, {"POST", "/v1/memories/m/patterns"}, {"POST", "/v1/memories/m/patterns:remove"},
		{"POST", "/v1/memories/m/energy"}, {"POST", "/v1/memories/m/recall"}, {"PUT", "/v1/memories/m/merge"},
	}
	types := []string{"application/json", "application/x-npy", "application/octet-stream", ""}
	for _, b := range []string{`{"d": 4}`, `{"patterns": [[0.1,0.2,0.3,0.4]]}`, `{"queries": [[0,0,0,1]], "grad": true}`,
		`{"queries": [[0,0,0,1]], "mask": [1,0,0,0], "max_steps": 3, "box": [0, 1]}`, `{"d": 4, "rep": "mrdam"}`, `{"d": 4, "y": 100, "basis": "exp"}`} {
		for r := range routes {
			f.Add(uint8(r), uint8(0), []byte(b))
		}
	}
	f.Add(uint8(2), uint8(1), npyBytes(f, 2, 4, []float64{0.1, 0.2, 0.3, 0.4, 0, 0, 0, 0.5}))
	s, err := New(Options{Dir: f.TempDir(), Limits: Limits{MaxBody: 1 << 16, MaxBatch: 16, MaxD: 64, MaxY: 2000, MaxSteps: 20}})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { s.Close() })
	h := s.Handler()
	send := func(method, path, ct string, body []byte) *httptest.ResponseRecorder {
		req := httptest.NewRequest(method, path, bytes.NewReader(body))
		if ct != "" {
			req.Header.Set("Content-Type", ct)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		return w
	}
	if w := send("PUT", "/v1/memories/m", "application/json", []byte(`{"d": 4, "y": 200, "projection": "structured"}`)); w.Code != 201 {
		f.Fatalf("create: %d %s", w.Code, w.Body)
	}
	if w := send("POST", "/v1/memories/m/patterns", "application/json", []byte(`{"patterns": [[0.1,0.2,0.3,0.4],[0.4,0.3,0.2,0.1]]}`)); w.Code != 200 {
		f.Fatalf("add: %d %s", w.Code, w.Body)
	}
	ok := map[int]bool{200: true, 201: true, 400: true, 404: true, 405: true, 408: true, 409: true, 413: true, 415: true, 422: true}
	f.Fuzz(func(t *testing.T, route, ct uint8, body []byte) {
		rt := routes[int(route)%len(routes)]
		mem := s.mem("m")
		before := mem.info()
		w := send(rt.method, rt.path, types[int(ct)%len(types)], body)
		if !ok[w.Code] {
			t.Fatalf("%s %s: status %d: %s", rt.method, rt.path, w.Code, w.Body)
		}
		if w.Code >= 400 {
			var eb ErrorBody
			if err := json.Unmarshal(w.Body.Bytes(), &eb); err != nil || eb.Error.Status != w.Code || eb.Error.Message == "" {
				t.Fatalf("%s %s: error body %q", rt.method, rt.path, w.Body)
			}
		} else if !json.Valid(w.Body.Bytes()) {
			t.Fatalf("%s %s: body %q is not JSON", rt.method, rt.path, w.Body)
		}
		after := mem.info()
		if w.Code >= 400 && (after.Count != before.Count || after.Seq != before.Seq) {
			t.Fatalf("%s %s failed with %d but changed the memory: %+v → %+v", rt.method, rt.path, w.Code, before, after)
		}
		// Keep the memory small: remove what a fuzzed write added.
		if w.Code == 200 && after.Count > 64 {
			fresh, err := dam.New(mem.cfg)
			if err != nil {
				t.Fatal(err)
			}
			mem.wmu.Lock()
			mem.mu.Lock()
			mem.m = fresh
			mem.mu.Unlock()
			mem.wmu.Unlock()
		}
	})
}
