package client_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/drdam/drdam/serve"
)

// pythons returns the Python interpreters to run the Python client's
// tests with: $DRDAM_PYTHON if set; else python3 on the PATH and, if it
// is another interpreter, Debian's /usr/bin/python3 (one may have numpy
// and the other not, and the client works either way).
func pythons() []string {
	if p := os.Getenv("DRDAM_PYTHON"); p != "" {
		return []string{p}
	}
	var out []string
	seen := map[string]bool{}
	for _, name := range []string{"python3", "/usr/bin/python3"} {
		p, err := exec.LookPath(name)
		if err != nil {
			continue
		}
		real, err := filepath.EvalSymlinks(p)
		if err != nil {
			real = p
		}
		if !seen[real] {
			seen[real] = true
			out = append(out, p)
		}
	}
	return out
}

// TestPython runs clients/python/test_client.py (unittest) against a live
// server with a token on loopback (and its retries' tests against the
// fake server they start), with each interpreter found, each bounded to
// two minutes; it is skipped, saying so, without python3.
func TestPython(t *testing.T) {
	ps := pythons()
	if len(ps) == 0 {
		t.Skip("python3 not found on the PATH (nor /usr/bin/python3): the Python client's tests do not run")
	}
	script, err := filepath.Abs("../clients/python/test_client.py")
	if err != nil {
		t.Fatal(err)
	}
	const token = "py-s3cret"
	url := startServer(t, serve.Options{Token: token})
	for _, py := range ps {
		t.Run(filepath.Base(filepath.Dir(py))+"/"+filepath.Base(py), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, py, script)
			cmd.Env = append(os.Environ(), "DRDAM_URL="+url, "DRDAM_TOKEN="+token, "PYTHONDONTWRITEBYTECODE=1")
			t0 := time.Now()
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("%s %s: %v (after %v)\n%s", py, script, err, time.Since(t0).Round(time.Millisecond), out)
			}
			numpy := "with numpy"
			if strings.Contains(string(out), "numpy is not installed") {
				numpy = "without numpy (its tests skipped)"
			}
			t.Logf("%s: the Python client's tests pass, %s, in %v", py, numpy, time.Since(t0).Round(time.Millisecond))
		})
	}
}
