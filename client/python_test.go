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

// TestPythonInstall installs the Python client with pip into a fresh
// virtual environment (with the system's site packages, offline:
// --no-build-isolation --no-index, so setuptools is Debian's) from a copy
// of clients/python, and imports it from there; it is skipped, saying
// why, without a python3 that has venv, ensurepip, pip, setuptools and
// wheel (setuptools before 70 builds wheels with it).
func TestPythonInstall(t *testing.T) {
	py := ""
	var why []string
	for _, p := range pythons() {
		out, err := exec.Command(p, "-c", "import setuptools, wheel, venv, ensurepip, pip").CombinedOutput()
		if err == nil {
			py = p
			break
		}
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		why = append(why, p+": "+lines[len(lines)-1])
	}
	if py == "" {
		t.Skipf("no python3 with venv, ensurepip, pip, setuptools and wheel (Debian: python3-venv python3-pip python3-setuptools python3-wheel): the install is not tried %q", why)
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	if err := os.MkdirAll(src, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"pyproject.toml", "README.md", "drdam_client.py"} {
		b, err := os.ReadFile(filepath.Join("..", "clients", "python", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(src, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	venv := filepath.Join(dir, "venv")
	for _, args := range [][]string{
		{py, "-m", "venv", "--system-site-packages", venv},
		{filepath.Join(venv, "bin", "pip"), "install", "--no-build-isolation", "--no-index", "-q", src},
	} {
		if out, err := exec.CommandContext(ctx, args[0], args[1:]...).CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	out, err := exec.CommandContext(ctx, filepath.Join(venv, "bin", "python"), "-c",
		"import drdam_client; print(drdam_client.__file__); print(drdam_client.Client)").CombinedOutput()
	if err != nil || !strings.Contains(string(out), filepath.Join(venv, "lib")) {
		t.Fatalf("import after pip install: %v\n%s", err, out)
	}
}
