// Package cpuid chooses which kernels drdam runs: AVX-512, AVX2+FMA or the
// portable Go code, from the CPU's features (golang.org/x/sys/cpu).
//
// The choice can be lowered, never raised, with the environment variable
// DRDAM_SIMD=portable|avx2|avx512 (read once, at the first call), or forced
// to portable at build time with the tag purego. Tests use Set to run every
// level the machine supports.
package cpuid

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"

	"golang.org/x/sys/cpu"
)

// Level is a class of kernels.
type Level int

// Kernel levels, from the most portable.
const (
	Portable Level = iota // pure Go
	AVX2                  // AVX2 and FMA, 256-bit registers
	AVX512                // AVX-512 F, 512-bit registers
)

// String returns "portable", "avx2" or "avx512".
func (l Level) String() string {
	switch l {
	case AVX2:
		return "avx2"
	case AVX512:
		return "avx512"
	}
	return "portable"
}

var (
	once    sync.Once
	best    Level // what the machine supports
	current Level
	mu      sync.Mutex
)

func detect() {
	best = Portable
	if runtime.GOARCH == "amd64" && !purego {
		switch {
		case cpu.X86.HasAVX512F && cpu.X86.HasAVX512DQ && cpu.X86.HasAVX512VL && cpu.X86.HasAVX512BW:
			best = AVX512
		case cpu.X86.HasAVX2 && cpu.X86.HasFMA:
			best = AVX2
		}
	}
	current = best
	if v := os.Getenv("DRDAM_SIMD"); v != "" {
		switch strings.ToLower(v) {
		case "portable", "off", "purego":
			current = Portable
		case "avx2":
			current = min(best, AVX2)
		case "avx512":
			current = min(best, AVX512)
		default:
			fmt.Fprintf(os.Stderr, "drdam: ignoring DRDAM_SIMD=%q (want portable, avx2 or avx512)\n", v)
		}
	}
}

// Best returns the highest level this machine supports.
func Best() Level { once.Do(detect); return best }

// Current returns the level in use.
func Current() Level {
	once.Do(detect)
	mu.Lock()
	defer mu.Unlock()
	return current
}

// Set selects level l (at most Best) and returns the previous level. It is
// meant for tests and benchmarks that compare levels; it must not be called
// while kernels run.
func Set(l Level) (prev Level) {
	once.Do(detect)
	mu.Lock()
	defer mu.Unlock()
	prev = current
	current = min(l, best)
	return prev
}

// Supported returns the levels this machine can run, from Portable to Best.
func Supported() []Level {
	var ls []Level
	for l := Portable; l <= Best(); l++ {
		ls = append(ls, l)
	}
	return ls
}
