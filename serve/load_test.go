package serve

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"os"
	"os/exec"
	"runtime"
	"runtime/pprof"
	"runtime/trace"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/drdam/drdam/client"
	"github.com/drdam/drdam/dam"
	"github.com/drdam/drdam/features"
	"github.com/drdam/drdam/npy"
)

// BenchmarkServeLoad is the load test of drdam serve (BENCHMARKS.md, "The
// memory service under load"): a server on loopback holding a DrDAM of
// D = 784, Y = 10⁵ SinCos features (structured projection, β = 60,
// float64), and the library beside it doing the same work in process; with
// writes applied in one piece (wave=0s) and in waves of 4 ms (the default)
// and 8 ms (Options.Wave). Phases, each bounded in count:
//
//   - adds: 16 clients adding batches of 64 patterns (.npy bodies), 320
//     batches in 4 rounds, each followed by an in-process Add of the same
//     patterns (so that both see the machine in the same state); from the
//     server's metrics also how busy its writes kept it (adds-apply-busy),
//     its Adds' rate against the library's (adds-apply-ratio) and the
//     additions per record of its log (adds-per-record: group commit);
//   - recall: one client, 20 recalls of one query (a stored pattern with
//     its bottom half hidden and clamped, 100 steps of 0.1), against
//     dam.Recall of the same query in process;
//   - energy: one client, 300 energies of one query;
//   - mixed: 16 clients, each 12 rounds of an add of 64 and a recall, and
//     meanwhile a probe asking the energy of one query every 20 ms (some
//     2 000 of them); and the same mix in process, 16 goroutines on the
//     library with the server's locking and a probe. The energies' time is
//     also split (see probe): this process writing the request, the
//     server's wait before its handler runs, the handler (and its reading
//     of the body), and the answer's way back.
//
// The server runs in a process of its own (this test binary, started again
// as loadServerEnv says), as in a deployment: when the clients shared the
// server's process, their goroutines waited for its computation to give up
// the processors before they read an answer, which made 12–18 ms of the
// slowest energies of the mixed load, after the server had answered.
//
// It reports rates and latencies as metrics; run it with
//
//	go test -run '^$' -bench ServeLoad -benchtime 1x ./serve
//
// (loadOnlyEnv runs the server's mixed phase alone, loadTraceEnv traces
// the server.)
func BenchmarkServeLoad(b *testing.B) {
	for _, wave := range []time.Duration{0, 4 * time.Millisecond, 8 * time.Millisecond} {
		b.Run(fmt.Sprintf("wave=%v", wave), func(b *testing.B) { serveLoad(b, wave) })
	}
}

// serveLoad is BenchmarkServeLoad against a server of Options.Wave wave.
func serveLoad(b *testing.B, wave time.Duration) {
	const d, y, beta = 784, 100_000, 60.0
	base := startLoadServer(b, wave)
	url := base + "/v1/memories/load"
	// The clients send as package client's do: each request in one write.
	tr := client.NewTransport()
	tr.MaxIdleConnsPerHost = 64
	hc := &http.Client{Transport: tr}
	mixedOnly := os.Getenv(loadOnlyEnv) == "mixed"
	request := func(ctx context.Context, method, u, ct string, body []byte) ([]byte, error) {
		req, err := http.NewRequestWithContext(ctx, method, u, bytes.NewReader(body))
		if err != nil {
			return nil, err
		}
		req.Header.Set("Content-Type", ct)
		resp, err := hc.Do(req)
		if err != nil {
			return nil, err
		}
		defer resp.Body.Close()
		rb, err := io.ReadAll(resp.Body)
		if err != nil {
			return nil, err
		}
		if resp.StatusCode >= 300 {
			return nil, fmt.Errorf("%s %s: %d %s", method, u, resp.StatusCode, rb)
		}
		return rb, nil
	}
	send := func(method, u, ct string, body []byte) ([]byte, error) {
		return request(context.Background(), method, u, ct, body)
	}
	// energy posts an energy and times it (see probe).
	energy := func(body []byte) (probe, error) {
		var wrote atomic.Int64 // when the request was written (Unix ns)
		ctx := httptrace.WithClientTrace(context.Background(), &httptrace.ClientTrace{
			WroteRequest: func(httptrace.WroteRequestInfo) { wrote.Store(time.Now().UnixNano()) },
		})
		t0 := time.Now()
		rb, err := request(ctx, "POST", url+"/energy", "application/json", body)
		t1 := time.Now()
		if err != nil {
			return probe{}, err
		}
		var st struct{ Handler, Read, Start, End int64 }
		if err := json.Unmarshal(rb[bytes.LastIndexByte(rb, '\n')+1:], &st); err != nil {
			return probe{}, fmt.Errorf("energy: no handler time in %q", rb)
		}
		return probe{
			total:   t1.Sub(t0),
			send:    time.Duration(wrote.Load() - t0.UnixNano()),
			in:      time.Duration(st.Start - wrote.Load()),
			handler: time.Duration(st.Handler),
			read:    time.Duration(st.Read),
			out:     time.Duration(t1.UnixNano() - st.End),
		}, nil
	}
	cfg := dam.Config{D: d, Beta: beta, Y: y, Projection: features.Structured}
	if _, err := send("PUT", url, "application/json", []byte(fmt.Sprintf(`{"d": %d, "beta": %g, "y": %d, "projection": "structured"}`, d, beta, y))); err != nil {
		b.Fatal(err)
	}
	batch := func(i int) []byte {
		var buf bytes.Buffer
		npy.Write(&buf, []int{64, d}, patterns(64, d, i))
		return buf.Bytes()
	}
	// The queries: stored pattern 5 with its bottom half hidden.
	stored := patterns(64, d, 0)
	q := slices.Clone(stored[5*d : 6*d])
	mask := make([]bool, d)
	for j := range d {
		mask[j] = j < d/2
		if !mask[j] {
			q[j] = 0
		}
	}
	recallBody, _ := json.Marshal(map[string]any{"queries": [][]float64{q}, "mask": mask, "max_steps": 100, "step": 0.1})
	// scrape returns the value of a series of the server's /metrics.
	scrape := func(series string) float64 {
		rb, err := send("GET", base+"/metrics", "", nil)
		if err != nil {
			b.Fatal(err)
		}
		for line := range strings.Lines(string(rb)) {
			if v, ok := strings.CutPrefix(line, series+" "); ok {
				f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
				if err != nil {
					b.Fatalf("metrics: %q: %v", line, err)
				}
				return f
			}
		}
		return 0 // not yet observed
	}
	// writeStats returns the seconds the server's additions spent applying
	// records, the requests they wrote and the records they made.
	writeStats := func() (apply, requests, records float64) {
		return scrape(`drdam_write_apply_seconds_sum{op="add"}`), scrape("drdam_add_group_requests_sum"), scrape("drdam_add_group_requests_count")
	}
	energyBody, _ := json.Marshal(map[string]any{"queries": [][]float64{q}})
	if _, err := send("POST", url+"/patterns", "application/x-npy", batch(0)); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()

	// Adds: 16 clients, 320 batches of 64, in 4 rounds; after each round
	// the library adds the same patterns in process, so that both see the
	// machine in the same state (on a shared machine its speed drifts).
	const clients, batches = 16, 320
	rounds := 4
	if mixedOnly {
		rounds = 0
	}
	bodies := make([][]byte, batches)
	for i := range bodies {
		bodies[i] = batch(i + 1)
	}
	ref, err := dam.New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	var srvTime, libTime time.Duration
	var clientCPU float64 // seconds of CPU the clients (this process) used meanwhile
	// The server's own account of the additions (its metrics): the seconds
	// its writes spent applying records to the model, the requests and the
	// records they made.
	var applyTime, grouped, records float64
	var wg sync.WaitGroup
	for r := range rounds {
		lo, hi := r*batches/rounds, (r+1)*batches/rounds
		var next atomic.Int64
		next.Store(int64(lo))
		c0 := busyCPU()
		a0, g0, n0 := writeStats()
		t0 := time.Now()
		for range clients {
			wg.Go(func() {
				for {
					i := int(next.Add(1) - 1)
					if i >= hi {
						return
					}
					if _, err := send("POST", url+"/patterns", "application/x-npy", bodies[i]); err != nil {
						b.Error(err)
						return
					}
				}
			})
		}
		wg.Wait()
		srv := time.Since(t0)
		srvTime += srv
		clientCPU += busyCPU() - c0
		a1, g1, n1 := writeStats()
		applyTime += a1 - a0
		grouped += g1 - g0
		records += n1 - n0
		part := make([]float64, 0, (hi-lo)*64*d)
		for i := lo; i < hi; i++ {
			part = append(part, patterns(64, d, i+1)...)
		}
		t0 = time.Now()
		if err := ref.Add(part); err != nil {
			b.Fatal(err)
		}
		lib := time.Since(t0)
		libTime += lib
		b.Logf("adds, round %d: %g requests in %g records, %.2f s applying of %.2f s; the library's Add %.2f s", r, g1-g0, n1-n0, a1-a0, srv.Seconds(), lib.Seconds())
	}
	serverAdds := float64(batches*64) / srvTime.Seconds()
	libAdds := float64(batches*64) / libTime.Seconds()
	ref.Add(stored)

	// Recall: one client, 20 times; the library, 20 times.
	var srvRecall, libRecall, srvEnergy []time.Duration
	recalls, energies := 20, 300
	if mixedOnly {
		recalls, energies = 0, 0
	}
	for range recalls {
		t := time.Now()
		if _, err := send("POST", url+"/recall", "application/json", recallBody); err != nil {
			b.Fatal(err)
		}
		srvRecall = append(srvRecall, time.Since(t))
	}
	for range recalls {
		t := time.Now()
		if _, err := dam.Recall(ref, q, dam.RecallOptions{Step: 0.1, MaxSteps: 100, Clamp: mask}); err != nil {
			b.Fatal(err)
		}
		libRecall = append(libRecall, time.Since(t))
	}
	for range energies {
		t := time.Now()
		if _, err := send("POST", url+"/energy", "application/json", energyBody); err != nil {
			b.Fatal(err)
		}
		srvEnergy = append(srvEnergy, time.Since(t))
	}

	// Mixed: 16 clients, each 12 rounds of an add of 64 and a recall, and
	// a probe asking the energy of one query every 20 ms meanwhile.
	var mixRecall []time.Duration
	var mixEnergy []probe
	var mu sync.Mutex
	mix := func(add func(c, r int) error, recall func() error, energy func() (probe, error)) {
		stop := make(chan struct{})
		var probe sync.WaitGroup
		probe.Go(func() {
			tick := time.NewTicker(20 * time.Millisecond)
			defer tick.Stop()
			for {
				select {
				case <-stop:
					return
				case <-tick.C:
				}
				p, err := energy()
				if err != nil {
					b.Error(err)
					return
				}
				mixEnergy = append(mixEnergy, p)
			}
		})
		for c := range clients {
			wg.Go(func() {
				for r := range 12 {
					if err := add(c, r); err != nil {
						b.Error(err)
						return
					}
					t := time.Now()
					if err := recall(); err != nil {
						b.Error(err)
						return
					}
					mu.Lock()
					mixRecall = append(mixRecall, time.Since(t))
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		close(stop)
		probe.Wait()
	}
	t0 := time.Now()
	mix(func(c, r int) error {
		_, err := send("POST", url+"/patterns", "application/x-npy", bodies[(c*12+r)%batches])
		return err
	}, func() error {
		_, err := send("POST", url+"/recall", "application/json", recallBody)
		return err
	}, func() (probe, error) { return energy(energyBody) })
	mixAdds := float64(clients*12*64) / time.Since(t0).Seconds()
	srvMixRecall, srvMixEnergy := mixRecall, mixEnergy

	// The same mix in process: 16 goroutines on the library, with the
	// server's locking (Add under a write lock, each descent step and
	// each energy under a read lock), no HTTP, no JSON, no log, no waves.
	mixRecall, mixEnergy = nil, nil
	var libMixAdds float64
	if !mixedOnly {
		var rw sync.RWMutex
		opt := dam.RecallOptions{Step: 0.1, MaxSteps: 100, Clamp: mask}
		e := make([]float64, 1)
		t0 = time.Now()
		mix(func(c, r int) error {
			x := patterns(64, d, (c*12+r)%batches+1)
			rw.Lock()
			defer rw.Unlock()
			return ref.Add(x)
		}, func() error {
			ds, err := dam.NewDescent(ref, opt)
			if err == nil {
				err = ds.Start(q)
			}
			for done := false; err == nil && !done; {
				rw.RLock()
				done, err = ds.Step()
				rw.RUnlock()
			}
			return err
		}, func() (probe, error) {
			t := time.Now()
			rw.RLock()
			err := ref.EnergyGrad(e, nil, q)
			rw.RUnlock()
			d := time.Since(t)
			return probe{total: d, handler: d}, err
		})
		libMixAdds = float64(clients*12*64) / time.Since(t0).Seconds()
	}
	libMixRecall, libMixEnergy := mixRecall, mixEnergy
	b.StopTimer()

	ms := func(v []time.Duration, p float64) float64 {
		if len(v) == 0 {
			return math.NaN() // a phase not run (loadOnlyEnv)
		}
		slices.Sort(v)
		return float64(v[int(math.Ceil(p*float64(len(v))))-1]) / 1e6
	}
	// of is the part f of each probe.
	of := func(ps []probe, f func(probe) time.Duration) []time.Duration {
		v := make([]time.Duration, len(ps))
		for i, p := range ps {
			v[i] = f(p)
		}
		return v
	}
	total := func(p probe) time.Duration { return p.total }
	b.ReportMetric(serverAdds, "server-adds/s")
	b.ReportMetric(libAdds, "library-adds/s")
	b.ReportMetric(serverAdds/libAdds, "adds-ratio")
	b.ReportMetric(applyTime/srvTime.Seconds(), "adds-apply-busy")
	b.ReportMetric(float64(batches*64)/applyTime/libAdds, "adds-apply-ratio")
	b.ReportMetric(grouped/records, "adds-per-record")
	if !math.IsNaN(clientCPU) {
		b.ReportMetric(clientCPU/(srvTime.Seconds()*float64(runtime.NumCPU())), "adds-client-cpu-share")
	}
	b.ReportMetric(ms(srvRecall, 0.5), "recall-p50-ms")
	b.ReportMetric(ms(srvRecall, 0.99), "recall-p99-ms")
	b.ReportMetric(ms(libRecall, 0.5), "library-recall-p50-ms")
	b.ReportMetric(ms(srvRecall, 0.5)/ms(libRecall, 0.5), "recall-p50-ratio")
	b.ReportMetric(ms(srvEnergy, 0.5), "energy-p50-ms")
	b.ReportMetric(ms(srvEnergy, 0.99), "energy-p99-ms")
	b.ReportMetric(mixAdds, "mixed-adds/s")
	b.ReportMetric(ms(srvMixRecall, 0.5), "mixed-recall-p50-ms")
	b.ReportMetric(ms(srvMixRecall, 0.99), "mixed-recall-p99-ms")
	b.ReportMetric(ms(of(srvMixEnergy, total), 0.5), "mixed-energy-p50-ms")
	b.ReportMetric(ms(of(srvMixEnergy, total), 0.99), "mixed-energy-p99-ms")
	b.ReportMetric(ms(of(srvMixEnergy, func(p probe) time.Duration { return p.handler }), 0.99), "mixed-energy-handler-p99-ms")
	b.ReportMetric(ms(of(srvMixEnergy, func(p probe) time.Duration { return p.total - p.handler }), 0.99), "mixed-energy-wait-p99-ms")
	b.ReportMetric(ms(of(srvMixEnergy, func(p probe) time.Duration { return p.send }), 0.99), "mixed-energy-send-p99-ms")
	b.ReportMetric(ms(of(srvMixEnergy, func(p probe) time.Duration { return p.in }), 0.99), "mixed-energy-in-p99-ms")
	b.ReportMetric(ms(of(srvMixEnergy, func(p probe) time.Duration { return p.read }), 0.99), "mixed-energy-read-p99-ms")
	b.ReportMetric(ms(of(srvMixEnergy, func(p probe) time.Duration { return p.out }), 0.99), "mixed-energy-out-p99-ms")
	b.ReportMetric(float64(len(srvMixEnergy)), "mixed-energy-samples")
	b.ReportMetric(libMixAdds, "library-mixed-adds/s")
	b.ReportMetric(ms(libMixRecall, 0.5), "library-mixed-recall-p50-ms")
	b.ReportMetric(ms(libMixRecall, 0.99), "library-mixed-recall-p99-ms")
	b.ReportMetric(ms(of(libMixEnergy, total), 0.99), "library-mixed-energy-p99-ms")
	b.ReportMetric(mixAdds/libMixAdds, "mixed-adds-ratio")
	b.ReportMetric(ms(srvMixRecall, 0.5)/ms(libMixRecall, 0.5), "mixed-recall-p50-ratio")
}

// loadServerEnv, when set to a directory, makes this test binary the
// server of BenchmarkServeLoad instead of running tests: it serves a
// memory directory there on a loopback port, which it prints on its first
// line of output, until its standard input closes.
const loadServerEnv = "DRDAM_LOAD_SERVER"

// loadWaveEnv is the server's Options.Wave, as time.ParseDuration reads it.
const loadWaveEnv = "DRDAM_LOAD_WAVE"

// loadProfileEnv, when set, is a file where the server process of
// BenchmarkServeLoad writes a CPU profile of its whole run (to see where a
// write's time goes: go tool pprof -focus 'memory..write' FILE).
const loadProfileEnv = "DRDAM_LOAD_CPUPROFILE"

// loadOnlyEnv, when "mixed", makes BenchmarkServeLoad run only the
// server's mixed phase (some 25 s instead of 90), for work on its
// latencies; the other metrics are then NaN.
const loadOnlyEnv = "DRDAM_LOAD_ONLY"

// loadTraceEnv, when set, is a file where the server process of
// BenchmarkServeLoad writes an execution trace of its whole run (go tool
// trace FILE; each energy's handler is a region "energy"). A trace of the
// mixed phase (loadOnlyEnv) showed where its energies waited.
const loadTraceEnv = "DRDAM_LOAD_TRACE"

func TestMain(m *testing.M) {
	if dir := os.Getenv(faultServerEnv); dir != "" { // TestFaults' server
		if err := runFaultServer(dir); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	if dir := os.Getenv(loadServerEnv); dir != "" {
		if err := runLoadServer(dir); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// runLoadServer is the server process of BenchmarkServeLoad.
func runLoadServer(dir string) error {
	wave, err := time.ParseDuration(os.Getenv(loadWaveEnv))
	if err != nil {
		return fmt.Errorf("%s: %w", loadWaveEnv, err)
	}
	if p := os.Getenv(loadProfileEnv); p != "" {
		f, err := os.Create(p)
		if err != nil {
			return err
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer func() { pprof.StopCPUProfile(); f.Close() }()
	}
	if p := os.Getenv(loadTraceEnv); p != "" {
		f, err := os.Create(p)
		if err != nil {
			return err
		}
		if err := trace.Start(f); err != nil {
			return err
		}
		defer func() { trace.Stop(); f.Close() }()
	}
	if wave == 0 {
		wave = -1 // in one piece
	}
	s, err := New(Options{Dir: dir, Limits: Limits{MaxBatch: 4096}, Wave: wave})
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	h := s.Handler()
	hs := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasSuffix(r.URL.Path, "/energy") {
			h.ServeHTTP(w, r)
			return
		}
		// An energy's answer ends with a line that says how long the
		// handler took (and of it, the reading of the body), and when it
		// started and ended (Unix ns), so that the benchmark tells the
		// server's time from the wait for it (see probe).
		defer trace.StartRegion(r.Context(), "energy").End()
		start := time.Now()
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		read := time.Since(start)
		r.Body = io.NopCloser(bytes.NewReader(body))
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		maps.Copy(w.Header(), rec.Header())
		w.WriteHeader(rec.Code)
		w.Write(rec.Body.Bytes())
		end := time.Now()
		fmt.Fprintf(w, "\n{\"handler\": %d, \"read\": %d, \"start\": %d, \"end\": %d}", end.Sub(start), read, start.UnixNano(), end.UnixNano())
	})}
	go hs.Serve(ln)
	fmt.Printf("http://%s\n", ln.Addr())
	io.Copy(io.Discard, os.Stdin)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	hs.Shutdown(ctx)
	return s.Close()
}

// startLoadServer starts the server process of BenchmarkServeLoad and
// returns its URL; the process stops at the end of the benchmark.
func startLoadServer(b *testing.B, wave time.Duration) string {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), loadServerEnv+"="+b.TempDir(), loadWaveEnv+"="+wave.String())
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		in.Close()
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				b.Errorf("load server: %v", err)
			}
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
			b.Errorf("load server did not stop within 30 s of its input closing")
		}
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		b.Fatalf("load server: no address: %v", err)
	}
	return strings.TrimSpace(line)
}

// probe is the time of one energy request of BenchmarkServeLoad, and its
// parts: send, this process writing the request (until http's
// WroteRequest); in, from then until the server's handler starts (the
// server's network poll and its wait for a processor); handler, the
// handler (of which read, its reading of the body); out, from the
// handler's end until this process has read the answer. Client and
// server are two processes of one machine: in and out subtract their
// wall clocks.
type probe struct{ total, send, in, handler, read, out time.Duration }
