package arch

import (
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

// floors lists, for every package of the module (by path below the
// module), the module packages it may import; docs/ARCHITECTURE.md draws
// the same table as floors. Standard and third-party imports are not
// restricted here.
var floors = map[string][]string{
	// Floor 0: the machine.
	"internal/rng":        {"internal/cpuid"},
	"internal/cpuid":      nil,
	"internal/par":        nil,
	"internal/atomicfile": nil,
	"internal/sysinfo":    nil,
	"internal/arch":       nil,
	"internal/vmath":      {"internal/cpuid"},
	"internal/fwht":       {"internal/cpuid"},
	"internal/qr":         {"internal/cpuid"},
	"internal/kern":       {"internal/cpuid", "internal/par"},
	"internal/simdtest":   {"internal/cpuid"}, // imported by tests only
	"internal/fuzzbudget": nil,                // imported by tests only
	// Floor 1: the mathematics and the data.
	"features": {"internal/rng", "internal/fwht", "internal/qr"},
	"metrics":  nil,
	"synth":    {"internal/rng"},
	"npy":      {"internal/atomicfile"},
	"dataio":   {"npy", "internal/atomicfile"},
	"datasets": {"dataio"},
	// Floor 2: the models.
	"dam": {"features", "internal/atomicfile", "internal/fwht", "internal/kern", "internal/par", "internal/rng", "internal/sysinfo", "internal/vmath"},
	// Floor 3: measurement, images, figures, the peers' protocols.
	"experiment":     {"dam", "features", "metrics", "synth", "internal/rng", "internal/atomicfile", "internal/sysinfo"},
	"imageio":        {"dataio", "internal/rng", "internal/atomicfile", "internal/sysinfo"},
	"plots":          {"internal/atomicfile"},
	"internal/peers": {"dam", "features", "metrics", "synth", "npy", "internal/rng", "internal/cpuid", "internal/sysinfo", "internal/atomicfile"},
	// Floor 4: the paper.
	"paper": {"experiment", "plots", "imageio", "dam", "features", "metrics", "dataio", "datasets", "internal/atomicfile", "internal/cli"},
	// The command lines that several commands share (drdam's and
	// drdam-beam's encode flags).
	"internal/cli": {"dam", "dataio", "features"},
	// Floor 4: the memory service, and its API's types (for clients).
	"serve/api": nil,
	"serve":     {"dam", "npy", "internal/cli", "internal/atomicfile", "serve/api"},
	// The service's Go client: the API's types and .npy bodies, not the
	// server (its tests and example start one).
	"client": {"serve/api", "npy"},
	// Floor 5: the command may use every floor below it.
	"cmd/drdam": {"paper", "experiment", "internal/peers", "internal/sysinfo", "dam", "features", "metrics", "synth", "dataio", "npy",
		"imageio", "plots", "internal/atomicfile", "internal/cli", "internal/cpuid", "internal/rng", "serve", "serve/api"},
	// Beside the command: the programs of measurements (BENCHMARKS.md).
	"scripts/genpatterns": {"npy", "internal/atomicfile", "internal/rng"},
	"scripts/streamcheck": {"dam", "dataio", "features"},
	"scripts/battery":     nil, // a black box: it runs a drdam binary, and imports nothing of the module
}

// TestFloors parses the imports of every non-test Go file of the module
// and checks them against floors.
func TestFloors(t *testing.T) {
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
	for pkg, deps := range imports {
		allowed, ok := floors[pkg]
		if !ok {
			t.Errorf("package %s is not on any floor: add it to floors and to docs/ARCHITECTURE.md", pkg)
			continue
		}
		for dep := range deps {
			if !slices.Contains(allowed, dep) {
				t.Errorf("%s imports %s, which its floor does not allow (docs/ARCHITECTURE.md)", pkg, dep)
			}
		}
	}
	for pkg := range floors {
		if _, ok := imports[pkg]; !ok {
			t.Errorf("floors lists %s, which has no Go files", pkg)
		}
	}
}
