package dam

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/drdam/drdam/features"
	"github.com/drdam/drdam/internal/fuzzbudget"
)

func encode(t testing.TB, m Memory) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := Write(&buf, m); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// fuzzBudget is the memory budget under which the fuzz targets read: a
// header that asks for more is refused before anything is allocated.
const fuzzBudget = 64 << 20

// decodeBudget bounds what one read of an n-byte model file allocates:
// the model's memory budget, the payload's copy (twice the input: its
// float64s and the read buffer), and 1 MiB (buffers, the checksum pass).
// An allocation that a header can inflate is a failure here, not a
// machine-wide out-of-memory.
var decodeBudget = fuzzbudget.Budget{PerByte: 2, Fixed: fuzzBudget + 1<<20}

// decode reads b under fuzzBudget and fails t if reading allocated more
// than decodeBudget. It is counted with fuzzbudget.Check: runtime/metrics,
// confirmed by ReadMemStats only past the budget. (Counting every call
// with ReadMemStats, which stops the world twice, took 25–50 µs even for an
// 8-byte input, twenty times the read itself, and far more on a loaded
// machine: the fuzzer's minimization of each new input, up to 10⁵ calls,
// then ran into its one-minute limit, during which go test reports 0
// execs/s.)
func decode(t testing.TB, b []byte) (Memory, error) {
	t.Helper()
	var m Memory
	var err error
	fuzzbudget.Check(t, fmt.Sprintf("reading a %d-byte model file", len(b)), len(b), decodeBudget, func() {
		m, err = ReadBudget(bytes.NewReader(b), int64(len(b)), fuzzBudget)
	})
	return m, err
}

// fileModels returns small memories covering every kind of payload, every
// basis and every seeded projection kind.
func fileModels(t testing.TB) []Memory {
	const d = 5
	xi := grayPatterns(201, 4, d)
	ms := []Memory{
		mustMrDAM(t, Config{D: d, Beta: 3}, xi),
		mustMrDAM(t, Config{D: d, Beta: 3, Similarity: Dot}, xi),
	}
	for _, basis := range allBases {
		ms = append(ms, mustDrDAM(t, Config{D: d, Beta: 7, Y: 16, Basis: basis, Seed: 9}, xi))
	}
	// Every seeded projection kind of the registry, in float32.
	for _, kind := range features.ProjectionKinds() {
		ms = append(ms, mustDrDAM(t, Config{D: d, Beta: 7, Y: 40, Seed: 9, Projection: kind, Precision: Float32}, xi))
	}
	ms = append(ms,
		mustDrDAM(t, Config{D: d, Beta: 7, Y: 16, Seed: 9, Similarity: Dot, NoBias: true, Epsilon: 1e-3}, xi),
		mustDrDAM(t, Config{D: d, Beta: 7, Y: 16, Seed: 9, OnDemand: true}, xi),
		mustDrDAM(t, Config{D: d, Beta: 7, Y: 16, Seed: 9}, nil), // empty
	)
	// Log T = −Inf entries: Exp at β = 1000 far from the memories underflows.
	far := mustDrDAM(t, Config{D: d, Beta: 1000, Y: 16, Basis: features.Exp, Seed: 9}, xi)
	return append(ms, far)
}

// TestFileRoundTrip: Save then Load gives the same configuration, count
// and payload bit for bit, and the same energies.
func TestFileRoundTrip(t *testing.T) {
	dir := t.TempDir()
	x := grayPatterns(202, 3, 5)
	for i, m := range fileModels(t) {
		p := filepath.Join(dir, "m.drdam")
		if err := Save(p, m); err != nil {
			t.Fatal(err)
		}
		got, err := Load(p)
		if err != nil {
			t.Fatalf("model %d (%v): %v", i, m.Config(), err)
		}
		if got.Config() != m.Config() || got.Len() != m.Len() {
			t.Fatalf("model %d: loaded %v with %d memories, saved %v with %d", i, got.Config(), got.Len(), m.Config(), m.Len())
		}
		if !bytes.Equal(encode(t, got), encode(t, m)) {
			t.Errorf("model %d (%v): re-encoding the loaded model gives different bytes", i, m.Config())
		}
		if m.Len() == 0 {
			continue
		}
		e1, g1 := energies(t, m, x)
		e2, g2 := energies(t, got, x)
		if relDiff(e1, e2) != 0 || relDiff(g1, g2) != 0 {
			t.Errorf("model %d (%v): energies differ after the round trip", i, m.Config())
		}
	}
}

// TestFileCorruption: every truncation of a saved file, and every single
// flipped byte anywhere in it, is rejected with an error (never a panic,
// never a model).
func TestFileCorruption(t *testing.T) {
	for _, m := range fileModels(t)[:4] {
		b := encode(t, m)
		for n := range len(b) {
			if _, err := decode(t, b[:n]); err == nil {
				t.Fatalf("%v: truncation to %d of %d bytes was accepted", m.Config(), n, len(b))
			}
		}
		for i := range b {
			c := append([]byte(nil), b...)
			c[i] ^= 0x5a
			if _, err := decode(t, c); err == nil {
				t.Fatalf("%v: flipping byte %d was accepted", m.Config(), i)
			}
		}
		if _, err := decode(t, append(append([]byte(nil), b...), 0)); err == nil {
			t.Fatalf("%v: a trailing byte was accepted", m.Config())
		}
	}
}

func TestFileErrors(t *testing.T) {
	m := fileModels(t)[2]
	good := encode(t, m)
	withCRC := func(b []byte) []byte { // re-seal a modified file
		b = append([]byte(nil), b...)
		binary.LittleEndian.PutUint32(b[len(b)-4:], crcOf(b[:len(b)-4]))
		return b
	}
	set := func(off int, v byte) []byte { b := append([]byte(nil), good...); b[off] = v; return withCRC(b) }
	newer := append([]byte(nil), good...)
	binary.LittleEndian.PutUint32(newer[8:], FileVersion+1)
	for _, c := range []struct {
		name string
		b    []byte
		want string
	}{
		{"empty", nil, "not a drdam model file"},
		{"npy file", []byte("\x93NUMPY\x01\x00v\x00{'descr': '<f8'"), "not a drdam model file"},
		{"short", good[:40], "truncated"},
		{"truncated payload", good[:len(good)-20], "truncated or corrupted"},
		{"flipped payload", set(100, good[100]^1)[:len(good)-4], "truncated"},
		{"bad checksum", func() []byte { b := append([]byte(nil), good...); b[100] ^= 1; return b }(), "checksum mismatch"},
		{"newer version", newer, "newer than this program"},
		{"bad representation", set(12, 7), "unknown representation 7"},
		{"bad basis", set(14, 9), "unknown basis"},
		{"bad precision", set(16, 3), "unknown precision"},
		{"reserved", set(20, 1), "reserved"},
		{"bad generator", set(18, 3), "unknown generator version 3"},
		{"no generator", set(18, 0), "unknown generator version 0"},
		{"generator in a version-1 file", asV1(set(18, 2)), "reserved"},
	} {
		_, err := decode(t, c.b)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want one containing %q", c.name, err, c.want)
		}
	}
	// Load names the file.
	p := filepath.Join(t.TempDir(), "bad.drdam")
	os.WriteFile(p, good[:50], 0o644)
	if _, err := Load(p); err == nil || !strings.Contains(err.Error(), p) {
		t.Errorf("Load of a truncated file: err = %v, want the path in it", err)
	}
	// An external projection cannot be saved.
	proj, _ := features.NewDense(make([]float64, 4*5), 4, 5)
	fm, _ := features.NewMap(features.SinCos, 1, proj, nil)
	ext, _ := NewDrDAMWithMap(Config{}, fm)
	if err := Save(filepath.Join(t.TempDir(), "x"), ext); err == nil || !strings.Contains(err.Error(), "external") {
		t.Errorf("saving an external-projection model: err = %v", err)
	}
}

func crcOf(b []byte) uint32 { return crc32Castagnoli(b) }

// maxFuzzInput is the length at which FuzzRead and FuzzReadSealed cut
// their inputs (the seeds, fileModels' files, are at most 732 bytes).
// Go's fuzzer minimizes every input that finds new coverage, for up to a
// minute (-fuzzminimizetime), and go test reports 0 execs/s meanwhile;
// minimizing n bytes tries up to about n²/2 candidates. The mutator grows
// inputs to kilobytes: at the 20,000 calls a second of these targets on 2
// vCPUs, a 4 KB input took the whole minute, and a few in a row held the
// progress line at 0 for minutes. An input cut at 1 KiB is minimized in
// at most about 5·10⁵ calls, under 30 s; the reader's code paths do not
// need longer files (a payload's length is checked the same way at any
// size).
const maxFuzzInput = 1 << 10

// FuzzRead checks that reading arbitrary bytes never panics and that a
// model that reads successfully re-encodes to the same bytes.
func FuzzRead(f *testing.F) {
	for _, m := range fileModels(f) {
		b := encode(f, m)
		f.Add(b)
		f.Add(b[:len(b)/2])
	}
	f.Add([]byte(fileMagic))
	f.Fuzz(func(t *testing.T, b []byte) {
		b = b[:min(len(b), maxFuzzInput)]
		m, err := decode(t, b)
		if err != nil {
			return
		}
		if again := encode(t, m); !bytes.Equal(again, reencoded(b)) {
			t.Fatalf("a file that reads does not re-encode to itself")
		}
	})
}

// reencoded returns the bytes that Write gives for the model of the file
// b: b itself, or for a format version 1 file the version 2 file that
// records generator 1 (for a DrDAM).
func reencoded(b []byte) []byte {
	if binary.LittleEndian.Uint32(b[8:]) != 1 {
		return b
	}
	b = append([]byte(nil), b...)
	binary.LittleEndian.PutUint32(b[8:], FileVersion)
	if Representation(b[12]) == RepDrDAM {
		b[18] = byte(features.GeneratorV1)
	}
	binary.LittleEndian.PutUint32(b[len(b)-4:], crcOf(b[:len(b)-4]))
	return b
}

// asV1 returns the sealed file b marked as format version 1.
func asV1(b []byte) []byte {
	b = append([]byte(nil), b...)
	binary.LittleEndian.PutUint32(b[8:], 1)
	binary.LittleEndian.PutUint32(b[len(b)-4:], crcOf(b[:len(b)-4]))
	return b
}

// FuzzReadSealed is FuzzRead with the checksum recomputed, so that the
// fuzzer reaches the header and payload validation behind it.
func FuzzReadSealed(f *testing.F) {
	for _, m := range fileModels(f) {
		f.Add(encode(f, m))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) < 4 {
			return
		}
		b = append([]byte(nil), b[:min(len(b), maxFuzzInput)]...)
		binary.LittleEndian.PutUint32(b[len(b)-4:], crcOf(b[:len(b)-4]))
		m, err := decode(t, b)
		if err != nil {
			return
		}
		if again := encode(t, m); !bytes.Equal(again, reencoded(b)) {
			t.Fatalf("a file that reads does not re-encode to itself")
		}
	})
}
