package encode

import (
	"bytes"
	"cmp"
	"compress/gzip"
	"context"
	"encoding/binary"
	"fmt"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/runners/prism"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"

	"github.com/drdam/drdam/dam"
	"github.com/drdam/drdam/dataio"
	"github.com/drdam/drdam/features"
	"github.com/drdam/drdam/npy"
)

// The pipelines of these tests run on Prism, in this process (loopback
// workers): no setup, no network beyond localhost. Beam's loopback mode
// leaves an empty file in the temporary folder at every run: the tests
// give it a folder of their own.
func TestMain(m *testing.M) {
	tmp, err := os.MkdirTemp("", "drdam-beam-test-")
	if err != nil {
		panic(err)
	}
	os.Setenv("TMPDIR", tmp)
	// Prism logs every job and bundle, and the failures the error tests
	// cause: the tests report what matters.
	slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError + 1})))
	code := ptest.MainRetWithDefault(m, "prism")
	os.RemoveAll(tmp)
	os.Exit(code)
}

const testD = 20

// shardRows are the rows of the 8 shards of writeShards: neither
// multiples of 256 nor of the test's chunk, so that chunks end inside
// shards and shards inside chunks.
var shardRows = []int{300, 517, 256, 1, 700, 411, 90, 333}

// writeShards writes 8 shards of gray patterns of dimension testD into
// dir, in every format a shard may have, and returns their paths in order.
func writeShards(t *testing.T, dir string) []string {
	t.Helper()
	var paths []string
	seed := uint64(1)
	for i, n := range shardRows {
		x := gray(seed+uint64(i), n, testD)
		var p string
		var err error
		switch i {
		case 0, 5:
			p = filepath.Join(dir, fmt.Sprintf("part-%d.npy", i))
			err = npy.WriteFileFloat32(p, []int{n, testD}, x)
		case 1:
			p = filepath.Join(dir, "part-1.csv")
			err = dataio.WriteMatrix(p, &dataio.Matrix{Rows: n, Cols: testD, Data: x})
		case 2:
			p = filepath.Join(dir, "part-2.npy")
			err = npy.WriteFile(p, []int{n, testD}, x)
		case 3:
			p = filepath.Join(dir, "part-3.tsv")
			err = dataio.WriteMatrix(p, &dataio.Matrix{Rows: n, Cols: testD, Data: x})
		case 4:
			p = filepath.Join(dir, "part-4.txt")
			err = dataio.WriteMatrix(p, &dataio.Matrix{Rows: n, Cols: testD, Data: x})
		case 6:
			p = filepath.Join(dir, "part-6.arff")
			err = writeARFF(p, x, n, testD)
		case 7:
			p = filepath.Join(dir, "part-7-idx3-ubyte.gz")
			err = writeIDX(p, x, n)
		}
		if err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	return paths
}

// gray returns n×d values uniform in [0, 1/√d] (the paper's scaling).
func gray(seed uint64, n, d int) []float64 {
	x := make([]float64, n*d)
	s := seed*0x9e3779b97f4a7c15 + 1
	for i := range x {
		s ^= s << 13
		s ^= s >> 7
		s ^= s << 17
		x[i] = float64(s>>11) / (1 << 53) / math.Sqrt(float64(d))
	}
	return x
}

// writeARFF writes x (n×d) as a dense ARFF file.
func writeARFF(path string, x []float64, n, d int) error {
	var b strings.Builder
	b.WriteString("@relation shard\n")
	for j := range d {
		fmt.Fprintf(&b, "@attribute a%d numeric\n", j)
	}
	b.WriteString("@data\n")
	for i := range n {
		for j := range d {
			if j > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, "%v", x[i*d+j])
		}
		b.WriteByte('\n')
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

// writeIDX writes x (n rows of 4×5 values in [0, 1/√20]) as a gzipped
// IDX file of unsigned bytes (MNIST's format), which dataio reads back as
// v/255/√D.
func writeIDX(path string, x []float64, n int) error {
	var raw bytes.Buffer
	raw.Write([]byte{0, 0, 0x08, 3})
	for _, dim := range []uint32{uint32(n), 4, 5} {
		binary.Write(&raw, binary.BigEndian, dim)
	}
	for _, v := range x {
		raw.WriteByte(byte(math.Round(v * math.Sqrt(testD) * 255)))
	}
	var z bytes.Buffer
	w := gzip.NewWriter(&z)
	w.Write(raw.Bytes())
	if err := w.Close(); err != nil {
		return err
	}
	return os.WriteFile(path, z.Bytes(), 0o644)
}

// concat reads the shards as drdam encode reads a file and returns their
// rows in order.
func concat(t *testing.T, paths []string) []float64 {
	t.Helper()
	var all []float64
	for _, p := range paths {
		m, err := dataio.ReadMatrix(p)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, m.Data...)
	}
	return all
}

// testConfigs are the models of TestPipeline: SinCos with the structured
// projection and with a dense one, ExpExp (log-domain T), and the
// dot-product energy (T scaled by the largest weight).
var testConfigs = []dam.Config{
	{Beta: 10, Y: 1000, Seed: 3, Projection: features.Structured},
	{Beta: 10, Y: 500, Seed: 4, Projection: features.Gaussian},
	{Beta: 10, Y: 400, Seed: 5, Projection: features.Structured, Basis: features.ExpExp},
	{Beta: 10, Y: 1000, Seed: 6, Projection: features.Structured, Similarity: dam.Dot},
}

// TestPipeline: the models written by the pipeline from 8 shards (every
// format, read in chunks of 256 rows over several bundles) equal those of
// drdam encode's library calls (dam.New, one Add of the concatenated rows
// in order, dam.Save), for each configuration of testConfigs:
//
//   - the header: configuration, count, dimension;
//   - T to relative 1e-12 (max |ΔT| / max |T|): each entry of T sums
//     K = 2608 terms of magnitude at most its scale, added here in another
//     order (per chunk, per bundle, then bundle sums in the combine's
//     order), so the two differ by rounding only, about √K·2⁻⁵³ ≈ 6e-15
//     of the scale, and a bound of K·2⁻⁵³ ≈ 3e-13. For ExpExp T is
//     log T, compared as exp(log T) — each logAddExp rounds once in
//     log T, a relative rounding of T. For the dot energy, T is kept as
//     exp(c)·t with c the largest log-weight β‖ξ‖²/2 so far: the pipeline
//     raises c per chunk and per merge instead of once, and each raise
//     multiplies t by a rounded exp(c − c'), a relative rounding of a few
//     ulp per raise, of which there are at most a few per chunk: the same
//     bound holds;
//   - the energies and gradients (dam EnergyGrad) at 6 probe queries
//     (stored patterns with a quarter of their coordinates redrawn) to
//     relative 1e-10 (‖Δ‖/‖ref‖ over the batch): E = −log(φ(x)·T)/β and
//     ∇E divide by φ(x)·T, which at these probes is not small next to
//     Σ|φ_α T_α|, so T's relative 1e-12 moves them by less than 1e-11.
//
// It also checks that each worker process builds each configuration's
// projection once: Prism's workers are this process.
func TestPipeline(t *testing.T) {
	dir := t.TempDir()
	shards := filepath.Join(dir, "shards")
	if err := os.Mkdir(shards, 0o755); err != nil {
		t.Fatal(err)
	}
	paths := writeShards(t, shards)
	// A folder skips hidden files and markers.
	os.WriteFile(filepath.Join(shards, "_SUCCESS"), nil, 0o644)
	os.WriteFile(filepath.Join(shards, ".part-0.npy.crc"), []byte("x"), 0o644)
	all := concat(t, paths)
	k := len(all) / testD
	probes := probeQueries(all, k)

	ctx := context.Background()
	p, s := beam.NewPipelineWithRoot()
	outs := make([]string, len(testConfigs))
	for i, c := range testConfigs {
		outs[i] = filepath.Join(dir, fmt.Sprintf("beam-%d.drdam", i))
		// The folder, a glob and a list of files are the same shards.
		pat := []string{shards, filepath.Join(shards, "part-*"), shards + "/"}[i%3]
		o := Options{Patterns: pat, Out: outs[i], Config: c, Chunk: 256}
		vc, err := Check(ctx, o)
		if err != nil {
			t.Fatal(err)
		}
		if vc.D != testD {
			t.Fatalf("Check: D = %d, want %d", vc.D, testD)
		}
		Build(s, o, vc)
	}
	before := builds.Load()
	if err := ptest.Run(p); err != nil {
		t.Fatal(err)
	}
	if got := builds.Load() - before; got != int64(len(testConfigs)) {
		t.Errorf("the pipeline built %d projections for %d configurations: want one each per process", got, len(testConfigs))
	}
	for i, c := range testConfigs {
		c.D = testD
		ref, err := dam.New(c)
		if err != nil {
			t.Fatal(err)
		}
		if err := ref.Add(all); err != nil {
			t.Fatal(err)
		}
		refPath := filepath.Join(dir, fmt.Sprintf("ref-%d.drdam", i))
		if err := dam.Save(refPath, ref); err != nil {
			t.Fatal(err)
		}
		compareModels(t, ref.Config().String(), outs[i], refPath, probes)
	}
}

// TestPipelineBundles: with shards slow enough that Prism splits the
// bundle that holds them (it splits a bundle whose input has not moved
// between two progress reports, 100 ms apart), several bundles emit Sums
// and the combine adds them; the model is still drdam encode's, with the
// tolerances of TestPipeline.
func TestPipelineBundles(t *testing.T) {
	dir := t.TempDir()
	paths := writeShards(t, dir)
	all := concat(t, paths)
	c := dam.Config{Beta: 10, Y: 600, Seed: 8, Projection: features.Structured}
	o := Options{Patterns: filepath.Join(dir, "part-*"), Out: filepath.Join(dir, "beam.drdam"), Config: c, Chunk: 256}
	vc, err := Check(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	afterShard = func() { time.Sleep(250 * time.Millisecond) }
	defer func() { afterShard = nil }()
	before := emitted.Load()
	p, s := beam.NewPipelineWithRoot()
	Build(s, o, vc)
	if err := ptest.Run(p); err != nil {
		t.Fatal(err)
	}
	n := emitted.Load() - before
	t.Logf("%d bundles emitted a Sum", n)
	if n < 2 {
		t.Errorf("%d bundles emitted a Sum: Prism did not split the slow bundle, and the combine added nothing", n)
	}
	ref, err := dam.New(vc)
	if err != nil {
		t.Fatal(err)
	}
	if err := ref.Add(all); err != nil {
		t.Fatal(err)
	}
	refPath := filepath.Join(dir, "ref.drdam")
	if err := dam.Save(refPath, ref); err != nil {
		t.Fatal(err)
	}
	compareModels(t, vc.String(), o.Out, refPath, probeQueries(all, len(all)/testD))
}

// probeQueries returns 6 stored patterns of x (k rows of testD) with a
// quarter of their coordinates redrawn.
func probeQueries(x []float64, k int) []float64 {
	var q []float64
	for i := range 6 {
		q = append(q, x[(i*k/6)*testD:(i*k/6+1)*testD]...)
	}
	g := gray(99, 6, testD)
	for i := range q {
		if i%4 == 1 {
			q[i] = g[i]
		}
	}
	return q
}

// compareModels loads the model files got and want and compares them as
// TestPipeline says.
func compareModels(t *testing.T, name, got, want string, probes []float64) {
	t.Helper()
	hg, err := dam.StatModel(got)
	if err != nil {
		t.Fatal(err)
	}
	hw, err := dam.StatModel(want)
	if err != nil {
		t.Fatal(err)
	}
	if hg.Config != hw.Config || hg.Count != hw.Count {
		t.Errorf("%s: header %v (%d patterns), want %v (%d)", name, hg.Config, hg.Count, hw.Config, hw.Count)
	}
	mg, err := dam.Load(got)
	if err != nil {
		t.Fatal(err)
	}
	mw, err := dam.Load(want)
	if err != nil {
		t.Fatal(err)
	}
	tg, tw := mg.(*dam.DrDAM).T(nil), mw.(*dam.DrDAM).T(nil)
	if r := maxRel(tg, tw); r > 1e-12 {
		t.Errorf("%s: T differs by %.3g (relative, max norm)", name, r)
	} else {
		t.Logf("%s: T differs by %.3g", name, r)
	}
	b := len(probes) / testD
	eg, gg := make([]float64, b), make([]float64, len(probes))
	ew, gw := make([]float64, b), make([]float64, len(probes))
	if err := mg.EnergyGrad(eg, gg, probes); err != nil {
		t.Fatal(err)
	}
	if err := mw.EnergyGrad(ew, gw, probes); err != nil {
		t.Fatal(err)
	}
	if r := relNorm(eg, ew); r > 1e-10 {
		t.Errorf("%s: energies differ by %.3g (relative)", name, r)
	}
	if r := relNorm(gg, gw); r > 1e-10 {
		t.Errorf("%s: gradients differ by %.3g (relative)", name, r)
	}
}

// maxRel returns max|a − b| / max|b|.
func maxRel(a, b []float64) float64 {
	var num, den float64
	for i := range a {
		num = max(num, math.Abs(a[i]-b[i]))
		den = max(den, math.Abs(b[i]))
	}
	return num / den
}

// relNorm returns ‖a − b‖ / ‖b‖.
func relNorm(a, b []float64) float64 {
	var num, den float64
	for i := range a {
		num += (a[i] - b[i]) * (a[i] - b[i])
		den += b[i] * b[i]
	}
	return math.Sqrt(num / den)
}

// TestPipelineErrors: what the pipeline refuses, and how it says so.
func TestPipelineErrors(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	c := dam.Config{Beta: 10, Y: 64, Projection: features.Structured}
	good := gray(1, 10, 3)
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	npyOf := func(name string, x []float64, d int) string {
		p := filepath.Join(dir, name)
		if err := npy.WriteFile(p, []int{len(x) / d, d}, x); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// Check: before any pipeline runs.
	for _, tc := range []struct {
		o    Options
		want string
	}{
		{Options{Patterns: filepath.Join(dir, "none-*.npy"), Out: filepath.Join(dir, "m")}, "none-*.npy: no shard of patterns matches"},
		{Options{Patterns: filepath.Join(dir, "absent.npy"), Out: filepath.Join(dir, "m")}, "absent.npy: no shard of patterns matches"},
		{Options{Patterns: npyOf("a.npy", good, 3), Out: filepath.Join(dir, "no", "m")}, "is not a folder"},
		{Options{Patterns: filepath.Join(dir, "a.npy"), Out: filepath.Join(dir, "a.npy")}, "is one of the shards"},
		{Options{Patterns: filepath.Join(dir, "a.npy"), Out: filepath.Join(dir, "m"), Chunk: 100}, "multiple of 256"},
		{Options{Patterns: filepath.Join(dir, "a.npy"), Out: "hdfs://nn/m.drdam"}, `output hdfs://nn/m.drdam: file system scheme "hdfs" not registered`},
		{Options{Patterns: "hdfs://nn/part-*.npy", Out: filepath.Join(dir, "m")}, `file system scheme "hdfs" not registered`},
		{Options{Patterns: filepath.Join(dir, "a.npy"), Out: filepath.Join(dir, "m"), Config: dam.Config{Rep: dam.RepMrDAM, Beta: 1}}, "drdam only"},
	} {
		if tc.o.Config == (dam.Config{}) {
			tc.o.Config = c
		}
		if _, err := Check(ctx, tc.o); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Check(%+v): err = %v, want it to say %q", tc.o, err, tc.want)
		}
	}
	// The pipeline: each failure names the shard, the row and the column.
	bad := slices.Clone(good)
	bad[3*3+1] = math.NaN() // row 4, column 2
	npyOf("b-bad.npy", bad, 3)
	write("r-ragged.csv", "1,2,3\n4,5\n")
	npyOf("d-wide.npy", gray(2, 4, 5), 5)
	// A pattern too heavy for the dot energy in row 300, in the second
	// chunk of 256 rows: the error names the row of the shard.
	heavy := gray(3, 400, 3)
	copy(heavy[299*3:], []float64{20, 20, 20})
	npyOf("h-heavy.npy", heavy, 3)
	dot := c
	dot.Similarity = dam.Dot
	// A 12-byte IDX header declaring rows of 2²⁸ values and nothing
	// after: refused as truncated before a row's width sizes anything.
	write("t-trunc-idx2-ubyte", string([]byte{0, 0, 8, 2, 0, 0, 0, 2, 16, 0, 0, 0}))
	// A row of 2¹⁶ values that is there, read in chunks of 2²⁰ rows:
	// refused before a chunk (512 GiB) or the model is allocated.
	write("w-wide-idx2-ubyte", string([]byte{0, 0, 8, 2, 0, 0, 0, 1, 0, 1, 0, 0})+string(make([]byte, 1<<16)))
	for _, tc := range []struct {
		glob  string
		c     dam.Config
		want  []string
		chunk int // 256 if 0
	}{
		{filepath.Join(dir, "[ab]*.npy"), c, []string{"b-bad.npy: row 4, column 2: NaN"}, 0},
		{filepath.Join(dir, "r-ragged.csv"), c, []string{"r-ragged.csv", "line 2"}, 0},
		{filepath.Join(dir, "[ad]*.npy"), c, []string{"columns but", "a.npy", "d-wide.npy"}, 0},
		{filepath.Join(dir, "h-heavy.npy"), dot, []string{"h-heavy.npy: patterns: row 300: β‖ξ‖²/2 = 6000 exceeds 700"}, 0},
		{filepath.Join(dir, "t-trunc-idx2-ubyte"), c, []string{"t-trunc-idx2-ubyte: truncated: the IDX header declares 2×268435456 unsigned byte values (536870912 bytes), found only 0 bytes after its 12-byte header"}, 0},
		{filepath.Join(dir, "w-wide-idx2-ubyte"), c, []string{"w-wide-idx2-ubyte: rows of 65536 values: a chunk of 1048576 rows takes 512 GiB"}, 1 << 20},
		// With no shard, the write step says so (Check refuses it first).
		{filepath.Join(dir, "none-*.npy"), c, []string{"none-*.npy: no patterns"}, 0},
	} {
		p, s := beam.NewPipelineWithRoot()
		o := Options{Patterns: tc.glob, Out: filepath.Join(dir, "m.drdam"), Config: tc.c, Chunk: cmp.Or(tc.chunk, 256)}
		vc := tc.c
		vc.Rep = dam.RepDrDAM
		Build(s, o, vc)
		err := ptest.Run(p)
		for _, w := range tc.want {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("%s: err = %v, want it to say %q", tc.glob, err, w)
				break
			}
		}
		if _, serr := os.Stat(o.Out); serr == nil {
			t.Errorf("%s: a failed pipeline wrote %s", tc.glob, o.Out)
		}
	}
}

// TestPartialCoder: partials go through their coder unchanged, −Inf and
// all, and corrupt bytes are an error.
func TestPartialCoder(t *testing.T) {
	for _, p := range []partial{
		{},
		{D: 784, Shard: "gs://b/part-0001.npy", Sum: dam.Sum{T: []float64{1, math.Inf(-1), -0.5, 3e300}, LogScale: 12.5, Count: 1 << 40}},
	} {
		b, err := encodePartial(p)
		if err != nil {
			t.Fatal(err)
		}
		q, err := decodePartial(b)
		if err != nil {
			t.Fatal(err)
		}
		if q.D != p.D || q.Shard != p.Shard || q.Sum.Count != p.Sum.Count || q.Sum.LogScale != p.Sum.LogScale || !slices.Equal(q.Sum.T, p.Sum.T) {
			t.Errorf("round trip: %+v, want %+v", q, p)
		}
		for n := range len(b) {
			if _, err := decodePartial(b[:n]); err == nil && n > 0 {
				t.Errorf("%d of %d bytes decoded without an error", n, len(b))
				break
			}
		}
	}
}

// TestSumFn: the CombineFn adds partials with dam.Sum.Merge (bit for bit
// DrDAM.Merge), starts from the empty partial, and refuses partials of
// different dimensions, naming a shard of each.
func TestSumFn(t *testing.T) {
	c := dam.Config{Beta: 10, Y: 300, Seed: 2, Projection: features.Structured}
	x := gray(4, 30, 5)
	f := &sumFn{Config: c}
	acc := f.CreateAccumulator()
	var parts []*dam.DrDAM
	for i, r := range [][2]int{{0, 7}, {7, 20}, {20, 30}} {
		cd := c
		cd.D = 5
		m, err := dam.NewDrDAM(cd)
		if err != nil {
			t.Fatal(err)
		}
		if err := m.Add(x[r[0]*5 : r[1]*5]); err != nil {
			t.Fatal(err)
		}
		parts = append(parts, m)
		p := partial{D: 5, Shard: fmt.Sprintf("s%d", i), Sum: m.Sum()}
		if i == 2 {
			other := f.CreateAccumulator()
			if other, err = f.AddInput(other, p); err != nil {
				t.Fatal(err)
			}
			acc, err = f.MergeAccumulators(acc, other)
		} else {
			acc, err = f.AddInput(acc, p)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := parts[0].Merge(parts[1]); err != nil {
		t.Fatal(err)
	}
	if err := parts[0].Merge(parts[2]); err != nil {
		t.Fatal(err)
	}
	out, want := f.ExtractOutput(acc), parts[0].Sum()
	if out.D != 5 || out.Sum.Count != 30 || out.Sum.LogScale != want.LogScale || !slices.Equal(out.Sum.T, want.T) {
		t.Errorf("the CombineFn's total differs from DrDAM.Merge's (D %d, count %d)", out.D, out.Sum.Count)
	}
	if e := f.ExtractOutput(f.CreateAccumulator()); e.Sum.Count != 0 || e.D != 0 {
		t.Errorf("the empty accumulator holds %d patterns of dimension %d", e.Sum.Count, e.D)
	}
	wide := partial{D: 6, Shard: "wide.npy", Sum: dam.Sum{T: make([]float64, 600), Count: 1}}
	if _, err := f.MergeAccumulators(out, wide); err == nil || !strings.Contains(err.Error(), "wide.npy has 6 columns but s0 has 5") {
		t.Errorf("partials of different dimensions: err = %v", err)
	}
}
