// Command genpatterns writes a large .npy file of random patterns, a
// chunk at a time, for the measurements of streaming encodes
// (BENCHMARKS.md, "Streaming encode"): K rows of D float32 values, each
// uniform in [0, 1/√D) as synth.Gray draws them (the same values, rounded
// to float32), so that a pattern's norm is at most 1.
//
//	go run ./scripts/genpatterns --k 1000000 --d 784 --out /tmp/patterns-1e6x784.npy
//
// The file (3.1 GB at these sizes) is written to a temporary file beside
// --out and renamed when complete.
package main

import (
	"bufio"
	"encoding/binary"
	"flag"
	"fmt"
	"io"
	"math"
	"os"

	"github.com/drdam/drdam/internal/atomicfile"
	"github.com/drdam/drdam/internal/rng"
	"github.com/drdam/drdam/npy"
)

func main() {
	k := flag.Int("k", 1_000_000, "number of patterns (rows)")
	d := flag.Int("d", 784, "dimension D (columns)")
	seed := flag.Uint64("seed", 1, "seed of the values")
	out := flag.String("out", "", "the .npy file to write")
	flag.Parse()
	if *out == "" || *k <= 0 || *d <= 0 {
		fmt.Fprintln(os.Stderr, "genpatterns: want --out FILE.npy, --k > 0 and --d > 0")
		os.Exit(2)
	}
	err := atomicfile.Write(*out, func(w io.Writer) error {
		bw := bufio.NewWriterSize(w, 1<<20)
		if _, err := bw.Write(npy.EncodeHeader("<f4", []int{*k, *d})); err != nil {
			return err
		}
		s, v := rng.New(*seed, rng.StreamGray), 1/math.Sqrt(float64(*d))
		var b [4]byte
		for range *k * *d {
			binary.LittleEndian.PutUint32(b[:], math.Float32bits(float32(s.Float64()*v)))
			if _, err := bw.Write(b[:]); err != nil {
				return err
			}
		}
		return bw.Flush()
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "genpatterns:", err)
		os.Exit(1)
	}
	fmt.Printf("wrote %d×%d float32 patterns to %s\n", *k, *d, *out)
}
