package client_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http/httptest"
	"os"

	"github.com/drdam/drdam/client"
	"github.com/drdam/drdam/serve"
	"github.com/drdam/drdam/serve/api"
)

// Example stores two patterns in a memory of a server started in the
// process (drdam serve, elsewhere), recalls one from its first half, and
// shows an error.
func Example() {
	dir, err := os.MkdirTemp("", "drdam-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	s, err := serve.New(serve.Options{Dir: dir, Token: "s3cret"})
	if err != nil {
		log.Fatal(err)
	}
	hs := httptest.NewServer(s.Handler())
	defer s.Close()
	defer hs.Close()

	ctx := context.Background()
	c := client.New(hs.URL, client.WithToken("s3cret"))
	_, created, err := c.Create(ctx, "digits", api.Config{D: 4, Beta: 30, Y: 20000, Projection: "structured"})
	if err != nil {
		log.Fatal(err)
	}
	w, err := c.Add(ctx, "digits", [][]float64{{0.5, 0, 0.5, 0}, {0, 0.5, 0, 0.5}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("created:", created, "count:", w.Count)

	res, err := c.Recall(ctx, "digits", api.RecallRequest{
		Queries: [][]float64{{0.5, 0, 0, 0}},
		Mask:    []bool{true, true, false, false}, // the first half is clamped
		Tol:     api.Float(1e-9),                  // nil: the server's 1e-6
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("recalled: %.2f (%s)\n", res.X[0], res.Outcome[0])

	_, err = c.Get(ctx, "letters")
	var e *client.Error
	if errors.As(err, &e) {
		fmt.Println("error:", e.Status, e.Field)
	}
	// Output:
	// created: true count: 2
	// recalled: [0.50 0.00 0.50 0.00] (converged)
	// error: 404 name
}
