package encode

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"

	"github.com/drdam/drdam/dataio"
)

// rowReader reads the rows of one shard, in the format its name gives
// (dataio's rules: .npy, .csv, .tsv, .txt, .arff, IDX files by name). It
// is dataio.Rows' interface, so that the shard reader is one function.
type rowReader interface {
	// Cols returns the number of values of a row.
	Cols() int
	// Read fills dst with up to len(dst)/Cols() rows and returns how many
	// it read; io.EOF when none are left. Errors name the file, the row
	// and the column.
	Read(dst []float64) (int, error)
	// Close releases the file.
	Close() error
}

// openShard opens the shard at name, a path of a Beam filesystem (a
// local path, or gs://, s3:// ... with the filesystem registered), for
// reading its rows.
//
// Until dataio streams rows, a shard is read whole with dataio.ReadMatrix:
// a local one from its path, another through a local copy that keeps its
// base name (which gives the format), with errors naming the shard.
func openShard(ctx context.Context, name string) (rowReader, error) {
	if !hasScheme(name) {
		return readWhole(name, name)
	}
	fs, err := filesystem.New(ctx, name)
	if err != nil {
		return nil, err
	}
	defer fs.Close()
	rc, err := fs.OpenRead(ctx, name)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	defer rc.Close()
	dir, err := os.MkdirTemp("", "drdam-shard-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	local := filepath.Join(dir, path.Base(name))
	f, err := os.Create(local)
	if err != nil {
		return nil, err
	}
	if _, err := io.Copy(f, rc); err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if err := f.Close(); err != nil {
		return nil, err
	}
	return readWhole(local, name)
}

// readWhole reads the matrix of the file at local, naming it name in
// errors.
func readWhole(local, name string) (rowReader, error) {
	m, err := dataio.ReadMatrix(local)
	if err != nil {
		if local != name {
			err = fmt.Errorf("%s", strings.ReplaceAll(err.Error(), local, name))
		}
		return nil, err
	}
	return &wholeRows{m: m}, nil
}

// wholeRows serves the rows of a matrix read whole.
type wholeRows struct {
	m    *dataio.Matrix
	next int // the next row
}

func (w *wholeRows) Cols() int { return w.m.Cols }

func (w *wholeRows) Read(dst []float64) (int, error) {
	c := w.m.Cols
	n := min(len(dst)/c, w.m.Rows-w.next)
	if n == 0 {
		if w.next == w.m.Rows {
			return 0, io.EOF
		}
		return 0, fmt.Errorf("a buffer of %d values holds no row of %d", len(dst), c)
	}
	copy(dst, w.m.Data[w.next*c:(w.next+n)*c])
	w.next += n
	return n, nil
}

func (w *wholeRows) Close() error { w.m = nil; return nil }

// hasScheme reports whether name is the path of a Beam filesystem other
// than the local one ("gs://bucket/x").
func hasScheme(name string) bool {
	i := strings.Index(name, "://")
	return i > 0
}

// checkFinite returns an error naming the shard, the row (counted from 1
// in the shard, first being the rows before this chunk) and the column of
// the first NaN or infinite value of the chunk x of rows of cols values,
// or nil: dataio.CheckFinite's message, for rows read in parts.
func checkFinite(shard string, x []float64, cols, first int) error {
	for i, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%s: row %d, column %d: %s", shard, first+i/cols+1, i%cols+1, strconv.FormatFloat(v, 'g', -1, 64))
		}
	}
	return nil
}
