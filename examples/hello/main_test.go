package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestHello drives the app over real HTTP with the requests the README
// promises.
func TestHello(t *testing.T) {
	srv := httptest.NewServer(newRouter())
	defer srv.Close()
	for _, tc := range []struct {
		method, path string
		code         int
		body, allow  string
	}{
		{"GET", "/", 200, "Hello", ""},
		{"GET", "/user/123", 200, "Hello user 123", ""},
		{"HEAD", "/user/1", 200, "", ""},
		{"POST", "/", 405, "Method Not Allowed", "GET, HEAD, OPTIONS"},
		{"OPTIONS", "/", 204, "", "GET, HEAD, OPTIONS"},
		{"GET", "/nope", 404, "Not Found", ""},
	} {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) {
			req, err := http.NewRequest(tc.method, srv.URL+tc.path, nil)
			if err != nil {
				t.Fatal(err)
			}
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res.StatusCode != tc.code || string(body) != tc.body {
				t.Errorf("got %d %q, want %d %q", res.StatusCode, body, tc.code, tc.body)
			}
			if got := res.Header.Get("Allow"); got != tc.allow {
				t.Errorf("Allow: got %q, want %q", got, tc.allow)
			}
			if tc.code == 200 && tc.method == "GET" {
				if got, want := res.Header.Get("Content-Type"), "text/plain; charset=utf-8"; got != want {
					t.Errorf("Content-Type: got %q, want %q", got, want)
				}
			}
		})
	}
}
