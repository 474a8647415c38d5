package encode

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"

	"github.com/drdam/drdam/dataio"
)

// shard reads the rows of one shard a chunk at a time (dataio.Rows), in
// the format its name gives: .npy, .csv, .tsv, .txt, .arff, or an IDX
// file by name (gzip-compressed if it ends in .gz, which dataio
// decompresses: the pipeline reads shards as they are stored).
type shard struct {
	*dataio.Rows
	rc io.Closer
}

// Close closes the shard's file.
func (s *shard) Close() error {
	err := s.Rows.Close()
	if cerr := s.rc.Close(); err == nil {
		err = cerr
	}
	return err
}

// newShard starts reading the shard called name from rc, which it
// closes on an error and on Close.
func newShard(rc io.ReadCloser, name string) (*shard, error) {
	rows, err := dataio.NewRows(rc, name)
	if err != nil {
		rc.Close()
		return nil, err
	}
	return &shard{Rows: rows, rc: rc}, nil
}

// openShard opens the shard at name, a path of a Beam filesystem (a
// local path, or gs://, s3:// ... with the filesystem registered), as
// fileio.ReadableFile.Open does with fileio.ReadUncompressed.
func openShard(ctx context.Context, name string) (*shard, error) {
	fs, err := filesystem.New(ctx, name)
	if err != nil {
		return nil, err
	}
	defer fs.Close()
	rc, err := fs.OpenRead(ctx, name)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return newShard(rc, name)
}

// hasScheme reports whether name is the path of a Beam filesystem other
// than the local one ("gs://bucket/x").
func hasScheme(name string) bool {
	i := strings.Index(name, "://")
	return i > 0
}
