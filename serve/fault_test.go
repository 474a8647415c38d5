package serve

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/drdam/drdam/client"
	"github.com/drdam/drdam/dam"
	"github.com/drdam/drdam/features"
)

// faultServerEnv, when set to a folder, makes this test binary a server
// on it (runFaultServer), at the address faultAddrEnv gives, for the
// tests that kill it: it prints "ready" once it listens, and stops
// gracefully when its standard input closes.
const (
	faultServerEnv = "DRDAM_FAULT_SERVER"
	faultAddrEnv   = "DRDAM_FAULT_ADDR"
	faultSnapEnv   = "DRDAM_FAULT_SNAPSHOT_EVERY"
)

// runFaultServer is the server process of TestFaults.
func runFaultServer(dir string) error {
	every, _ := strconv.Atoi(os.Getenv(faultSnapEnv))
	s, err := New(Options{Dir: dir, SnapshotEvery: every})
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", os.Getenv(faultAddrEnv))
	if err != nil {
		s.Close()
		return err
	}
	hs := &http.Server{Handler: s.Handler()}
	go hs.Serve(ln)
	fmt.Println("ready")
	io.Copy(io.Discard, os.Stdin)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	hs.Shutdown(ctx)
	return s.Close()
}

// faultProc is a server process of TestFaults.
type faultProc struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	stderr *syncBuffer
}

// startFault starts a server process on dir at addr; if it fails to start
// (it exits), it returns its error and standard error.
func startFault(t *testing.T, dir, addr string, every int) (*faultProc, error) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), faultServerEnv+"="+dir, faultAddrEnv+"="+addr, faultSnapEnv+"="+strconv.Itoa(every))
	p := &faultProc{cmd: cmd, stderr: &syncBuffer{}}
	cmd.Stderr = p.stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	p.in = in
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if strings.TrimSpace(line) != "ready" {
		werr := cmd.Wait()
		return nil, fmt.Errorf("%v (%v): %s", werr, err, p.stderr.String())
	}
	return p, nil
}

// kill stops the process with SIGKILL.
func (p *faultProc) kill() {
	p.cmd.Process.Signal(syscall.SIGKILL)
	p.cmd.Wait()
}

// stop stops the process gracefully (a snapshot of every memory).
func (p *faultProc) stop(t *testing.T) {
	p.in.Close()
	done := make(chan error, 1)
	go func() { done <- p.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("server: %v: %s", err, p.stderr.String())
		}
	case <-time.After(30 * time.Second):
		p.kill()
		t.Errorf("server did not stop within 30 s")
	}
}

// freeAddr returns a loopback address with a port free at the moment.
func freeAddr(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// TestFaults is issue 27's fault-injection run: in one run, a second
// server on a folder is refused; a byte flipped in the middle of a log is
// caught, reported and salvaged; a full file system under clients that
// retry with idempotency keys stores each acknowledged key exactly once;
// and 50 SIGKILLs during mixed additions and removals with keys leave the
// memory equal to a model of the acknowledged operations. Bounded: about
// 30 s; loopback only.
func TestFaults(t *testing.T) {
	if testing.Short() {
		t.Skip("kills servers 50 times")
	}
	t.Run("second server", faultSecondServer)
	t.Run("corrupt log", TestCorruptLog)
	t.Run("full disk", faultFullDisk)
	t.Run("kills", faultKills)
}

// faultSecondServer: a second server process on a folder exits at once,
// naming the folder and the first's process.
func faultSecondServer(t *testing.T) {
	dir, addr := t.TempDir(), freeAddr(t)
	p, err := startFault(t, dir, addr, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer p.stop(t)
	t0 := time.Now()
	_, err = startFault(t, dir, freeAddr(t), 0)
	if err == nil || !strings.Contains(err.Error(), dir) || !strings.Contains(err.Error(), fmt.Sprintf("process %d", p.cmd.Process.Pid)) {
		t.Errorf("second server: %v, want a refusal naming %s and process %d", err, dir, p.cmd.Process.Pid)
	}
	if el := time.Since(t0); el > 10*time.Second {
		t.Errorf("the refusal took %v", el)
	}
}

// faultFullDisk: a memory on a small tmpfs, four clients adding with
// idempotency keys and retries while the file system is filled, then
// freed: every call is acknowledged in the end, at least one write was
// refused for the full disk (507) meanwhile, and the memory holds exactly
// the acknowledged additions, also after a crash and restart.
func faultFullDisk(t *testing.T) {
	mnt := t.TempDir()
	if err := mountTmpfs(mnt, "size=4m"); err != nil {
		t.Skipf("cannot mount a tmpfs here (%v): the full-disk case needs one (run as root on Linux)", err)
	}
	t.Cleanup(func() { unmount(mnt) })
	dir := filepath.Join(mnt, "data")
	s, url := testServer(t, dir, Options{SnapshotEvery: 10})
	const d, rows, clients, calls = 32, 8, 4, 30
	if st, b := call(t, "PUT", url+"/v1/memories/m", map[string]any{"d": d, "y": 4000, "projection": "structured"}, nil); st != 201 {
		t.Fatalf("create: %d %s", st, b)
	}
	var statuses sync.Map // status → count, of every answer the clients saw
	hc := &http.Client{Transport: countingTransport{base: client.NewTransport(), seen: &statuses}}
	var acked atomic.Int64
	var wg sync.WaitGroup
	filled := make(chan struct{})
	for c := range clients {
		wg.Go(func() {
			cl := client.New(url, client.WithHTTPClient(hc), client.WithRetry(200, 2*time.Millisecond))
			for i := range calls {
				if i == calls/3 {
					<-filled // a third of the calls before the disk is full
				}
				x := patterns(rows, d, 1000*c+i)
				if _, err := cl.AddFlat(context.Background(), "m", x, d); err != nil {
					t.Errorf("client %d call %d: %v", c, i, err)
					return
				}
				acked.Add(1)
			}
		})
	}
	// Fill the file system, hold it full for a while, free it.
	for acked.Load() < clients*calls/4 {
		time.Sleep(5 * time.Millisecond)
	}
	filler := filepath.Join(mnt, "filler")
	f, err := os.Create(filler)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64<<10)
	for {
		if _, err := f.Write(buf); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatal(err)
			}
			break
		}
	}
	f.Close()
	close(filled)
	time.Sleep(1500 * time.Millisecond)
	os.Remove(filler)
	wg.Wait()
	full, _ := statuses.Load(507)
	if full == nil {
		t.Errorf("no write was refused for the full disk (statuses %v): the case did not happen", mapOf(&statuses))
	}
	var info MemoryInfo
	call(t, "GET", url+"/v1/memories/m", nil, &info)
	if got, want := info.Count, int(acked.Load())*rows; got != want || acked.Load() != clients*calls {
		t.Errorf("count %d, want %d acknowledged calls × %d rows = %d (of %d calls)", got, acked.Load(), rows, want, clients*calls)
	}
	t.Logf("answers seen: %v; %d calls acknowledged", mapOf(&statuses), acked.Load())
	s.crash()
	_, url = testServer(t, dir, Options{})
	var after MemoryInfo
	if call(t, "GET", url+"/v1/memories/m", nil, &after); after.Count != info.Count {
		t.Errorf("after a crash and restart: count %d, want %d", after.Count, info.Count)
	}
}

// countingTransport counts the statuses of the answers that go through it.
type countingTransport struct {
	base http.RoundTripper
	seen *sync.Map
}

func (c countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := c.base.RoundTrip(r)
	if err == nil {
		v, _ := c.seen.LoadOrStore(resp.StatusCode, new(atomic.Int64))
		v.(*atomic.Int64).Add(1)
	}
	return resp, err
}

func mapOf(m *sync.Map) map[int]int64 {
	out := map[int]int64{}
	m.Range(func(k, v any) bool { out[k.(int)] = v.(*atomic.Int64).Load(); return true })
	return out
}

// faultKills: three clients add batches and remove batches they added,
// each call with an Idempotency-Key of its own and retried (the same key)
// until acknowledged, while the server is killed with SIGKILL at random
// moments, 50 times (or for 40 s), and restarted. After a graceful stop,
// the memory equals a model of exactly the acknowledged operations: the
// count and the fingerprints of its patterns are equal, the energies at
// probe queries equal to 1e-9 relative (the same sums in another order).
func faultKills(t *testing.T) {
	dir, addr := t.TempDir(), freeAddr(t)
	url := "http://" + addr
	const d = 8
	cfg := dam.Config{D: d, Beta: 10, Y: 512, Projection: features.Structured, Seed: 3}
	p, err := startFault(t, dir, addr, 7)
	if err != nil {
		t.Fatal(err)
	}
	if st, b := call(t, "PUT", url+"/v1/memories/k", map[string]any{"d": d, "y": 512, "projection": "structured", "seed": 3}, nil); st != 201 {
		t.Fatalf("create: %d %s", st, b)
	}
	type op struct {
		remove bool
		x      []float64
	}
	const clients = 3
	acked := make([][]op, clients)
	var stop atomic.Bool
	var wg sync.WaitGroup
	deadline := time.Now().Add(2 * time.Minute)
	for c := range clients {
		wg.Go(func() {
			cl := client.New(url, client.WithRetry(50, 5*time.Millisecond))
			var added [][]float64 // acknowledged additions not yet removed
			for i := 0; !stop.Load(); i++ {
				o := op{x: patterns(4, d, 100000*c+i)}
				if i%3 == 2 && len(added) > 0 {
					o = op{remove: true, x: added[0]}
				}
				ctx := client.WithIdempotencyKey(context.Background(), fmt.Sprintf("c%d-op%d", c, i))
				for {
					var err error
					if o.remove {
						_, err = cl.RemoveFlat(ctx, "k", o.x, d)
					} else {
						_, err = cl.AddFlat(ctx, "k", o.x, d)
					}
					if err == nil {
						break
					}
					var ce *client.Error
					if errors.As(err, &ce) && ce.Status < 500 && ce.Status != 408 && ce.Status != 429 {
						t.Errorf("client %d op %d: %v", c, i, err)
						return
					}
					if time.Now().After(deadline) {
						t.Errorf("client %d op %d: not acknowledged after 2 minutes: %v", c, i, err)
						return
					}
					time.Sleep(10 * time.Millisecond)
				}
				acked[c] = append(acked[c], o)
				if o.remove {
					added = added[1:]
				} else {
					added = append(added, o.x)
				}
			}
		})
	}
	rng := rand.New(rand.NewPCG(27, 1))
	start := time.Now()
	kills := 0
	for ; kills < 50 && time.Since(start) < 40*time.Second; kills++ {
		time.Sleep(time.Duration(20+rng.IntN(150)) * time.Millisecond)
		p.kill()
		for tries := 0; ; tries++ {
			if p, err = startFault(t, dir, addr, 7); err == nil {
				break
			}
			if tries == 50 {
				stop.Store(true)
				wg.Wait()
				t.Fatalf("restart after kill %d: %v", kills+1, err)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	stop.Store(true)
	wg.Wait()
	p.stop(t)
	// The offline model of the acknowledged operations.
	ref, err := dam.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	want := map[uint64]uint32{}
	buf := make([]byte, 8*d)
	nops := 0
	for c := range clients {
		for _, o := range acked[c] {
			nops++
			for r := range len(o.x) / d {
				h := rowHash(o.x[r*d:(r+1)*d], buf)
				if o.remove {
					if want[h]--; want[h] == 0 {
						delete(want, h)
					}
				} else {
					want[h]++
				}
			}
			if o.remove {
				err = ref.Remove(o.x)
			} else {
				err = ref.Add(o.x)
			}
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	s, err := New(Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	mem, _, err := s.acquire(context.Background(), "k")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d kills, %d acknowledged operations, %d patterns", kills, nops, ref.Len())
	if mem.m.Len() != ref.Len() {
		t.Errorf("count %d, the acknowledged operations leave %d", mem.m.Len(), ref.Len())
	}
	if !mem.tab.complete || len(mem.tab.fp) != len(want) {
		t.Errorf("fingerprints: %d (complete %v), the acknowledged operations leave %d", len(mem.tab.fp), mem.tab.complete, len(want))
	}
	for h, n := range want {
		if mem.tab.fp[h] != n {
			t.Errorf("fingerprint %x counted %d, want %d", h, mem.tab.fp[h], n)
			break
		}
	}
	q := patterns(5, d, 424242)
	e, we := make([]float64, 5), make([]float64, 5)
	mem.m.EnergyGrad(e, nil, q)
	ref.EnergyGrad(we, nil, q)
	if relDiff(e, we) > 1e-9 {
		t.Errorf("energies %v, the model of the acknowledged operations %v", e, we)
	}
	if nops < 50 {
		t.Errorf("only %d operations acknowledged: the run did not exercise the log", nops)
	}
}
