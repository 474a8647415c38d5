package serve

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"log/slog"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/drdam/drdam/dam"
	"github.com/drdam/drdam/features"
	"github.com/drdam/drdam/serve/api"
)

// logTo returns a logger that writes into b (safe for concurrent use).
func logTo(b *syncBuffer) *slog.Logger { return slog.New(slog.NewTextHandler(b, nil)) }

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}
func (s *syncBuffer) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

// errorOf decodes an error answer.
func errorOf(t *testing.T, b []byte) ErrorDetail {
	t.Helper()
	var eb ErrorBody
	if err := json.Unmarshal(b, &eb); err != nil {
		t.Fatalf("not an error body: %s", b)
	}
	return eb.Error
}

// TestFolderLock: a second server on a data folder fails at once, naming
// the folder and the owner's process; once the first is closed, it starts.
func TestFolderLock(t *testing.T) {
	dir := t.TempDir()
	s, err := New(Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	_, err = New(Options{Dir: dir})
	if err == nil || !strings.Contains(err.Error(), dir) || !strings.Contains(err.Error(), fmt.Sprintf("process %d", os.Getpid())) {
		t.Fatalf("second server: %v, want an error naming %s and process %d", err, dir, os.Getpid())
	}
	s.Close()
	s2, err := New(Options{Dir: dir})
	if err != nil {
		t.Fatalf("after the first closed: %v", err)
	}
	s2.Close()
}

// writeN adds n batches of 3 patterns (d = 8) to memory name, one
// request each.
func writeN(t *testing.T, url, name string, n, seed int) [][]float64 {
	t.Helper()
	var batches [][]float64
	for i := range n {
		x := patterns(3, 8, seed+i)
		if st, b := call(t, "POST", url+"/v1/memories/"+name+"/patterns", map[string]any{"patterns": api.RowsOf(x, 8)}, nil); st != 200 {
			t.Fatalf("add: %d %s", st, b)
		}
		batches = append(batches, x)
	}
	return batches
}

// recordOffsets returns the byte offsets of the records of a log.
func recordOffsets(t *testing.T, path string) []int64 {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	var offs []int64
	if _, err := scanLog(f, st.Size(), 2, false, func(r record, off int64) error { offs = append(offs, off); return nil }); err != nil {
		t.Fatal(err)
	}
	return offs
}

// TestCorruptLog: one byte flipped in the middle of a log, with valid
// records after it, is corruption: the memory is not opened (503 naming
// the file and the byte, and what to run), the other memory is served,
// Check reports it, and Salvage keeps every intact record (the damaged
// one alone is lost) and moves the damaged log aside. A torn tail, by
// contrast, is cut and logged.
func TestCorruptLog(t *testing.T) {
	dir := t.TempDir()
	s, url := testServer(t, dir, Options{})
	for _, name := range []string{"bad", "good"} {
		call(t, "PUT", url+"/v1/memories/"+name, map[string]any{"d": 8, "y": 1000, "projection": "structured"}, nil)
	}
	batches := writeN(t, url, "bad", 5, 10)
	writeN(t, url, "good", 2, 50)
	s.crash()
	wl := filepath.Join(dir, "bad", "wal.log")
	offs := recordOffsets(t, wl)
	if len(offs) != 6 { // the state record and 5 additions
		t.Fatalf("%d records, want 6", len(offs))
	}
	b, _ := os.ReadFile(wl)
	flip := offs[3] + 40 // inside the record of the third addition (sequence number 3)
	b[flip] ^= 0x10
	os.WriteFile(wl, b, 0o644)
	var logs syncBuffer
	_, url = testServer(t, dir, Options{Log: logTo(&logs)})
	st, body := call(t, "GET", url+"/v1/memories/bad", nil, nil)
	e := errorOf(t, body)
	if st != 503 || e.Status != 503 || e.Field != "name" || !strings.Contains(e.Message, wl) || !strings.Contains(e.Message, fmt.Sprintf("byte %d", offs[3])) ||
		!strings.Contains(e.Message, "--salvage") || !strings.Contains(e.Message, "--check") {
		t.Errorf("the damaged memory: %d %s", st, body)
	}
	if st, b := call(t, "POST", url+"/v1/memories/bad/patterns", map[string]any{"patterns": api.RowsOf(patterns(1, 8, 1), 8)}, nil); st != 503 {
		t.Errorf("an addition to the damaged memory: %d %s", st, b)
	}
	var info MemoryInfo
	if st, _ := call(t, "GET", url+"/v1/memories/good", nil, &info); st != 200 || info.Count != 6 {
		t.Errorf("the other memory: %d %+v", st, info)
	}
	var list struct{ Memories []MemoryInfo }
	call(t, "GET", url+"/v1/memories", nil, &list)
	if len(list.Memories) != 2 || list.Memories[0].Status != "damaged" || list.Memories[0].Error == "" || list.Memories[1].Status != "ready" {
		t.Errorf("list: %+v", list.Memories)
	}
	if !strings.Contains(logs.String(), "memory damaged") {
		t.Errorf("the damage was not logged: %s", logs.String())
	}
	if after, _ := os.ReadFile(wl); !bytes.Equal(after, b) {
		t.Errorf("the damaged log was changed")
	}
	checks, err := Check(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(checks) != 2 || !checks[0].Damaged || checks[1].Damaged || !strings.Contains(strings.Join(checks[0].Notes, "\n"), fmt.Sprintf("the record at byte %d (sequence number 3) fails its checksum, and 2 valid record(s) follow it", offs[3])) {
		t.Errorf("Check: %+v", checks)
	}
	// Salvage wants the server stopped.
	if _, err := Salvage(dir); err == nil || !strings.Contains(err.Error(), "stop the server") {
		t.Errorf("Salvage beside a server: %v", err)
	}
	stopAll(t)
	reps, err := Salvage(dir)
	if err != nil {
		t.Fatal(err)
	}
	notes := strings.Join(reps[0].Notes, "\n")
	if len(reps) != 1 || reps[0].Name != "bad" || !strings.Contains(notes, "kept 4 intact record(s)") || !strings.Contains(notes, "lost: record(s) 3–3") {
		t.Errorf("Salvage: %+v", reps)
	}
	aside, _ := filepath.Glob(wl + ".damaged-*")
	if len(aside) != 1 {
		t.Fatalf("damaged logs kept: %v", aside)
	} else if kept, _ := os.ReadFile(aside[0]); !bytes.Equal(kept, b) {
		t.Errorf("the damaged log kept is not the damaged log")
	}
	_, url = testServer(t, dir, Options{})
	if st, b := call(t, "GET", url+"/v1/memories/bad", nil, &info); st != 200 || info.Count != 12 || info.Seq != 5 {
		t.Errorf("after salvage: %d %s, want the 4 intact additions (12 patterns), record 5 last", st, b)
	}
	ref, _ := dam.New(dam.Config{D: 8, Beta: 10, Y: 1000, Projection: features.Structured})
	for i, x := range batches {
		if i != 2 {
			ref.Add(x)
		}
	}
	q := patterns(3, 8, 99)
	var en struct{ Energy []float64 }
	call(t, "POST", url+"/v1/memories/bad/energy", map[string]any{"queries": api.RowsOf(q, 8)}, &en)
	want := make([]float64, 3)
	ref.EnergyGrad(want, nil, q)
	if relDiff(en.Energy, want) > 1e-12 {
		t.Errorf("energies after salvage %v, a model of the intact additions %v", en.Energy, want)
	}
	// The salvaged memory removes what it holds, and refuses the lost
	// batch (its fingerprints came through).
	if st, b := call(t, "POST", url+"/v1/memories/bad/patterns:remove", map[string]any{"patterns": api.RowsOf(batches[2], 8)}, nil); st != 409 {
		t.Errorf("removing the lost batch: %d %s, want 409", st, b)
	}
	if st, b := call(t, "POST", url+"/v1/memories/bad/patterns:remove", map[string]any{"patterns": api.RowsOf(batches[4], 8)}, nil); st != 200 {
		t.Errorf("removing a kept batch: %d %s", st, b)
	}
}

// stopAll closes the servers the test started so far (their cleanups
// run again at the end, harmlessly).
func stopAll(t *testing.T) {
	t.Helper()
	for _, s := range liveServers(t) {
		s.Close()
	}
}

var servers sync.Map // *testing.T → []*Server

func liveServers(t *testing.T) []*Server {
	v, _ := servers.Load(t)
	l, _ := v.([]*Server)
	return l
}

// TestTornTail: a torn last record is cut, and the cut logged with the
// bytes dropped.
func TestTornTail(t *testing.T) {
	dir := t.TempDir()
	s, url := testServer(t, dir, Options{})
	call(t, "PUT", url+"/v1/memories/m", map[string]any{"d": 8, "rep": "mrdam"}, nil)
	writeN(t, url, "m", 3, 1)
	s.crash()
	wl := filepath.Join(dir, "m", "wal.log")
	offs := recordOffsets(t, wl)
	b, _ := os.ReadFile(wl)
	os.WriteFile(wl, b[:offs[3]+30], 0o644) // the last record, cut after 30 bytes
	var logs syncBuffer
	_, url = testServer(t, dir, Options{Log: logTo(&logs)})
	var info MemoryInfo
	if st, _ := call(t, "GET", url+"/v1/memories/m", nil, &info); st != 200 || info.Count != 6 || info.Seq != 2 {
		t.Errorf("after a torn tail: %d %+v", st, info)
	}
	if !strings.Contains(logs.String(), "torn last record cut") || !strings.Contains(logs.String(), "bytes=30") {
		t.Errorf("the cut was not logged with its bytes: %s", logs.String())
	}
}

// TestCorruptSnapshot: a snapshot that fails its checksum is damage too:
// the memory answers 503 (the older snapshot is not silently used), and
// Salvage moves it aside and says what is lost.
func TestCorruptSnapshot(t *testing.T) {
	dir := t.TempDir()
	_, url := testServer(t, dir, Options{SnapshotEvery: 2})
	call(t, "PUT", url+"/v1/memories/m", map[string]any{"d": 8, "y": 500, "projection": "structured"}, nil)
	writeN(t, url, "m", 3, 1) // a snapshot after 2, the third in the log
	stopAll(t)
	snaps, _ := filepath.Glob(filepath.Join(dir, "m", "snapshot-*.drdam"))
	if len(snaps) != 1 {
		t.Fatalf("snapshots %v", snaps)
	}
	b, _ := os.ReadFile(snaps[0])
	b[len(b)/2] ^= 1
	os.WriteFile(snaps[0], b, 0o644)
	_, url = testServer(t, dir, Options{})
	st, body := call(t, "GET", url+"/v1/memories/m", nil, nil)
	if e := errorOf(t, body); st != 503 || !strings.Contains(e.Message, snaps[0]) || !strings.Contains(e.Message, "checksum") {
		t.Errorf("a memory with a corrupt snapshot: %d %s", st, body)
	}
	stopAll(t)
	reps, err := Salvage(dir)
	if err != nil {
		t.Fatal(err)
	}
	notes := strings.Join(reps[0].Notes, "\n")
	if !strings.Contains(notes, "moved snapshot-") || !strings.Contains(notes, "the records in the damaged snapshot are lost") {
		t.Errorf("Salvage: %s", notes)
	}
	if aside, _ := filepath.Glob(snaps[0] + ".damaged-*"); len(aside) != 1 {
		t.Errorf("the damaged snapshot was not kept aside: %v", aside)
	}
}

// TestIdempotency: a retry with the same Idempotency-Key is answered as
// the first write was, with Idempotent-Replayed, and changes nothing —
// also after a snapshot and after a crash and restart; another body under
// the key is 422; concurrent requests with one key apply it once.
func TestIdempotency(t *testing.T) {
	dir := t.TempDir()
	s, url := testServer(t, dir, Options{SnapshotEvery: 3})
	call(t, "PUT", url+"/v1/memories/m", map[string]any{"d": 8, "y": 500, "projection": "structured"}, nil)
	x := patterns(4, 8, 1)
	add := func(url, key string, x []float64, path string) (int, api.Written, http.Header) {
		t.Helper()
		j, _ := json.Marshal(map[string]any{"patterns": api.RowsOf(x, 8)})
		req, _ := http.NewRequest("POST", url+"/v1/memories/m/"+path, bytes.NewReader(j))
		req.Header.Set("Idempotency-Key", key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var w api.Written
		rb, _ := io.ReadAll(resp.Body)
		json.Unmarshal(rb, &w)
		return resp.StatusCode, w, resp.Header
	}
	st, w1, h := add(url, "k1", x, "patterns")
	if st != 200 || w1.Added != 4 || w1.Count != 4 || h.Get("Idempotent-Replayed") != "" {
		t.Fatalf("first: %d %+v", st, w1)
	}
	writeN(t, url, "m", 1, 7) // another write: count 7
	st, w2, h := add(url, "k1", x, "patterns")
	if st != 200 || w2 != w1 || h.Get("Idempotent-Replayed") != "true" {
		t.Errorf("retry: %d %+v %v, want the first answer %+v, replayed", st, w2, h, w1)
	}
	var info MemoryInfo
	if call(t, "GET", url+"/v1/memories/m", nil, &info); info.Count != 7 {
		t.Errorf("after the retry: count %d, want 7", info.Count)
	}
	if st, _, _ := add(url, "k1", patterns(4, 8, 2), "patterns"); st != 422 {
		t.Errorf("another body under the key: %d, want 422", st)
	}
	if st, w, _ := add(url, "r1", x[:8], "patterns:remove"); st != 200 || w.Removed != 1 || w.Count != 6 {
		t.Errorf("keyed removal: %d %+v", st, w)
	}
	writeN(t, url, "m", 1, 8) // the third write since a snapshot: another snapshot
	// Concurrent requests with one key: one applies, the others wait and
	// are answered alike.
	var wg sync.WaitGroup
	var answers [8]api.Written
	for i := range answers {
		wg.Go(func() { _, answers[i], _ = add(url, "k2", patterns(2, 8, 3), "patterns") })
	}
	wg.Wait()
	for _, a := range answers {
		if a != answers[0] || a.Added != 2 {
			t.Errorf("concurrent answers %+v", answers)
			break
		}
	}
	call(t, "GET", url+"/v1/memories/m", nil, &info)
	want := info.Count
	if want != 11 {
		t.Errorf("count %d after the concurrent keyed addition, want 11", want)
	}
	s.crash()
	_, url = testServer(t, dir, Options{})
	for _, c := range []struct {
		key, path string
		x         []float64
		want      api.Written
	}{{"k1", "patterns", x, w1}, {"r1", "patterns:remove", x[:8], api.Written{Removed: 1, Count: 6}}, {"k2", "patterns", patterns(2, 8, 3), answers[0]}} {
		if st, w, h := add(url, c.key, c.x, c.path); st != 200 || w != c.want || h.Get("Idempotent-Replayed") != "true" {
			t.Errorf("%s after a restart: %d %+v, want %+v replayed", c.key, st, w, c.want)
		}
	}
	if call(t, "GET", url+"/v1/memories/m", nil, &info); info.Count != want {
		t.Errorf("after the retries: count %d, want %d", info.Count, want)
	}
	for _, key := range []string{"", "a b", strings.Repeat("k", 256), "é"} {
		j, _ := json.Marshal(map[string]any{"patterns": api.RowsOf(x, 8)})
		req, _ := http.NewRequest("POST", url+"/v1/memories/m/patterns", bytes.NewReader(j))
		req.Header["Idempotency-Key"] = []string{key}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if e := errorOf(t, b); resp.StatusCode != 400 || e.Field != "Idempotency-Key" {
			t.Errorf("key %q: %d %s", key, resp.StatusCode, b)
		}
	}
}

// TestRemoveUnknown: a removal of a row never added is 409 naming the row
// and nothing changes; ?force=true removes it anyway; an MrDAM refuses it
// too; the fingerprints survive a restart; after a merge the message says
// that the memory cannot list what the merge added.
func TestRemoveUnknown(t *testing.T) {
	dir := t.TempDir()
	s, url := testServer(t, dir, Options{})
	for _, c := range []map[string]any{{"d": 8, "y": 500, "projection": "structured"}, {"d": 8, "rep": "mrdam"}} {
		name := "dr"
		if c["rep"] == "mrdam" {
			name = "mr"
		}
		call(t, "PUT", url+"/v1/memories/"+name, c, nil)
		x := writeN(t, url, name, 2, 1)
		unknown := append(append([]float64(nil), x[0][:8]...), patterns(1, 8, 77)...)
		st, b := call(t, "POST", url+"/v1/memories/"+name+"/patterns:remove", map[string]any{"patterns": api.RowsOf(unknown, 8)}, nil)
		if e := errorOf(t, b); st != 409 || e.Field != "patterns" || !strings.Contains(e.Message, "row 2") {
			t.Errorf("%s: removing an unknown row: %d %s", name, st, b)
		}
		var info MemoryInfo
		if call(t, "GET", url+"/v1/memories/"+name, nil, &info); info.Count != 6 || info.Seq != 2 {
			t.Errorf("%s after a refused removal: %+v", name, info)
		}
		// A row added once cannot be removed twice.
		twice := append(append([]float64(nil), x[0][:8]...), x[0][:8]...)
		if st, b := call(t, "POST", url+"/v1/memories/"+name+"/patterns:remove", map[string]any{"patterns": api.RowsOf(twice, 8)}, nil); st != 409 {
			t.Errorf("%s: removing a row twice: %d %s", name, st, b)
		}
	}
	// Forced, a row never added is still refused where T would then hold
	// what the patterns left cannot produce (dam checks T's bound): 409,
	// nothing changed.
	if st, b := call(t, "POST", url+"/v1/memories/dr/patterns:remove?force=true", map[string]any{"patterns": api.RowsOf(patterns(1, 8, 77), 8)}, nil); st != 409 || !strings.Contains(errorOf(t, b).Message, "stored patterns can produce") {
		t.Errorf("forced removal of a row never added: %d %s", st, b)
	}
	if st, b := call(t, "POST", url+"/v1/memories/dr/patterns:remove?force=maybe", map[string]any{"patterns": api.RowsOf(patterns(1, 8, 77), 8)}, nil); st != 400 || errorOf(t, b).Field != "force" {
		t.Errorf("?force=maybe: %d %s", st, b)
	}
	s.crash()
	_, url = testServer(t, dir, Options{})
	x := patterns(3, 8, 1) // writeN's first batch
	if st, b := call(t, "POST", url+"/v1/memories/dr/patterns:remove", map[string]any{"patterns": api.RowsOf(x[:8], 8)}, nil); st != 200 {
		t.Errorf("after a restart, removing an added row: %d %s", st, b)
	}
	if st, b := call(t, "POST", url+"/v1/memories/dr/patterns:remove", map[string]any{"patterns": api.RowsOf(x[:8], 8)}, nil); st != 409 {
		t.Errorf("after a restart, removing it again: %d %s", st, b)
	}
	// A merge adds patterns the memory cannot list.
	o, _ := dam.New(dam.Config{D: 8, Beta: 10, Y: 500, Projection: features.Structured})
	o.Add(patterns(2, 8, 40))
	var buf bytes.Buffer
	dam.Write(&buf, o)
	req, _ := http.NewRequest("PUT", url+"/v1/memories/dr/merge", &buf)
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != 200 {
		t.Fatalf("merge: %v %v", resp, err)
	}
	st, b := call(t, "POST", url+"/v1/memories/dr/patterns:remove", map[string]any{"patterns": api.RowsOf(patterns(1, 8, 40), 8)}, nil)
	if e := errorOf(t, b); st != 409 || !strings.Contains(e.Message, "a merge") || !strings.Contains(e.Message, "force=true") {
		t.Errorf("removing a merged row: %d %s", st, b)
	}
	var info MemoryInfo
	call(t, "GET", url+"/v1/memories/dr", nil, &info)
	if st, b := call(t, "POST", url+"/v1/memories/dr/patterns:remove?force=true", map[string]any{"patterns": api.RowsOf(patterns(1, 8, 40), 8)}, nil); st != 200 {
		t.Errorf("forced removal of a merged row: %d %s", st, b)
	}
	var after MemoryInfo
	if call(t, "GET", url+"/v1/memories/dr", nil, &after); after.Count != info.Count-1 {
		t.Errorf("after the forced removal: count %d, want %d", after.Count, info.Count-1)
	}
}

// TestStartCleans: a start removes the temporary files that killed writes
// left, the half-made and half-deleted folders, and logs each; one
// unreadable memory (a garbled memory.json) is damaged, the others open.
func TestStartCleans(t *testing.T) {
	dir := t.TempDir()
	_, url := testServer(t, dir, Options{})
	call(t, "PUT", url+"/v1/memories/m", map[string]any{"d": 4, "rep": "mrdam"}, nil)
	call(t, "PUT", url+"/v1/memories/n", map[string]any{"d": 4, "rep": "mrdam"}, nil)
	stopAll(t)
	temps := []string{filepath.Join(dir, "m", ".snapshot-00000000000000000001.drdam.tmp-123"), filepath.Join(dir, "m", ".wal.log.tmp-9"), filepath.Join(dir, ".x.tmp-1")}
	for _, p := range temps {
		os.WriteFile(p, []byte("partial"), 0o644)
	}
	os.Mkdir(filepath.Join(dir, "half"), 0o755)
	os.MkdirAll(filepath.Join(dir, deletedPrefix+"old-1", "sub"), 0o755)
	os.WriteFile(filepath.Join(dir, "n", "memory.json"), []byte("{garbled"), 0o644)
	var logs syncBuffer
	_, url = testServer(t, dir, Options{Log: logTo(&logs)})
	for _, p := range append(temps, filepath.Join(dir, "half"), filepath.Join(dir, deletedPrefix+"old-1")) {
		if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s left: %v", p, err)
		}
	}
	if n := strings.Count(logs.String(), "removed a temporary file"); n != 3 {
		t.Errorf("%d temporary files logged, want 3: %s", n, logs.String())
	}
	if st, _ := call(t, "GET", url+"/v1/memories/m", nil, nil); st != 200 {
		t.Errorf("m: %d", st)
	}
	if st, b := call(t, "GET", url+"/v1/memories/n", nil, nil); st != 503 || !strings.Contains(errorOf(t, b).Message, "memory.json") {
		t.Errorf("n with a garbled memory.json: %d %s", st, b)
	}
}

// v1Record is a record of a log of format 1 (drdam before idempotency
// keys): u32 n | u32 CRC-32C | u64 seq | u8 op | u32 rows | u32 cols | values.
func v1Record(seq uint64, op byte, x []float64, d int) []byte {
	p := binary.LittleEndian.AppendUint64(nil, seq)
	p = append(p, op)
	p = binary.LittleEndian.AppendUint32(p, uint32(len(x)/d))
	p = binary.LittleEndian.AppendUint32(p, uint32(d))
	for _, v := range x {
		p = binary.LittleEndian.AppendUint64(p, math.Float64bits(v))
	}
	b := binary.LittleEndian.AppendUint32(nil, uint32(len(p)))
	b = binary.LittleEndian.AppendUint32(b, crc32.Checksum(p, castagnoli))
	return append(b, p...)
}

// TestV1Log: a memory whose log an older drdam wrote (format 1, no
// tables) opens with its records, its log is upgraded (a snapshot, then a
// log of format 2), and its fingerprints know the patterns of the old
// log's records but not those of its snapshot: removing one of those
// needs ?force=true, and the message says why.
func TestV1Log(t *testing.T) {
	dir := t.TempDir()
	_, url := testServer(t, dir, Options{})
	call(t, "PUT", url+"/v1/memories/m", map[string]any{"d": 8, "y": 500, "projection": "structured"}, nil)
	old := writeN(t, url, "m", 1, 1) // in the snapshot written at the stop below
	stopAll(t)
	a, b := patterns(2, 8, 5), patterns(2, 8, 6)
	log := []byte(walMagicV1)
	log = append(log, v1Record(2, opAdd, a, 8)...)
	log = append(log, v1Record(3, opAdd, b, 8)...)
	log = append(log, v1Record(4, opRemove, a[:8], 8)...)
	wl := filepath.Join(dir, "m", "wal.log")
	if err := os.WriteFile(wl, log, 0o644); err != nil {
		t.Fatal(err)
	}
	_, url = testServer(t, dir, Options{})
	var info MemoryInfo
	if st, b := call(t, "GET", url+"/v1/memories/m", nil, &info); st != 200 || info.Count != 6 || info.Seq != 4 {
		t.Fatalf("after the v1 log: %d %s, want 3 + 2 + 2 − 1 patterns, record 4 last", st, b)
	}
	if b, _ := os.ReadFile(wl); !bytes.HasPrefix(b, []byte(walMagic)) {
		t.Errorf("the log was not upgraded: starts %q", b[:10])
	}
	if st, b := call(t, "POST", url+"/v1/memories/m/patterns:remove", map[string]any{"patterns": api.RowsOf(b[:8], 8)}, nil); st != 200 {
		t.Errorf("removing a row of the old log's records: %d %s", st, b)
	}
	st, body := call(t, "POST", url+"/v1/memories/m/patterns:remove", map[string]any{"patterns": api.RowsOf(old[0][:8], 8)}, nil)
	if e := errorOf(t, body); st != 409 || !strings.Contains(e.Message, "stored before this drdam kept fingerprints") {
		t.Errorf("removing a row of the old snapshot: %d %s", st, body)
	}
	if st, b := call(t, "POST", url+"/v1/memories/m/patterns:remove?force=true", map[string]any{"patterns": api.RowsOf(old[0][:8], 8)}, nil); st != 200 {
		t.Errorf("forced: %d %s", st, b)
	}
}
