package sysinfo

import (
	"bufio"
	"os"
	"runtime"
	"strconv"
	"strings"
)

// MemTotal returns the machine's physical memory in bytes (MemTotal of
// /proc/meminfo), or 0 if it cannot be read.
func MemTotal() int64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), "MemTotal:")
		if !ok {
			continue
		}
		fields := strings.Fields(rest)
		if len(fields) == 0 {
			return 0
		}
		kb, err := strconv.ParseInt(fields[0], 10, 64)
		if err != nil || kb <= 0 {
			return 0
		}
		return kb << 10
	}
	return 0
}

// CgroupLimit returns the memory limit of the process's cgroup (v2
// memory.max, or v1 memory.limit_in_bytes) in bytes, or 0 if there is none
// or it cannot be read.
func CgroupLimit() int64 {
	for _, p := range []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"} {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		v, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
		if err == nil && v > 0 && v < 1<<62 {
			return v
		}
	}
	return 0
}

// MemoryLimit returns the memory this process may use, in bytes: the least
// of the physical memory, the cgroup's limit and the address-space limit
// (ulimit -v), each where known; 0 if none is.
func MemoryLimit() int64 {
	var lim int64
	for _, v := range []int64{MemTotal(), CgroupLimit(), AddressSpaceLimit()} {
		if v > 0 && (lim == 0 || v < lim) {
			lim = v
		}
	}
	return lim
}

// Budget returns the default memory budget of a run, in bytes: three
// quarters of MemoryLimit, and under ulimit -v at most the limit less
// 1 GiB (a Go program reserves about 0.7 GiB of address space before it
// allocates anything; the rest is for buffers beside what is budgeted);
// never less than 64 MiB; 16 GiB where no limit is known. Package dam's
// DefaultBudget and the image decoder use it.
func Budget() int64 {
	lim := MemoryLimit()
	if lim <= 0 {
		return 16 << 30
	}
	b := lim / 4 * 3
	if as := AddressSpaceLimit(); as > 0 {
		b = min(b, as-1<<30)
	}
	return max(b, 64<<20)
}

// ServerBudget returns the default memory budget of a long-running
// server: Budget, and under ulimit -v at most what the address space has
// left once the process's own reservations are counted, over 1.15 for the
// heap's fragmentation (address space a Go heap has used stays mapped).
// Those reservations are what the process has mapped so far (VmSize), or
// 1.25 GiB if more (Go reserves about 1.1 GiB for its heap's bookkeeping
// as the heap grows), and 64 MiB for each malloc arena that the C library
// gives a thread, up to its default of 8 per core, in a program linked
// with it (cgo, the default where a C compiler is found): measured here,
// drdam serve had mapped 1.6 GiB once listening, 5 arenas among it. Under
// ulimit -v 4000000 on 2 cores: 1.36 GiB, where Budget says 2.81 GiB and
// the server died of Go's fatal out-of-memory past about 2 GiB of memories.
func ServerBudget() int64 {
	b := Budget()
	as := AddressSpaceLimit()
	if as <= 0 {
		return b
	}
	used := float64(1.25 * (1 << 30))
	if vm := StatusMiB("VmSize"); vm != nil {
		used = max(used, *vm*(1<<20))
	}
	arenas := float64(8*runtime.NumCPU()) * (64 << 20)
	left := float64(as) - used - arenas
	return max(min(b, int64(left/1.15)), 64<<20)
}
