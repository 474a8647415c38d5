package serve

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/drdam/drdam/dam"
	"github.com/drdam/drdam/serve/api"
)

// This file tests the service's limits: the memory budget, --max-open, a
// folder of many memories, and the deadlines of request bodies.

// TestBudget: with a small memory budget, memories are created until it
// is used (each reserving its footprint), then a PUT is 507 naming the
// budget, what is in use and what it needs; the server answers on; a
// deletion gives the budget back. A request whose evaluation would not
// fit is 507 too, and a memory larger than the whole budget is 422.
func TestBudget(t *testing.T) {
	cfg := dam.Config{D: 64, Y: 20000, Beta: 10}
	one := footprint(cfg, 0)
	s, url := testServer(t, t.TempDir(), Options{MaxMemory: 3*one + one/2})
	made := 0
	for i := range 6 {
		st, b := call(t, "PUT", url+fmt.Sprintf("/v1/memories/m%d", i), map[string]any{"d": 64, "y": 20000}, nil)
		if st == 201 {
			made++
			continue
		}
		e := errorOf(t, b)
		if st != 507 || !strings.Contains(e.Message, "memory budget is") || !strings.Contains(e.Message, "in use") || !strings.Contains(e.Message, "needs") {
			t.Errorf("PUT %d past the budget: %d %s", i, st, b)
		}
	}
	if made != 3 {
		t.Errorf("%d memories made within a budget of 3.5 of them, want 3", made)
	}
	if st, _ := call(t, "GET", url+"/healthz", nil, nil); st != 200 {
		t.Errorf("healthz: %d", st)
	}
	if used := s.budget.inUse(); used != 3*one {
		t.Errorf("in use %d, want 3 footprints %d", used, 3*one)
	}
	call(t, "DELETE", url+"/v1/memories/m0", nil, nil)
	if st, b := call(t, "PUT", url+"/v1/memories/m9", map[string]any{"d": 64, "y": 20000}, nil); st != 201 {
		t.Errorf("PUT after a deletion: %d %s", st, b)
	}
	if st, b := call(t, "PUT", url+"/v1/memories/huge", map[string]any{"d": 64, "y": 4000000}, nil); st != 422 || errorOf(t, b).Field != "y" {
		t.Errorf("a memory larger than the budget: %d %s", st, b)
	}
	// The rest of the budget is half a memory: a batch of 4096 queries
	// with gradients needs more.
	writeN8 := patterns(2, 64, 1)
	call(t, "POST", url+"/v1/memories/m1/patterns", map[string]any{"patterns": api.RowsOf(writeN8, 64)}, nil)
	st, b := call(t, "POST", url+"/v1/memories/m1/energy", map[string]any{"queries": api.RowsOf(patterns(4096, 64, 2), 64), "grad": true}, nil)
	if st != 507 {
		t.Errorf("a large evaluation past the budget: %d %.200s", st, b)
	}
	if st, b := call(t, "POST", url+"/v1/memories/m1/energy", map[string]any{"queries": api.RowsOf(patterns(2, 64, 2), 64)}, nil); st != 200 {
		t.Errorf("a small evaluation: %d %s", st, b)
	}
	if used, want := s.budget.inUse(), 3*one+2*fpBytes; used != want {
		t.Errorf("in use %d after the requests, want 3 footprints and 2 fingerprints %d: a request's reservation was not given back", used, want)
	}
}

// TestMaxOpen: with MaxOpen 2, three memories are all usable: the least
// recently used idle one is closed (snapshotted) to open another, and
// opens again, with its patterns, when a request names it.
func TestMaxOpen(t *testing.T) {
	dir := t.TempDir()
	s, url := testServer(t, dir, Options{MaxOpen: 2})
	for i := range 3 {
		name := fmt.Sprintf("m%d", i)
		if st, b := call(t, "PUT", url+"/v1/memories/"+name, map[string]any{"d": 8, "y": 500, "projection": "structured"}, nil); st != 201 {
			t.Fatalf("PUT %s: %d %s", name, st, b)
		}
		writeN(t, url, name, i+1, 10*i)
	}
	if s.open != 2 {
		t.Errorf("%d open, want 2", s.open)
	}
	var list struct{ Memories []MemoryInfo }
	call(t, "GET", url+"/v1/memories", nil, &list)
	if list.Memories[0].Status != "closed" || list.Memories[0].Count != 3 {
		t.Errorf("the least recently used: %+v", list.Memories[0])
	}
	for i := range 3 {
		var info MemoryInfo
		if st, _ := call(t, "GET", url+fmt.Sprintf("/v1/memories/m%d", i), nil, &info); st != 200 || info.Count != 3*(i+1) || info.Status != "ready" {
			t.Errorf("m%d: %d %+v", i, st, info)
		}
	}
	stopAll(t)
	// A restart opens the first two in name order; the third on demand.
	s, url = testServer(t, dir, Options{MaxOpen: 2})
	if s.open != 2 || s.mem("m2") != nil {
		t.Errorf("at start: %d open", s.open)
	}
	var info MemoryInfo
	if st, _ := call(t, "GET", url+"/v1/memories/m2", nil, &info); st != 200 || info.Count != 9 {
		t.Errorf("m2 on demand: %d %+v", st, info)
	}
}

// TestSlowBody: a body that arrives slower than the minimum rate is cut
// with 408, in about the time the rate allows, and the server answers on.
func TestSlowBody(t *testing.T) {
	_, url := testServer(t, t.TempDir(), Options{Limits: Limits{MinBodyRate: 1 << 10, BodyGrace: 200 * time.Millisecond}})
	call(t, "PUT", url+"/v1/memories/m", map[string]any{"d": 4, "rep": "mrdam"}, nil)
	conn, err := net.Dial("tcp", strings.TrimPrefix(url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	t0 := time.Now()
	// The headers and a few bytes of a 100 kB body, then nothing: the
	// body is due within the grace (0.2 s) and 1 s, plus 1 s a KiB.
	fmt.Fprintf(conn, "POST /v1/memories/m/patterns HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{\"patterns\": [")
	done := make(chan string, 1)
	go func() {
		b := make([]byte, 4096)
		n, _ := io.ReadAtLeast(conn, b, 1)
		done <- string(b[:n])
	}()
	var resp string
	select {
	case resp = <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("no answer within 20 s")
	}
	// Cut at 1.2 s after the request (and the 14 bytes sent, 14 ms at
	// 1 KiB/s); the upper bound leaves 3 s for a loaded machine.
	if el := time.Since(t0); el < 1100*time.Millisecond || el > 5*time.Second {
		t.Errorf("cut after %v, want about 1.2 s", el)
	}
	if !strings.HasPrefix(resp, "HTTP/1.1 408") || !strings.Contains(resp, "slower than") {
		t.Errorf("a stalled body: %q", resp)
	}
	if st, _ := call(t, "GET", url+"/healthz", nil, nil); st != 200 {
		t.Errorf("healthz after: %d", st)
	}
}

// deadlineWriter is a ResponseWriter that records the read deadlines set
// through it.
type deadlineWriter struct {
	http.ResponseWriter
	set []time.Time
}

func (w *deadlineWriter) SetReadDeadline(t time.Time) error { w.set = append(w.set, t); return nil }

// chunks is a body that arrives in the given chunks, the last with EOF.
type chunks struct{ c [][]byte }

func (c *chunks) Read(p []byte) (int, error) {
	if len(c.c) == 0 {
		return 0, io.EOF
	}
	n := copy(p, c.c[0])
	c.c = c.c[1:]
	if len(c.c) == 0 {
		return n, io.EOF
	}
	return n, nil
}

func (c *chunks) Close() error { return nil }

// TestBodyDeadlineLifted: the body's read deadline moves as its bytes
// arrive, and once the last arrives it is lifted and never set again.
// net/http lifts it itself when its body meets the end, and starts a read
// for a closed connection that cancels the request if it fails; the
// server used to move the deadline on with the last bytes (after
// net/http's lift), and recalls that computed past it were cancelled
// ("context canceled", measured: 8 concurrent recalls of 6 s).
func TestBodyDeadlineLifted(t *testing.T) {
	s := &Server{opt: Options{Limits: Limits{MinBodyRate: 16, BodyGrace: time.Second}}, budget: &budget{limit: 1 << 30}}
	w := &deadlineWriter{}
	st := &reqState{s: s, start: time.Now(), rc: http.NewResponseController(w), length: -1, hasBody: true}
	// 8 bytes, then 8 with EOF: each passes a quarter second's worth
	// (4 bytes), so each would move the deadline.
	body := &budgetBody{ReadCloser: &chunks{c: [][]byte{make([]byte, 8), make([]byte, 8)}}, st: st, factor: 1}
	buf := make([]byte, 64)
	for {
		if _, err := body.Read(buf); err != nil {
			break
		}
	}
	if n := len(w.set); n < 3 || !w.set[n-1].IsZero() || w.set[n-2].IsZero() {
		t.Errorf("deadlines set %v: want some moves, then one lift last", w.set)
	}
	set := len(w.set)
	st.done(body)
	if len(w.set) != set {
		t.Errorf("done set the deadline again: %v", w.set[set:])
	}
	if st.held != 0 || s.budget.inUse() != 0 {
		t.Errorf("the body's reservation was not given back: %d", s.budget.inUse())
	}
}

// TestManyMemories: a folder of 1000 memories starts, opening the first
// MaxOpen in name order, and serves every one: one not open at start
// opens when named (closing the least recently used idle one); the list
// names all 1000.
func TestManyMemories(t *testing.T) {
	dir := t.TempDir()
	_, url := testServer(t, dir, Options{})
	call(t, "PUT", url+"/v1/memories/m0000", map[string]any{"d": 16, "y": 500, "projection": "structured"}, nil)
	call(t, "POST", url+"/v1/memories/m0000/patterns", map[string]any{"patterns": api.RowsOf(patterns(4, 16, 1), 16)}, nil)
	stopAll(t)
	src := filepath.Join(dir, "m0000")
	ents, _ := os.ReadDir(src)
	for i := 1; i < 1000; i++ {
		to := filepath.Join(dir, fmt.Sprintf("m%04d", i))
		os.Mkdir(to, 0o755)
		for _, e := range ents {
			b, err := os.ReadFile(filepath.Join(src, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			os.WriteFile(filepath.Join(to, e.Name()), b, 0o644)
		}
	}
	t0 := time.Now()
	s, url := testServer(t, dir, Options{MaxOpen: 128})
	t.Logf("1000 memories: started in %v, %d open", time.Since(t0), s.open)
	if s.open != 128 {
		t.Errorf("%d open at start, want 128", s.open)
	}
	var list struct{ Memories []MemoryInfo }
	if call(t, "GET", url+"/v1/memories", nil, &list); len(list.Memories) != 1000 || list.Memories[999].Status != "closed" {
		t.Fatalf("list: %d memories", len(list.Memories))
	}
	var en struct{ Energy []float64 }
	if st, b := call(t, "POST", url+"/v1/memories/m0999/energy", map[string]any{"queries": api.RowsOf(patterns(1, 16, 2), 16)}, &en); st != 200 {
		t.Errorf("energy of a memory closed at start: %d %s", st, b)
	}
	if s.open != 128 {
		t.Errorf("%d open after opening another, want 128", s.open)
	}
}
