package main

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"image"
	"image/png"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/drdam/drdam/dam"
)

// TestMain lets the tests run the test binary as the drdam command (with
// DRDAM_TEST_AS_MAIN=1), for what needs separate processes: concurrent
// writers, signals and memory limits.
func TestMain(m *testing.M) {
	if os.Getenv("DRDAM_TEST_AS_MAIN") == "1" {
		main()
		return
	}
	os.Exit(m.Run())
}

// drdamProcess returns a command that runs drdam with args in a process of
// its own.
func drdamProcess(args ...string) *exec.Cmd {
	c := exec.Command(os.Args[0], args...)
	c.Env = append(os.Environ(), "DRDAM_TEST_AS_MAIN=1")
	return c
}

// TestConcurrentAdd: 20 pairs of drdam add on one model, each pair at the
// same time, lose nothing: every addition is counted (they used to read,
// modify and rename with no lock, and one of each pair was lost).
func TestConcurrentAdd(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "m.drdam")
	mustRun(t, "encode", "--patterns", writeCSV(t, dir, "p.csv", "0.5,0.5,0,0\n"), "--out", model, "--y", "64")
	const pairs = 20
	for i := range pairs {
		var wg sync.WaitGroup
		errs := make([]string, 2)
		for j := range 2 {
			p := writeCSV(t, dir, fmt.Sprintf("e%d_%d.csv", i, j), fmt.Sprintf("0,%d,0.5,0\n", i+j))
			wg.Go(func() {
				if out, err := drdamProcess("add", "--model", model, "--patterns", p).CombinedOutput(); err != nil {
					errs[j] = fmt.Sprintf("%v: %s", err, out)
				}
			})
		}
		wg.Wait()
		for _, e := range errs {
			if e != "" {
				t.Fatalf("pair %d: %s", i, e)
			}
		}
	}
	if out := mustRun(t, "info", "--model", model); !strings.Contains(out, fmt.Sprintf("patterns K      %d\n", 1+2*pairs)) {
		t.Errorf("after %d concurrent pairs of add:\n%s", pairs, out)
	}
	if ents, _ := filepath.Glob(filepath.Join(dir, ".m.drdam.tmp-*")); len(ents) > 0 {
		t.Errorf("temporary files left: %v", ents)
	}
}

// TestOutputsAndInputs: an output that names an input, or two outputs that
// name one file, are refused before anything is written; a model behind a
// symbolic link is updated through it and the link kept.
func TestOutputsAndInputs(t *testing.T) {
	dir := t.TempDir()
	pat := writeCSV(t, dir, "p.csv", "0.5,0.5,0,0\n0,0,0.5,0.5\n")
	model := filepath.Join(dir, "m.drdam")
	mustRun(t, "encode", "--patterns", pat, "--out", model, "--y", "64")
	q := writeCSV(t, dir, "q.csv", "0.4,0.5,0,0\n")
	patBytes, _ := os.ReadFile(pat)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"encode", "--patterns", pat, "--out", pat}, "--out " + pat + " names the same file as --patterns"},
		{[]string{"encode", "--patterns", pat, "--out", filepath.Join(dir, ".", "p.csv")}, "names the same file as --patterns"},
		{[]string{"energy", "--model", model, "--queries", q, "--out", filepath.Join(dir, "f.npy"), "--grad", filepath.Join(dir, "f.npy")}, "--out and --grad name the same file"},
		{[]string{"energy", "--model", model, "--queries", q, "--out", q}, "names the same file as --queries"},
		{[]string{"recall", "--model", model, "--queries", q, "--out", model}, "names the same file as --model"},
		{[]string{"add", "--model", model, "--patterns", pat, "--out", pat}, "names the same file as --patterns"},
		{[]string{"add", "--model", "", "--patterns", pat}, "--model: empty path"},
		{[]string{"encode", "--patterns", pat, "--out", filepath.Join(dir, "mr.drdam"), "--rep", "mrdam", "--y", "100"}, "--y: only applies to a drdam, and rep is mrdam"},
	} {
		st, _, errOut := drdam(t, tc.args...)
		if st != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("drdam %s: status %d, %q; want status 2 and %q", strings.Join(tc.args, " "), st, errOut, tc.want)
		}
	}
	if b, _ := os.ReadFile(pat); !bytes.Equal(b, patBytes) {
		t.Errorf("the patterns file was changed")
	}
	if _, err := os.Stat(filepath.Join(dir, "f.npy")); err == nil {
		t.Errorf("a refused command wrote an output")
	}
	link := filepath.Join(dir, "link.drdam")
	if err := os.Symlink("m.drdam", link); err != nil {
		t.Skipf("no symbolic links: %v", err)
	}
	mustRun(t, "add", "--model", link, "--patterns", writeCSV(t, dir, "e.csv", "0,0.5,0.5,0\n"))
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("add replaced the symbolic link")
	}
	if out := mustRun(t, "info", "--model", model); !strings.Contains(out, "patterns K      3\n") {
		t.Errorf("add through a link did not update the model:\n%s", out)
	}
}

// TestEmptyModel: energy on a model that stores nothing blames the model,
// not the queries.
func TestEmptyModel(t *testing.T) {
	dir := t.TempDir()
	pat := writeCSV(t, dir, "p.csv", "0.5,0.5,0,0\n")
	model := filepath.Join(dir, "m.drdam")
	mustRun(t, "encode", "--patterns", pat, "--out", model, "--y", "64")
	mustRun(t, "remove", "--model", model, "--patterns", pat)
	st, _, errOut := drdam(t, "energy", "--model", model, "--queries", pat)
	if st != 1 || !strings.Contains(errOut, model+" stores no patterns") {
		t.Errorf("energy on an empty model: status %d, %q", st, errOut)
	}
}

// TestWreckProof: no input the CLI accepts leaves a model that drdam cannot
// load: values that would overflow are refused with their row and column,
// and the model is left as it was.
func TestWreckProof(t *testing.T) {
	dir := t.TempDir()
	pat := writeCSV(t, dir, "p.csv", "0.5,0.5,0,0\n0,0,0.5,0.5\n")
	for _, enc := range [][]string{
		{"--y", "64"},
		{"--y", "64", "--similarity", "dot"},
		{"--y", "64", "--basis", "expexp", "--precision", "float32"},
		{"--rep", "mrdam"},
		{"--rep", "mrdam", "--similarity", "dot"},
	} {
		model := filepath.Join(dir, "m.drdam")
		mustRun(t, append([]string{"encode", "--patterns", pat, "--out", model}, enc...)...)
		before, _ := os.ReadFile(model)
		for _, bad := range []string{"0,1e308,0,0\n", "1e200,0,0,0\n", "0,0,1e30,0\n"} {
			st, _, errOut := drdam(t, "add", "--model", model, "--patterns", writeCSV(t, dir, "bad.csv", bad))
			if st == 0 {
				// 1e30 is within what a float64 model computes with;
				// it must then load and evaluate.
				mustRun(t, "energy", "--model", model, "--queries", pat)
				os.WriteFile(model, before, 0o644)
				continue
			}
			if !strings.Contains(errOut, "row 1") {
				t.Errorf("%v: add %q: %q, want the row named", enc, bad, errOut)
			}
			if after, _ := os.ReadFile(model); !bytes.Equal(after, before) {
				t.Errorf("%v: a refused add changed the model", enc)
			}
			// A query is refused with its row, or evaluated (1e30 is
			// a query that the dot energy can evaluate, ½‖x‖² and all).
			st, out, errOut := drdam(t, "energy", "--model", model, "--queries", writeCSV(t, dir, "badq.csv", bad))
			if st == 0 && (strings.Contains(out, "NaN") || strings.Contains(out, "Inf")) || st != 0 && !strings.Contains(errOut, "row 1") {
				t.Errorf("%v: energy at %q: status %d, %q, %q", enc, bad, st, out, errOut)
			}
		}
		mustRun(t, "energy", "--model", model, "--queries", pat)
	}
}

// craftedModel writes a valid, sealed DrDAM model file (sincos, zero T)
// whose header declares the given D and Y and projection kind (1
// gaussian, 2 orthogonal, 4 structured).
func craftedModel(t *testing.T, path string, proj byte, d, y uint64) {
	t.Helper()
	n := 2 * y
	b := make([]byte, 88+8*n+4)
	copy(b, "DRDAMMDL")
	binary.LittleEndian.PutUint32(b[8:], 1)
	b[12], b[13], b[14], b[15], b[16], b[17] = 2, 1, 2, proj, 1, 1
	binary.LittleEndian.PutUint64(b[24:], d)
	binary.LittleEndian.PutUint64(b[32:], y)
	binary.LittleEndian.PutUint64(b[40:], math.Float64bits(1))
	binary.LittleEndian.PutUint64(b[48:], math.Float64bits(1e-5))
	binary.LittleEndian.PutUint64(b[64:], 1)
	binary.LittleEndian.PutUint64(b[80:], n)
	binary.LittleEndian.PutUint32(b[len(b)-4:], crc32.Checksum(b[:len(b)-4], crc32.MakeTable(crc32.Castagnoli)))
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestUnderUlimit runs drdam under ulimit -v 2 GiB with flags and file
// headers that ask for tens of GB: each is refused with the budget it
// states (about 150 MiB here), never by Go's fatal out-of-memory.
func TestUnderUlimit(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash not found: cannot set ulimit -v")
	}
	dir := t.TempDir()
	pat := writeCSV(t, dir, "p.csv", "0.5,0.5,0,0\n0,0,0.5,0.5\n")
	dense := filepath.Join(dir, "dense.drdam")
	craftedModel(t, dense, 1, 21_000_000, 200) // Y·D ≈ 2³²: 32 GB of float64 panels
	ortho := filepath.Join(dir, "ortho.drdam")
	craftedModel(t, ortho, 2, 16133, 16) // one 16133² block: 2 GB, was 33 GB
	structured := filepath.Join(dir, "sorf.drdam")
	craftedModel(t, structured, 4, 4, 50_000_000) // a 800 MB file, 3.2 GB of diagonals
	// A valid 6000×6000 PNG of 100 kB: decoding it takes up to 1.3 GiB
	// (40 bytes per pixel), more than the 1 GiB budget under the limit.
	big := filepath.Join(dir, "big.png")
	var pngBuf bytes.Buffer
	if err := pngEncode(&pngBuf, 6000, 6000); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(big, pngBuf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.drdam")
	for _, args := range [][]string{
		{"complete", "--images", big, "--size", "16x16", "--out", filepath.Join(dir, "complete")},
		{"encode", "--patterns", pat, "--out", out, "--y", "1e9", "--projection", "structured"},
		{"encode", "--patterns", pat, "--out", out, "--y", "1e9", "--on-demand"},
		{"encode", "--patterns", pat, "--out", out, "--y", "300000000"},
		{"energy", "--model", dense, "--queries", pat},
		{"energy", "--model", ortho, "--queries", pat},
		{"add", "--model", structured, "--patterns", pat},
		{"merge", "--model", dense, "--with", dense, "--out", out},
	} {
		cmd := exec.Command("bash", "-c", `ulimit -v 2097152 && exec "$@"`, "bash", os.Args[0])
		cmd.Args = append(cmd.Args, args...)
		cmd.Env = append(os.Environ(), "DRDAM_TEST_AS_MAIN=1")
		start := time.Now()
		b, err := cmd.CombinedOutput()
		msg := string(b)
		refused := strings.Contains(msg, "more than the memory budget") || strings.Contains(msg, "--y: a Y×D") && strings.Contains(msg, "more than the limit of")
		if err == nil || !refused || strings.Contains(msg, "fatal error") || strings.Contains(msg, "goroutine") {
			t.Errorf("drdam %s under ulimit -v 2 GiB: %v, %q; want a budget error", strings.Join(args, " "), err, msg)
		}
		if d := time.Since(start); d > 20*time.Second {
			t.Errorf("drdam %s took %v to refuse", strings.Join(args, " "), d)
		}
	}
	if st, _, _ := drdam(t, "info", "--model", dense); st != 0 {
		t.Errorf("info on the crafted dense model failed: it should only read the header")
	}
}

// TestKilledRuns interrupts drdam add on a 32 MB model while it writes (as
// soon as its temporary file appears), alternately with SIGINT (the run
// removes its temporary file and exits 130) and SIGKILL (its temporary
// file stays, and the next write removes it once it is a second old); the
// model is never lost or corrupted and counts exactly the additions that
// finished.
func TestKilledRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("runs drdam a dozen times on a 32 MB model")
	}
	dir := t.TempDir()
	model := filepath.Join(dir, "m.drdam")
	mustRun(t, "encode", "--patterns", writeCSV(t, dir, "p.csv", "0.5,0.5,0,0\n"), "--out", model, "--y", "2000000", "--projection", "structured")
	e := writeCSV(t, dir, "e.csv", "0,0.5,0.5,0\n")
	temps := func() []string { m, _ := filepath.Glob(filepath.Join(dir, ".m.drdam.tmp-*")); return m }
	finished, interrupted, leftByKill := 0, 0, 0
	stale := map[string]bool{} // temporary files of killed runs
	fresh := func() bool {
		for _, f := range temps() {
			if !stale[f] {
				return true
			}
		}
		return false
	}
	for i := range 10 {
		cmd := drdamProcess("add", "--model", model, "--patterns", e)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		sig := os.Interrupt
		if i%2 == 1 {
			sig = os.Kill
		}
		var err error
	wait:
		for {
			select {
			case err = <-done:
				break wait
			default:
			}
			if fresh() {
				cmd.Process.Signal(sig)
				err = <-done
				break
			}
			time.Sleep(200 * time.Microsecond)
		}
		if err == nil {
			finished++
			continue
		}
		interrupted++
		if sig == os.Interrupt {
			if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() != 130 {
				t.Errorf("run %d: exit code %d after SIGINT, want 130", i, ee.ExitCode())
			}
			if fresh() {
				t.Errorf("run %d: SIGINT left its temporary file: %v", i, temps())
			}
		} else {
			for _, f := range temps() {
				if !stale[f] {
					stale[f] = true
					leftByKill++
				}
			}
		}
	}
	if interrupted < 5 {
		t.Errorf("only %d of 10 runs were interrupted while writing", interrupted)
	}
	time.Sleep(1100 * time.Millisecond) // stale files are those untouched for a second
	mustRun(t, "add", "--model", model, "--patterns", e)
	if tt := temps(); len(tt) > 0 {
		t.Errorf("after a finished add, temporary files remain: %v", tt)
	}
	if out := mustRun(t, "info", "--model", model); !strings.Contains(out, fmt.Sprintf("patterns K      %d\n", 2+finished)) {
		t.Errorf("%d adds finished, model says:\n%s", finished, out)
	}
	t.Logf("%d of 10 runs interrupted while writing; SIGKILL left %d temporary files, all removed by the next add", interrupted, leftByKill)
}

// TestStoreInParts: encode adds a large matrix in parts, with progress,
// and writes the model one Add of the whole matrix makes, byte for byte;
// an invalid row is named by its row in the file.
func TestStoreInParts(t *testing.T) {
	dir := t.TempDir()
	const k, d = 20000, 4
	var sb strings.Builder
	x := make([]float64, k*d)
	for i := range x {
		x[i] = float64((i*7919)%1000) / 2000
		if i%d == d-1 {
			fmt.Fprintf(&sb, "%g\n", x[i])
		} else {
			fmt.Fprintf(&sb, "%g,", x[i])
		}
	}
	pat := writeCSV(t, dir, "p.csv", sb.String())
	out := filepath.Join(dir, "m.drdam")
	mustRun(t, "encode", "--patterns", pat, "--out", out, "--y", "64", "--seed", "3")
	m, err := dam.New(dam.Config{D: d, Beta: 10, Y: 64, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Add(x); err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	if err := dam.Write(&want, m); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(out); !bytes.Equal(got, want.Bytes()) {
		t.Errorf("encode in parts differs from one Add of the whole matrix")
	}
	bad := writeCSV(t, dir, "bad.csv", sb.String()+"0,1e200,0,0\n")
	st, _, errOut := drdam(t, "encode", "--patterns", bad, "--out", out, "--y", "64")
	if st != 1 || !strings.Contains(errOut, fmt.Sprintf("row %d is too large", k+1)) {
		t.Errorf("bad last row: status %d, %q", st, errOut)
	}
}

// TestInputTooLarge: a file of queries that could need more memory to
// read than the budget is refused before it is read, naming the file and
// the flag; encode reads its patterns a chunk at a time, and takes the
// same file under the same budget, but not rows so wide that two of them
// pass a quarter of it.
func TestInputTooLarge(t *testing.T) {
	dir := t.TempDir()
	pat := writeCSV(t, dir, "p.csv", strings.Repeat("0.5,0.25,0,0\n", 20000)) // 260 kB: up to 1.5 MiB to read
	model := filepath.Join(dir, "m.drdam")
	mustRun(t, "encode", "--patterns", pat, "--out", model, "--y", "64", "--max-memory", "1MiB")
	st, _, errOut := drdam(t, "energy", "--model", model, "--queries", pat, "--max-memory", "1MiB")
	if st != 1 || !strings.Contains(errOut, pat+": a file of") || !strings.Contains(errOut, "--max-memory") {
		t.Errorf("status %d, %q", st, errOut)
	}
	mustRun(t, "energy", "--model", model, "--queries", pat, "--out", filepath.Join(dir, "e.npy"), "--max-memory", "64MiB")

	// A compressed IDX file of a row of 2²⁶ values (64 KiB): the row
	// arrives, and is refused before its chunks (1 GiB) are allocated. (A
	// header declaring such rows without their data is refused as
	// truncated: TestCraftedIDX.)
	var z bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&z, gzip.BestSpeed)
	zw.Write([]byte{0, 0, 8, 2, 0, 0, 0, 1, 4, 0, 0, 0})
	zw.Write(make([]byte, 1<<26))
	zw.Close()
	wide := filepath.Join(dir, "wide-idx2-ubyte.gz")
	if err := os.WriteFile(wide, z.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	st, _, errOut = drdam(t, "encode", "--patterns", wide, "--rep", "mrdam", "--out", filepath.Join(dir, "w.drdam"), "--max-memory", "256MiB")
	if st != 1 || !strings.Contains(errOut, "rows of 67108864 values take 1 GiB to read") {
		t.Errorf("rows of 2²⁶ values: status %d, %q", st, errOut)
	}

	// A sparse ARFF file of 20000 attributes and 20000 rows "{}" (569 kB)
	// stands for 4·10⁸ values: as queries or as a mask it is refused by
	// its lines times its attributes (it took 7.8 GB and 25 s, or Go's
	// fatal out-of-memory under ulimit -v, before the reader's own limit).
	var a strings.Builder
	a.WriteString("@relation r\n")
	for i := range 20000 {
		fmt.Fprintf(&a, "@attribute a%d numeric\n", i)
	}
	a.WriteString("@data\n" + strings.Repeat("{}\n", 20000))
	sparse := filepath.Join(dir, "sparse.arff")
	if err := os.WriteFile(sparse, []byte(a.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"energy", "--model", model, "--queries", sparse},
		{"recall", "--model", model, "--queries", pat, "--out", filepath.Join(dir, "r.npy"), "--mask", sparse},
	} {
		start := time.Now()
		st, _, errOut := drdam(t, append(args, "--max-memory", "1GiB")...)
		if st != 1 || !strings.Contains(errOut, sparse+": a file of 556 KiB may need up to 5.96 GiB to read, more than the memory budget of 1 GiB") {
			t.Errorf("%s of a sparse ARFF file: status %d, %q", args[0], st, errOut)
		}
		if el := time.Since(start); el > 5*time.Second {
			t.Errorf("%s took %v to refuse it", args[0], el)
		}
	}
}

// TestCraftedIDX runs drdam encode (dense, on-demand, structured and
// MrDAM) and drdam add under ulimit -v 4000000 (3.8 GiB) on IDX files whose
// 8 to 37 bytes declare rows of 2²⁴ to 2²⁸ values: headers alone, the four
// inputs with which FuzzReadIDX found the reader allocating by the header
// (dataio/testdata/fuzz/FuzzReadIDX), and a compressed header. Each is
// refused as truncated, naming the file, what its header declares and
// what was found, within 5 s and 100 MB of peak RSS (measured: 0.01 s and
// 17 MB; the 5 s leave room for a loaded machine). They used to build a
// model of that dimension first: 18.9 GB and 66 s for the 8-byte header
// with --projection structured and no limit, Go's fatal out-of-memory
// under this one for a 2²⁴·1.5-value row, and budget errors for the rest.
func TestCraftedIDX(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash not found: cannot set ulimit -v")
	}
	timeCmd, err := exec.LookPath("/usr/bin/time")
	if err != nil {
		t.Logf("no /usr/bin/time: the peak RSS is not checked")
		timeCmd = ""
	}
	dir := t.TempDir()
	model := filepath.Join(dir, "m.drdam")
	mustRun(t, "encode", "--patterns", writeCSV(t, dir, "p.csv", "0.5,0.5,0,0\n"), "--out", model, "--y", "64")
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write([]byte{0, 0, 8, 1, 0x10, 0, 0, 0})
	zw.Close()
	files := map[string]string{
		"h8-ubyte":    "\x00\x00\x08\x01\x10\x00\x00\x00", // a row of 2²⁸ bytes
		"h12-ubyte":   "\x00\x00\x08\x02\x00\x00\x00\x02\x10\x00\x00\x00",
		"h16-ubyte":   "\x00\x00\x08\x03\x00\x00\x00\x02\x00\x00\x40\x00\x00\x00\x40\x00",
		"s24-ubyte":   "\x00\x00\x08\x01\x01\x80\x00\x00", // 1.5·2²⁴: fatal out-of-memory with --projection structured
		"fz1-ubyte":   "\x00\x00\x0b\x02\x00\x00\x000\x00000",
		"fz2-ubyte":   "\x00\x00\x0d\x01\x05000",
		"fz3-ubyte":   "\x00\x00\x08\x03\x00\x00\x00\x02\x00\x0000\x00\x00 0",
		"fz4-ubyte":   "\x00\x00\x08\x03\x00\x00\x000\x00 00\x00\x00\x00\x02",
		"h8-ubyte.gz": z.String(),
	}
	for name, b := range files {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(b), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, args := range [][]string{
			{"encode", "--patterns", p, "--out", filepath.Join(dir, "out.drdam")},
			{"encode", "--patterns", p, "--out", filepath.Join(dir, "out.drdam"), "--on-demand"},
			{"encode", "--patterns", p, "--out", filepath.Join(dir, "out.drdam"), "--projection", "structured"},
			{"encode", "--patterns", p, "--out", filepath.Join(dir, "out.drdam"), "--rep", "mrdam"},
			{"add", "--model", model, "--patterns", p, "--out", filepath.Join(dir, "out.drdam")},
		} {
			// The peak RSS is measured by /usr/bin/time, whose child is
			// forked from it: this process's own rusage of a child counts
			// the memory of the test binary, which the child shares until
			// it execs.
			cmd := exec.Command("bash", "-c", `ulimit -v 4000000 && exec "$@"`, "bash")
			if timeCmd != "" {
				cmd.Args = append(cmd.Args, timeCmd, "-f", "peak-rss-kib %M")
			}
			cmd.Args = append(cmd.Args, os.Args[0])
			cmd.Args = append(cmd.Args, args...)
			cmd.Env = append(os.Environ(), "DRDAM_TEST_AS_MAIN=1")
			start := time.Now()
			b, err := cmd.CombinedOutput()
			d := time.Since(start)
			msg := string(b)
			if err == nil || !strings.Contains(msg, p+": truncated: the IDX header declares ") || strings.Contains(msg, "fatal error") {
				t.Errorf("drdam %s: %v, %q; want a truncation error", strings.Join(args, " "), err, msg)
			}
			if d > 5*time.Second {
				t.Errorf("drdam %s took %v to refuse", strings.Join(args, " "), d)
			}
			if _, rss, ok := strings.Cut(msg, "peak-rss-kib "); ok {
				rss = strings.TrimSpace(rss)
				if kib, err := strconv.Atoi(rss); err != nil || kib > 100_000 {
					t.Errorf("drdam %s: peak RSS %s KiB, want under 100 MB", strings.Join(args, " "), rss)
				}
			} else if timeCmd != "" {
				t.Errorf("drdam %s: no peak RSS from %s in %q", strings.Join(args, " "), timeCmd, msg)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "out.drdam")); err == nil {
		t.Errorf("a refused command wrote its output")
	}
}

// pngEncode writes a uniform gray w×h PNG (it compresses to about 1/1000).
func pngEncode(w io.Writer, width, height int) error {
	return png.Encode(w, image.NewGray(image.Rect(0, 0, width, height)))
}
