package client_test

import (
	"bytes"
	"context"
	"errors"
	"math"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/drdam/drdam/client"
	"github.com/drdam/drdam/dam"
	"github.com/drdam/drdam/features"
	"github.com/drdam/drdam/serve"
	"github.com/drdam/drdam/serve/api"
)

// startServer starts a server on a fresh folder behind an httptest server
// (loopback) and returns its URL; both are closed with the test.
func startServer(t testing.TB, opt serve.Options) string {
	t.Helper()
	opt.Dir = t.TempDir()
	s, err := serve.New(opt)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s.Handler())
	t.Cleanup(func() { hs.Close(); s.Close() })
	return hs.URL
}

const d = 16

// cfg is the configuration of the tests' memories, and ref builds the
// same model offline.
var cfg = api.Config{D: d, Beta: 30, Y: 4000, Projection: "structured", Seed: 7}

func ref(t testing.TB) dam.Memory {
	t.Helper()
	m, err := dam.New(dam.Config{D: d, Beta: 30, Y: 4000, Projection: features.Structured, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// patterns returns k patterns of dimension d, row-major, in [0, 1/√d).
func patterns(k int, seed int) []float64 {
	x := make([]float64, k*d)
	for i := range x {
		x[i] = float64((i*7919+seed*104729)%1000) / 1000 / math.Sqrt(d)
	}
	return x
}

// rows splits x into rows of d values.
func rows(x []float64) [][]float64 { return api.RowsOf(x, d) }

func flat(r [][]float64) []float64 {
	var out []float64
	for _, row := range r {
		out = append(out, row...)
	}
	return out
}

// relDiff returns max|a−b| / max|b|.
func relDiff(a, b []float64) float64 {
	if len(a) != len(b) {
		return math.Inf(1)
	}
	var diff, scale float64
	for i := range a {
		diff, scale = max(diff, math.Abs(a[i]-b[i])), max(scale, math.Abs(b[i]))
	}
	return diff / scale
}

// TestClient calls every method once against a live server: health,
// create (created, then alike), list, get, add by JSON and by .npy,
// energies and gradients equal to a model built offline (relative
// 1e-12), a masked recall equal to the library's, remove by JSON and by
// .npy, snapshot (a file that loads), download (a model of the same
// energies), merge (the count doubles), metrics and delete.
func TestClient(t *testing.T) {
	ctx := context.Background()
	c := client.New(startServer(t, serve.Options{}) + "/")
	if h, err := c.Health(ctx); err != nil || h.Status != "ok" || h.Memories != 0 {
		t.Fatalf("Health: %+v, %v", h, err)
	}
	info, created, err := c.Create(ctx, "letters", cfg)
	if err != nil || !created || info.Name != "letters" || info.Config.Y != 4000 || info.Config.Basis != "sincos" || info.Count != 0 {
		t.Fatalf("Create: %+v %v %v", info, created, err)
	}
	if _, created, err := c.Create(ctx, "letters", cfg); err != nil || created {
		t.Errorf("Create again alike: created %v, %v; want false, nil", created, err)
	}
	x := patterns(40, 1)
	if w, err := c.Add(ctx, "letters", rows(x[:20*d])); err != nil || w.Added != 20 || w.Count != 20 {
		t.Fatalf("Add: %+v, %v", w, err)
	}
	if w, err := c.AddFlat(ctx, "letters", x[20*d:], d); err != nil || w.Added != 20 || w.Count != 40 {
		t.Fatalf("AddFlat: %+v, %v", w, err)
	}
	m := ref(t)
	m.Add(x)
	if list, err := c.List(ctx); err != nil || len(list) != 1 || list[0].Name != "letters" || list[0].Count != 40 {
		t.Errorf("List: %+v, %v", list, err)
	}
	if info, err := c.Get(ctx, "letters"); err != nil || info.Count != 40 || info.Config.D != d || info.Seq != 2 {
		t.Errorf("Get: %+v, %v", info, err)
	}

	q := patterns(3, 9)
	en, err := c.Energy(ctx, "letters", rows(q), true)
	if err != nil {
		t.Fatal(err)
	}
	e, g := make([]float64, 3), make([]float64, 3*d)
	if err := m.EnergyGrad(e, g, q); err != nil {
		t.Fatal(err)
	}
	if relDiff(en.Energy, e) > 1e-12 || relDiff(flat(en.Grad), g) > 1e-12 {
		t.Errorf("Energy: %v, offline %v (gradients off by %g)", en.Energy, e, relDiff(flat(en.Grad), g))
	}
	if en, err := c.Energy(ctx, "letters", rows(q), false); err != nil || en.Grad != nil || relDiff(en.Energy, e) > 1e-12 {
		t.Errorf("Energy without gradients: %+v, %v", en, err)
	}

	// Recall from a stored pattern with its second half zeroed and its
	// first clamped: the library's descent, step for step.
	q0 := append([]float64(nil), x[5*d:6*d]...)
	mask := make([]bool, d)
	for j := range d {
		mask[j] = j < d/2
		if !mask[j] {
			q0[j] = 0
		}
	}
	rec, err := c.Recall(ctx, "letters", api.RecallRequest{Queries: [][]float64{q0}, Mask: mask, MaxSteps: 500, Tol: api.Float(1e-9), Box: &[2]float64{0, 1}})
	if err != nil {
		t.Fatal(err)
	}
	want, err := dam.Recall(m, q0, dam.RecallOptions{Step: 0.1, MaxSteps: 500, Tol: 1e-9, Clamp: mask, Box: &dam.Box{Lo: 0, Hi: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if relDiff(rec.X[0], want.X) > 1e-12 || rec.Steps[0] != want.Steps[0] || rec.Outcome[0] != want.Outcome[0].String() {
		t.Errorf("Recall: %v (%d steps, %s), the library's %v (%d, %v)", rec.X[0], rec.Steps[0], rec.Outcome[0], want.X, want.Steps[0], want.Outcome[0])
	}
	if last := want.Energy[0][len(want.Energy[0])-1]; math.Abs(rec.Energy[0]-last) > 1e-12*math.Abs(last) {
		t.Errorf("Recall's energy %v, the library's %v", rec.Energy[0], last)
	}

	if w, err := c.Remove(ctx, "letters", rows(x[:5*d])); err != nil || w.Removed != 5 || w.Count != 35 {
		t.Fatalf("Remove: %+v, %v", w, err)
	}
	if w, err := c.RemoveFlat(ctx, "letters", x[5*d:10*d], d); err != nil || w.Removed != 5 || w.Count != 30 {
		t.Fatalf("RemoveFlat: %+v, %v", w, err)
	}
	snap, err := c.Snapshot(ctx, "letters")
	if err != nil || snap.Count != 30 {
		t.Fatalf("Snapshot: %+v, %v", snap, err)
	}
	if sm, err := dam.Load(snap.File); err != nil || sm.Len() != 30 {
		t.Errorf("the snapshot %s: %v", snap.File, err)
	}
	var file bytes.Buffer
	if err := c.Download(ctx, "letters", &file); err != nil {
		t.Fatal(err)
	}
	dm, err := dam.Read(bytes.NewReader(file.Bytes()), int64(file.Len()))
	if err != nil || dm.Len() != 30 {
		t.Fatalf("the download: %v", err)
	}
	m.Remove(x[:10*d])
	e2, de := make([]float64, 3), make([]float64, 3)
	m.EnergyGrad(e2, nil, q)
	dm.EnergyGrad(de, nil, q)
	if relDiff(de, e2) > 1e-12 {
		t.Errorf("the download's energies %v, offline %v", de, e2)
	}
	if w, err := c.Merge(ctx, "letters", bytes.NewReader(file.Bytes())); err != nil || w.Merged != 30 || w.Count != 60 {
		t.Errorf("Merge: %+v, %v", w, err)
	}
	met, err := c.Metrics(ctx)
	if err != nil || !strings.Contains(met, `drdam_memory_patterns{memory="letters"} 60`) {
		t.Errorf("Metrics: %v, without the memory's patterns:\n%.2000s", err, met)
	}
	if err := c.Delete(ctx, "letters"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Get(ctx, "letters"); !client.IsNotFound(err) {
		t.Errorf("Get after Delete: %v, want a 404", err)
	}
	if list, err := c.List(ctx); err != nil || len(list) != 0 {
		t.Errorf("List after Delete: %+v, %v", list, err)
	}
}

// TestAddFlatEqualsAdd: the same rows added as JSON (Add) and as .npy
// (AddFlat) make the same memory: equal energies to the bit, and the
// same model file.
func TestAddFlatEqualsAdd(t *testing.T) {
	ctx := context.Background()
	c := client.New(startServer(t, serve.Options{}))
	x := patterns(300, 3)
	for _, name := range []string{"json", "npy"} {
		if _, _, err := c.Create(ctx, name, cfg); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.Add(ctx, "json", rows(x)); err != nil {
		t.Fatal(err)
	}
	if _, err := c.AddFlat(ctx, "npy", x, d); err != nil {
		t.Fatal(err)
	}
	q := rows(patterns(5, 11))
	a, err := c.Energy(ctx, "json", q, true)
	if err != nil {
		t.Fatal(err)
	}
	b, err := c.Energy(ctx, "npy", q, true)
	if err != nil {
		t.Fatal(err)
	}
	for i := range a.Energy {
		if a.Energy[i] != b.Energy[i] {
			t.Errorf("query %d: energy %v by JSON, %v by .npy", i, a.Energy[i], b.Energy[i])
		}
	}
	if relDiff(flat(a.Grad), flat(b.Grad)) != 0 {
		t.Errorf("gradients differ")
	}
	var fa, fb bytes.Buffer
	if err := c.Download(ctx, "json", &fa); err != nil {
		t.Fatal(err)
	}
	if err := c.Download(ctx, "npy", &fb); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(fa.Bytes(), fb.Bytes()) {
		t.Errorf("the model files differ (%d and %d bytes)", fa.Len(), fb.Len())
	}
}

// wantError checks that err is a *client.Error of the status and field,
// whose text names the method.
func wantError(t *testing.T, what string, err error, status int, field, method string) {
	t.Helper()
	var e *client.Error
	if !errors.As(err, &e) {
		t.Errorf("%s: %v, want a *client.Error", what, err)
		return
	}
	if e.Status != status || e.Field != field || e.Message == "" {
		t.Errorf("%s: %+v, want status %d and field %q", what, *e, status, field)
	}
	if !strings.Contains(err.Error(), method) {
		t.Errorf("%s: %q does not name the method %s", what, err, method)
	}
}

// TestErrors: the server's error statuses come back as *client.Error
// with the status and the field (404 name, 400 patterns and queries, 409
// name, 401 Authorization); a body that is not JSON makes an Error of
// its status (a 502, after 3 attempts); a server that is not there (3
// attempts too), and bad arguments, are errors naming the method and not
// *client.Error.
func TestErrors(t *testing.T) {
	ctx := context.Background()
	url := startServer(t, serve.Options{Token: "s3cret"})
	c := client.New(url, client.WithToken("s3cret"), client.WithHTTPClient(&http.Client{Timeout: time.Minute}))
	if _, _, err := c.Create(ctx, "m", cfg); err != nil {
		t.Fatal(err)
	}
	_, err := c.Get(ctx, "nothing")
	wantError(t, "Get of an unknown memory", err, 404, "name", "Get")
	if !strings.Contains(err.Error(), `"nothing"`) {
		t.Errorf("%q does not name the memory", err)
	}
	_, err = c.Energy(ctx, "nothing", [][]float64{make([]float64, d)}, false)
	wantError(t, "Energy of an unknown memory", err, 404, "name", "Energy")
	_, err = c.Add(ctx, "m", [][]float64{make([]float64, d-1)})
	wantError(t, "Add of a short row", err, 400, "patterns", "Add")
	_, err = c.AddFlat(ctx, "m", make([]float64, 2*(d+1)), d+1)
	wantError(t, "AddFlat of rows of D+1", err, 400, "patterns", "AddFlat")
	_, err = c.Energy(ctx, "m", [][]float64{make([]float64, d)}, false)
	wantError(t, "Energy of an empty memory", err, 409, "name", "Energy")
	_, _, err = c.Create(ctx, "m", api.Config{D: d, Y: 5000})
	wantError(t, "Create of another configuration", err, 409, "name", "Create")
	_, _, err = c.Create(ctx, ".hidden", cfg)
	wantError(t, "Create of a bad name", err, 400, "name", "Create")
	_, err = c.Recall(ctx, "m", api.RecallRequest{Queries: [][]float64{{math.NaN()}}})
	if err == nil || errors.As(err, new(*client.Error)) {
		t.Errorf("Recall of a NaN: %v, want an encoding error", err) // JSON has no NaN
	}
	_, err = c.Recall(ctx, "m", api.RecallRequest{Queries: [][]float64{make([]float64, d)}, Step: -1})
	wantError(t, "Recall of a negative step", err, 422, "step", "Recall")

	// Without the token, or with another: 401; /healthz needs none.
	_, err = client.New(url).List(ctx)
	wantError(t, "List without the token", err, 401, "Authorization", "List")
	_, err = client.New(url, client.WithToken("guess")).Get(ctx, "m")
	wantError(t, "Get with another token", err, 401, "Authorization", "Get")
	if _, err := client.New(url).Health(ctx); err != nil {
		t.Errorf("Health without the token: %v", err)
	}
	if _, err := c.Metrics(ctx); err != nil {
		t.Errorf("Metrics with the token: %v", err)
	}
	_, err = client.New(url).Metrics(ctx)
	wantError(t, "Metrics without the token", err, 401, "Authorization", "Metrics")

	// A proxy's answer that is not JSON.
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "upstream is down", http.StatusBadGateway)
	}))
	defer proxy.Close()
	fast := client.WithRetry(2, time.Millisecond) // 502 is retried
	_, err = client.New(proxy.URL, fast).Get(ctx, "m")
	wantError(t, "Get through a failing proxy", err, 502, "", "Get")
	if !strings.Contains(err.Error(), "upstream is down") || !strings.Contains(err.Error(), "3 attempts") {
		t.Errorf("%q does not quote the body, or say 3 attempts", err)
	}

	// Nothing listening: a network error, wrapped, retried.
	gone := httptest.NewServer(http.NotFoundHandler())
	gone.Close()
	_, err = client.New(gone.URL, fast).Get(ctx, "m")
	if err == nil || errors.As(err, new(*client.Error)) || !strings.Contains(err.Error(), `Get "m": 3 attempts`) {
		t.Errorf("Get from a closed server: %v, want a network error naming Get \"m\" after 3 attempts", err)
	}
	_, err = c.AddFlat(ctx, "m", make([]float64, 5), 2)
	if err == nil || errors.As(err, new(*client.Error)) {
		t.Errorf("AddFlat of 5 values in rows of 2: %v", err)
	}
}

// TestRecallCancel: cancelling the context of a long recall (10⁸ steps
// allowed) returns context.Canceled at once, and the server stops the
// descent (its request is counted in the metrics) soon after.
func TestRecallCancel(t *testing.T) {
	ctx := context.Background()
	url := startServer(t, serve.Options{Limits: serve.Limits{MaxSteps: 1 << 30}})
	c := client.New(url)
	if _, _, err := c.Create(ctx, "m", cfg); err != nil {
		t.Fatal(err)
	}
	if _, err := c.AddFlat(ctx, "m", patterns(50, 5), d); err != nil {
		t.Fatal(err)
	}
	cctx, cancel := context.WithCancel(ctx)
	time.AfterFunc(300*time.Millisecond, cancel)
	t0 := time.Now()
	_, err := c.Recall(cctx, "m", api.RecallRequest{Queries: rows(patterns(64, 8)), MaxSteps: 100_000_000})
	took := time.Since(t0)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Recall cancelled: %v, want context.Canceled", err)
	}
	if took > 2*time.Second {
		t.Errorf("Recall returned %v after its start, %v after the cancellation", took, took-300*time.Millisecond)
	}
	if !strings.Contains(err.Error(), `Recall "m"`) {
		t.Errorf("%q does not name the method and the memory", err)
	}
	// The handler ends (and is counted) once the server sees the
	// cancellation, between two steps.
	deadline := time.Now().Add(5 * time.Second)
	for {
		met, err := c.Metrics(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(met, `route="POST /v1/memories/{name}/recall"`) {
			t.Logf("the server stopped the descent %v after the cancellation", time.Since(t0)-300*time.Millisecond)
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the server still descends 5 s after the cancellation")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestLimits: GET /v1/limits answers the server's limits, its own where
// set (a batch of 7 rows, a 1 GiB budget) and the defaults elsewhere.
func TestLimits(t *testing.T) {
	url := startServer(t, serve.Options{Limits: serve.Limits{MaxBatch: 7}, MaxMemory: 1 << 30})
	l, err := client.New(url).Limits(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	def := serve.DefaultLimits()
	want := api.Limits{MaxBody: def.MaxBody, MaxBatch: 7, MaxD: def.MaxD, MaxY: def.MaxY, MaxSteps: def.MaxSteps,
		TimeoutSeconds: def.Timeout.Seconds(), MaxMemory: 1 << 30}
	if l != want {
		t.Errorf("limits %+v, want %+v", l, want)
	}
}

// TestAddBatches: 50 rows added to a server that takes 7 a request go in
// 8 batches (7 × 7 and 1), the progress reported after each, and the
// memory ends with the 50 rows, the energies those of one addition of all
// of them on a server without the limit (1e-12: the same rows, summed in
// other groups); a row larger than the body limit is refused before
// anything is sent.
func TestAddBatches(t *testing.T) {
	ctx := context.Background()
	const d, n = 8, 50
	x := make([]float64, n*d)
	for i := range x {
		x[i] = 0.01 * float64((i*7919)%101)
	}
	cfg := api.Config{D: d, Beta: 10, Y: 500}
	small := client.New(startServer(t, serve.Options{Limits: serve.Limits{MaxBatch: 7}}))
	whole := client.New(startServer(t, serve.Options{}))
	for _, c := range []*client.Client{small, whole} {
		if _, _, err := c.Create(ctx, "m", cfg); err != nil {
			t.Fatal(err)
		}
	}
	var calls []int
	w, err := small.AddBatches(ctx, "m", x, d, func(done, total int) {
		if total != n {
			t.Errorf("progress total %d, want %d", total, n)
		}
		calls = append(calls, done)
	})
	if err != nil {
		t.Fatal(err)
	}
	if w.Added != n || w.Count != n || !slices.Equal(calls, []int{7, 14, 21, 28, 35, 42, 49, 50}) {
		t.Errorf("added %+v, progress %v; want 50 in batches of 7", w, calls)
	}
	if _, err := whole.AddFlat(ctx, "m", x, d); err != nil {
		t.Fatal(err)
	}
	q := [][]float64{x[:d], x[5*d : 6*d]}
	a, err := small.Energy(ctx, "m", q, false)
	if err != nil {
		t.Fatal(err)
	}
	b, err := whole.Energy(ctx, "m", q, false)
	if err != nil {
		t.Fatal(err)
	}
	for i := range a.Energy {
		if math.Abs(a.Energy[i]-b.Energy[i]) > 1e-12*max(1, math.Abs(b.Energy[i])) {
			t.Errorf("energy %d: %v in batches, %v at once", i, a.Energy[i], b.Energy[i])
		}
	}
	tiny := client.New(startServer(t, serve.Options{Limits: serve.Limits{MaxBody: 300}}))
	if _, err := tiny.AddBatches(ctx, "m", x, d, nil); err == nil || !strings.Contains(err.Error(), "body limit") {
		t.Errorf("a row over the body limit: err = %v", err)
	}
}
