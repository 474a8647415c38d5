//go:build cloud

package main

// The cloud: Dataflow's runner and the gs:// and s3:// filesystems, linked
// in with -tags cloud (docs/beam.md).
import (
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/gcs" // gs:// shards and models
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/s3"  // s3:// shards and models
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/runners/dataflow"
)
