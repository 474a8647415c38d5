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
package client
