package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// This file lists the command-line cases (cliCases) and their checks;
// cli.go runs and classifies them.

func cliCases() []tcase {
	var cs []*cliCase
	add := func(c ...*cliCase) { cs = append(cs, c...) }
	enc := func(extra ...string) []string {
		return append([]string{"encode", "--patterns", "p.csv", "--out", "o.drdam"}, extra...)
	}

	// --- The command line: flags and numbers.
	for _, f := range []struct{ cmd, flag string }{
		{"demo", "k"}, {"demo", "d"}, {"demo", "max-steps"}, {"demo", "queries"}, {"demo", "y"},
	} {
		for _, v := range []string{"1e12.5", "1e12", "0", "-1", "2.5", "abc", ""} {
			add(cl(fmt.Sprintf("flag/%s-%s=%s", f.cmd, f.flag, v), "cli/flags", f.cmd, "--"+f.flag, v).names("--" + f.flag))
		}
	}
	for _, v := range []string{"1e12.5", "1e12", "-3", "2.5", "abc", "1e400"} {
		add(cl("flag/encode-y="+v, "cli/flags", enc("--y", v)...).fix("p.csv").names("--y").writesNot("o.drdam"))
	}
	for _, v := range []string{"abc", "-1", "inf", "nan", "0", "1e400"} {
		add(cl("flag/encode-beta="+v, "cli/flags", enc("--beta", v)...).fix("p.csv").names("--beta").writesNot("o.drdam"))
		add(cl("flag/demo-beta="+v, "cli/flags", "demo", "--beta", v).names("--beta"))
	}
	for _, v := range []string{"-1", "1.5", "abc", "1e30"} {
		add(cl("flag/encode-seed="+v, "cli/flags", enc("--seed", v)...).fix("p.csv").names("--seed").writesNot("o.drdam"))
	}
	for _, v := range []string{"2", "-0.1", "nan"} {
		add(cl("flag/demo-flip="+v, "cli/flags", "demo", "--flip", v).names("--flip"))
	}
	for _, v := range []string{"-1", "nan", "inf"} {
		add(cl("flag/demo-tol="+v, "cli/flags", "demo", "--tol", v).names("--tol"))
	}
	for _, v := range []string{"0", "-1", "1.5"} {
		c := cl("flag/recall-max-steps="+v, "cli/flags", "recall", "--model", "m.drdam", "--queries", "q.csv", "--max-steps", v, "--out", "r.csv").fix("m.drdam", "q.csv").names("--max-steps")
		if v == "0" {
			// recall's --max-steps is the flag package's Int wrapped
			// (0 to 2³⁰): 0 is taken, and the summary must say so.
			c.mayAccept = func(b *battery, dir string, p *proc) (string, string) {
				if !strings.Contains(p.stdout+p.stderr, "--max-steps 0") {
					return silentWrong, "0 steps taken without a word"
				}
				return ok, ""
			}
		} else {
			c.writesNot("r.csv")
		}
		add(c)
	}
	for _, v := range []string{"-0.1", "nan", "0"} {
		add(cl("flag/recall-step="+v, "cli/flags", "recall", "--model", "m.drdam", "--queries", "q.csv", "--step", v, "--out", "r.csv").fix("m.drdam", "q.csv").names("--step").writesNot("r.csv"))
	}
	add(
		cl("flag/lists-betas", "cli/flags", "experiment", "fig4b", "--betas", "10,x").names("--betas").doc(`--betas "10,x": element 2, "x": want a number > 0`),
		cl("flag/lists-demo-y", "cli/flags", "demo", "--y", "1000,x").names("--y").doc(`element 2, "x"`),
		cl("flag/lists-ys", "cli/flags", "experiment", "fig4b", "--ys", "1000,x").names("--ys"),
		cl("flag/lists-k", "cli/flags", "experiment", "energy-error", "--k", "10,x").names("--k"),
		cl("flag/lists-empty-d", "cli/flags", "experiment", "energy-error", "--d", "").names("--d").doc(`--d "": empty list`),
		cl("flag/seeds-x", "cli/flags", "experiment", "energy-error", "--seeds", "x").names("--seeds"),
		cl("flag/unknown-demo", "cli/flags", "demo", "--bogus").names("--bogus").doc("unknown flag --bogus"),
		cl("flag/unknown-encode", "cli/flags", "encode", "--bogus").names("--bogus"),
		cl("flag/unknown-serve", "cli/flags", "serve", "--data", "d", "--bogus").names("--bogus"),
		cl("flag/no-value", "cli/flags", "demo", "--y").names("--y").doc("--y needs a value"),
		cl("flag/bool-maybe", "cli/flags", enc("--on-demand=maybe")...).fix("p.csv").names("--on-demand").writesNot("o.drdam"),
		cl("flag/model-empty-info", "cli/flags", "info", "--model", "").names("--model").doc("--model: empty path"),
		cl("flag/model-empty-add", "cli/flags", "add", "--model", "", "--patterns", "p.csv").fix("p.csv").names("--model").doc("--model: empty path"),
		cl("flag/model-empty-energy", "cli/flags", "energy", "--model", "", "--queries", "q.csv").fix("q.csv").names("--model"),
		cl("flag/model-empty-recall", "cli/flags", "recall", "--model", "", "--queries", "q.csv", "--out", "r.csv").fix("q.csv").names("--model"),
		cl("flag/model-empty-remove", "cli/flags", "remove", "--model", "", "--patterns", "p.csv").fix("p.csv").names("--model"),
		cl("flag/model-empty-merge", "cli/flags", "merge", "--model", "", "--with", "m.drdam", "--out", "o.drdam").fix("m.drdam").names("--model").writesNot("o.drdam"),
		cl("flag/patterns-empty", "cli/flags", "encode", "--patterns", "", "--out", "o.drdam").names("--patterns").writesNot("o.drdam").doc("--patterns: empty path"),
		cl("flag/bench-config-empty", "cli/flags", "bench", "--config", "", "--phase", "dr_eg").names("--config").doc("--config: empty value"),
		cl("flag/experiment-out-empty", "cli/flags", "experiment", "energy-error", "--out", "").names("--out").doc("--out: empty path"),
		cl("flag/fig4b-beta-and-betas", "cli/flags", "experiment", "fig4b", "--beta", "50", "--betas", "40,60").names("--beta").doc("--beta: exclusive with --betas"),
		cl("flag/fig4b-y-and-ys", "cli/flags", "experiment", "fig4b", "--y", "1e3", "--ys", "1000,2000").names("--y"),
		cl("flag/fig4b-queries", "cli/flags", "experiment", "fig4b", "--queries", "3").names("--queries").doc("fig4b completes one image"),
		cl("flag/config-max-steps-0", "cli/flags", "experiment", "retrieval-error", "--config", "config.json", "--estimate").with(map[string][]byte{
			"config.json": []byte(`{"experiment":"retrieval-error","scale":"quick","precision":"float64","basis":"sincos","projection":"gaussian","flip":0.1,"seeds":1,"d":[30],"k":[10],"beta":[10],"y":[100],"step":0.03,"max_steps":0,"tol":1e-8}`),
		}).names("--steps").doc("--steps 0: want at least 1"),
		cl("flag/complete-steps-0", "cli/flags", "complete", "--images", "img", "--steps", "0").fix("img/a.png").names("--steps"),
		cl("flag/serve-wave-negative", "cli/flags", "serve", "--data", "d", "--wave", "-4ms").names("--wave"),
		cl("flag/serve-no-data", "cli/flags", "serve").names("--data"),
	)
	for _, v := range []string{"--version", "-version", "-v"} {
		add(cl("flag/version"+v, "cli/flags", v).accept().then(func(b *battery, dir string, p *proc) (string, string) {
			if !strings.HasPrefix(p.stdout, "drdam ") {
				return silentWrong, "printed " + firstLine(p.stdout) + ", want what drdam version prints"
			}
			return ok, ""
		}))
	}
	for _, v := range []string{"2e4", "20_000", "2.0e4"} {
		add(cl("flag/encode-y-form="+v, "cli/flags", enc("--y", v)...).fix("p.csv").accept().then(infoSays("o.drdam", "Y = 20000")))
	}

	// --- Model files: outputs naming inputs, empty models, crafted files.
	add(
		cl("model/out-is-patterns", "cli/model", "encode", "--patterns", "p.csv", "--out", "p.csv").fix("p.csv").keeps("p.csv").names("--out").doc("names the same file as --patterns"),
		cl("model/out-is-patterns-dot", "cli/model", "encode", "--patterns", "p.csv", "--out", "./p.csv").fix("p.csv").keeps("p.csv").names("--out"),
		cl("model/out-is-patterns-symlink", "cli/model", "encode", "--patterns", "p.csv", "--out", "l.csv").fix("p.csv").keeps("p.csv").names("--out").prep(func(b *battery, dir string) error {
			return os.Symlink("p.csv", filepath.Join(dir, "l.csv"))
		}),
		cl("model/out-is-patterns-hardlink", "cli/model", "encode", "--patterns", "p.csv", "--out", "h.csv").fix("p.csv").keeps("p.csv").names("--out").prep(func(b *battery, dir string) error {
			return os.Link(filepath.Join(dir, "p.csv"), filepath.Join(dir, "h.csv"))
		}),
		cl("model/energy-out-is-grad", "cli/model", "energy", "--model", "m.drdam", "--queries", "q.csv", "--out", "f.npy", "--grad", "f.npy").fix("m.drdam", "q.csv").writesNot("f.npy").names("--grad").doc("--out and --grad name the same file"),
		cl("model/energy-out-is-queries", "cli/model", "energy", "--model", "m.drdam", "--queries", "q.csv", "--out", "q.csv").fix("m.drdam", "q.csv").keeps("q.csv").names("--out"),
		cl("model/energy-out-is-model", "cli/model", "energy", "--model", "m.drdam", "--queries", "q.csv", "--out", "m.drdam").fix("m.drdam", "q.csv").keeps("m.drdam").names("--out"),
		cl("model/recall-out-is-model", "cli/model", "recall", "--model", "m.drdam", "--queries", "q.csv", "--out", "m.drdam").fix("m.drdam", "q.csv").keeps("m.drdam").names("--out").doc("names the same file as --model"),
		cl("model/recall-out-is-mask", "cli/model", "recall", "--model", "m.drdam", "--queries", "q.csv", "--mask", "mask4.csv", "--out", "mask4.csv").fix("m.drdam", "q.csv", "mask4.csv").keeps("mask4.csv").names("--out"),
		cl("model/recall-out-is-steps", "cli/model", "recall", "--model", "m.drdam", "--queries", "q.csv", "--out", "r.csv", "--steps", "r.csv").fix("m.drdam", "q.csv").writesNot("r.csv").names("--steps"),
		cl("model/recall-out-is-trace", "cli/model", "recall", "--model", "m.drdam", "--queries", "q.csv", "--out", "r.csv", "--trace", "r.csv").fix("m.drdam", "q.csv").writesNot("r.csv").names("--trace"),
		cl("model/recall-outcome-is-trace", "cli/model", "recall", "--model", "m.drdam", "--queries", "q.csv", "--out", "r.csv", "--outcome", "t.csv", "--trace", "t.csv").fix("m.drdam", "q.csv").writesNot("r.csv", "t.csv").names("--trace", "--outcome"),
		cl("model/add-out-is-patterns", "cli/model", "add", "--model", "m.drdam", "--patterns", "p.csv", "--out", "p.csv").fix("m.drdam", "p.csv").keeps("p.csv", "m.drdam").names("--out"),
		cl("model/energy-empty-model", "cli/model", "energy", "--model", "empty.drdam", "--queries", "q.csv").fix("empty.drdam", "q.csv").names("empty.drdam").doc("empty.drdam stores no patterns"),
		cl("model/recall-empty-model", "cli/model", "recall", "--model", "empty.drdam", "--queries", "q.csv", "--out", "r.csv").fix("empty.drdam", "q.csv").names("empty.drdam").writesNot("r.csv"),
		cl("model/add-through-symlink", "cli/model", "add", "--model", "link.drdam", "--patterns", "e.csv").fix("m.drdam").with(map[string][]byte{"e.csv": []byte("0,0.5,0.5,0\n")}).accept().prep(func(b *battery, dir string) error {
			return os.Symlink("m.drdam", filepath.Join(dir, "link.drdam"))
		}).then(func(b *battery, dir string, p *proc) (string, string) {
			if fi, err := os.Lstat(filepath.Join(dir, "link.drdam")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
				return silentWrong, "the symbolic link was replaced by a file"
			}
			return infoSays("m.drdam", "patterns K      3")(b, dir, p)
		}),
	)
	for _, f := range [][]string{{"--y", "5000"}, {"--basis", "exp"}, {"--projection", "structured"}, {"--on-demand"}, {"--seed", "3"}, {"--no-bias"}, {"--eps", "0.001"}} {
		add(cl("model/mrdam-with"+f[0], "cli/model", enc(append([]string{"--rep", "mrdam"}, f...)...)...).fix("p.csv").writesNot("o.drdam").names(f[0]).doc("only applies to a drdam"))
	}
	for _, m := range []struct{ file, why string }{
		{"badmagic.drdam", "bad magic"}, {"trunc.drdam", "truncated"}, {"header.drdam", "cut in its header"}, {"checksum.drdam", "a byte flipped"},
		{"trailing.drdam", "bytes after the checksum"}, {"zero.drdam", "empty file"}, {"notamodel.drdam", "a CSV file"},
		{"sim0.drdam", "similarity 0"}, {"basis0.drdam", "basis 0"}, {"missing.drdam", "no such file"},
	} {
		fx := []string{"q.csv"}
		if m.file != "missing.drdam" {
			fx = append(fx, m.file)
		}
		name := strings.TrimSuffix(m.file, ".drdam")
		add(cl("model/info-"+name, "cli/model", "info", "--model", m.file).fix(fx...).names(m.file))
		add(cl("model/energy-"+name, "cli/model", "energy", "--model", m.file, "--queries", "q.csv").fix(fx...).names(m.file))
	}
	add(cl("model/add-checksum", "cli/model", "add", "--model", "checksum.drdam", "--patterns", "q.csv").fix("checksum.drdam", "q.csv").keeps("checksum.drdam").names("checksum.drdam"))
	add(cl("model/model-is-folder", "cli/model", "energy", "--model", "img", "--queries", "q.csv").fix("img/a.png", "q.csv").names("img"))
	add(concurrentAdd(), killedWrite(syscall.SIGINT), killedWrite(syscall.SIGKILL))

	// --- Values a model cannot hold.
	for _, k := range modelKinds {
		for _, v := range []struct{ name, row string }{{"1e308", "0,1e308,0,0\n"}, {"1e200", "1e200,0,0,0\n"}, {"1e30", "0,0,1e30,0\n"}} {
			add(wreck(k.name, v.name, v.row))
		}
		add(cl("values/energy-"+k.name+"-query-1e308", "cli/values", "energy", "--model", "k-"+k.name+".drdam", "--queries", "bq.csv").fix("k-" + k.name + ".drdam").with(map[string][]byte{"bq.csv": []byte("0,1e308,0,0\n")}).names("row 1").doc("is too large"))
	}
	add(cl("values/f32-3e18", "cli/values", "add", "--model", "k-f32.drdam", "--patterns", "bad.csv").fix("k-f32.drdam").with(map[string][]byte{"bad.csv": []byte("3e18,0,0,0\n")}).keeps("k-f32.drdam").names("row 1"))
	add(cl("values/dot-1e30", "cli/values", "add", "--model", "k-dot.drdam", "--patterns", "bad.csv").fix("k-dot.drdam").with(map[string][]byte{"bad.csv": []byte("0,0,1e30,0\n")}).keeps("k-dot.drdam").names("row 1").doc("exceeds 700"))
	add(cl("values/encode-1e308", "cli/values", "encode", "--patterns", "big.csv", "--out", "o.drdam", "--y", "64").with(map[string][]byte{"big.csv": []byte("0.1,0.2,0.3,0.4\n0,1e308,0,0\n")}).writesNot("o.drdam").names("row 2").doc("big.csv: patterns: row 2 is too large"))
	{
		var sb strings.Builder
		for i := range 20000 {
			fmt.Fprintf(&sb, "%g,%g,0,0.25\n", float64(i%100)/400, float64(i%7)/40)
		}
		good := sb.String()
		add(cl("values/bad-last-row-of-20001", "cli/values", "encode", "--patterns", "bad.csv", "--out", "o.drdam", "--y", "64").with(map[string][]byte{"bad.csv": []byte(good + "0,1e200,0,0\n")}).writesNot("o.drdam").names("row 20001"))
		add(cl("values/nan-last-row-of-20001", "cli/values", "add", "--model", "m.drdam", "--patterns", "bad.csv").fix("m.drdam").with(map[string][]byte{"bad.csv": []byte(good + "0,nan,0,0\n")}).keeps("m.drdam").names("row 20001"))
	}
	add(
		cl("values/shards-nan-in-second", "cli/values", "encode", "--patterns", "shards", "--out", "o.drdam", "--y", "64").with(map[string][]byte{
			"shards/part-0.npy": npyF8([]int{2, 4}, []float64{0.1, 0.2, 0.3, 0.4, 0.1, 0, 0, 0}),
			"shards/part-1.npy": npyF8([]int{2, 4}, []float64{0.1, 0.2, 0.3, 0.4, 0.1, 0, math.NaN(), 0}),
		}).writesNot("o.drdam").names("part-1.npy").doc("shards/part-1.npy: row 2, column 3: NaN"),
		cl("values/shards-widths", "cli/values", "encode", "--patterns", "s/*.csv", "--out", "o.drdam", "--y", "64").with(map[string][]byte{
			"s/2.csv": []byte("0.1,0.2\n"), "s/3.csv": []byte("0.1,0.2,0.3\n"),
		}).writesNot("o.drdam").names("3.csv").doc("rows of 3 values, but those of"),
		cl("values/shards-glob-empty", "cli/values", "encode", "--patterns", "*.json", "--out", "o.drdam", "--y", "64").writesNot("o.drdam").names("*.json").doc("*.json: no file matches"),
		cl("values/shards-empty-npy", "cli/values", "encode", "--patterns", "e", "--out", "o.drdam", "--y", "64").with(map[string][]byte{
			"e/a.npy": npyF8([]int{1, 3}, []float64{0.1, 0.2, 0.3}), "e/empty.npy": npyF8([]int{0, 3}, nil),
		}).writesNot("o.drdam").names("empty.npy").doc("no data: the array has shape (0, 3)"),
		cl("values/shards-truncated-npy", "cli/values", "encode", "--patterns", "t", "--out", "o.drdam", "--y", "64").with(map[string][]byte{
			"t/a.npy": npyF8([]int{1, 3}, []float64{0.1, 0.2, 0.3}), "t/short.npy": npyF8([]int{2, 3}, []float64{0.1, 0.2, 0.3, 0.1, 0.2, 0.3})[:128+22],
		}).writesNot("o.drdam").names("short.npy").doc("found only 22 bytes"),
	)
	{
		rows := make([]float64, 0, 400*3)
		for i := range 400 {
			v := 0.1
			if i == 299 {
				v = 1e200
			}
			rows = append(rows, v, 0.2, 0.3)
		}
		add(cl("values/shards-too-large-later", "cli/values", "encode", "--patterns", "z", "--out", "o.drdam", "--y", "64").with(map[string][]byte{
			"z/part-0.npy": npyF8([]int{1, 3}, []float64{0.1, 0.2, 0.3}), "z/part-1.npy": npyF8([]int{400, 3}, rows),
		}).writesNot("o.drdam").names("row 300").doc("part-1.npy: patterns: row 300 is too large"))
	}

	// --- Memory: one budget, checked before anything is allocated.
	{
		row := make([]float64, 9999)
		for i := range row {
			row[i] = 0.005
		}
		add(cl("memory/orthogonal-D9999", "cli/memory", "encode", "--patterns", "wide.csv", "--out", "o.drdam", "--projection", "orthogonal", "--y", "16", "--max-memory", "512MiB").with(map[string][]byte{"wide.csv": csvRows([][]float64{row})}).writesNot("o.drdam").names("--max-memory", "--y").doc("mostly for generating the orthogonal projection"))
	}
	add(
		cl("memory/ortho-D16133-energy", "cli/memory", "energy", "--model", "ortho.drdam", "--queries", "q.csv").fix("ortho.drdam", "q.csv").limit(2097152).names("ortho.drdam").doc("needs 1.94 GiB, mostly for generating the orthogonal projection"),
		cl("memory/ortho-D16133-info", "cli/memory", "info", "--model", "ortho.drdam").fix("ortho.drdam").limit(2097152).accept().then(says("1.94 GiB")),
		cl("memory/dense-2e32-info", "cli/memory", "info", "--model", "dense.drdam").fix("dense.drdam").accept().then(lowCost),
		cl("memory/dense-2e32-energy", "cli/memory", "energy", "--model", "dense.drdam", "--queries", "q.csv").fix("dense.drdam", "q.csv").names("dense.drdam").doc("needs 36.3 GiB"),
		cl("memory/dense-2e32-add", "cli/memory", "add", "--model", "dense.drdam", "--patterns", "q.csv").fix("dense.drdam", "q.csv").keeps("dense.drdam").names("dense.drdam"),
		cl("memory/dense-2e32-merge", "cli/memory", "merge", "--model", "dense.drdam", "--with", "dense.drdam", "--out", "o.drdam").fix("dense.drdam").writesNot("o.drdam").names("dense.drdam"),
		cl("memory/dense-2e32-energy-2GiB", "cli/memory", "energy", "--model", "dense.drdam", "--queries", "q.csv").fix("dense.drdam", "q.csv").limit(2097152).names("dense.drdam"),
		cl("memory/y1e7-info", "cli/memory", "info", "--model", "y1e7.drdam").fix("y1e7.drdam").accept().then(lowCost),
		cl("memory/structured-y1e9", "cli/memory", enc("--y", "1e9", "--projection", "structured")...).fix("p.csv").writesNot("o.drdam").names("--y", "--max-memory").doc("mostly for the structured projection's diagonals"),
		cl("memory/on-demand-y1e9", "cli/memory", enc("--y", "1e9", "--on-demand")...).fix("p.csv").writesNot("o.drdam").names("--y", "--max-memory").doc("mostly for T"),
		cl("memory/y4e9", "cli/memory", enc("--y", "4e9", "--projection", "structured")...).fix("p.csv").writesNot("o.drdam").names("--y"),
		cl("memory/dense-y3e8", "cli/memory", enc("--y", "300000000")...).fix("p.csv").writesNot("o.drdam").names("--y", "--max-memory"),
		cl("memory/dense-y3e8-2GiB", "cli/memory", enc("--y", "300000000")...).fix("p.csv").limit(2097152).writesNot("o.drdam").names("--y", "--max-memory"),
		cl("memory/structured-y1e9-2GiB", "cli/memory", enc("--y", "1e9", "--projection", "structured")...).fix("p.csv").limit(2097152).writesNot("o.drdam").names("--y", "--max-memory"),
		cl("memory/mrdam-growing", "cli/memory", "add", "--model", "k-mr.drdam", "--patterns", "wide-q.csv", "--max-memory", "256KiB").fix("k-mr.drdam", "wide-q.csv").keeps("k-mr.drdam").names("--max-memory", "wide-q.csv").doc("mostly for the patterns"),
		cl("memory/demo-k1e9", "cli/memory", "demo", "--k", "1e9").names("--k", "--max-memory").doc("mostly for the patterns"),
		cl("memory/experiment-k1e8", "cli/memory", "experiment", "energy-error", "--k", "1e8", "--out", "x").names("--k", "K = ", "--max-memory").doc("the largest configuration needs"),
		cl("memory/experiment-y1e9", "cli/memory", "experiment", "energy-error", "--y", "1e9", "--out", "x").names("--y", "Y×D", "--max-memory"),
		cl("memory/energy-queries-too-large", "cli/memory", "energy", "--model", "wide.drdam", "--queries", "wide-q.csv", "--max-memory", "1MiB").fix("wide.drdam", "wide-q.csv").names("wide-q.csv").doc("wide-q.csv: a file of"),
		cl("memory/recall-queries-too-large", "cli/memory", "recall", "--model", "wide.drdam", "--queries", "wide-q.csv", "--max-memory", "1MiB", "--out", "r.csv").fix("wide.drdam", "wide-q.csv").writesNot("r.csv").names("wide-q.csv"),
		cl("memory/png-6000-2GiB", "cli/memory", "complete", "--images", "big.png", "--size", "16x16", "--out", "cout").fix("big.png").limit(2097152).names("big.png").doc("PNG header says 6000×6000 pixels"),
		cl("memory/idx-rows-2^26", "cli/memory", "encode", "--patterns", "wide-idx2-ubyte", "--rep", "mrdam", "--out", "w.drdam", "--max-memory", "256MiB").with(map[string][]byte{
			"wide-idx2-ubyte": {0, 0, 8, 2, 0, 0, 0, 2, 4, 0, 0, 0},
		}).writesNot("w.drdam").names("wide-idx2-ubyte").doc("rows of 67108864 values take 1 GiB to read"),
	)

	// --- IDX files: huge declared shapes in a few bytes.
	ff := uint32(0xFFFFFFFF)
	idxs := []struct {
		name string
		b    []byte
	}{
		{"u8-3d-ffffffff", idxFile(0x08, []uint32{ff, ff, ff}, nil)},
		{"u8-3d-mnist-like", idxFile(0x08, []uint32{ff, 28, 28}, nil)},
		{"u8-3d-rows-of-1", idxFile(0x08, []uint32{ff, 1, 1}, []byte{1, 2, 3})},
		{"u8-3d-1e8-images", idxFile(0x08, []uint32{100_000_000, 28, 28}, nil)},
		{"u8-4d-rgb", idxFile(0x08, []uint32{ff, 32, 32, 3}, nil)},
		{"f8-2d-one-row", idxFile(0x0E, []uint32{1, ff}, nil)},
		{"f4-4d-overflow", idxFile(0x0D, []uint32{65536, 65536, 65536, 65536}, nil)},
		{"i32-2d-wide", idxFile(0x0C, []uint32{3, 0x10000000}, nil)},
		// 8-byte files: a magic number and one huge dimension.
		{"8byte-u8-3d", idxFile(0x08, []uint32{ff, ff, ff}, nil)[:8]},
		{"8byte-u8-1d", idxFile(0x08, []uint32{ff}, nil)},
		{"8byte-f8-1d", idxFile(0x0E, []uint32{ff}, nil)},
		{"8byte-i16-2d", idxFile(0x0B, []uint32{ff, ff}, nil)[:8]},
		{"8byte-u8-255d", append([]byte{0, 0, 8, 255}, 0xff, 0xff, 0xff, 0xff)},
		{"8byte-u8-1d-gap", idxFile(0x08, []uint32{0x7FFFFFFF}, nil)},
		{"u8-2d-zero", idxFile(0x08, []uint32{0, 28}, nil)},
		{"bad-magic", []byte{1, 2, 8, 3, 0, 0, 0, 1}},
		{"bad-type", idxFile(0x07, []uint32{1, 4}, []byte{1, 2, 3, 4})},
		{"zero-dims", []byte{0, 0, 8, 0}},
		{"truncated-data", idxFile(0x08, []uint32{10, 28, 28}, make([]byte, 100))},
	}
	for _, x := range idxs {
		file := "x-" + x.name + "-idx3-ubyte"
		files := map[string][]byte{file: x.b}
		add(cl("idx/encode-"+x.name, "cli/idx", "encode", "--patterns", file, "--rep", "mrdam", "--out", "o.drdam").with(files).writesNot("o.drdam").names(file))
	}
	for _, x := range idxs[:15] {
		file := "x-" + x.name + "-idx3-ubyte"
		add(cl("idx/energy-"+x.name, "cli/idx", "energy", "--model", "m.drdam", "--queries", file).fix("m.drdam").with(map[string][]byte{file: x.b}).names(file))
	}
	for _, x := range idxs[:15] {
		file := "x-" + x.name + "-idx3-ubyte"
		add(cl("idx/complete-"+x.name, "cli/idx", "complete", "--idx", file, "--out", "cout").with(map[string][]byte{file: x.b}).names(file))
	}
	add(cl("idx/gz-u8-3d-ffffffff", "cli/idx", "encode", "--patterns", "x-idx3-ubyte.gz", "--rep", "mrdam", "--out", "o.drdam").with(map[string][]byte{
		"x-idx3-ubyte.gz": gz(idxFile(0x08, []uint32{ff, ff, ff}, nil)),
	}).writesNot("o.drdam").names("x-idx3-ubyte.gz"))
	add(cl("idx/gz-not-gzip", "cli/idx", "encode", "--patterns", "y-idx3-ubyte.gz", "--rep", "mrdam", "--out", "o.drdam").with(map[string][]byte{
		"y-idx3-ubyte.gz": idxFile(0x08, []uint32{1, 4}, []byte{1, 2, 3, 4}),
	}).writesNot("o.drdam").names("y-idx3-ubyte.gz"))

	// --- .npy files (npy.TestReadMalformed's table, through encode).
	d1 := func(dict string) []byte { return npyFile(1, dict, make([]byte, 8)) }
	v1 := func(hlen uint16, rest string) []byte {
		b := append([]byte("\x93NUMPY\x01\x00"), byte(hlen), byte(hlen>>8))
		return append(b, rest...)
	}
	npys := []struct {
		name, doc string
		b         []byte
	}{
		{"empty", "npy: empty input", nil},
		{"zip", "bad magic", []byte("PK\x03\x04\x14\x00\x00\x00\x08\x00")},
		{"partial-magic", "truncated preamble", []byte("\x93NUM")},
		{"version-9", "unsupported format version 9.0", []byte("\x93NUMPY\x09\x00\x10\x00{}")},
		{"missing-header-length", "want a 4-byte header length", []byte("\x93NUMPY\x02\x00\x10\x00")},
		{"npyio-crasher", "want '{' to start the header dict", []byte("\x93NUMPY\x01\x00\x04\x00abcd")},
		{"header-length-past-eof", "goes past the end of the input", v1(1000, "{'descr': '<f8'")},
		{"header-length-past-eof-v2", "header length 4294967295 goes past the end", append([]byte("\x93NUMPY\x02\x00\xff\xff\xff\xff"), "{}"...)},
		{"missing-shape", "missing key 'shape'", d1("{'descr': '<f8', 'fortran_order': False, }")},
		{"duplicate-key", "duplicate key", d1("{'descr': '<f8', 'descr': '<f8', 'fortran_order': False, 'shape': (1,)}")},
		{"complex", "unsupported dtype", d1("{'descr': '<c16', 'fortran_order': False, 'shape': (1,), }")},
		{"object", "unsupported dtype", d1("{'descr': '|O', 'fortran_order': False, 'shape': (1,), }")},
		{"unicode", "unsupported dtype", d1("{'descr': '<U10', 'fortran_order': False, 'shape': (1,), }")},
		{"structured", "unsupported structured dtype", d1("{'descr': [('a', '<f8'), ('b', '<i4')], 'fortran_order': False, 'shape': (1,), }")},
		{"negative-shape", "negative dimension", d1("{'descr': '<f8', 'fortran_order': False, 'shape': (-1,), }")},
		{"shape-overflow", "product overflows an int", d1("{'descr': '<f8', 'fortran_order': False, 'shape': (4611686018427387904, 4611686018427387904), }")},
		{"dim-beyond-int64", "does not fit in 64 bits", d1("{'descr': '<f8', 'fortran_order': False, 'shape': (18446744073709551616,), }")},
		{"huge-claim-2d", "truncated", npyFile(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (1000000, 1000000), }", make([]byte, 24))},
		{"huge-claim-1d", "truncated", npyFile(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (1000000000000,), }", make([]byte, 24))},
		{"deep-nesting", "nested more than 32 deep", d1("{'descr': " + strings.Repeat("[", 100) + "}")},
		{"unterminated-dict", "not terminated", d1("{'descr': '<f8', 'fortran_order': False, 'shape': (1,), ")},
		{"garbage-after-dict", "want only padding", d1("{'descr': '<f8', 'fortran_order': False, 'shape': (1,), } x")},
		{"truncated-matrix", "the data stops in row 3 of 3", npyFile(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 2), }", make([]byte, 17))},
		{"truncated-fortran", "the data stops at element 3 of 6", npyFile(1, "{'descr': '<f4', 'fortran_order': True, 'shape': (3, 2), }", make([]byte, 8))},
		{"trailing-bytes", "bytes after the data", npyFile(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (1, 1), }", make([]byte, 13))},
		{"3d", "want a 1-D or 2-D array", npyF8([]int{1, 2, 1}, []float64{0.1, 0.2})},
		{"0d", "want a 1-D or 2-D array", npyFile(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (), }", make([]byte, 8))},
		{"zero-rows", "no data: the array has shape (0, 3)", npyF8([]int{0, 3}, nil)},
		{"nan", "NaN", npyF8([]int{1, 4}, []float64{0.1, math.NaN(), 0, 0})},
		{"inf", "Inf", npyF8([]int{1, 4}, []float64{0.1, 0, math.Inf(-1), 0})},
	}
	for _, n := range npys {
		add(cl("npy/"+n.name, "cli/npy", "encode", "--patterns", "x.npy", "--out", "o.drdam", "--y", "64").with(map[string][]byte{"x.npy": n.b}).writesNot("o.drdam").names("x.npy").doc(n.doc))
	}
	add(cl("npy/queries-huge-claim", "cli/npy", "energy", "--model", "m.drdam", "--queries", "x.npy").fix("m.drdam").with(map[string][]byte{
		"x.npy": npyFile(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (1000000, 1000000), }", make([]byte, 24)),
	}).names("x.npy"))
	add(cl("npy/queries-nan", "cli/npy", "energy", "--model", "m.drdam", "--queries", "x.npy").fix("m.drdam").with(map[string][]byte{
		"x.npy": npyF8([]int{2, 4}, []float64{0.1, 0, 0, 0, 0.1, 0, math.NaN(), 0}),
	}).names("row 2").doc("row 2, column 3: NaN"))

	// --- Text files: CSV, TSV, TXT.
	long := strings.Repeat("x", 100)
	texts := []struct{ name, file, content, anchor, doc string }{
		{"empty", "a.csv", "", "a.csv", "no data rows"},
		{"blank-lines", "a.csv", "\n\n  \n", "a.csv", "no data rows"},
		{"header-only", "a.csv", "x,y\n", "a.csv", "no data rows"},
		{"comments-only", "a.txt", "# nothing\n", "a.txt", "no data rows"},
		{"ragged", "a.csv", "1,2,3\n4,5,6\n\n7,8\n", "row 3", "line 4 (row 3): want 3 fields (as in row 1 on line 1), found 2"},
		{"long-row", "a.csv", "1,2\n3,4,5\n", "row 2", "want 2 fields"},
		{"row-unlike-header", "a.csv", "x,y,z\n1,2\n", "row 1", "(as in the header on line 1)"},
		{"ragged-tsv", "a.tsv", "1\t2\t3\n4\t\t6\n7\t8\n", "row 2", `not a number: ""`},
		{"ragged-txt", "a.txt", "1 2 3\n4 5\n", "row 2", "want 3 fields"},
		{"tsv-after-header", "a.tsv", "a\tb\n# c\n\n1\t2\t3\n", "row 1", "(as in the header on line 1)"},
		{"not-a-number", "a.csv", "1,2\n3,abc\n", "row 2", `not a number: "abc"`},
		{"empty-field", "a.csv", "1,2\n3,\n", "row 2", `not a number: ""`},
		{"long-text", "a.csv", "1,2\n3," + long + "\n", "row 2", `"...`},
		{"mixed-first-row", "a.csv", "1,x\n3,4\n", "row 1", "the first row is not a header"},
		{"out-of-range", "a.csv", "1,1e400\n", "row 1", "out of range for float64"},
		{"csv-bare-quote", "a.csv", "1,2\n3,4\"5\n", "row 2", "bare \""},
		{"csv-unterminated-quote", "a.csv", "1,2\n3,\"4\n5\n", "row 2", "extraneous or missing \" in quoted-field (the row starts on line 2)"},
		{"nan-text", "a.csv", "0.1,0.2\nnan,0.1\n", "row 2", "row 2, column 1: NaN"},
		{"inf-text", "a.csv", "0.1,inf\n", "row 1", "row 1, column 2: +Inf"},
		{"minus-inf-text", "a.csv", "0.1,0.2\n0.3,-Inf\n", "row 2", "row 2, column 2: -Inf"},
		{"unknown-extension", "a.dat", "1,2\n", "a.dat", "unsupported extension"},
		{"no-extension", "data", "1,2\n", "data", "no file extension"},
		{"binary-garbage", "a.csv", "\x00\x01\x02\xff\xfe,\x00\n", "a.csv", ""},
	}
	for _, t := range texts {
		add(cl("text/"+t.name, "cli/text", "encode", "--patterns", t.file, "--out", "o.drdam", "--y", "64").with(map[string][]byte{t.file: []byte(t.content)}).writesNot("o.drdam").names(t.anchor, t.file).doc(t.doc))
	}
	add(cl("text/missing-file", "cli/text", "encode", "--patterns", "nope.csv", "--out", "o.drdam", "--y", "64").writesNot("o.drdam").names("nope.csv"))
	add(cl("text/queries-ragged", "cli/text", "energy", "--model", "m.drdam", "--queries", "a.csv").fix("m.drdam").with(map[string][]byte{"a.csv": []byte("0.1,0.2,0.3,0.4\n0.1,0.2\n")}).names("row 2"))
	add(cl("text/queries-wrong-d", "cli/text", "energy", "--model", "m.drdam", "--queries", "a.csv").fix("m.drdam").with(map[string][]byte{"a.csv": []byte("0.1,0.2,0.3\n")}).names("a.csv", "D"))
	add(cl("text/4096-commas", "cli/text", "encode", "--patterns", "w.csv", "--out", "o.drdam", "--rep", "mrdam").with(map[string][]byte{"w.csv": []byte(strings.Repeat(",", 4096) + "\n")}).writesNot("o.drdam").names("w.csv"))
	add(cl("text/million-fields", "cli/text", "encode", "--patterns", "w.csv", "--out", "o.drdam").with(map[string][]byte{"w.csv": []byte(strings.Repeat("0,", 999999) + "0\n")}).writesNot("o.drdam").names("w.csv", "--y", "--max-memory"))

	// --- ARFF.
	const h = "@relation r\n@attribute x numeric\n@attribute 'the width' real\n@attribute y numeric\n@data\n"
	arffs := []struct{ name, content, anchor, doc string }{
		{"bad-value", h + "1,2,3\n3,x,4\n", "row 2", "row 2, field 2 ('the width'): want a number, found \"x\""},
		{"empty-value", h + "1,,3\n", "row 1", "found nothing"},
		{"too-few-fields", h + "1,2\n", "row 1", "want 3 comma-separated fields"},
		{"too-many-fields", h + "1,2,3,4\n", "row 1", "want 3 comma-separated fields"},
		{"nominal-undeclared", "@attribute x numeric\n@attribute c {A, B}\n@data\n1,C\n", "row 1", "want one of {A, B}, found \"C\""},
		{"missing-numeric", h + "1,?,3\n", "row 1", "found a missing value"},
		{"sparse-out-of-range", h + "{0 1, 3 2}\n", "row 1", "out of range"},
		{"sparse-negative", h + "{-1 1}\n", "row 1", "want an attribute index"},
		{"sparse-huge-index", h + "{99999999999999999999999 1}\n", "row 1", "out of range"},
		{"unterminated-quote", h + "1,2,'3\n", "row 1", "unterminated quote"},
		{"no-data-line", "@relation r\n@attribute x numeric\n\n", "a.arff", "no @data line"},
		{"no-attributes", "@relation r\n@data\n1\n", "a.arff", "no attributes declared"},
		{"unknown-type", "@attribute x float\n@data\n", "a.arff", "want a type"},
		{"not-arff", "a,b\n1,2\n", "a.arff", "want @relation, @attribute or @data"},
		{"empty", "", "a.arff", "empty file"},
	}
	{
		var sb strings.Builder
		sb.WriteString("@relation wide\n")
		for i := range 20000 {
			fmt.Fprintf(&sb, "@attribute a%d numeric\n", i)
		}
		sb.WriteString("@data\n")
		sb.WriteString(strings.Repeat("{}\n", 20000))
		arffs = append(arffs, struct{ name, content, anchor, doc string }{"sparse-expansion", sb.String(), "a.arff", "too much data"})
	}
	for _, a := range arffs {
		c := cl("arff/"+a.name, "cli/arff", "encode", "--patterns", "a.arff", "--out", "o.drdam", "--y", "64").with(map[string][]byte{"a.arff": []byte(a.content)}).writesNot("o.drdam").names(a.anchor, "a.arff").doc(a.doc)
		if a.name == "sparse-expansion" {
			// encode streams its rows a chunk at a time, and may take
			// the file (4·10⁸ zeros) if it costs little.
			c.absent = nil
			c.mayAccept = cheap
			sparse := map[string][]byte{"a.arff": []byte(a.content)}
			add(cl("arff/sparse-expansion-queries", "cli/arff", "energy", "--model", "m.drdam", "--queries", "a.arff").fix("m.drdam").with(sparse).names("a.arff").doc(a.doc))
			add(cl("arff/sparse-expansion-mask", "cli/arff", "recall", "--model", "m.drdam", "--queries", "q.csv", "--mask", "a.arff", "--out", "r.csv").fix("m.drdam", "q.csv").with(sparse).writesNot("r.csv").names("a.arff").doc(a.doc))
		}
		add(c)
	}

	// --- Masks (recall --mask).
	masks := []struct{ name, file, content, anchor, doc string }{
		{"wrong-length", "k.csv", "1,0,1\n", "k.csv", "want D=4, found 3 values (1×3)"},
		{"nan", "k.csv", "1,nan,0,0\n", "k.csv", "NaN is neither true nor false"},
		{"matrix", "k.csv", "1,0\n0,1\n", "k.csv", "want a vector (a single row or column), found 2 rows and 2 columns"},
		{"yes-word", "k.csv", "true,false,yes,true\n", "k.csv", `not a number: "yes"`},
		{"empty", "k.csv", "", "k.csv", "no data rows"},
	}
	for _, m := range masks {
		add(cl("mask/"+m.name, "cli/mask", "recall", "--model", "m.drdam", "--queries", "q.csv", "--mask", m.file, "--out", "r.csv").fix("m.drdam", "q.csv").with(map[string][]byte{m.file: []byte(m.content)}).writesNot("r.csv").names(m.anchor).doc(m.doc))
	}
	add(cl("mask/npy-nan", "cli/mask", "recall", "--model", "m.drdam", "--queries", "q.csv", "--mask", "k.npy", "--out", "r.csv").fix("m.drdam", "q.csv").with(map[string][]byte{"k.npy": npyF8([]int{4}, []float64{1, 0, math.NaN(), 1})}).writesNot("r.csv").names("k.npy").doc("NaN is neither true nor false"))

	// --- Images.
	sos := []byte{0xff, 0xda, 0x00, 0x08}
	good := pngBytes(rgbImage(16, 16))
	corrupt := append([]byte(nil), good...)
	for i := 40; i < len(corrupt)-20; i++ {
		corrupt[i] ^= 0x5a
	}
	gj := jpegBytes(rgbImage(32, 32))
	images := []struct {
		name, file, doc string
		b               []byte
	}{
		{"huge-png-header", "huge.png", "PNG header says 100000×100000", pngHeader(100000, 100000, 8, 6, nil)},
		{"huge-jpeg-header", "huge.jpg", "JPEG header says 65535×65535", jpegHeader(65535, 65535, 3, sos)},
		{"png-too-short", "short.png", "truncated PNG: its header says 5000×5000 pixels", pngHeader(5000, 5000, 16, 6, idat([]byte{0x78, 0x9c, 0x01}))},
		{"jpeg-too-short", "short.jpg", "truncated JPEG: its header says 8000×8000 pixels", jpegHeader(8000, 8000, 3, sos)},
		{"png-truncated", "trunc.png", "", good[:len(good)/2]},
		{"png-corrupt", "corrupt.png", "", corrupt},
		{"jpeg-truncated", "trunc.jpg", "", gj[:len(gj)/2]},
		{"not-an-image", "text.png", "not a PNG or JPEG image", []byte("hello, world")},
		{"gif", "anim.gif", "GIF image, want PNG or JPEG", gifBytes(rgbImage(4, 4))},
		{"empty-file", "empty.png", "", nil},
		{"png-huge-header-only-sig", "sig.png", "", []byte("\x89PNG\r\n\x1a\n")},
	}
	for _, im := range images {
		add(cl("image/"+im.name, "cli/image", "images", "--images", im.file, "--size", "8x8", "--out", "o.npy").with(map[string][]byte{im.file: im.b}).writesNot("o.npy").names(im.file).doc(im.doc))
	}
	add(cl("image/complete-huge-png", "cli/image", "complete", "--images", "huge.png", "--size", "8x8", "--out", "cout").with(map[string][]byte{"huge.png": pngHeader(100000, 100000, 8, 6, nil)}).names("huge.png"))
	fifo := cl("image/fifo", "cli/image", "images", "--images", "f.png", "--size", "8x8", "--out", "o.npy").prep(func(b *battery, dir string) error {
		return syscall.Mkfifo(filepath.Join(dir, "f.png"), 0o644)
	}).writesNot("o.npy").names("f.png").doc("not a regular file")
	fifo.timeout = 10 * time.Second // refused at once, or never
	add(fifo)
	add(cl("image/device", "cli/image", "images", "--images", "z.png", "--size", "8x8", "--out", "o.npy").prep(func(b *battery, dir string) error {
		return os.Symlink("/dev/zero", filepath.Join(dir, "z.png"))
	}).writesNot("o.npy").names("z.png").doc("not a regular file"))
	for _, o := range []struct{ name, spec string }{
		{"unknown-kind", "sideways:0.5"}, {"fraction-2", "bottom:2"}, {"fraction-nan", "bottom:NaN"}, {"fraction-negative", "random:-0.1"},
		{"box-outside", "box:100,100,4,4"}, {"box-huge", "box:0,0,99999999999999999999,4"}, {"box-short", "box:1,2"}, {"empty", ""},
	} {
		add(cl("image/occlude-"+o.name, "cli/image", "images", "--images", "good.png", "--size", "8x8", "--occlude", o.spec, "--request", "req.json").fix("good.png").writesNot("req.json").names("--occlude", o.spec))
	}

	out := make([]tcase, len(cs))
	for i, c := range cs {
		out[i] = c.tcase()
	}
	return out
}

// wreck is TestWreckProof's case: add a row with a hostile value to a
// model of a kind. It is refused naming row 1 and the model unchanged, or
// accepted (1e30 in a float64 l2 model) and the model still loads and
// evaluates to finite energies.
func wreck(kind, val, row string) *cliCase {
	model := "k-" + kind + ".drdam"
	c := cl("values/add-"+kind+"-"+val, "cli/values", "add", "--model", model, "--patterns", "bad.csv").fix(model, "q.csv").with(map[string][]byte{"bad.csv": []byte(row)}).keeps(model).names("row 1")
	c.mayAccept = func(b *battery, dir string, p *proc) (string, string) {
		q := b.run(runOpts{dir: dir, limitKB: defaultLimitKB}, "energy", "--model", model, "--queries", "q.csv")
		if cl, note := crashClass(q); cl != "" {
			return cl, "energy after the accepted addition: " + note
		}
		if q.exit != 0 {
			return silentWrong, "accepted, and then the model fails: " + errLine(q)
		}
		if strings.Contains(q.stdout, "NaN") || strings.Contains(q.stdout, "Inf") {
			return silentWrong, "accepted, and then energies " + firstLine(q.stdout)
		}
		return ok, ""
	}
	return c
}

// infoSays returns a post-check: drdam info on the model prints want.
func infoSays(model, want string) func(b *battery, dir string, p *proc) (string, string) {
	return func(b *battery, dir string, p *proc) (string, string) {
		q := b.run(runOpts{dir: dir}, "info", "--model", model)
		if !strings.Contains(q.stdout, want) {
			return silentWrong, fmt.Sprintf("info on %s does not say %q: %s", model, want, excerpt(q.stdout+q.stderr, 300))
		}
		return ok, ""
	}
}

// says returns a post-check: the output holds want.
func says(want string) func(b *battery, dir string, p *proc) (string, string) {
	return func(b *battery, dir string, p *proc) (string, string) {
		if !strings.Contains(p.stdout+p.stderr, want) {
			return unclear, fmt.Sprintf("does not say %q", want)
		}
		return ok, ""
	}
}

// cheap judges an accepted run: under 1 GB and 10 s.
func cheap(b *battery, dir string, p *proc) (string, string) {
	if p.rssKB > 1<<20 || p.wall > 10*time.Second {
		return unclear, fmt.Sprintf("accepted, but took %d MB and %v", p.rssKB/1024, p.wall.Round(time.Millisecond))
	}
	return ok, ""
}

// lowCost is a post-check: reading a header took less than 64 MB and 10 s.
func lowCost(b *battery, dir string, p *proc) (string, string) {
	if p.rssKB > 64<<10 || p.wall > 10*time.Second {
		return unclear, fmt.Sprintf("reading a header took %d MB and %v", p.rssKB/1024, p.wall.Round(time.Millisecond))
	}
	return ok, ""
}

// concurrentAdd: two drdam add on one model at once lose nothing (five
// pairs): the model counts every addition.
func concurrentAdd() *cliCase {
	c := cl("model/concurrent-add-5-pairs", "cli/model")
	c.fixtures = []string{"m.drdam"}
	c.custom = func(b *battery, dir string) result {
		for i := range 5 {
			var wg sync.WaitGroup
			ps := make([]*proc, 2)
			for j := range 2 {
				name := fmt.Sprintf("e%d_%d.csv", i, j)
				os.WriteFile(filepath.Join(dir, name), []byte(fmt.Sprintf("0,%d,0.5,0\n", i+j)), 0o644)
				wg.Go(func() {
					ps[j] = b.run(runOpts{dir: dir, limitKB: defaultLimitKB}, "add", "--model", "m.drdam", "--patterns", name)
				})
			}
			wg.Wait()
			for _, p := range ps {
				if cl, note := crashClass(p); cl != "" {
					return result{class: cl, msg: note}
				}
				if p.exit != 0 {
					return result{class: unclear, msg: errLine(p), note: "a concurrent add failed"}
				}
			}
		}
		q := b.run(runOpts{dir: dir}, "info", "--model", "m.drdam")
		if !strings.Contains(q.stdout, "patterns K      12\n") {
			return result{class: lost, msg: firstLineWith(q.stdout, "patterns K"), note: "want 12 patterns after 10 concurrent additions to 2"}
		}
		return result{class: ok, msg: "12 patterns after 5 pairs of concurrent add"}
	}
	return c
}

// killedWrite: drdam add on a 32 MB model, interrupted by sig as soon as
// its temporary file appears. SIGINT: exit 130 and the temporary file
// removed; SIGKILL: the next add removes it once it is a second old. The
// model is intact and counts the additions that finished.
func killedWrite(sig syscall.Signal) *cliCase {
	name := map[syscall.Signal]string{syscall.SIGINT: "sigint", syscall.SIGKILL: "sigkill"}[sig]
	c := cl("model/"+name+"-while-writing", "cli/model")
	c.custom = func(b *battery, dir string) result {
		os.WriteFile(filepath.Join(dir, "p.csv"), []byte("0.5,0.5,0,0\n"), 0o644)
		os.WriteFile(filepath.Join(dir, "e.csv"), []byte("0,0.5,0.5,0\n"), 0o644)
		if _, err := b.mustRun(dir, "encode", "--patterns", "p.csv", "--out", "m.drdam", "--y", "2000000", "--projection", "structured"); err != nil {
			return result{class: unclear, msg: err.Error(), note: "the battery's setup failed"}
		}
		temps := func() []string { m, _ := filepath.Glob(filepath.Join(dir, ".m.drdam.tmp-*")); return m }
		finished, hit := 0, 0
		var lastMsg string
		for range 3 {
			pid, done := b.start(dir, "add", "--model", "m.drdam", "--patterns", "e.csv")
			if pid == 0 {
				return result{class: unclear, msg: "could not start drdam"}
			}
			var p *proc
			deadline := time.Now().Add(30 * time.Second)
		wait:
			for {
				select {
				case p = <-done:
					break wait
				default:
				}
				if len(temps()) > 0 {
					syscall.Kill(pid, sig)
					p = <-done
					hit++
					break
				}
				if time.Now().After(deadline) {
					syscall.Kill(-pid, syscall.SIGKILL)
					<-done
					return result{class: hang, msg: "add did not finish in 30 s"}
				}
				time.Sleep(200 * time.Microsecond)
			}
			if p.exit == 0 {
				finished++
				continue
			}
			lastMsg = errLine(p)
			if sig == syscall.SIGINT {
				if cl, note := crashClass(p); cl != "" && cl != fatal {
					return result{class: cl, msg: note}
				}
				if p.exit != 130 {
					return result{class: unclear, msg: lastMsg, note: fmt.Sprintf("exit %d after SIGINT, want 130", p.exit)}
				}
				if t := temps(); len(t) > 0 {
					return result{class: silentWrong, msg: lastMsg, note: "SIGINT left its temporary file " + filepath.Base(t[0])}
				}
			}
		}
		if sig == syscall.SIGKILL {
			time.Sleep(1100 * time.Millisecond)
			if _, err := b.mustRun(dir, "add", "--model", "m.drdam", "--patterns", "e.csv"); err != nil {
				return result{class: unclear, msg: err.Error(), note: "the add after the kills failed"}
			}
			finished++
			if t := temps(); len(t) > 0 {
				return result{class: silentWrong, msg: lastMsg, note: fmt.Sprintf("%d temporary files left after the next add", len(t))}
			}
		}
		q := b.run(runOpts{dir: dir}, "info", "--model", "m.drdam")
		if q.exit != 0 {
			return result{class: lost, msg: errLine(q), note: "the model does not load after the interrupted writes"}
		}
		if want := fmt.Sprintf("patterns K      %d\n", 1+finished); !strings.Contains(q.stdout, want) {
			return result{class: lost, msg: firstLineWith(q.stdout, "patterns K"), note: fmt.Sprintf("want %d patterns (%d additions finished)", 1+finished, finished)}
		}
		if hit == 0 {
			return result{class: ok, msg: fmt.Sprintf("no run was caught while writing (%d finished); the model is intact", finished)}
		}
		msg := fmt.Sprintf("%d of 3 runs interrupted while writing (%s), the model intact with %d patterns", hit, name, 1+finished)
		if lastMsg != "" {
			msg += "; " + lastMsg
		}
		return result{class: ok, msg: msg}
	}
	return c
}
