package main

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// The command-line cases: every row of docs/reliability.md's tables that
// is an input or a flag. Each runs drdam in a folder of its own (files
// named relative to it), under ulimit -v 4000000 unless the case says
// otherwise.

// defaultLimitKB is the ulimit -v of the command-line cases (3.8 GiB).
const defaultLimitKB = 4000000

// cliCase is a run of drdam and what it must do.
type cliCase struct {
	id, cat   string
	args      []string
	files     map[string][]byte
	fixtures  []string // copied from the fixtures folder
	setup     func(b *battery, dir string) error
	accepted  bool     // documented as accepted: must exit 0
	anchors   []string // a refusal must name one of these (file, row, field, flag)
	docMsg    string   // the documented message: a note if it differs
	limitKB   int
	timeout   time.Duration
	unchanged []string // files that must be left byte for byte
	absent    []string // files that must not exist afterwards
	post      func(b *battery, dir string, p *proc) (class, note string)
	mayAccept func(b *battery, dir string, p *proc) (class, note string) // judges an exit 0 of a case that may be accepted
	custom    func(b *battery, dir string) result                        // the whole case, after the files are laid
}

func cl(id, cat string, args ...string) *cliCase {
	return &cliCase{id: id, cat: cat, args: args}
}

func (c *cliCase) with(files map[string][]byte) *cliCase { c.files = files; return c }
func (c *cliCase) fix(names ...string) *cliCase          { c.fixtures = append(c.fixtures, names...); return c }
func (c *cliCase) names(a ...string) *cliCase            { c.anchors = append(c.anchors, a...); return c }
func (c *cliCase) doc(s string) *cliCase                 { c.docMsg = s; return c }
func (c *cliCase) accept() *cliCase                      { c.accepted = true; return c }
func (c *cliCase) limit(kb int) *cliCase                 { c.limitKB = kb; return c }
func (c *cliCase) keeps(f ...string) *cliCase            { c.unchanged = append(c.unchanged, f...); return c }
func (c *cliCase) writesNot(f ...string) *cliCase        { c.absent = append(c.absent, f...); return c }
func (c *cliCase) then(f func(b *battery, dir string, p *proc) (string, string)) *cliCase {
	c.post = f
	return c
}
func (c *cliCase) prep(f func(b *battery, dir string) error) *cliCase { c.setup = f; return c }

func (c *cliCase) tcase() tcase {
	return tcase{id: c.id, cat: c.cat, run: c.run}
}

// caseDir makes an empty folder for the case id.
func (b *battery) caseDir(id string) string {
	dir := filepath.Join(b.work, "c", safeName(id))
	os.RemoveAll(dir)
	os.MkdirAll(dir, 0o755)
	return dir
}

func fileSum(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return "absent: " + err.Error()
	}
	return fmt.Sprintf("%x", sha256.Sum256(b))
}

func (c *cliCase) run(b *battery) result {
	dir := b.caseDir(c.id)
	for _, f := range c.fixtures {
		if err := copyFile(filepath.Join(b.fix, f), filepath.Join(dir, f)); err != nil {
			return result{class: unclear, msg: err.Error(), note: "the battery could not copy a fixture"}
		}
	}
	if err := writeFiles(dir, c.files); err != nil {
		return result{class: unclear, msg: err.Error(), note: "the battery could not write the inputs"}
	}
	if c.setup != nil {
		if err := c.setup(b, dir); err != nil {
			return result{class: unclear, msg: err.Error(), note: "the battery's setup failed"}
		}
	}
	if c.custom != nil {
		return c.custom(b, dir)
	}
	sums := map[string]string{}
	for _, f := range c.unchanged {
		sums[f] = fileSum(filepath.Join(dir, f))
	}
	lim := c.limitKB
	if lim == 0 {
		lim = defaultLimitKB
	}
	p := b.run(runOpts{dir: dir, limitKB: lim, timeout: c.timeout}, c.args...)
	r := c.classify(b, dir, p, sums)
	r.cost = fmt.Sprintf("%.2fs %dMB", p.wall.Seconds(), (p.rssKB+512)/1024)
	return r
}

// errLine is the line of drdam's standard error that says what went
// wrong: the last that starts with "drdam", else the first.
func errLine(p *proc) string {
	lines := strings.Split(strings.TrimSpace(p.stderr), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.HasPrefix(lines[i], "drdam") && !strings.HasPrefix(lines[i], "drdam: waiting") {
			return lines[i]
		}
	}
	return firstLine(p.stderr)
}

func (c *cliCase) classify(b *battery, dir string, p *proc, sums map[string]string) result {
	msg := errLine(p)
	if p.exit == 0 && msg == "" {
		msg = "exit 0: " + firstLine(p.stdout)
	}
	if cl, note := crashClass(p); cl != "" {
		if note != "" {
			msg = note
		}
		return result{class: cl, msg: msg}
	}
	if c.accepted && p.exit != 0 {
		return result{class: unclear, msg: msg, note: fmt.Sprintf("exit %d: documented as accepted", p.exit)}
	}
	if p.exit == 0 && c.mayAccept != nil {
		cl, note := c.mayAccept(b, dir, p)
		return result{class: cl, msg: msg, note: note}
	}
	if !c.accepted && p.exit == 0 {
		return result{class: silentWrong, msg: msg, note: "exit 0: must be refused"}
	}
	for _, f := range c.unchanged {
		if fileSum(filepath.Join(dir, f)) != sums[f] {
			return result{class: silentWrong, msg: msg, note: f + " was changed by a refused command"}
		}
	}
	for _, f := range c.absent {
		if _, err := os.Lstat(filepath.Join(dir, f)); err == nil {
			return result{class: silentWrong, msg: msg, note: f + " was written by a refused command"}
		}
	}
	if c.post != nil {
		if cl, note := c.post(b, dir, p); cl != ok {
			return result{class: cl, msg: msg, note: note}
		}
	}
	if !c.accepted && len(c.anchors) > 0 {
		named := false
		for _, a := range c.anchors {
			if strings.Contains(p.stderr, a) {
				named = true
			}
		}
		if !named {
			return result{class: unclear, msg: msg, note: "names none of " + strings.Join(quoteAll(c.anchors), ", ")}
		}
	}
	if !c.accepted && p.rssKB > 1<<20 {
		return result{class: unclear, msg: msg, note: fmt.Sprintf("took %d MB to refuse (more than 1 GB)", p.rssKB/1024)}
	}
	if !c.accepted && p.wall > 10*time.Second {
		return result{class: unclear, msg: msg, note: fmt.Sprintf("took %v to refuse (more than 10 s)", p.wall.Round(time.Millisecond))}
	}
	r := result{class: ok, msg: msg}
	if c.docMsg != "" && !strings.Contains(p.stderr+p.stdout, c.docMsg) {
		r.note = "differs from the documented " + fmt.Sprintf("%q", c.docMsg)
	}
	return r
}

func quoteAll(s []string) []string {
	q := make([]string, len(s))
	for i, x := range s {
		q[i] = fmt.Sprintf("%q", x)
	}
	return q
}

// mustRun runs drdam in dir and fails if it does not exit 0.
func (b *battery) mustRun(dir string, args ...string) (*proc, error) {
	p := b.run(runOpts{dir: dir}, args...)
	if p.exit != 0 {
		return p, fmt.Errorf("drdam %s: exit %d: %s", quoteArgs(args), p.exit, errLine(p))
	}
	return p, nil
}

// The data of the fixtures.
var (
	pCSV = []byte("0.5,0.5,0,0\n0,0,0.5,0.5\n")
	qCSV = []byte("0.4,0.5,0,0\n")
)

// modelKinds are the kinds of model of TestWreckProof: l2 and dot, DrDAM
// and MrDAM, a positive basis in float32.
var modelKinds = []struct {
	name string
	args []string
}{
	{"l2", []string{"--y", "64"}},
	{"dot", []string{"--y", "64", "--similarity", "dot"}},
	{"f32", []string{"--y", "64", "--basis", "expexp", "--precision", "float32"}},
	{"mr", []string{"--rep", "mrdam"}},
	{"mrdot", []string{"--rep", "mrdam", "--similarity", "dot"}},
}

// fixtures writes the files that the cases copy: pattern and query
// files, models of each kind, an empty model, crafted model files.
func (b *battery) fixtures() error {
	d := b.fix
	if err := writeFiles(d, map[string][]byte{
		"p.csv":        pCSV,
		"q.csv":        qCSV,
		"dense.drdam":  craftedModel(1, 21_000_000, 200, nil), // Y·D ≈ 2³²: 32 GB of projection
		"ortho.drdam":  craftedModel(2, 16133, 16, nil),       // one 16133² block: 1.94 GiB
		"sim0.drdam":   craftedModel(1, 4, 8, func(h []byte) { h[13] = 0 }),
		"basis0.drdam": craftedModel(1, 4, 8, func(h []byte) { h[14] = 0 }),
		"big.png":      bigGrayPNG(6000, 6000),
		"y1e7.drdam":   craftedModel(1, 4, 10_000_000, nil), // 160 MB: T of 2·10⁷ values
		"img/a.png":    pngBytes(rgbImage(16, 16)),
		"img/b.png":    pngBytes(rgbImage(20, 16)),
		"good.jpg":     jpegBytes(rgbImage(32, 32)),
		"good.png":     pngBytes(rgbImage(16, 16)),
		"mask4.csv":    []byte("1,1,0,0\n"),
		"wide-q.csv":   []byte(strings.Repeat("0.5,0.25,0,0\n", 20000)),
	}); err != nil {
		return err
	}
	if _, err := b.mustRun(d, "encode", "--patterns", "p.csv", "--out", "m.drdam", "--y", "64"); err != nil {
		return err
	}
	for _, k := range modelKinds {
		if _, err := b.mustRun(d, append([]string{"encode", "--patterns", "p.csv", "--out", "k-" + k.name + ".drdam"}, k.args...)...); err != nil {
			return err
		}
	}
	if _, err := b.mustRun(d, "encode", "--patterns", "p.csv", "--out", "empty.drdam", "--y", "64"); err != nil {
		return err
	}
	if _, err := b.mustRun(d, "remove", "--model", "empty.drdam", "--patterns", "p.csv"); err != nil {
		return err
	}
	if _, err := b.mustRun(d, "encode", "--patterns", "wide-q.csv", "--out", "wide.drdam", "--y", "64", "--max-memory", "64MiB"); err != nil {
		return err
	}
	m, err := os.ReadFile(filepath.Join(d, "m.drdam"))
	if err != nil {
		return err
	}
	bad := append([]byte(nil), m...)
	copy(bad, "DRDAMXXX")
	flipped := append([]byte(nil), m...)
	flipped[len(flipped)/2] ^= 0x40
	trailing := append(append([]byte(nil), m...), 1, 2, 3)
	return writeFiles(d, map[string][]byte{
		"badmagic.drdam":  bad,
		"trunc.drdam":     m[:len(m)/2],
		"header.drdam":    m[:60],
		"checksum.drdam":  flipped,
		"trailing.drdam":  trailing,
		"zero.drdam":      {},
		"notamodel.drdam": []byte("0.5,0.5,0,0\n"),
	})
}

// start starts drdam in dir in a process group of its own; the channel
// gets its proc when it ends. pid is 0 if it could not start.
func (b *battery) start(dir string, args ...string) (int, chan *proc) {
	done := make(chan *proc, 1)
	started := make(chan int, 1)
	go func() {
		p := b.runWith(runOpts{dir: dir, timeout: 60 * time.Second, noTime: true}, func(pid int) { started <- pid }, args...)
		if p.err != nil {
			started <- 0
		}
		done <- p
	}()
	return <-started, done
}
