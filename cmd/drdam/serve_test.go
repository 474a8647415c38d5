package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/drdam/drdam/dam"
	"github.com/drdam/drdam/features"
)

// freeAddr returns a loopback address with a port free at the moment.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// startServe starts drdam serve on dir at addr and waits until it
// answers /healthz.
func startServe(t *testing.T, dir, addr string, args ...string) *exec.Cmd {
	t.Helper()
	return startServeTo(t, new(syncBuffer), dir, addr, args...)
}

// startServeTo is startServe with the server's standard error written to
// errOut.
func startServeTo(t *testing.T, errOut *syncBuffer, dir, addr string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := drdamProcess(append([]string{"serve", "--data", dir, "--addr", addr}, args...)...)
	cmd.Stderr = errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		resp, err := http.Get("http://" + addr + "/healthz")
		if err == nil {
			resp.Body.Close()
			return cmd
		}
	}
	cmd.Process.Kill()
	cmd.Wait()
	t.Fatalf("drdam serve did not start: %s", errOut.String())
	return nil
}

// post sends a JSON body and decodes the JSON answer.
func post(url string, body, out any) (int, error) {
	b, _ := json.Marshal(body)
	resp, err := http.Post(url, "application/json", bytes.NewReader(b))
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	rb, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, err
	}
	if out != nil && resp.StatusCode == 200 {
		if err := json.Unmarshal(rb, out); err != nil {
			return 0, err
		}
	}
	return resp.StatusCode, nil
}

// crashBatch is batch i of client c: 4 patterns of dimension 8, distinct
// for every (c, i).
func crashBatch(c, i int) [][]float64 {
	rows := make([][]float64, 4)
	for r := range rows {
		rows[r] = make([]float64, 8)
		for j := range rows[r] {
			rows[r][j] = float64((c*7919+i*104729+r*1299709+j*15485863)%1000) / 1000 / math.Sqrt(8)
		}
	}
	return rows
}

// TestServeCrash: clients add batches to drdam serve while it is killed
// with SIGKILL at a random moment, 50 times (or for at most 60 s). After
// each restart the memory holds every acknowledged batch, and at most the
// batches in flight when it died besides: its count is the acknowledged
// patterns plus those of some of the in-flight batches, and its energies
// at probe queries are those of a model encoded offline from exactly
// those patterns (relative 1e-9: the same sums in another order, which
// moves T by about 1e-16).
func TestServeCrash(t *testing.T) {
	if testing.Short() {
		t.Skip("kills drdam serve 50 times")
	}
	dir, addr := t.TempDir(), freeAddr(t)
	url := "http://" + addr + "/v1/memories/m"
	cfg := dam.Config{D: 8, Beta: 10, Y: 512, Projection: features.Structured, Seed: 3}
	srv := startServe(t, dir, addr)
	b, _ := json.Marshal(map[string]any{"d": 8, "y": 512, "projection": "structured", "seed": 3})
	req, _ := http.NewRequest("PUT", url, bytes.NewReader(b))
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != 201 {
		t.Fatalf("create: %v %v", resp, err)
	}
	const clients = 3
	var acked [][]float64 // every acknowledged pattern
	next := make([]int, clients)
	rng := rand.New(rand.NewPCG(1, 2))
	start := time.Now()
	kills := 0
	for ; kills < 50 && time.Since(start) < 60*time.Second; kills++ {
		var mu sync.Mutex
		inflight := make([][][]float64, clients)
		var wg sync.WaitGroup
		stop := make(chan struct{})
		for c := range clients {
			wg.Go(func() {
				for {
					select {
					case <-stop:
						return
					default:
					}
					batch := crashBatch(c, next[c])
					mu.Lock()
					inflight[c] = batch
					mu.Unlock()
					st, err := post(url+"/patterns", map[string]any{"patterns": batch}, nil)
					if err != nil {
						return // the server died: the batch stays in flight
					}
					if st != 200 {
						t.Errorf("add: status %d", st)
						return
					}
					mu.Lock()
					acked = append(acked, batch...)
					next[c]++
					inflight[c] = nil
					mu.Unlock()
				}
			})
		}
		time.Sleep(time.Duration(5+rng.IntN(60)) * time.Millisecond)
		srv.Process.Signal(syscall.SIGKILL)
		srv.Wait()
		close(stop)
		wg.Wait()
		srv = startServe(t, dir, addr)
		var info struct{ Count int }
		resp, err := http.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		json.NewDecoder(resp.Body).Decode(&info)
		resp.Body.Close()
		// The batches in flight that the memory holds: a subset whose
		// patterns make up the difference, found by the energies.
		extra := info.Count - len(acked)
		var flying []int // clients with a batch in flight
		for c, f := range inflight {
			if f != nil {
				flying = append(flying, c)
			}
		}
		if extra < 0 || extra > 4*len(flying) {
			t.Fatalf("kill %d: count %d, with %d patterns acknowledged and %d batches in flight", kills, info.Count, len(acked), len(flying))
		}
		probes := append(append([][]float64{}, crashBatch(99, kills)...), crashBatch(0, 0)[1])
		var en struct{ Energy []float64 }
		if st, err := post(url+"/energy", map[string]any{"queries": probes}, &en); err != nil || st != 200 {
			t.Fatalf("kill %d: energy: %d %v", kills, st, err)
		}
		match := -1
		for mask := 0; mask < 1<<len(flying) && match < 0; mask++ {
			all := append([][]float64{}, acked...)
			for i, c := range flying {
				if mask&(1<<i) != 0 {
					all = append(all, inflight[c]...)
				}
			}
			if len(all) == info.Count && energiesMatch(t, cfg, all, probes, en.Energy) {
				match = mask
			}
		}
		if match < 0 {
			t.Fatalf("kill %d: the energies of the restarted memory (%d patterns) are those of no model of the %d acknowledged patterns and some of the %d batches in flight", kills, info.Count, len(acked), len(flying))
		}
		// A batch in flight that the memory holds was written: it counts
		// as acknowledged from now on, and its client goes on to the next.
		for i, c := range flying {
			if match&(1<<i) != 0 {
				acked = append(acked, inflight[c]...)
				next[c]++
			}
		}
	}
	srv.Process.Signal(syscall.SIGTERM)
	srv.Wait()
	t.Logf("%d kills in %v; %d patterns acknowledged", kills, time.Since(start).Round(time.Millisecond), len(acked))
	if kills < 10 {
		t.Errorf("only %d kills in 60 s", kills)
	}
}

// energiesMatch reports whether a model of configuration c storing rows
// has the energies e at the probes, to relative 1e-9.
func energiesMatch(t *testing.T, c dam.Config, rows, probes [][]float64, e []float64) bool {
	t.Helper()
	m, err := dam.New(c)
	if err != nil {
		t.Fatal(err)
	}
	var x, q []float64
	for _, r := range rows {
		x = append(x, r...)
	}
	for _, r := range probes {
		q = append(q, r...)
	}
	if err := m.Add(x); err != nil {
		t.Fatal(err)
	}
	want := make([]float64, len(probes))
	if err := m.EnergyGrad(want, nil, q); err != nil {
		t.Fatal(err)
	}
	for i := range want {
		if math.Abs(e[i]-want[i]) > 1e-9*math.Abs(want[i]) {
			return false
		}
	}
	return true
}

// TestServeFlags: without a token drdam serve refuses a non-loopback
// address; SIGTERM stops it with status 0 after a snapshot.
func TestServeFlags(t *testing.T) {
	dir := t.TempDir()
	st, _, errOut := drdam(t, "serve", "--data", dir, "--addr", "0.0.0.0:0")
	if st != 2 || !strings.Contains(errOut, "loopback") {
		t.Errorf("non-loopback without a token: status %d, %q", st, errOut)
	}
	if st, _, errOut := drdam(t, "serve", "--data", dir, "--wave", "-4ms"); st != 2 || !strings.Contains(errOut, "--wave -4ms") {
		t.Errorf("--wave -4ms: status %d, %q", st, errOut)
	}
	addr := freeAddr(t)
	srv := startServe(t, dir, addr)
	b, _ := json.Marshal(map[string]any{"d": 4, "rep": "mrdam"})
	req, _ := http.NewRequest("PUT", "http://"+addr+"/v1/memories/g", bytes.NewReader(b))
	http.DefaultClient.Do(req)
	post("http://"+addr+"/v1/memories/g/patterns", map[string]any{"patterns": [][]float64{{0.1, 0.2, 0.3, 0.4}}}, nil)
	srv.Process.Signal(syscall.SIGTERM)
	if err := srv.Wait(); err != nil {
		t.Errorf("after SIGTERM: %v", err)
	}
	snaps, _ := filepath.Glob(filepath.Join(dir, "g", "snapshot-*.drdam"))
	if len(snaps) != 1 {
		t.Fatalf("snapshots after a graceful stop: %v", snaps)
	}
	if out := mustRun(t, "info", "--model", snaps[0]); !strings.Contains(out, "patterns K      1") {
		t.Errorf("drdam info on the snapshot: %s", out)
	}
}

// TestServeUnderUlimit: drdam serve under ulimit -v 4000000 (3.8 GiB of
// address space; its default budget is then 1.2–1.4 GiB, what the address
// space has left after the runtime's reservations: sysinfo.Budget):
// 20 PUTs of
// memories of about 400 MB each (a dense projection of 450000×100
// float64), each of which fits alone, are created until the budget is
// reached and answered 507 after, naming the budget; the server stays up,
// answers /healthz, and stores and evaluates in the memories it made.
// (Before the budget, five such PUTs ended the server with Go's fatal
// out-of-memory.)
func TestServeUnderUlimit(t *testing.T) {
	if testing.Short() {
		t.Skip("creates 2.5 GB of memories")
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash not found: cannot set ulimit -v")
	}
	dir, addr := t.TempDir(), freeAddr(t)
	cmd := exec.Command("bash", "-c", `ulimit -v 4000000 && exec "$@"`, "bash", os.Args[0], "serve", "--data", dir, "--addr", addr)
	cmd.Env = append(os.Environ(), "DRDAM_TEST_AS_MAIN=1")
	var errOut syncBuffer
	cmd.Stderr = &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
	}()
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if resp, err := http.Get("http://" + addr + "/healthz"); err == nil {
			resp.Body.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("drdam serve did not start: %s", errOut.String())
		}
	}
	base := "http://" + addr + "/v1/memories/"
	made, full := 0, 0
	for i := range 20 {
		b, _ := json.Marshal(map[string]any{"d": 100, "y": 450000})
		req, _ := http.NewRequest("PUT", fmt.Sprintf("%sm%02d", base, i), bytes.NewReader(b))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("PUT %d: %v (the server died?): %s", i, err, errOut.String())
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		switch {
		case resp.StatusCode == 201 && full == 0:
			made++
		case resp.StatusCode == 507 && strings.Contains(string(body), "memory budget is") && strings.Contains(string(body), "needs"):
			full++
		default:
			t.Errorf("PUT %d: %d %s (after %d made, %d refused)", i, resp.StatusCode, body, made, full)
		}
	}
	if made < 2 || full == 0 {
		t.Errorf("%d memories made, %d refused: want some of each", made, full)
	}
	if resp, err := http.Get("http://" + addr + "/healthz"); err != nil || resp.StatusCode != 200 {
		t.Fatalf("healthz after the PUTs: %v %v: %s", resp, err, errOut.String())
	}
	x := make([][]float64, 3)
	for i := range x {
		x[i] = make([]float64, 100)
		x[i][i] = 0.1
	}
	if st, err := post(base+"m00/patterns", map[string]any{"patterns": x}, nil); err != nil || st != 200 {
		t.Errorf("add after the PUTs: %d %v", st, err)
	}
	var en struct{ Energy []float64 }
	if st, err := post(base+"m00/energy", map[string]any{"queries": x}, &en); err != nil || st != 200 || len(en.Energy) != 3 {
		t.Errorf("energy after the PUTs: %d %v %v", st, err, en)
	}
	if s := errOut.String(); strings.Contains(s, "fatal error") || strings.Contains(s, "panic") {
		t.Errorf("the server's standard error: %s", s)
	}
	t.Logf("%d memories made, %d refused with 507", made, full)
}

// syncBuffer is a bytes.Buffer safe for a process's output and a test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestServeAccessLog: --access-log json writes a JSON line per request on
// standard error (the server's own lines stay text); a value other than
// text or json is refused, naming the flag.
func TestServeAccessLog(t *testing.T) {
	dir := t.TempDir()
	if st, _, errOut := drdam(t, "serve", "--data", dir, "--access-log", "xml"); st != 2 || !strings.Contains(errOut, `--access-log "xml"`) {
		t.Errorf("--access-log xml: status %d, %q", st, errOut)
	}
	addr := freeAddr(t)
	var errOut syncBuffer
	cmd := startServeTo(t, &errOut, dir, addr, "--access-log", "json")
	if resp, err := http.Get("http://" + addr + "/v1/memories/nope"); err == nil {
		resp.Body.Close()
	}
	cmd.Process.Signal(syscall.SIGTERM)
	if err := cmd.Wait(); err != nil {
		t.Errorf("after SIGTERM: %v", err)
	}
	var got []string
	for _, l := range strings.Split(errOut.String(), "\n") {
		var m map[string]any
		if json.Unmarshal([]byte(l), &m) == nil && m["msg"] == "request" {
			got = append(got, fmt.Sprintf("%v %v %v", m["method"], m["path"], m["status"]))
		}
	}
	// At least one /healthz (the wait polls it) and the 404, last.
	if len(got) < 2 || got[len(got)-1] != "GET /v1/memories/nope 404" || got[0] != "GET /healthz 200" {
		t.Errorf("access lines %q, want GET /healthz 200 … GET /v1/memories/nope 404\n%s", got, errOut.String())
	}
}
