// Package encode stores patterns in a DrDAM with an Apache Beam pipeline:
// what drdam encode does on one machine, spread over the workers of a
// Beam runner (Prism on this machine, or Flink, Spark, Dataflow).
//
// A DrDAM keeps one vector T = Σ_μ φ(ξ^μ) of F values, whatever the
// number of patterns, so encoding is embarrassingly parallel: the sums of
// any shares of the patterns add up to T (dam.Sum). The pipeline is
//
//	MatchFiles(glob) → ReadMatches → Reshuffle      one element per shard file
//	→ ParDo(encodeFn)    each bundle stores its shards' rows in its own DrDAM
//	                     and emits its dam.Sum when it finishes
//	→ Combine(sumFn)     adds the Sums (one Sum is the accumulator)
//	→ ParDo(writeFn)     writes the model file, atomically
//
// Each worker process builds a configuration's projection once (a dense
// Y×D one is O(Y·D) time and memory; a structured one O(Y)); its bundles
// store their patterns in empty DrDAMs that share it. A bundle reads each
// shard in chunks of Options.Chunk rows, a multiple of the 256 patterns a
// DrDAM encodes at a time, so a shard's T is bit for bit what one Add of
// the shard gives; the Sums of the bundles are then added in the order
// the runner combines them, so the model's T equals that of drdam encode
// on the concatenated shards up to the order of floating-point additions
// (relative 1e-12 on T in float64). For the dot-product energy, whose
// trigonometric T is kept scaled by the largest weight seen, the scale
// is also raised at different moments: equal to rounding again.
//
// Shards are files of any format of package dataio (.npy of any dtype,
// .csv, .tsv, .txt, .arff, MNIST IDX files *ubyte[.gz]), on any Beam
// filesystem: local paths here, gs:// and s3:// on a cluster with those
// filesystems registered (the command drdam-beam imports them when built
// with the tag cloud).
package encode

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/fileio"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/local" // local paths
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/drdam/drdam/dam"
	"github.com/drdam/drdam/dataio"
	"github.com/drdam/drdam/internal/cli"
)

// DefaultChunk is the number of rows a bundle reads and stores at a time
// when Options.Chunk is 0: 8192, a multiple of the 256 patterns a DrDAM
// encodes at a time (6.3 MB of float64 at D = 784).
const DefaultChunk = 8192

// Options describe an encoding.
type Options struct {
	// Patterns names the shards: a file, a glob ("data/part-*.npy",
	// "gs://bucket/mnist/*.npy"), or a folder, which stands for every
	// file in it. Files whose names start with '.' are left out, and in a
	// folder those that start with '_' too (Hadoop's and Spark's _SUCCESS
	// markers), as dataio.OpenRows leaves them out.
	Patterns string
	// Out is the model file to write: a local path (written atomically:
	// a temporary file in its folder, synced, renamed) or a path of a
	// Beam filesystem (gs://…, written by one upload that the filesystem
	// commits when it is complete). On a cluster, a local path is on the
	// worker that writes it.
	Out string
	// Config is the model: a DrDAM (Rep RepDrDAM or 0). Its D is ignored:
	// the shards give it.
	Config dam.Config
	// Chunk is the number of rows stored at a time, a positive multiple
	// of 256 (0: DefaultChunk). A bundle holds Chunk·D float64 values of
	// patterns.
	Chunk int
}

func init() {
	register.DoFn3x1[context.Context, fileio.ReadableFile, func(partial), error](&encodeFn{})
	register.Combiner1[partial](&sumFn{})
	register.DoFn3x1[context.Context, []byte, func(*partial) bool, error](&writeFn{})
	register.Emitter1[partial]()
	register.Iter1[partial]()
}

// Glob returns the glob of the shards that o.Patterns names: a local
// folder "d" becomes "d/*"; a name ending in '/' (a folder of any
// filesystem) is followed by '*'; anything else is a file or a glob.
func (o Options) Glob() string {
	p := o.Patterns
	if strings.HasSuffix(p, "/") {
		return p + "*"
	}
	if !hasScheme(p) {
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			return filepath.Join(p, "*")
		}
	}
	return p
}

// folder reports whether o.Patterns names a folder, whose hidden files
// and markers are skipped.
func (o Options) folder() bool { return o.Glob() != o.Patterns }

// Shards lists the shards that o.Patterns names, in the order of the
// filesystem's listing. It is an error, naming the glob, if there are
// none.
func Shards(ctx context.Context, o Options) ([]string, error) {
	glob := o.Glob()
	if strings.TrimSpace(glob) == "" {
		return nil, errors.New("no patterns: the glob is empty")
	}
	fs, err := filesystem.New(ctx, glob)
	if err != nil {
		return nil, err
	}
	defer fs.Close()
	names, err := fs.List(ctx, glob)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", glob, err)
	}
	var out []string
	for _, n := range names {
		if keep(n, o.folder()) {
			out = append(out, n)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no shard of patterns matches", glob)
	}
	return out, nil
}

// keep reports whether the file name, listed from the glob of
// Options.Patterns, is a shard: every file but those whose base name
// starts with '.' (as dataio.OpenRows has it) and, in a folder, '_'
// (Hadoop's and Spark's _SUCCESS markers).
func keep(name string, folder bool) bool {
	if strings.HasSuffix(name, "/") {
		return false
	}
	if !hasScheme(name) {
		if st, err := os.Stat(name); err == nil && st.IsDir() {
			return false
		}
	}
	return dataio.IsShard(name[strings.LastIndex(name, "/")+1:], folder)
}

// Check validates o before a pipeline is built and returns the model's
// configuration, validated, with D the number of columns of the first
// shard: the shards must exist, the output's folder (or its filesystem)
// too, the configuration must be a DrDAM's, and Chunk a multiple of 256.
// Build expects options that Check accepted. Errors about a configuration field are
// *dam.ConfigError (cli.FlagError names their flag). Check does not
// check the memory budget, which is a worker's: a worker that cannot
// build the model fails the pipeline.
func Check(ctx context.Context, o Options) (dam.Config, error) {
	c := o.Config
	if c.Rep == dam.RepMrDAM {
		return c, &dam.ConfigError{Field: "rep", Msg: "a Beam pipeline encodes a drdam only: an mrdam keeps the patterns themselves, which is no sum of parts (use drdam encode --rep mrdam)"}
	}
	if o.Chunk < 0 || o.Chunk%256 != 0 {
		return c, fmt.Errorf("chunk of %d rows: want a positive multiple of 256 (a DrDAM encodes 256 patterns at a time)", o.Chunk)
	}
	if o.Out == "" {
		return c, errors.New("no model file to write")
	}
	if !hasScheme(o.Out) {
		if st, err := os.Stat(filepath.Dir(o.Out)); err != nil || !st.IsDir() {
			return c, fmt.Errorf("output %s: %s is not a folder", o.Out, filepath.Dir(o.Out))
		}
	} else if fs, err := filesystem.New(ctx, o.Out); err != nil {
		return c, fmt.Errorf("output %s: %w", o.Out, err)
	} else {
		fs.Close()
	}
	shards, err := Shards(ctx, o)
	if err != nil {
		return c, err
	}
	for _, s := range shards {
		if !hasScheme(s) && !hasScheme(o.Out) && sameFile(s, o.Out) {
			return c, fmt.Errorf("output %s is one of the shards: writing it would destroy an input", o.Out)
		}
	}
	r, err := openShard(ctx, shards[0])
	if err != nil {
		return c, err
	}
	c.D = r.Cols()
	r.Close()
	c.Rep = dam.RepDrDAM
	return c.Validate()
}

// sameFile reports whether the local paths a and b name one existing file.
func sameFile(a, b string) bool {
	fa, err1 := os.Stat(a)
	fb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(fa, fb)
}

// Build adds the encoding of o to the pipeline of s: the model of
// configuration c (from Check) is written to o.Out when the pipeline runs.
// The pipeline fails, with an error naming the shard, the row and the
// column, on a value that is not finite, a row of the wrong length or a
// shard of another dimension; and with an error naming the glob if no
// shard holds a pattern.
func Build(s beam.Scope, o Options, c dam.Config) {
	s = s.Scope("drdam.Encode")
	chunk := o.Chunk
	if chunk == 0 {
		chunk = DefaultChunk
	}
	c.D = 0 // each shard gives its own, and they must agree
	files := fileio.MatchFiles(s, o.Glob(), fileio.MatchEmptyAllow())
	// IDX files are decompressed by dataio, by their name.
	shards := fileio.ReadMatches(s, files, fileio.ReadUncompressed(), fileio.ReadDirectorySkip())
	// One listing is one element: reshuffle its files over the workers.
	shards = beam.Reshuffle(s, shards)
	parts := beam.ParDo(s, &encodeFn{Config: c, Chunk: chunk, Folder: o.folder()}, shards)
	total := beam.Combine(s, &sumFn{Config: c}, parts)
	// The write runs once, with the total as a side input, so that no
	// shard at all is an error rather than a pipeline that writes nothing.
	beam.ParDo0(s, &writeFn{Config: c, Out: o.Out, Glob: o.Glob()}, beam.Impulse(s), beam.SideInput{Input: total})
}

// Run checks o, runs its pipeline on the named runner ("prism" runs on
// this machine; see beam.Run) and returns the header of the model file it
// wrote.
func Run(ctx context.Context, runner string, o Options) (dam.Header, error) {
	c, err := Check(ctx, o)
	if err != nil {
		return dam.Header{}, err
	}
	p, s := beam.NewPipelineWithRoot()
	Build(s, o, c)
	if _, err := beam.Run(ctx, runner, p); err != nil {
		return dam.Header{}, err
	}
	return ReadHeader(ctx, o.Out)
}

// ReadHeader reads the header of the model file at name, a local path or
// a path of a Beam filesystem, and checks the file against its checksum.
func ReadHeader(ctx context.Context, name string) (dam.Header, error) {
	if !hasScheme(name) {
		return dam.StatModel(name)
	}
	fs, err := filesystem.New(ctx, name)
	if err != nil {
		return dam.Header{}, err
	}
	defer fs.Close()
	b, err := filesystem.Read(ctx, fs, name)
	if err != nil {
		return dam.Header{}, fmt.Errorf("read %s: %w", name, err)
	}
	h, err := dam.ReadHeader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		return dam.Header{}, fmt.Errorf("read %s: %w", name, err)
	}
	return h, nil
}

// encodeFn stores the rows of the shards of a bundle in one DrDAM and
// emits its Sum when the bundle finishes.
type encodeFn struct {
	Config dam.Config // D = 0: each shard gives it
	Chunk  int        // rows per Add, a multiple of 256
	Folder bool       // the shards were listed from a folder: skip hidden files

	protos map[int]*dam.DrDAM // the process's DrDAM of each D, held while the DoFn lives
	m      *dam.DrDAM         // the bundle's memory; nil until it reads a shard
	shard  string             // the bundle's first shard
	buf    []float64
}

// ProcessElement stores the rows of one shard.
func (f *encodeFn) ProcessElement(ctx context.Context, file fileio.ReadableFile, _ func(partial)) error {
	name := file.Metadata.Path
	if !keep(name, f.Folder) {
		return nil
	}
	rc, err := file.Open(ctx) // as stored: ReadMatches reads uncompressed
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	r, err := newShard(rc, name)
	if err != nil {
		return err
	}
	defer r.Close()
	d := r.Cols()
	// A header may declare rows of any width: a chunk takes at most a
	// quarter of the worker's memory budget (checked before the model,
	// whose projection grows with D, is built).
	if need, b := 8*float64(f.Chunk)*float64(d), dam.DefaultBudget(); need > float64(b)/4 {
		return fmt.Errorf("%s: rows of %d values: a chunk of %d rows takes %s, more than a quarter of the memory budget of %s; lower the chunk", name, d, f.Chunk, dam.Bytes(need), dam.Bytes(float64(b)))
	}
	if f.m == nil {
		m, err := f.memory(d)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		f.m, f.shard = m, name
	} else if f.m.Dim() != d {
		return fmt.Errorf("%s has %d columns but %s has %d: every shard must hold patterns of one dimension D", name, d, f.shard, f.m.Dim())
	}
	if cap(f.buf) < f.Chunk*d {
		f.buf = make([]float64, f.Chunk*d)
	}
	buf := f.buf[:f.Chunk*d]
	c := f.m.Config()
	for {
		n, err := cli.Fill(r.Rows, buf, c)
		if n > 0 {
			if err := f.m.Add(buf[:n*d]); err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
		}
		if err == io.EOF {
			if afterShard != nil {
				afterShard()
			}
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// afterShard, if set, is called after each shard is stored: tests slow
// shards down with it so that Prism splits bundles.
var afterShard func()

// emitted counts the Sums that bundles emitted, for tests.
var emitted atomic.Int64

// memory returns an empty DrDAM of dimension d for a bundle, sharing the
// projection that the process built for it.
func (f *encodeFn) memory(d int) (*dam.DrDAM, error) {
	p := f.protos[d]
	if p == nil {
		c := f.Config
		c.D = d
		var err error
		if p, err = prototype(c); err != nil {
			return nil, err
		}
		if f.protos == nil {
			f.protos = map[int]*dam.DrDAM{}
		}
		f.protos[d] = p
	}
	return p.WithBeta(f.Config.Beta)
}

// FinishBundle emits the Sum of the bundle's patterns.
func (f *encodeFn) FinishBundle(emit func(partial)) {
	if f.m != nil && f.m.Len() > 0 {
		emit(partial{D: f.m.Dim(), Shard: f.shard, Sum: f.m.Sum()})
		emitted.Add(1)
	}
	f.m, f.shard = nil, ""
}

// sumFn adds partial sums: its accumulator is one partial.
type sumFn struct {
	Config dam.Config // D = 0: the partials give it
}

// CreateAccumulator returns the empty partial.
func (f *sumFn) CreateAccumulator() partial { return partial{} }

// AddInput adds a bundle's partial to the accumulator.
func (f *sumFn) AddInput(a, p partial) (partial, error) { return f.MergeAccumulators(a, p) }

// MergeAccumulators adds two accumulators.
func (f *sumFn) MergeAccumulators(a, b partial) (partial, error) {
	if err := a.merge(f.Config, b); err != nil {
		return partial{}, err
	}
	return a, nil
}

// ExtractOutput returns the total.
func (f *sumFn) ExtractOutput(a partial) partial { return a }

// writeFn writes the model file of the total.
type writeFn struct {
	Config dam.Config // D = 0: the total gives it
	Out    string
	Glob   string // for the error when nothing was stored
}

// ProcessElement writes the model of the total (a singleton side input,
// empty if no shard held a row).
func (f *writeFn) ProcessElement(ctx context.Context, _ []byte, total func(*partial) bool) error {
	var sum, p partial
	for total(&p) {
		if err := sum.merge(f.Config, p); err != nil {
			return err
		}
		p = partial{}
	}
	if sum.Sum.Count == 0 {
		return fmt.Errorf("%s: no patterns: no shard matches", f.Glob)
	}
	c := f.Config
	c.D = sum.D
	return writeModel(ctx, f.Out, c, sum.Sum)
}

// writeModel writes the model file of configuration c holding s to out:
// atomically on the local filesystem (dam.SaveSum); on another, encoded
// whole first and then written by one upload, which the filesystem
// commits on Close.
func writeModel(ctx context.Context, out string, c dam.Config, s dam.Sum) error {
	if !hasScheme(out) {
		return dam.SaveSum(out, c, s)
	}
	var b bytes.Buffer
	if err := dam.WriteSum(&b, c, s); err != nil {
		return fmt.Errorf("%s: %w", out, err)
	}
	fs, err := filesystem.New(ctx, out)
	if err != nil {
		return err
	}
	defer fs.Close()
	w, err := fs.OpenWrite(ctx, out)
	if err != nil {
		return fmt.Errorf("%s: %w", out, err)
	}
	if _, err := w.Write(b.Bytes()); err != nil {
		w.Close()
		return fmt.Errorf("%s: %w", out, err)
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("%s: %w", out, err)
	}
	return nil
}
