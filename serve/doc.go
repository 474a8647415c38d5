// Package serve is drdam's memory service: named memories (DrDAM or
// MrDAM) kept in a folder, served over HTTP/JSON, durable and concurrent.
// The command drdam serve starts it; this package holds all of it, so
// that a program can embed the service (New, Server.Handler).
//
// # API
//
// Under /v1 (GET /v1/openapi.json describes it all):
//
//	PUT    /v1/memories/{name}                  create from a configuration: drdam encode's flags as JSON fields, and d (201; 200 if it exists alike; 409 if not)
//	GET    /v1/memories                         list, with counts
//	GET    /v1/memories/{name}                  configuration and count
//	DELETE /v1/memories/{name}                  delete, files and all
//	POST   /v1/memories/{name}/patterns         add {"patterns": [[…]]} or a .npy body: {"added": n, "count": k}, once durable
//	POST   /v1/memories/{name}/patterns:remove  remove, likewise
//	POST   /v1/memories/{name}/energy           {"queries": [[…]], "grad": true}: energies (and gradients)
//	POST   /v1/memories/{name}/recall           {"queries", "mask", "step", "max_steps", "tol", "box"}: descent
//	POST   /v1/memories/{name}/snapshot         write a snapshot model file now (its path)
//	GET    /v1/memories/{name}/snapshot         the model file, as of now
//	PUT    /v1/memories/{name}/merge            add a model file of the same configuration (the body)
//	GET    /healthz, GET /metrics               health, and Prometheus metrics
//
// Errors are JSON, {"error": {"status": 400, "field": "queries", "message":
// "row 2, column 5: NaN"}}.
//
// # Durability
//
// Each memory has a write-ahead log of its own (wal.go): an addition,
// removal or merge is appended and synced before it is applied and
// acknowledged, so an acknowledged write survives kill -9. Every
// Options.SnapshotEvery writes, and at a graceful shutdown, the memory is
// saved as a model file (atomically) and its log emptied; at start the
// newest snapshot is loaded and the log's later records applied. A torn
// last record (a crash while appending) fails its length or checksum and
// is cut off: the memory is exactly its acknowledged history. A log of
// our own rather than an embedded store (bbolt, Pebble): a DrDAM's state is
// one vector T, saved whole in a model file that drdam's other commands
// open, and the records are appended and replayed in order, never looked
// up; what a store would add (pages, compaction, a B-tree) has nothing to
// do here, and twenty lines of framing with a CRC do what is needed.
//
// # Concurrency
//
// A memory has a read–write lock. A write holds it for its append and its
// application; an energy evaluation, and each step of a descent, hold it
// for reading: queries never see a half-applied batch, and a long
// descent lets writers in between its steps.
//
// # Limits and security
//
// Limits bound bodies, rows per request, D, Y and descent steps (413 and
// 422 errors naming the field) and the time of a request (408). With a
// token every request but GET /healthz needs "Authorization: Bearer
// TOKEN", compared in constant time (401). Names are 1–64 letters,
// digits, '_', '.' and '-' that do not start with a dot, so no name
// leaves the folder.
package serve
