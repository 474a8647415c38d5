package arch

import (
	"bytes"
	"flag"
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/drdam/drdam/"

// update rewrites the table of floors in docs/ARCHITECTURE.md from house:
// go test ./internal/arch -run TestDoc -update.
var update = flag.Bool("update", false, "rewrite the table of floors in docs/ARCHITECTURE.md")

// A floor of the house: its number, what it is, and its packages with what
// each holds. A package may import only packages of lower floors.
type floor struct {
	n    int
	name string
	pkgs []room
}

// A room is a package (by path below the module) and what it holds.
type room struct {
	pkg, holds string
}

// house is the one table of floors: TestFloors checks every package's
// imports against it, and docs/ARCHITECTURE.md's table is generated from it
// (TestDoc).
var house = []floor{
	{0, "the machine", []room{
		{"internal/cpuid", "the CPU's features (AVX-512, AVX2, FMA), once per process"},
		{"internal/par", "the parallel runner (`par.Run`, waves, `par.Task`)"},
		{"internal/atomicfile", "atomic file writes (temp file, sync, rename) and the folder lock"},
		{"internal/sysinfo", "/proc readings: CPU model, RSS, CPU time, the memory budget under limits"},
		{"internal/fuzzbudget", "for the input readers' fuzz targets: the bytes one call allocates, against k × the input's size + a constant (tests only)"},
		{"internal/arch", "this table's test (no code)"},
	}},
	{1, "kernels and streams", []room{
		{"internal/rng", "the pinned random streams (version 2's normal values with AVX-512/AVX2/portable kernels), and every stream id (`streams.go`)"},
		{"internal/kern", "AVX-512/AVX2/portable panel products"},
		{"internal/fwht", "the Walsh–Hadamard transform's kernels"},
		{"internal/vmath", "sin, cos and exp over lanes"},
		{"internal/qr", "the deterministic Householder QR of orthogonal blocks"},
		{"internal/simdtest", "for the kernels' tests: a test run once per kernel level (tests only)"},
	}},
	{2, "mathematics, formats, figures", []room{
		{"features", "random feature maps: the table of bases, the table of projection kinds, the seeded projections"},
		{"metrics", "errors (MAE, Hamming, pixel RMSE), fits of error rates, the bounds of Theorem 1 and Corollary 1"},
		{"synth", "generated data: random binary and gray patterns, bit flips"},
		{"npy", "`.npy` files"},
		{"plots", "figures: grids of panels in the paper's layout (gonum/plot; shared axes, error bars, captions), image grids, atomic PNG/SVG"},
		{"serve/api", "the memory service's JSON types alone, for the server and its clients"},
		{"baseline", "what users complete missing data with instead: masked k-NN, scikit-learn's KNNImputer, column means, Nadaraya–Watson at β"},
	}},
	{3, "models and matrices", []room{
		{"dam", "the models: `MrDAM`, `DrDAM`, energy descent, model files, the configuration and its codec"},
		{"dataio", "CSV/TSV/ARFF/IDX/`.npy` matrices, vectors and masks, whole or a chunk of rows at a time (`dataio.Rows`: files, globs, folders of shards; `OpenRowsMissing`: empty fields as missing), written whole or a chunk at a time (`dataio.StreamWriter`)"},
	}},
	{4, "data, images, measurement, adapters", []room{
		{"datasets", "the embedded UCI Letter data"},
		{"imageio", "images as patterns (H×W×3, or H×W gray, scaled into [0, 1/√D]), their files (PNG/JPEG, CIFAR-10, Tiny ImageNet, IDX) and occlusion masks"},
		{"experiment", "measurement only: grids → plans → rows (`points.csv`), completion runs, the demo's comparison"},
		{"internal/cli", "the flags that several commands share: `dam.Config`'s codec as flags (`drdam encode`, `drdam-beam encode`), the number flags, `--max-memory`, the patterns of a file read, checked and stored a chunk at a time (`cli.Fill`, `cli.Store`), and rows with missing entries completed a chunk at a time (`cli.Complete`)"},
		{"client", "the service's typed Go client: a method per route of `/v1`, `.npy` bodies for large batches, retries with idempotency keys"},
	}},
	{5, "the paper and the service", []room{
		{"paper", "the paper as data and as a report: the registry of experiments (one `Experiment` per kind), figures, the observations that judge them, `REPORT.md`"},
		{"serve", "the memory service (`drdam serve`): named memories in a folder, the HTTP API (a configuration's JSON given to `dam.Config`'s codec), a write-ahead log per memory and snapshots, limits and budget, token, metrics, the web page"},
		{"cmd/drdam/internal/peers", "the peers' protocols, for `drdam compute` (numpy_dam.py's files) and `drdam bench` (bench.py's configurations and JSON line)"},
	}},
	{6, "programs", []room{
		{"cmd/drdam", "the command: flag parsing, dispatch, printing, progress"},
		{"scripts/genpatterns", "a large `.npy` written a chunk at a time (BENCHMARKS.md, \"Streaming encode\")"},
		{"scripts/streamcheck", "an in-process `Add` timed and its T compared (BENCHMARKS.md, \"Streaming encode\")"},
		{"scripts/knntime", "baseline.Imputer timed on .npy files against scikit-learn's KNNImputer (BENCHMARKS.md, \"Completion baselines\")"},
		{"scripts/fillstart", "where a completion starts (zero, means, the kernel readout) measured on the digits (docs/completion-start.md)"},
		{"scripts/battery", "the reliability battery (docs/reliability.md): a black box that runs a `drdam` binary"},
	}},
}

// floorOf returns each package's floor number.
func floorOf() map[string]int {
	m := map[string]int{}
	for _, f := range house {
		for _, r := range f.pkgs {
			m[r.pkg] = f.n
		}
	}
	return m
}

// moduleImports parses the imports of every non-test Go file of the module
// (not of nested modules) and returns, per package, the module packages it
// imports.
func moduleImports(t *testing.T) map[string][]string {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	imports := map[string]map[string]bool{}
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() && path != root && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" || name == "docs") {
			return filepath.SkipDir
		}
		if d.IsDir() && path != root {
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
				return filepath.SkipDir // a nested module (beam/) has its own rules
			}
		}
		if d.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		pkg := filepath.ToSlash(rel)
		if imports[pkg] == nil {
			imports[pkg] = map[string]bool{}
		}
		for _, im := range f.Imports {
			if p, ok := strings.CutPrefix(strings.Trim(im.Path.Value, `"`), module); ok {
				imports[pkg][p] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for pkg, deps := range imports {
		out[pkg] = []string{}
		for d := range deps {
			out[pkg] = append(out[pkg], d)
		}
		slices.Sort(out[pkg])
	}
	return out
}

// TestFloors checks that every package of the module is on a floor and
// imports only packages of lower floors.
func TestFloors(t *testing.T) {
	floors := floorOf()
	imports := moduleImports(t)
	for pkg, deps := range imports {
		n, ok := floors[pkg]
		if !ok {
			t.Errorf("package %s is on no floor: add it to house in internal/arch/arch_test.go (and run its TestDoc with -update)", pkg)
			continue
		}
		for _, dep := range deps {
			m, ok := floors[dep]
			switch {
			case !ok:
				t.Errorf("%s (floor %d) imports %s, which is on no floor", pkg, n, dep)
			case m >= n:
				t.Errorf("%s (floor %d) imports %s (floor %d): a package may import only from lower floors (docs/ARCHITECTURE.md)", pkg, n, dep, m)
			}
		}
	}
	for pkg := range floors {
		if _, ok := imports[pkg]; !ok {
			t.Errorf("house lists %s, which has no Go files", pkg)
		}
	}
	for i, f := range house {
		if f.n != i {
			t.Errorf("floor %q is number %d at index %d: number the floors 0, 1, 2, … in order", f.name, f.n, i)
		}
	}
}

// TestFloorRuleCanFail: the rule refuses an import from the same floor and
// from above (a rule that cannot fail checks nothing).
func TestFloorRuleCanFail(t *testing.T) {
	floors := floorOf()
	for _, c := range []struct{ pkg, dep string }{{"dam", "dataio"}, {"features", "dam"}, {"serve", "paper"}} {
		if floors[c.dep] < floors[c.pkg] {
			t.Errorf("%s (floor %d) may import %s (floor %d): the case meant to break the rule does not", c.pkg, floors[c.pkg], c.dep, floors[c.dep])
		}
	}
}

const (
	docPath  = "../../docs/ARCHITECTURE.md"
	docStart = "<!-- floors: generated by go test ./internal/arch -run TestDoc -update -->"
	docEnd   = "<!-- end of floors -->"
)

// docTable renders house, with each package's present imports, as the
// Markdown table of docs/ARCHITECTURE.md, highest floor first.
func docTable(imports map[string][]string) string {
	var b bytes.Buffer
	b.WriteString("| floor | package | holds | imports (from this module) |\n|---|---|---|---|\n")
	for i := len(house) - 1; i >= 0; i-- {
		f := house[i]
		for _, r := range f.pkgs {
			deps := "—"
			if len(imports[r.pkg]) > 0 {
				deps = "`" + strings.Join(imports[r.pkg], "`, `") + "`"
			}
			fmt.Fprintf(&b, "| %d %s | `%s` | %s | %s |\n", f.n, f.name, r.pkg, r.holds, deps)
		}
	}
	return b.String()
}

// TestDoc checks that docs/ARCHITECTURE.md's table of floors is the one
// house and the present imports give; with -update it rewrites it.
func TestDoc(t *testing.T) {
	doc, err := os.ReadFile(docPath)
	if err != nil {
		t.Fatal(err)
	}
	before, rest, ok1 := bytes.Cut(doc, []byte(docStart+"\n"))
	table, after, ok2 := bytes.Cut(rest, []byte(docEnd))
	if !ok1 || !ok2 {
		t.Fatalf("%s: the markers %q and %q around the table of floors are missing", docPath, docStart, docEnd)
	}
	want := docTable(moduleImports(t))
	if string(table) == want {
		return
	}
	if *update {
		out := slices.Concat(before, []byte(docStart+"\n"+want), []byte(docEnd), after)
		if err := os.WriteFile(docPath, out, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s: the table of floors is not the one internal/arch's house gives; run go test ./internal/arch -run TestDoc -update\nwant:\n%s", docPath, want)
}
