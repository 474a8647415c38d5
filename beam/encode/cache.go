package encode

import (
	"sync"
	"sync/atomic"
	"weak"

	"github.com/drdam/drdam/dam"
)

// The projections of a worker process: each configuration's projection is
// built once per process (a dense Y×D one takes O(Y·D) time and memory),
// however many DoFn instances and bundles use it; every bundle stores its
// patterns in its own empty DrDAM that shares it (DrDAM.WithBeta).
//
// The cache holds its DrDAMs weakly: the DoFn instances that use one hold
// it, and once none does (the pipeline is over) the garbage collector
// frees its projection.
var protos = struct {
	sync.Mutex
	m map[dam.Config]*protoEntry
}{m: map[dam.Config]*protoEntry{}}

// protoEntry is one configuration's DrDAM; mu is held while it is built,
// so that concurrent bundles wait for one build.
type protoEntry struct {
	mu sync.Mutex
	wp weak.Pointer[dam.DrDAM]
}

// prototype returns the process's empty DrDAM of configuration c (with D
// set), building it if no one holds it.
func prototype(c dam.Config) (*dam.DrDAM, error) {
	protos.Lock()
	e := protos.m[c]
	if e == nil {
		e = &protoEntry{}
		protos.m[c] = e
	}
	protos.Unlock()
	e.mu.Lock()
	defer e.mu.Unlock()
	if m := e.wp.Value(); m != nil {
		return m, nil
	}
	m, err := dam.NewDrDAM(c)
	if err != nil {
		return nil, err
	}
	e.wp = weak.Make(m)
	builds.Add(1)
	return m, nil
}

// builds counts the DrDAMs that prototype built, for tests.
var builds atomic.Int64
