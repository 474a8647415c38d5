package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/drdam/drdam/cmd/drdam/internal/peers"
)

// TestBenchCommand runs the command on a tiny configuration added to the
// table for the test: one JSON line on stdout, notes on stderr.
func TestBenchCommand(t *testing.T) {
	c := peers.Config{Name: "test-tiny", D: 16, K: 4, Y: 64, B: 3, Beta: 8, Alpha: 0.1, Data: "gray", Clamp: 0.5}
	peers.Configs[c.Name] = c
	t.Cleanup(func() { delete(peers.Configs, c.Name) })
	st, out, errOut := drdam(t, "bench", "--config", c.Name, "--phase", "mr_recall", "--dtype", "float64",
		"--repeats", "2", "--warmup", "0", "--threads", "1")
	if st != 0 {
		t.Fatalf("status %d: %s", st, errOut)
	}
	var r peers.Result
	if err := json.Unmarshal([]byte(out), &r); err != nil || strings.Count(out, "\n") != 1 {
		t.Fatalf("%v: %q", err, out)
	}
	if r.Config != c.Name || r.Phase != "mr_recall" || r.Dtype != "float64" || r.Threads != 1 || len(r.TimesS) != 2 || r.Warmup != 0 {
		t.Errorf("the line does not echo the run: %s", out)
	}
	if !strings.Contains(errOut, "drdam bench:") {
		t.Errorf("no notes on stderr: %q", errOut)
	}
}

// TestBenchFlags: each mistake gives a one-line error and status 2.
func TestBenchFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"--config", "d", "--phase", "dr_eg"}, []string{"--config", `"d"`, "a, b, c, cfull"}},
		{[]string{"--config", "a", "--phase", "stream"}, []string{"--phase", `"stream"`, "dr_recall"}},
		{[]string{"--config", "cfull", "--phase", "dr_eg", "--dtype", "float64"}, []string{"cfull", "float32 only"}},
		{[]string{"--config", "a", "--phase", "dr_eg", "--dtype", "float16"}, []string{"--dtype", "float16"}},
		{[]string{"--config", "a", "--phase", "dr_eg", "--repeats", "0"}, []string{`--repeats "0"`, "from 1 to"}},
		{[]string{"--config", "a", "--phase", "dr_eg", "--warmup", "-1"}, []string{`--warmup "-1"`, "from 0 to"}},
		{[]string{"--config", "a", "--phase", "dr_eg", "--threads", "0"}, []string{`--threads "0"`, "from 1 to 4096"}},
		{[]string{"--phase", "dr_eg"}, []string{"missing --config"}},
		{[]string{"--config", "a"}, []string{"missing --phase"}},
	} {
		args := append([]string{"bench"}, c.args...)
		st, out, errOut := drdam(t, args...)
		if st != 2 || out != "" {
			t.Errorf("drdam %s: status %d, stdout %q, want 2 and nothing", strings.Join(args, " "), st, out)
		}
		if strings.Count(strings.TrimSpace(errOut), "\n") > 0 {
			t.Errorf("drdam %s: error is not one line: %q", strings.Join(args, " "), errOut)
		}
		for _, w := range c.want {
			if !strings.Contains(errOut, w) {
				t.Errorf("drdam %s: error %q does not contain %q", strings.Join(args, " "), errOut, w)
			}
		}
	}
}
