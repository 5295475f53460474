package client_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/waltz-go/waltz/client"
)

// TestCallAllocs holds the allocation goal: a typed call allocates at
// most 1.5 times what a hand-written net/http client doing the same
// encoding and decoding allocates, server included (BenchmarkCall's
// operations, in memory).
func TestCallAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's sync.Pool drops items at random")
	}
	hc := &http.Client{Transport: memoryTransport{benchRouter()}}
	const base = "http://in.memory"
	c := &client.Client{URL: base, HTTP: hc}
	get := client.Op[benchGetIn, benchGetOut](c, "GET /items/:id")
	create := client.Op[benchPostIn, benchPostOut](c, "POST /items")
	ctx := context.Background()
	post := benchItem{Title: "a title", Tags: []string{"x", "y"}, Created: benchCreated}
	for _, tc := range []struct {
		name        string
		typed, hand func()
	}{
		{"get", func() {
			if _, err := get(ctx, benchGetIn{ID: 42, Fields: "short", Limit: 5}); err != nil {
				t.Fatal(err)
			}
		}, func() {
			if _, err := handGet(ctx, hc, base, 42, "short", 5); err != nil {
				t.Fatal(err)
			}
		}},
		{"post", func() {
			if _, err := create(ctx, benchPostIn{post}); err != nil {
				t.Fatal(err)
			}
		}, func() {
			if _, _, err := handPost(ctx, hc, base, &post); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			typed, hand := testing.AllocsPerRun(100, tc.typed), testing.AllocsPerRun(100, tc.hand)
			if typed > 1.5*hand {
				t.Errorf("got %.0f allocations a typed call, want at most 1.5 times the hand-written %.0f", typed, hand)
			}
			t.Logf("typed %.0f, hand-written %.0f", typed, hand)
		})
	}
}
