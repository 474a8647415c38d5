// Package client is a typed Go client of drdam serve, drdam's memory
// service (package serve): named memories (DrDAM or MrDAM) under an
// HTTP/JSON API at /v1.
//
// A Client is made with New from the server's base URL
// (http://127.0.0.1:7077), with a bearer token if the server has one
// (WithToken). Every method takes a context first: cancelling it abandons
// the request, and the server stops a recall between two of its steps.
//
//	c := client.New("http://127.0.0.1:7077", client.WithToken(token))
//	info, created, err := c.Create(ctx, "digits", api.Config{D: 784, Beta: 30, Y: 20000})
//	w, err := c.AddFlat(ctx, "digits", x, 784) // a .npy body: no JSON of numbers
//	res, err := c.Recall(ctx, "digits", api.RecallRequest{Queries: q, Mask: mask})
//	done, err := c.Complete(ctx, "digits", api.CompleteRequest{Rows: api.MissingRows(api.RowsOf(x, 784))}) // NaN: missing
//
// The request and answer types are those of package serve/api, which this
// package imports alone of the server's packages (with npy, for .npy
// bodies).
//
// # Errors
//
// An answer with an error status is returned as a *Error, with the status,
// the field of the request it is about and the server's message (from its
// JSON error body), wrapped with the method and the memory's name:
//
//	var e *client.Error
//	if errors.As(err, &e) && e.Status == http.StatusNotFound { … }
//
// A failure to reach the server (or a cancelled context) is returned
// wrapped likewise, so that errors.Is(err, context.Canceled) holds.
//
// # Retries and idempotency keys
//
// A call is sent again after an answer of 408, 429, 500, 502, 503 (a
// memory being opened), 504 or 507 (a full disk or memory budget) and
// after a failure of the connection (refused, reset, closed before the
// answer's end, a timeout of the attempt): DefaultRetries (5) times at
// most, waiting DefaultBackoff (100 ms) before the first retry and twice
// as long before each next, up to MaxBackoff (5 s), each wait drawn in
// the upper half of its span (jitter), or what the answer's Retry-After
// header says (at most 5 s too). Other statuses are not retried. The
// call stops as soon as its context is done. After more than one attempt
// the error says how many and wraps the last one's ("Add \"m\": 6
// attempts, the last: drdam: 503 …"; errors.As finds its *Error).
// WithRetry(n, base) changes the policy, WithRetry(0, 0) disables it.
// Download is retried until the file begins, not while it is copied.
//
// A write (Add, Remove, AddFlat, RemoveFlat, Merge) sends an
// Idempotency-Key header, 128 random bits made once per call and the same
// on each of its retries: a server that has already applied the write
// answers a retry with the first answer and applies nothing (within its
// window of keys; a server older than idempotent writes ignores the
// header). Give a
// write a key of your own with WithIdempotencyKey(ctx, key) (say, to
// retry a batch after your own process restarted); WithoutIdempotencyKeys
// sends none. Without a key, a write whose answer was lost (the
// connection cut after the server applied it) is applied again by its
// retry: the patterns are stored twice (or removed twice). Disable
// retries with the keys unless that is acceptable. Create, Delete and
// Snapshot need no key: a lost answer's retry finds the memory created
// (created false), answers 404 (IsNotFound) having deleted it, or writes
// one more snapshot.
//
//	c := client.New(url, client.WithRetry(10, 50*time.Millisecond))
//	w, err := c.Add(client.WithIdempotencyKey(ctx, "batch-0042"), "digits", rows)
package client
