package main

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/drdam/drdam/dam"
	"github.com/drdam/drdam/dataio"
	"github.com/drdam/drdam/features"
	"github.com/drdam/drdam/internal/cli"
	"github.com/drdam/drdam/npy"
)

// The command parses flag.CommandLine, as Beam needs (its runners read
// their flags there), so each test command line runs in a process of its
// own: this test binary, started again with runMain set.
const runMain = "DRDAM_BEAM_TEST_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(runMain) == "1" {
		main()
		return
	}
	os.Exit(m.Run())
}

// drdamBeam runs the command with args in a new process and returns its
// exit status and outputs.
func drdamBeam(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), runMain+"=1")
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0, o.String(), e.String()
	case errors.As(err, &ee):
		return ee.ExitCode(), o.String(), e.String()
	}
	t.Fatal(err)
	return 0, "", ""
}

// shards writes 3 shards of 300 patterns of dimension 6 into a folder and
// returns it with their rows concatenated.
func shards(t *testing.T) (string, []float64) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "shards")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var all []float64
	for i := range 3 {
		x := make([]float64, 300*6)
		for j := range x {
			x[j] = float64((j*7+i*13)%17) / 17 / 3
		}
		if err := npy.WriteFile(filepath.Join(dir, "part-"+string(rune('a'+i))+".npy"), []int{300, 6}, x); err != nil {
			t.Fatal(err)
		}
		all = append(all, x...)
	}
	return dir, all
}

// TestEncode: drdam-beam encode runs on Prism with no setup and prints
// what it stored as drdam encode does, for the model drdam encode writes.
func TestEncode(t *testing.T) {
	dir, all := shards(t)
	out := filepath.Join(t.TempDir(), "m.drdam")
	st, stdout, stderr := drdamBeam(t, "encode", "--patterns", dir, "--out", out, "--projection", "structured", "--y", "512", "--seed", "3", "--beta", "20")
	if st != 0 || stderr != "" {
		t.Fatalf("status %d, stderr %q", st, stderr)
	}
	c := dam.Config{D: 6, Beta: 20, Y: 512, Seed: 3, Projection: features.Structured}
	ref, err := dam.New(c)
	if err != nil {
		t.Fatal(err)
	}
	if err := ref.Add(all); err != nil {
		t.Fatal(err)
	}
	want := "stored 900 patterns of dimension 6 in " + out + ": " + ref.Config().String() + "\n"
	if stdout != want {
		t.Errorf("stdout %q, want %q", stdout, want)
	}
	m, err := dam.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	a, b := m.(*dam.DrDAM).T(nil), ref.(*dam.DrDAM).T(nil)
	var diff, scale float64
	for i := range a {
		diff, scale = max(diff, abs(a[i]-b[i])), max(scale, abs(b[i]))
	}
	if diff > 1e-12*scale {
		t.Errorf("T differs from drdam encode's by %.3g (relative)", diff/scale)
	}
}

func abs(x float64) float64 { return max(x, -x) }

// TestHelp: --help lists every encode flag with drdam encode's help and
// default, and the main flags of Beam.
func TestHelp(t *testing.T) {
	st, out, _ := drdamBeam(t, "encode", "--help")
	if st != 0 || !strings.HasPrefix(out, "Usage: drdam-beam encode") {
		t.Fatalf("status %d, %q", st, out)
	}
	fs := flag.NewFlagSet("encode", flag.ContinueOnError)
	cli.EncodeFlags(fs)
	n := 0
	fs.VisitAll(func(f *flag.Flag) {
		n++
		_, use := flag.UnquoteUsage(f)
		if !strings.Contains(out, "  --"+f.Name+" ") || !strings.Contains(out, use) {
			t.Errorf("--help does not explain --%s as drdam encode does", f.Name)
		}
	})
	if n != 15 {
		t.Errorf("%d encode flags, want 15", n)
	}
	beamFlags := []string{"--runner", "--endpoint", "--environment_type", "--worker_binary"}
	if flag.Lookup("project") != nil { // built with -tags cloud: Dataflow's flags
		beamFlags = append(beamFlags, "--project", "--region")
	}
	for _, f := range beamFlags {
		if !strings.Contains(out, "  "+f+" ") {
			t.Errorf("--help does not list %s", f)
		}
	}
}

// TestErrors: usage errors exit with status 2, other errors with 1; each
// is one line that names the flag, the glob or the shard, row and column.
func TestErrors(t *testing.T) {
	dir, _ := shards(t)
	tmp := t.TempDir()
	out := filepath.Join(tmp, "m.drdam")
	bad := filepath.Join(tmp, "bad.csv")
	if err := os.WriteFile(bad, []byte("1,2\n3,nan\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := dataio.WriteMatrix(filepath.Join(tmp, "wide.csv"), &dataio.Matrix{Rows: 1, Cols: 7, Data: make([]float64, 7)}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args   []string
		status int
		want   string
	}{
		{[]string{"encode", "--patterns", dir, "--out", out, "--rep", "mrdam"}, 2, "--rep mrdam: a Beam pipeline encodes a drdam only"},
		{[]string{"encode", "--patterns", dir}, 2, "missing --out"},
		{[]string{"encode", "--out", out}, 2, "missing --patterns"},
		{[]string{"encode", "--patterns", dir, "--out", out, "--basis", "sine"}, 2, `--basis: unknown basis "sine"`},
		{[]string{"encode", "--bogus"}, 2, "unknown flag --bogus"},
		{[]string{"encode", "--patterns", dir, "--out", out, "--y", "2.5"}, 2, `--y: want a whole number from 0 to 1073741824, found "2.5"`},
		{[]string{"encode", "--patterns", dir, "--out", out, "--no-bias=maybe"}, 2, `--no-bias: want true or false, found "maybe"`},
		{[]string{"encode", "--patterns", dir, "--out", out, "extra"}, 2, `unexpected argument "extra"`},
		{[]string{"decode"}, 2, `unknown command "decode"`},
		{[]string{"encode", "--patterns", dir, "--out", out, "--y", "0"}, 1, "--y: number of random features Y must be positive"},
		{[]string{"encode", "--patterns", filepath.Join(tmp, "none-*.npy"), "--out", out}, 1, "none-*.npy: no shard of patterns matches"},
		{[]string{"encode", "--patterns", bad, "--out", out, "--y", "10"}, 1, "bad.csv: row 2, column 2: NaN"},
		{[]string{"encode", "--patterns", dir, "--out", out, "--y", "100000", "--max-memory", "1MiB"}, 1, "more than the memory budget of 1 MiB; lower --y"},
	} {
		st, stdout, stderr := drdamBeam(t, tc.args...)
		line := strings.Join(tc.args, " ")
		if st != tc.status || stdout != "" || !strings.Contains(stderr, tc.want) {
			t.Errorf("drdam-beam %s: status %d, stdout %q, stderr %q; want %d and %q", line, st, stdout, stderr, tc.status, tc.want)
		}
		if strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
			t.Errorf("drdam-beam %s: the error is not one line: %q", line, stderr)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("a failed command wrote %s", out)
	}
}
