// Package serve is drdam's memory service: named memories (DrDAM or
// MrDAM) kept in a folder, served over HTTP/JSON, durable and concurrent.
// The command drdam serve starts it; this package holds all of it, so
// that a program can embed the service (New, Server.Handler).
//
// # API
//
// Under /v1 (GET /v1/openapi.json describes it all):
//
//	PUT    /v1/memories/{name}                  create from a configuration: the fields of dam.Config's codec (drdam encode's flags) (201; 200 if it exists alike; 409 if not)
//	GET    /v1/limits                           what one request may ask (rows, bytes, steps, budget)
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
//	POST   /v1/memories/{name}/recall:stream    one query's descent as server-sent events (below)
//	GET    /v1/memories/{name}/gallery          {"count", "max"}: the patterns kept for the page; ?i=K: {"i", "pattern"}
//	GET    /healthz, GET /metrics               health, and Prometheus metrics
//	GET    /                                    the web page (below)
//
// Errors are JSON, {"error": {"status": 400, "field": "queries", "message":
// "row 2, column 5: NaN"}}.
//
// # Streamed recall
//
// POST …/recall:stream takes the body of …/recall with one query, and
// "every" (1): it runs the same descent and answers text/event-stream,
// flushed event by event: "event: step" for each step t = 0, 1, … with
// {"step": t, "energy": E(xᵗ)} and "x": xᵗ every "every" steps and at the
// last, then "event: done" with {"x", "steps", "energy", "outcome"} as
// /recall answers them, or "event: error" with an error body if the
// descent fails once under way (before, errors are the usual JSON
// answers). A client that goes away stops the descent.
//
// # Gallery
//
// A DrDAM keeps no pattern, only T; so that the page can offer a stored
// image to complete, every memory keeps the first GalleryMax (64)
// patterns added through …/patterns in gallery.npy in its folder
// (rewritten atomically after an addition). It is a sample for the page,
// not the memory: removals and merges leave it as it is.
//
// # Web page
//
// GET / is a page (server-rendered HTML, a small script and a style sheet
// embedded in the binary and served under /web/: no build step, nothing
// from another site) that lists the memories — name, kind, D, image
// shape, patterns, bytes of state, configuration — and completes images:
// a memory of D = H·H (gray) or H·H·3 (RGB) holds H×H images, a value x
// being the level round(x·255·√D); pick a kept image or upload one
// (centre-cropped and scaled in the browser), occlude the bottom rows or a
// box dragged on it, and watch the descent of the memory (and of a second
// memory of the same D, an MrDAM say) streamed from …/recall:stream, its
// energy step by step and the RMSE of the occluded pixels against the
// original in levels 0–255. The page and its assets need no token; with a
// token they show no memory until it is pasted (kept in the tab's
// sessionStorage, sent as Authorization: Bearer).
//
// # Durability
//
// Each memory has a write-ahead log of its own (wal.go): an addition,
// removal or merge is appended and synced before it is acknowledged, so an
// acknowledged write survives kill -9. Every Options.SnapshotEvery writes,
// and at a graceful shutdown, the memory is saved as a model file
// (atomically) and its log replaced by one that starts with the memory's
// tables (state.go: the fingerprints of a DrDAM's patterns, the answers of
// recent keyed writes); at start the newest snapshot is loaded and the
// log's later records applied. A torn last record (a crash while
// appending) is cut and the cut logged: the memory is exactly its
// acknowledged history. A bad record followed by a valid one, a gap in
// the sequence or a snapshot that fails its checksum is corruption: the
// memory is not opened (503 naming the file and the byte), the others are
// served, and Check and Salvage (drdam serve --check, --salvage) report it
// and rebuild it from every intact record, moving the damaged files aside.
// One server owns a folder (New locks DIR/.lock). A log of our own rather
// than an embedded store (bbolt, Pebble): a DrDAM's state is one vector T,
// saved whole in a model file that drdam's other commands open, and the
// records are appended and replayed in order, never looked up.
//
// # Idempotent writes
//
// A write with an Idempotency-Key header is answered, when retried with
// the same key (24 h, the last MaxKeys of a memory), with its first answer
// (Idempotent-Replayed: true), and applied once, also across restarts:
// the key is in the write's log record. A removal of a row never added is
// refused (409) unless ?force=true.
//
// # Concurrency
//
// Writers are serialized per memory. A DrDAM is copied on write (T copied,
// the projection shared) and the copy published under a brief lock, so
// energies and descents compute on a published model without a lock and
// never see a half-applied batch; an MrDAM is changed in place under a
// read–write lock that its readers hold per evaluation (per step of a
// descent), so writers get in between. Heavy work (descent steps, writes,
// large energy batches) passes a compute gate of half the cores, so that a
// small energy query is not queued behind many descents. Writes are
// applied in waves of Options.Wave (4 ms), between which the requests that
// arrived are read, and give up their processors every 0.5 ms, so that a
// request read waits little for one. Additions that arrive while a write is under way are
// written together, as one record of the log and one Add (a group
// commit), each answered once that record is durable.
//
// # Limits and security
//
// Limits bound bodies (size, and a rate of 64 KiB/s after 5 s: 408),
// rows per request, D, Y and descent steps (413 and 422 errors naming the
// field) and the time of a request (408). One memory budget
// (Options.MaxMemory) covers every open memory and every request's body,
// evaluation and descent, reserved before it is allocated (507 past it);
// Options.MaxOpen bounds the memories open at once, the others opened when
// named. With a token every request but GET /healthz and the page (GET /,
// GET /web/…) needs "Authorization: Bearer TOKEN", compared in constant
// time (401). Names are 1–64 letters, digits, '_', '.' and '-' that do not
// start with a dot, so no name leaves the folder.
package serve
