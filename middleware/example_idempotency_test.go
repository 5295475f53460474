package middleware_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/middleware"
)

// A create made safe to retry: the same key and body get the first answer
// again, marked as a replay, and the handler runs once; the same key with
// another body is refused.
func ExampleIdempotency() {
	orders := 0
	r := waltz.New()
	g := r.Group("/api",
		middleware.BearerAuth(middleware.BearerAuthOptions{Tokens: []string{"s3cret"}}),
		// Inside the authentication: keys are scoped by the caller.
		middleware.Idempotency(middleware.IdempotencyOptions{}),
	)
	g.Post("/orders", func(c *waltz.Context) error {
		orders++
		c.Writer.Header().Set("Location", fmt.Sprintf("/api/orders/%d", orders))
		return c.Text(http.StatusCreated, fmt.Sprintf("order %d created", orders))
	})

	send := func(body string) {
		req := httptest.NewRequest(http.MethodPost, "/api/orders", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer s3cret")
		req.Header.Set("Idempotency-Key", `"8e03978e-40d5-43e8-bc93-6894a57f9324"`)
		w := httptest.NewRecorder()
		r.ServeHTTP(w, req)
		fmt.Printf("%d %q %s: %s\n", w.Code, w.Header().Get("Idempotent-Replayed"), w.Header().Get("Location"), w.Body)
	}
	send(`{"sku":"A-1","qty":2}`)
	send(`{"sku":"A-1","qty":2}`) // a retry: the first answer again
	send(`{"sku":"A-1","qty":3}`) // the key reused for another request
	fmt.Println("orders created:", orders)
	// Output:
	// 201 "" /api/orders/1: order 1 created
	// 201 "true" /api/orders/1: order 1 created
	// 422 "" : this idempotency key was used for another request (method, path, query or body); use a new key for a new request
	// orders created: 1
}
