// Package sysinfo reads what the machine says of itself: the CPU model and
// the process's resident memory (from /proc on Linux, getrusage on Unix),
// for benchmark lines and reports. Every reading degrades to "unknown" (an
// empty string or a nil pointer) where the system does not provide it.
package sysinfo

import (
	"bufio"
	"os"
	"strconv"
	"strings"
)

// CPUModel returns the first "model name" of /proc/cpuinfo, or "".
func CPUModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return ""
	}
	for line := range strings.Lines(string(b)) {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// StatusMiB returns the field key of /proc/self/status (in kB), such as
// VmRSS or VmHWM, in MiB, or nil if it cannot be read.
func StatusMiB(key string) *float64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return nil
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), key+":")
		if !ok {
			continue
		}
		fields := strings.Fields(rest)
		if len(fields) == 0 {
			return nil
		}
		kb, err := strconv.ParseFloat(fields[0], 64)
		if err != nil {
			return nil
		}
		v := kb / 1024
		return &v
	}
	return nil
}

// ResetHWM resets the peak resident set size VmHWM to the current one
// (writing 5 to /proc/self/clear_refs, as bench.py's reset_hwm does) and
// reports whether it could.
func ResetHWM() bool {
	f, err := os.OpenFile("/proc/self/clear_refs", os.O_WRONLY, 0)
	if err != nil {
		return false
	}
	_, err = f.WriteString("5")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err == nil
}
