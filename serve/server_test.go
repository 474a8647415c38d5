package serve

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/drdam/drdam/dam"
	"github.com/drdam/drdam/features"
	"github.com/drdam/drdam/npy"
	"github.com/drdam/drdam/serve/api"
)

// testServer starts a server on dir behind an httptest server (loopback
// only) and returns it with its URL; both are closed with the test.
func testServer(t *testing.T, dir string, opt Options) (*Server, string) {
	t.Helper()
	opt.Dir = dir
	s, err := New(opt)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s.Handler())
	t.Cleanup(func() { hs.Close(); s.Close() })
	servers.Store(t, append(liveServers(t), s))
	return s, hs.URL
}

// call sends a request with a JSON (or raw, for a []byte) body and
// decodes the JSON answer into out (if not nil); it returns the status
// and the body.
func call(t *testing.T, method, url string, body any, out any, header ...string) (int, []byte) {
	t.Helper()
	var r io.Reader
	ct := "application/json"
	switch b := body.(type) {
	case nil:
	case []byte:
		r, ct = bytes.NewReader(b), "application/x-npy"
	case string:
		r = strings.NewReader(b)
	default:
		j, err := json.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		r = bytes.NewReader(j)
	}
	req, err := http.NewRequest(method, url, r)
	if err != nil {
		t.Fatal(err)
	}
	if r != nil {
		req.Header.Set("Content-Type", ct)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if out != nil && resp.StatusCode < 300 {
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s %s: %v: %s", method, url, err, b)
		}
	}
	return resp.StatusCode, b
}

// patterns returns k patterns of dimension d, row-major, in [0, 1/√d).
func patterns(k, d int, seed int) []float64 {
	x := make([]float64, k*d)
	for i := range x {
		x[i] = float64((i*7919+seed*104729)%1000) / 1000 / math.Sqrt(float64(d))
	}
	return x
}

func npyBytes(t testing.TB, rows, cols int, x []float64) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := npy.Write(&b, []int{rows, cols}, x); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// relDiff returns max|a−b| / max|b|.
func relDiff(a, b []float64) float64 {
	var diff, scale float64
	for i := range a {
		diff, scale = max(diff, math.Abs(a[i]-b[i])), max(scale, math.Abs(b[i]))
	}
	return diff / scale
}

// TestAPI goes through the API once: create (201, then 200 alike, 409
// otherwise), add by JSON and by .npy, energies and gradients equal to a
// model built offline from the same patterns (relative 1e-12: the same
// arithmetic, in the same order), recall, remove, snapshot (a model file
// that loads), download, merge, list and delete.
func TestAPI(t *testing.T) {
	// Writes in one piece and in waves (the smallest: several of them at
	// Y = 4000) give the same model, to the bit.
	for _, wave := range []time.Duration{0, time.Nanosecond} {
		t.Run(fmt.Sprintf("wave=%v", wave), func(t *testing.T) { testAPI(t, wave) })
	}
}

func testAPI(t *testing.T, wave time.Duration) {
	_, url := testServer(t, t.TempDir(), Options{Wave: wave})
	const d = 16
	cfg := map[string]any{"d": d, "beta": 30, "y": 4000, "projection": "structured", "seed": 7}
	var info MemoryInfo
	if st, b := call(t, "PUT", url+"/v1/memories/letters", cfg, &info); st != 201 || info.Config.Y != 4000 || info.Config.Basis != "sincos" {
		t.Fatalf("create: %d %s", st, b)
	}
	if st, _ := call(t, "PUT", url+"/v1/memories/letters", cfg, nil); st != 200 {
		t.Errorf("create again alike: %d, want 200", st)
	}
	if st, _ := call(t, "PUT", url+"/v1/memories/letters", map[string]any{"d": d, "y": 5000}, nil); st != 409 {
		t.Errorf("create again otherwise: %d, want 409", st)
	}
	x := patterns(40, d, 1)
	var added struct{ Added, Count int }
	if st, b := call(t, "POST", url+"/v1/memories/letters/patterns", map[string]any{"patterns": api.RowsOf(x[:20*d], d)}, &added); st != 200 || added.Added != 20 || added.Count != 20 {
		t.Fatalf("add JSON: %d %s", st, b)
	}
	if st, b := call(t, "POST", url+"/v1/memories/letters/patterns", npyBytes(t, 20, d, x[20*d:]), &added); st != 200 || added.Count != 40 {
		t.Fatalf("add .npy: %d %s", st, b)
	}
	ref, err := dam.New(dam.Config{D: d, Beta: 30, Y: 4000, Projection: features.Structured, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	ref.Add(x[:20*d])
	ref.Add(x[20*d:])
	q := patterns(3, d, 9)
	var en struct {
		Energy []float64
		Grad   [][]float64
	}
	if st, b := call(t, "POST", url+"/v1/memories/letters/energy", map[string]any{"queries": api.RowsOf(q, d), "grad": true}, &en); st != 200 {
		t.Fatalf("energy: %d %s", st, b)
	}
	e, g := make([]float64, 3), make([]float64, 3*d)
	ref.EnergyGrad(e, g, q)
	var gg []float64
	for _, r := range en.Grad {
		gg = append(gg, r...)
	}
	if relDiff(en.Energy, e) > 1e-12 || relDiff(gg, g) > 1e-12 {
		t.Errorf("energy %v, offline %v", en.Energy, e)
	}
	// Recall from a stored pattern with its second half zeroed and the
	// first clamped: the server's descent is the library's, step for
	// step, on a model of the same T (relative 1e-12).
	q0 := append([]float64(nil), x[5*d:6*d]...)
	mask := make([]bool, d)
	for j := range d {
		mask[j] = j < d/2
		if j >= d/2 {
			q0[j] = 0
		}
	}
	var rec RecallResult
	if st, b := call(t, "POST", url+"/v1/memories/letters/recall", map[string]any{"queries": [][]float64{q0}, "mask": mask, "max_steps": 500, "tol": 1e-9, "box": []float64{0, 1}}, &rec); st != 200 {
		t.Fatalf("recall: %d %s", st, b)
	}
	want, err := dam.Recall(ref, q0, dam.RecallOptions{Step: 0.1, MaxSteps: 500, Tol: 1e-9, Clamp: mask, Box: &dam.Box{Lo: 0, Hi: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if relDiff(rec.X[0], want.X) > 1e-12 || rec.Steps[0] != want.Steps[0] || rec.Outcome[0] != want.Outcome[0].String() {
		t.Errorf("recall: %v (%d steps, %s), the library's %v (%d, %v)", rec.X[0], rec.Steps[0], rec.Outcome[0], want.X, want.Steps[0], want.Outcome[0])
	}
	var rm struct{ Removed, Count int }
	if st, b := call(t, "POST", url+"/v1/memories/letters/patterns:remove", map[string]any{"patterns": api.RowsOf(x[:5*d], d)}, &rm); st != 200 || rm.Count != 35 {
		t.Fatalf("remove: %d %s", st, b)
	}
	var snap struct {
		File  string
		Count int
	}
	if st, b := call(t, "POST", url+"/v1/memories/letters/snapshot", nil, &snap); st != 200 || snap.Count != 35 {
		t.Fatalf("snapshot: %d %s", st, b)
	}
	if m, err := dam.Load(snap.File); err != nil || m.Len() != 35 {
		t.Errorf("the snapshot %s: %v", snap.File, err)
	}
	st, model := call(t, "GET", url+"/v1/memories/letters/snapshot", nil, nil)
	if st != 200 {
		t.Fatalf("download: %d", st)
	}
	var merged struct{ Merged, Count int }
	if st, b := call(t, "PUT", url+"/v1/memories/letters/merge", model, &merged); st != 200 || merged.Count != 70 {
		t.Fatalf("merge: %d %s", st, b)
	}
	var list struct{ Memories []MemoryInfo }
	if st, _ := call(t, "GET", url+"/v1/memories", nil, &list); st != 200 || len(list.Memories) != 1 || list.Memories[0].Count != 70 {
		t.Errorf("list: %+v", list)
	}
	if st, _ := call(t, "DELETE", url+"/v1/memories/letters", nil, nil); st != 200 {
		t.Errorf("delete: %d", st)
	}
	if st, _ := call(t, "GET", url+"/v1/memories/letters", nil, nil); st != 404 {
		t.Errorf("get after delete: %d", st)
	}
	for _, p := range []string{"/healthz", "/metrics", "/v1/openapi.json"} {
		if st, b := call(t, "GET", url+p, nil, nil); st != 200 || len(b) == 0 {
			t.Errorf("GET %s: %d", p, st)
		}
	}
	// The writes' metrics (docs/serve.md lists them): the additions above
	// were records applied, each of at least one request.
	_, b := call(t, "GET", url+"/metrics", nil, nil)
	for _, series := range []string{`drdam_write_apply_seconds_count{op="add"}`, `drdam_write_apply_seconds_count{op="remove"}`, "drdam_add_group_requests_count"} {
		if !strings.Contains(string(b), series+" ") || strings.Contains(string(b), series+" 0\n") {
			t.Errorf("/metrics has no %s, or 0", series)
		}
	}
}

// crash stops s as kill -9 would, as far as its files go: no snapshot,
// its logs closed as they are, the data folder's lock released.
func (s *Server) crash() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, sl := range s.slots {
		if sl.mem != nil {
			sl.mem.closed.Store(true)
			sl.mem.log.close()
		}
	}
	s.slots = map[string]*slot{}
	if s.unlock != nil {
		s.unlock()
		s.unlock = nil
	}
}

// mem returns the open memory name (nil if it is not open).
func (s *Server) mem(name string) *memory {
	s.mu.Lock()
	defer s.mu.Unlock()
	if sl := s.slots[name]; sl != nil {
		return sl.mem
	}
	return nil
}

// crashingServer starts a server on dir holding the memory m (D = d,
// Y = 1000, structured) that the test does not close: closing hs and the
// memory's log is a crash, the log all that is left.
func crashingServer(t *testing.T, dir string, d int) (*Server, *httptest.Server) {
	t.Helper()
	s, err := New(Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s.Handler())
	call(t, "PUT", hs.URL+"/v1/memories/m", map[string]any{"d": d, "y": 1000, "projection": "structured"}, nil)
	return s, hs
}

// TestRestart: a memory whose server stops without a snapshot (as after
// kill -9) reopens with every acknowledged write, applied from its log;
// a torn last record is cut off and the memory is as before it.
func TestRestart(t *testing.T) {
	dir := t.TempDir()
	const d = 8
	s, hs := crashingServer(t, dir, d)
	url := hs.URL
	x := patterns(30, d, 2)
	for i := range 3 {
		if st, b := call(t, "POST", url+"/v1/memories/m/patterns", map[string]any{"patterns": api.RowsOf(x[i*10*d:(i+1)*10*d], d)}, nil); st != 200 {
			t.Fatalf("add: %d %s", st, b)
		}
	}
	hs.Close()
	// No s.Close: the log is all there is. Tear its tail as a crash in an
	// append would.
	s.crash()
	wl := filepath.Join(dir, "m", "wal.log")
	f, err := os.OpenFile(wl, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte{200, 1, 0, 0, 9, 9, 9}) // a record's header and a few bytes
	f.Close()
	before, _ := os.Stat(wl)
	_, url = testServer(t, dir, Options{})
	var info MemoryInfo
	if st, _ := call(t, "GET", url+"/v1/memories/m", nil, &info); st != 200 || info.Count != 30 || info.Seq != 3 {
		t.Fatalf("after restart: %+v", info)
	}
	after, _ := os.Stat(wl)
	if after.Size() != before.Size()-7 {
		t.Errorf("log of %d bytes after repair, want the 7 torn bytes cut from %d", after.Size(), before.Size())
	}
	ref, _ := dam.New(dam.Config{D: d, Beta: 10, Y: 1000, Projection: features.Structured})
	for i := range 3 {
		ref.Add(x[i*10*d : (i+1)*10*d])
	}
	var en struct{ Energy []float64 }
	q := patterns(4, d, 5)
	call(t, "POST", url+"/v1/memories/m/energy", map[string]any{"queries": api.RowsOf(q, d)}, &en)
	e := make([]float64, 4)
	ref.EnergyGrad(e, nil, q)
	if relDiff(en.Energy, e) > 1e-12 {
		t.Errorf("energies after restart %v, offline %v", en.Energy, e)
	}
}

// TestSnapshotEvery: with a snapshot every 2 writes the log is emptied,
// and a restart loads the snapshot and the records after it.
func TestSnapshotEvery(t *testing.T) {
	dir := t.TempDir()
	const d = 4
	func() {
		s, url := testServer(t, dir, Options{SnapshotEvery: 2})
		call(t, "PUT", url+"/v1/memories/m", map[string]any{"d": d, "rep": "mrdam"}, nil)
		for i := range 5 {
			call(t, "POST", url+"/v1/memories/m/patterns", map[string]any{"patterns": api.RowsOf(patterns(3, d, i), d)}, nil)
		}
		snaps, _ := filepath.Glob(filepath.Join(dir, "m", "snapshot-*.drdam"))
		if len(snaps) != 1 || !strings.HasSuffix(snaps[0], fmt.Sprintf("%020d.drdam", 4)) {
			t.Errorf("snapshots %v, want the one of write 4", snaps)
		}
		s.crash() // no snapshot at exit
	}()
	_, url := testServer(t, dir, Options{})
	var info MemoryInfo
	if call(t, "GET", url+"/v1/memories/m", nil, &info); info.Count != 15 || info.Seq != 5 {
		t.Errorf("after restart: %+v", info)
	}
}

// TestConcurrentClients: 8 writers and 4 readers (energies and recalls)
// at once (run with -race): every count a reader sees is a whole number of
// batches (a batch is applied whole, under the write lock), and the final
// memory holds every batch, with the energies of a model that stored them
// in any order (relative 1e-9: the same sums in another order).
func TestConcurrentClients(t *testing.T) {
	_, url := testServer(t, t.TempDir(), Options{SnapshotEvery: 7})
	const d, per = 8, 5
	call(t, "PUT", url+"/v1/memories/m", map[string]any{"d": d, "y": 2000, "projection": "structured"}, nil)
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			for i := range 6 {
				if st, b := call(t, "POST", url+"/v1/memories/m/patterns", map[string]any{"patterns": api.RowsOf(patterns(per, d, 100*w+i), d)}, nil); st != 200 {
					t.Errorf("add: %d %s", st, b)
				}
			}
		})
	}
	for range 4 {
		wg.Go(func() {
			for range 10 {
				var info MemoryInfo
				call(t, "GET", url+"/v1/memories/m", nil, &info)
				if info.Count%per != 0 {
					t.Errorf("a reader saw %d patterns: not a whole number of batches of %d", info.Count, per)
				}
				if info.Count > 0 {
					if st, b := call(t, "POST", url+"/v1/memories/m/recall", map[string]any{"queries": api.RowsOf(patterns(1, d, 7), d), "max_steps": 20}, nil); st != 200 {
						t.Errorf("recall: %d %s", st, b)
					}
				}
			}
		})
	}
	wg.Wait()
	ref, _ := dam.New(dam.Config{D: d, Beta: 10, Y: 2000, Projection: features.Structured})
	for w := range 8 {
		for i := range 6 {
			ref.Add(patterns(per, d, 100*w+i))
		}
	}
	q := patterns(3, d, 11)
	var en struct{ Energy []float64 }
	call(t, "POST", url+"/v1/memories/m/energy", map[string]any{"queries": api.RowsOf(q, d)}, &en)
	e := make([]float64, 3)
	ref.EnergyGrad(e, nil, q)
	if relDiff(en.Energy, e) > 1e-9 {
		t.Errorf("energies %v, a model of every batch %v", en.Energy, e)
	}
}

// TestGroupCommit: additions that wait while another write holds the
// memory are written as one record (one sequence number), each answered
// with the count after it; the model reopened from the log alone has T
// equal bit for bit to the one that answered (the group is replayed as
// the one Add it was).
func TestGroupCommit(t *testing.T) {
	dir := t.TempDir()
	const d, per, clients = 8, 5, 3
	s, hs := crashingServer(t, dir, d)
	url := hs.URL
	mem := s.mem("m")
	mem.wmu.Lock() // a write under way
	var wg sync.WaitGroup
	counts := make([]int, clients)
	for c := range clients {
		wg.Go(func() {
			var out struct{ Added, Count int }
			if st, b := call(t, "POST", url+"/v1/memories/m/patterns", map[string]any{"patterns": api.RowsOf(patterns(per, d, c), d)}, &out); st != 200 || out.Added != per {
				t.Errorf("add: %d %s", st, b)
			}
			counts[c] = out.Count
		})
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		mem.qmu.Lock()
		n := len(mem.queue)
		mem.qmu.Unlock()
		if n == clients {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d additions queued after 10 s, want %d", n, clients)
		}
	}
	mem.wmu.Unlock()
	wg.Wait()
	for c, n := range counts {
		if n != clients*per {
			t.Errorf("client %d was answered count %d, want the group's %d", c, n, clients*per)
		}
	}
	var info MemoryInfo
	if call(t, "GET", url+"/v1/memories/m", nil, &info); info.Count != clients*per || info.Seq != 1 {
		t.Fatalf("after the group: %+v, want %d patterns in one record", info, clients*per)
	}
	live := mem.m.(*dam.DrDAM).Sum().T
	hs.Close()
	s.crash() // the log is all there is
	s2, err := New(Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	got := s2.mem("m").m.(*dam.DrDAM).Sum().T
	for i := range live {
		if math.Float64bits(got[i]) != math.Float64bits(live[i]) {
			t.Fatalf("T[%d] replayed %v, live %v: want the same bits", i, got[i], live[i])
		}
	}
}
