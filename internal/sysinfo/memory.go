package sysinfo

import (
	"bufio"
	"os"
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
// quarters of MemoryLimit; under ulimit -v at most what the address space
// has left after what the process has mapped so far (VmSize, at least
// 1.25 GiB) and 256 MiB for what a run maps beside its heap later, over
// 1.15 for the heap's fragmentation; never less than 64 MiB; 16 GiB where
// no limit is known. Package dam's DefaultBudget, the service and the
// image decoder use it.
//
// Under ulimit -v the address space runs out, not the memory: before it
// allocates anything a Go program has reserved about 1.1 GiB for its
// heap's bookkeeping, and one linked with the C library (cgo, the default
// where a C compiler is found) 64 MiB of address space for each thread's
// malloc arena; drdam had mapped 1.55–1.65 GiB when it asked. Measured on
// 2 cores (AMD EPYC, Go 1.26): drdam encode of a structured projection
// under ulimit -v 4000000 worked up to an estimated 1.88 GiB and died of
// Go's fatal out-of-memory at 2.09; under 2 GiB, up to 0.32 GiB, dying at
// 0.43; drdam serve, its memories holding 1.83 GB under 12 concurrent
// requests, mapped 3.70 GB (0.22 GB beyond its start and its heap). The
// former rule, the limit less 1 GiB (2.81 and 1 GiB), let all of these
// die; this one gives about 1.65 GiB and 0.17 GiB.
func Budget() int64 {
	lim := MemoryLimit()
	if lim <= 0 {
		return 16 << 30
	}
	b := lim / 4 * 3
	if as := AddressSpaceLimit(); as > 0 {
		used := float64(1.25 * (1 << 30))
		if vm := StatusMiB("VmSize"); vm != nil {
			used = max(used, *vm*(1<<20))
		}
		b = min(b, int64((float64(as)-used-256<<20)/1.15))
	}
	return max(b, 64<<20)
}
