// Command battery reruns, against a built drdam binary, every bad-input and
// fault case that docs/reliability.md and docs/serve.md document (issue 27,
// "Reliability, round two"), and classifies what each did. It is a black
// box: it runs the binary as a user would and uses the Go standard library
// only, so that it also runs against a binary built from an older commit
// (a feature that binary lacks shows up as the failure it was, never as a
// crash of the battery).
//
//	go build -o /tmp/drdam-after ./cmd/drdam
//	go run ./scripts/battery --drdam /tmp/drdam-after [--out DIR] [--only cli|serve]
//
// The command-line cases (cli/...) run `drdam COMMAND ...` in a folder of
// their own: bad flags and numbers, outputs naming inputs, crafted model
// files, values a model cannot hold, memory budgets, and the readers'
// bad inputs (.npy, CSV/TSV/TXT, ARFF, masks, images, IDX headers
// declaring huge shapes). Each runs under `ulimit -v 4000000` (some under
// 2 GiB, as the documentation states them) and /usr/bin/time -v, for its
// peak resident set (without GNU time, /proc/PID/status's VmHWM polled
// every 5 ms) and its wall time, printed as {TIME RSS}. The service's cases
// (serve/...) start `drdam serve` on 127.0.0.1 and a port that was free:
// the bad requests of serve/bad_test.go and docs/serve.md against one
// server with a token (each write on a fresh memory, whose count and
// sequence number must not change), Idempotency-Key retries, a body
// trickled at 1 byte/s, then the faults, each on a folder of its own
// (tokens, a second server, a byte flipped in a log, --check and
// --salvage, a torn tail, temporary files, a garbled memory.json, 20 PUTs
// of 400 MB under ulimit -v, 20 SIGKILLs under a client with keys).
//
// It prints a header (the command, the date, go version, the machine, the
// commit of the tree and the binary), one line per case (its id, its
// category, the outcome and an excerpt of the message, with [why] when it
// is not ok) and a summary. The outcomes:
//
//	ok            refused with a clear error, or handled as documented
//	panic         standard error holds "panic:" or a goroutine dump
//	fatal         "fatal error:" (Go's out of memory), or killed by a signal
//	silent-wrong  exit 0 or 2xx where the case must be refused, a state
//	              changed that must not, or a value silently altered
//	lost          an acknowledged write missing afterwards
//	unclear       refused, but the message names neither the file nor the
//	              row, field or flag, or not with the documented status; or
//	              it took more than 1 GB or 10 s to refuse
//	hang          no answer within the case's time limit (30 s; 10 s for a
//	              fifo, 20 s for the trickled body)
//
// The exit status is 1 if any case is not ok. It takes about a minute on
// two cores and needs bash (for ulimit). --out keeps the scratch folder
// (the inputs and, under cases/, each case's full output: commands,
// requests, answers, standard error) instead of removing it.
package main

import (
	"bytes"
	"crypto/sha256"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"
)

// The outcome classes.
const (
	ok          = "ok"
	panicked    = "panic"
	fatal       = "fatal"
	silentWrong = "silent-wrong"
	lost        = "lost"
	unclear     = "unclear"
	hang        = "hang"
)

var classes = []string{ok, panicked, fatal, silentWrong, lost, unclear, hang}

// result is what a case found.
type result struct {
	class string
	msg   string // an excerpt of the message (or the answer)
	note  string // why the class, when not ok
	cost  string // of a command-line run: its wall time and peak resident set
}

// tcase is one case of the battery.
type tcase struct {
	id, cat string
	run     func(b *battery) result
}

// battery holds what the cases share.
type battery struct {
	drdam string // the binary, absolute
	work  string // scratch folder
	fix   string // fixtures (work/fix)
	logs  string // per-case raw output (work/cases)
	cur   string // id of the running case
	mu    sync.Mutex
	raw   bytes.Buffer // raw output of the running case
}

func main() {
	drdamFlag := flag.String("drdam", "", "the drdam binary to test (required)")
	out := flag.String("out", "", "keep the scratch folder here (inputs, and each case's full output under cases/); default: a temporary folder, removed at the end")
	only := flag.String("only", "", "run only the cli or the serve cases")
	flag.Parse()
	if *drdamFlag == "" || (*only != "" && *only != "cli" && *only != "serve") || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "battery: want --drdam PATH, and --only cli or serve if any")
		os.Exit(2)
	}
	bin, err := filepath.Abs(*drdamFlag)
	if err == nil {
		_, err = os.Stat(bin)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "battery: --drdam:", err)
		os.Exit(2)
	}
	b := &battery{drdam: bin}
	if *out != "" {
		b.work, err = filepath.Abs(*out)
		if err == nil {
			err = os.MkdirAll(b.work, 0o755)
		}
	} else {
		b.work, err = os.MkdirTemp("", "drdam-battery-")
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "battery:", err)
		os.Exit(2)
	}
	b.fix, b.logs = filepath.Join(b.work, "fix"), filepath.Join(b.work, "cases")
	for _, d := range []string{b.fix, b.logs} {
		os.RemoveAll(d)
		if err := os.MkdirAll(d, 0o755); err != nil {
			fmt.Fprintln(os.Stderr, "battery:", err)
			os.Exit(2)
		}
	}
	printHeader(b)
	var cases []tcase
	if *only != "serve" {
		if err := b.fixtures(); err != nil {
			fmt.Fprintln(os.Stderr, "battery: making the fixtures:", err)
			os.Exit(2)
		}
		cases = append(cases, cliCases()...)
	}
	if *only != "cli" {
		cases = append(cases, serveCases()...)
	}
	seen := map[string]bool{}
	for _, c := range cases {
		if seen[c.id] {
			fmt.Fprintln(os.Stderr, "battery: duplicate case id", c.id)
			os.Exit(2)
		}
		seen[c.id] = true
	}
	// Servers run in process groups of their own: end them if the
	// battery is interrupted, and when it ends.
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-sigs
		killServers()
		os.Exit(130)
	}()
	start := time.Now()
	count := map[string]int{}
	byCat := map[string]map[string]int{}
	var bad []string
	for _, c := range cases {
		r := b.runCase(c)
		count[r.class]++
		if byCat[c.cat] == nil {
			byCat[c.cat] = map[string]int{}
		}
		byCat[c.cat][r.class]++
		line := fmt.Sprintf("%-44s %-15s %-12s %s", c.id, c.cat, r.class, excerpt(r.msg, 150))
		if r.note != "" {
			line += "  [" + excerpt(r.note, 200) + "]"
		}
		if r.cost != "" {
			line += "  {" + r.cost + "}"
		}
		fmt.Println(line)
		if r.class != ok {
			bad = append(bad, c.id)
		}
	}
	fmt.Printf("\n== summary: %d cases in %v\n", len(cases), time.Since(start).Round(time.Second))
	var parts []string
	for _, cl := range classes {
		parts = append(parts, fmt.Sprintf("%s %d", cl, count[cl]))
	}
	fmt.Println(strings.Join(parts, ", "))
	var cats []string
	for k := range byCat {
		cats = append(cats, k)
	}
	sort.Strings(cats)
	for _, k := range cats {
		n, parts := 0, []string{}
		for _, cl := range classes {
			if v := byCat[k][cl]; v > 0 {
				n += v
				parts = append(parts, fmt.Sprintf("%s %d", cl, v))
			}
		}
		fmt.Printf("  %-15s %3d: %s\n", k, n, strings.Join(parts, ", "))
	}
	if len(bad) > 0 {
		fmt.Printf("not ok: %s\n", strings.Join(bad, " "))
	}
	killServers()
	if *out == "" {
		os.RemoveAll(b.work)
	}
	if len(bad) > 0 {
		os.Exit(1)
	}
}

// runCase runs one case, recovering from a fault of the battery itself
// (reported as a case that is not ok, never a crash of the run), and
// writes its raw output to cases/ID.txt.
func (b *battery) runCase(c tcase) (r result) {
	b.mu.Lock()
	b.cur = c.id
	b.raw.Reset()
	b.mu.Unlock()
	defer func() {
		if e := recover(); e != nil {
			r = result{class: unclear, msg: fmt.Sprint(e), note: "the battery's case failed"}
		}
		b.mu.Lock()
		fmt.Fprintf(&b.raw, "\n== %s: %s %s %s\n", c.id, r.class, r.msg, r.note)
		os.WriteFile(filepath.Join(b.logs, safeName(c.id)+".txt"), b.raw.Bytes(), 0o644)
		b.mu.Unlock()
	}()
	return c.run(b)
}

// logf adds a line to the running case's raw output.
func (b *battery) logf(format string, args ...any) {
	b.mu.Lock()
	defer b.mu.Unlock()
	fmt.Fprintf(&b.raw, format+"\n", args...)
}

func safeName(id string) string {
	return strings.Map(func(r rune) rune {
		if r == '/' || r == ' ' {
			return '_'
		}
		return r
	}, id)
}

// printHeader prints what the run was: the command, the date, go version,
// the machine, the commit of the tree it runs in, and the binary.
func printHeader(b *battery) {
	fmt.Printf("command: go run ./scripts/battery %s\n", strings.Join(os.Args[1:], " "))
	fmt.Printf("date: %s\n", time.Now().UTC().Format("2006-01-02 15:04:05 UTC"))
	gv := runtime.Version() + " (the battery's; no go in PATH)"
	if o, err := exec.Command("go", "version").Output(); err == nil {
		gv = strings.TrimSpace(string(o))
	}
	fmt.Printf("go version: %s\n", gv)
	model := "unknown"
	if cpu, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(cpu), "\n") {
			if strings.HasPrefix(l, "model name") {
				model = strings.TrimSpace(l)
				break
			}
		}
	}
	fmt.Printf("machine: %s; %d CPUs (runtime.NumCPU)\n", model, runtime.NumCPU())
	commit := "unknown (not in a git tree)"
	if o, err := exec.Command("git", "rev-parse", "--short", "HEAD").Output(); err == nil {
		commit = strings.TrimSpace(string(o))
		if st, err := exec.Command("git", "status", "--porcelain").Output(); err == nil {
			if t := strings.TrimSpace(string(st)); t == "" {
				commit += " (clean tree)"
			} else {
				lines := strings.Split(t, "\n")
				for i := range lines {
					lines[i] = strings.TrimSpace(lines[i])
				}
				if len(lines) > 8 {
					lines = append(lines[:8], "…")
				}
				commit += fmt.Sprintf(" (dirty tree: %s)", strings.Join(lines, "; "))
			}
		}
	}
	fmt.Printf("commit of the tree: %s\n", commit)
	ver := "?"
	if o, err := exec.Command(b.drdam, "version").CombinedOutput(); err == nil {
		ver = strings.TrimSpace(string(o))
	}
	stamp := "no VCS stamp in the binary"
	if o, err := exec.Command("go", "version", "-m", b.drdam).Output(); err == nil {
		var kv []string
		for _, l := range strings.Split(string(o), "\n") {
			f := strings.Fields(l)
			if len(f) >= 2 && f[0] == "build" && (strings.HasPrefix(f[1], "vcs.revision=") || strings.HasPrefix(f[1], "vcs.modified=") || strings.HasPrefix(f[1], "vcs.time=")) {
				kv = append(kv, f[1])
			}
		}
		if len(kv) > 0 {
			stamp = strings.Join(kv, " ")
		}
	}
	sum := "?"
	mt := ""
	if f, err := os.Open(b.drdam); err == nil {
		h := sha256.New()
		io.Copy(h, f)
		if fi, err := f.Stat(); err == nil {
			mt = ", modified " + fi.ModTime().UTC().Format("2006-01-02 15:04:05 UTC")
		}
		f.Close()
		sum = fmt.Sprintf("%x", h.Sum(nil))[:16]
	}
	fmt.Printf("binary: %s: %s; %s; sha256 %s…%s\n\n", b.drdam, ver, stamp, sum, mt)
}

// excerpt returns s on one line, cut to n runes.
func excerpt(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	r := []rune(s)
	if len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// proc is what a run of drdam did.
type proc struct {
	args     []string
	exit     int            // exit status; -1 if killed by a signal
	sig      syscall.Signal // the signal that killed it
	stdout   string
	stderr   string
	wall     time.Duration
	rssKB    int64 // peak resident set (wait4's ru_maxrss)
	timedOut bool
	err      error // could not start
}

// limitedBuffer keeps the first max bytes written to it.
type limitedBuffer struct {
	mu  sync.Mutex
	b   bytes.Buffer
	max int
}

func (l *limitedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if room := l.max - l.b.Len(); room > 0 {
		if len(p) > room {
			l.b.Write(p[:room])
		} else {
			l.b.Write(p)
		}
	}
	return len(p), nil
}

func (l *limitedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// runOpts are the options of a run of drdam.
type runOpts struct {
	dir     string        // working folder
	limitKB int           // ulimit -v; 0: none
	timeout time.Duration // 0: 30 s
	env     []string      // added to the environment
	stdin   io.Reader
	noTime  bool // run drdam itself, not under GNU time (to signal it)
}

// run runs drdam with args under the options, in a process group of its
// own (killed whole at the timeout).
func (b *battery) run(o runOpts, args ...string) *proc {
	return b.runWith(o, nil, args...)
}

// timeBin is GNU time, if present: it measures the peak resident set of
// its child alone. (wait4's own ru_maxrss would not do: after a vfork and
// exec, Linux starts a child's ru_maxrss at its parent's peak, here the
// battery's.)
var timeBin = func() string {
	if _, err := os.Stat("/usr/bin/time"); err == nil {
		return "/usr/bin/time"
	}
	return ""
}()

// runWith is run, calling started with the process id once it runs.
func (b *battery) runWith(o runOpts, started func(pid int), args ...string) *proc {
	if o.timeout == 0 {
		o.timeout = 30 * time.Second
	}
	argv := append([]string{b.drdam}, args...)
	var timeOut string
	if timeBin != "" && !o.noTime {
		f, err := os.CreateTemp(b.work, "time-*.txt")
		if err == nil {
			timeOut = f.Name()
			f.Close()
			defer os.Remove(timeOut)
			argv = append([]string{timeBin, "-v", "-o", timeOut}, argv...)
		}
	}
	if o.limitKB > 0 {
		argv = append([]string{"bash", "-c", fmt.Sprintf(`ulimit -v %d && exec "$@"`, o.limitKB), "bash"}, argv...)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = o.dir
	cmd.Env = append(os.Environ(), o.env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Stdin = o.stdin
	var so, se limitedBuffer
	so.max, se.max = 1<<20, 1<<20
	cmd.Stdout, cmd.Stderr = &so, &se
	p := &proc{args: args}
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		p.err = err
		p.exit = -1
		return p
	}
	if started != nil {
		started(cmd.Process.Pid)
	}
	done := make(chan struct{})
	var hwm int64 // VmHWM polled from /proc, without GNU time
	var hwmMu sync.Mutex
	go func() {
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		deadline := time.After(o.timeout)
		for {
			select {
			case <-done:
				return
			case <-deadline:
				p.timedOut = true
				syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
				return
			case <-tick.C:
				if timeOut == "" {
					if kb := vmHWM(cmd.Process.Pid); kb > 0 {
						hwmMu.Lock()
						hwm = max(hwm, kb)
						hwmMu.Unlock()
					}
				}
			}
		}
	}()
	cmd.Wait()
	close(done)
	p.wall = time.Since(t0)
	p.stdout, p.stderr = so.String(), se.String()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok {
		if ws.Signaled() {
			p.exit, p.sig = -1, ws.Signal()
		} else {
			p.exit = ws.ExitStatus()
		}
	}
	hwmMu.Lock()
	p.rssKB = hwm
	hwmMu.Unlock()
	if timeOut != "" {
		if tb, err := os.ReadFile(timeOut); err == nil {
			for _, l := range strings.Split(string(tb), "\n") {
				l = strings.TrimSpace(l)
				var n int64
				if _, err := fmt.Sscanf(l, "Maximum resident set size (kbytes): %d", &n); err == nil {
					p.rssKB = n
				}
				if _, err := fmt.Sscanf(l, "Command terminated by signal %d", &n); err == nil {
					p.exit, p.sig = -1, syscall.Signal(n)
				}
			}
		}
	}
	b.logf("$ drdam %s\n  (in %s, ulimit -v %d) exit %d sig %v, %v, peak RSS %d KB, timed out %v\n-- stdout:\n%s\n-- stderr:\n%s",
		quoteArgs(args), o.dir, o.limitKB, p.exit, p.sig, p.wall.Round(time.Millisecond), p.rssKB, p.timedOut, excerptBytes(p.stdout, 4000), excerptBytes(p.stderr, 8000))
	return p
}

// vmHWM returns the peak resident set of process pid, in KB, from
// /proc/PID/status (0 if unknown).
func vmHWM(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		var n int64
		if _, err := fmt.Sscanf(l, "VmHWM: %d kB", &n); err == nil {
			return n
		}
	}
	return 0
}

func excerptBytes(s string, n int) string {
	if len(s) > n {
		return s[:n] + fmt.Sprintf("… (%d bytes in all)", len(s))
	}
	return s
}

func quoteArgs(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		if a == "" || strings.ContainsAny(a, " \t'\"$") {
			q[i] = fmt.Sprintf("%q", a)
		} else {
			q[i] = a
		}
	}
	return strings.Join(q, " ")
}

// crashClass classifies what a process's end and its standard error say of
// a crash: fatal, panic or hang; "" if none.
func crashClass(p *proc) (string, string) {
	switch {
	case p.timedOut:
		return hang, fmt.Sprintf("no answer within %v: killed", p.wall.Round(time.Second))
	case strings.Contains(p.stderr, "fatal error:"):
		return fatal, firstLineWith(p.stderr, "fatal error:")
	case p.exit == -1 && p.sig != 0:
		return fatal, "killed by signal " + p.sig.String()
	case strings.Contains(p.stderr, "panic:") || strings.Contains(p.stderr, "goroutine "):
		return panicked, firstLineWith(p.stderr, "panic:")
	case p.err != nil:
		return unclear, "could not start: " + p.err.Error()
	}
	return "", ""
}

// firstLineWith returns the first line of s that holds sub, or s's first
// line.
func firstLineWith(s, sub string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			return strings.TrimSpace(l)
		}
	}
	return firstLine(s)
}

// firstLine returns the first non-empty line of s.
func firstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if t := strings.TrimSpace(l); t != "" {
			return t
		}
	}
	return ""
}
