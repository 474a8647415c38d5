// Command genshards writes shards of random patterns for the benchmark of
// drdam-beam (scripts/bench-beam.sh): --shards files part-NNNNN.npy of
// --rows × --d float32 values uniform in [0, 1/√D] (the paper's scaling of
// gray images), and all.npy, the same rows concatenated, for drdam
// encode. The values depend only on --seed, the shard and the row.
package main

import (
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"

	"github.com/drdam/drdam/npy"
)

func main() {
	out := flag.String("out", "", "folder to write the shards into (created)")
	shards := flag.Int("shards", 8, "number of shards")
	rows := flag.Int("rows", 20000, "patterns per shard")
	d := flag.Int("d", 784, "dimension D of the patterns")
	seed := flag.Uint64("seed", 1, "seed of the values")
	all := flag.Bool("all", true, "also write all.npy, the shards concatenated")
	flag.Parse()
	if *out == "" || *shards < 1 || *rows < 1 || *d < 1 {
		fmt.Fprintln(os.Stderr, "genshards: want --out, and --shards, --rows, --d ≥ 1")
		os.Exit(2)
	}
	if err := run(*out, *shards, *rows, *d, *seed, *all); err != nil {
		fmt.Fprintln(os.Stderr, "genshards:", err)
		os.Exit(1)
	}
}

func run(out string, shards, rows, d int, seed uint64, all bool) error {
	if err := os.MkdirAll(filepath.Join(out, "shards"), 0o755); err != nil {
		return err
	}
	scale := 1 / math.Sqrt(float64(d))
	var every []float64
	for i := range shards {
		x := make([]float64, rows*d)
		s := (seed+uint64(i)+1)*0x9e3779b97f4a7c15 | 1
		for j := range x {
			// xorshift64*: reproducible, and far faster than the data it feeds.
			s ^= s >> 12
			s ^= s << 25
			s ^= s >> 27
			x[j] = float64(float32(float64((s*0x2545f4914f6cdd1d)>>11) / (1 << 53) * scale))
		}
		p := filepath.Join(out, "shards", fmt.Sprintf("part-%05d.npy", i))
		if err := npy.WriteFileFloat32(p, []int{rows, d}, x); err != nil {
			return err
		}
		if all {
			every = append(every, x...)
		}
	}
	if all {
		return npy.WriteFileFloat32(filepath.Join(out, "all.npy"), []int{shards * rows, d}, every)
	}
	return nil
}
