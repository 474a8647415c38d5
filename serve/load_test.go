package serve

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/drdam/drdam/dam"
	"github.com/drdam/drdam/features"
	"github.com/drdam/drdam/npy"
)

// BenchmarkServeLoad is the load test of drdam serve (BENCHMARKS.md, "The
// memory service"): a server on loopback holding a DrDAM of D = 784,
// Y = 10⁵ SinCos features (structured projection, β = 60, float64), and
// the library beside it doing the same work in process. Phases, each
// bounded in count:
//
//   - adds: 16 clients adding batches of 64 patterns (.npy bodies), 320
//     batches, against one in-process Add of the same 20 480 patterns;
//   - recall: one client, 20 recalls of one query (a stored pattern with
//     its bottom half hidden and clamped, 100 steps of 0.1), against
//     dam.Recall of the same query in process;
//   - energy: one client, 300 energies of one query;
//   - mixed: 16 clients, each 12 rounds of an add of 64 and a recall and
//     an energy, at once; and the same mix in process, 16 goroutines on
//     the library with the server's locking.
//
// It reports rates and latencies as metrics; run it with
//
//	go test -run '^$' -bench ServeLoad -benchtime 1x ./serve
func BenchmarkServeLoad(b *testing.B) {
	const d, y, beta = 784, 100_000, 60.0
	s, err := New(Options{Dir: b.TempDir(), Limits: Limits{MaxBatch: 4096}})
	if err != nil {
		b.Fatal(err)
	}
	hs := httptest.NewServer(s.Handler())
	defer func() { hs.Close(); s.Close() }()
	url := hs.URL + "/v1/memories/load"
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	send := func(method, u, ct string, body []byte) ([]byte, error) {
		req, err := http.NewRequest(method, u, bytes.NewReader(body))
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
	energyBody, _ := json.Marshal(map[string]any{"queries": [][]float64{q}})
	if _, err := send("POST", url+"/patterns", "application/x-npy", batch(0)); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()

	// Adds: 16 clients, 320 batches of 64.
	const clients, batches = 16, 320
	bodies := make([][]byte, batches)
	for i := range bodies {
		bodies[i] = batch(i + 1)
	}
	var next atomic.Int64
	t0 := time.Now()
	var wg sync.WaitGroup
	for range clients {
		wg.Go(func() {
			for {
				i := next.Add(1) - 1
				if i >= batches {
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
	serverAdds := float64(batches*64) / time.Since(t0).Seconds()
	ref, err := dam.New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	all := make([]float64, 0, batches*64*d)
	for i := range batches {
		all = append(all, patterns(64, d, i+1)...)
	}
	t0 = time.Now()
	if err := ref.Add(all); err != nil {
		b.Fatal(err)
	}
	libAdds := float64(batches*64) / time.Since(t0).Seconds()
	ref.Add(stored)

	// Recall: one client, 20 times; the library, 20 times.
	var srvRecall, libRecall, srvEnergy []time.Duration
	for range 20 {
		t := time.Now()
		if _, err := send("POST", url+"/recall", "application/json", recallBody); err != nil {
			b.Fatal(err)
		}
		srvRecall = append(srvRecall, time.Since(t))
	}
	for range 20 {
		t := time.Now()
		if _, err := dam.Recall(ref, q, dam.RecallOptions{Step: 0.1, MaxSteps: 100, Clamp: mask}); err != nil {
			b.Fatal(err)
		}
		libRecall = append(libRecall, time.Since(t))
	}
	for range 300 {
		t := time.Now()
		if _, err := send("POST", url+"/energy", "application/json", energyBody); err != nil {
			b.Fatal(err)
		}
		srvEnergy = append(srvEnergy, time.Since(t))
	}

	// Mixed: 16 clients, each 12 rounds of add, recall, energy.
	var mu sync.Mutex
	var mixRecall, mixEnergy []time.Duration
	t0 = time.Now()
	for c := range clients {
		wg.Go(func() {
			for r := range 12 {
				if _, err := send("POST", url+"/patterns", "application/x-npy", bodies[(c*12+r)%batches]); err != nil {
					b.Error(err)
					return
				}
				t := time.Now()
				if _, err := send("POST", url+"/recall", "application/json", recallBody); err != nil {
					b.Error(err)
					return
				}
				tr := time.Since(t)
				t = time.Now()
				if _, err := send("POST", url+"/energy", "application/json", energyBody); err != nil {
					b.Error(err)
					return
				}
				mu.Lock()
				mixRecall, mixEnergy = append(mixRecall, tr), append(mixEnergy, time.Since(t))
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	mixAdds := float64(clients*12*64) / time.Since(t0).Seconds()

	// The same mix in process: 16 goroutines on the library, with the
	// server's locking (Add under a write lock, each descent step and
	// each energy under a read lock), no HTTP, no JSON, no log.
	var rw sync.RWMutex
	var libMixRecall, libMixEnergy []time.Duration
	opt := dam.RecallOptions{Step: 0.1, MaxSteps: 100, Clamp: mask}
	t0 = time.Now()
	for c := range clients {
		wg.Go(func() {
			e := make([]float64, 1)
			for r := range 12 {
				rw.Lock()
				err := ref.Add(patterns(64, d, (c*12+r)%batches+1))
				rw.Unlock()
				if err != nil {
					b.Error(err)
					return
				}
				t := time.Now()
				ds, err := dam.NewDescent(ref, opt)
				if err == nil {
					err = ds.Start(q)
				}
				for done := false; err == nil && !done; {
					rw.RLock()
					done, err = ds.Step()
					rw.RUnlock()
				}
				if err != nil {
					b.Error(err)
					return
				}
				tr := time.Since(t)
				t = time.Now()
				rw.RLock()
				err = ref.EnergyGrad(e, nil, q)
				rw.RUnlock()
				if err != nil {
					b.Error(err)
					return
				}
				mu.Lock()
				libMixRecall, libMixEnergy = append(libMixRecall, tr), append(libMixEnergy, time.Since(t))
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	libMixAdds := float64(clients*12*64) / time.Since(t0).Seconds()
	b.StopTimer()

	ms := func(v []time.Duration, p float64) float64 {
		slices.Sort(v)
		return float64(v[int(math.Ceil(p*float64(len(v))))-1]) / 1e6
	}
	b.ReportMetric(serverAdds, "server-adds/s")
	b.ReportMetric(libAdds, "library-adds/s")
	b.ReportMetric(serverAdds/libAdds, "adds-ratio")
	b.ReportMetric(ms(srvRecall, 0.5), "recall-p50-ms")
	b.ReportMetric(ms(srvRecall, 0.99), "recall-p99-ms")
	b.ReportMetric(ms(libRecall, 0.5), "library-recall-p50-ms")
	b.ReportMetric(ms(srvRecall, 0.5)/ms(libRecall, 0.5), "recall-p50-ratio")
	b.ReportMetric(ms(srvEnergy, 0.5), "energy-p50-ms")
	b.ReportMetric(ms(srvEnergy, 0.99), "energy-p99-ms")
	b.ReportMetric(mixAdds, "mixed-adds/s")
	b.ReportMetric(ms(mixRecall, 0.5), "mixed-recall-p50-ms")
	b.ReportMetric(ms(mixRecall, 0.99), "mixed-recall-p99-ms")
	b.ReportMetric(ms(mixEnergy, 0.5), "mixed-energy-p50-ms")
	b.ReportMetric(ms(mixEnergy, 0.99), "mixed-energy-p99-ms")
	b.ReportMetric(libMixAdds, "library-mixed-adds/s")
	b.ReportMetric(ms(libMixRecall, 0.5), "library-mixed-recall-p50-ms")
	b.ReportMetric(ms(libMixRecall, 0.99), "library-mixed-recall-p99-ms")
	b.ReportMetric(ms(libMixEnergy, 0.99), "library-mixed-energy-p99-ms")
	b.ReportMetric(mixAdds/libMixAdds, "mixed-adds-ratio")
	b.ReportMetric(ms(mixRecall, 0.5)/ms(libMixRecall, 0.5), "mixed-recall-p50-ratio")
}
