package client_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/client"
)

type hostileOut struct {
	Count int `header:"X-Count"`
	Body  struct {
		N    int    `json:"n" minimum:"0"`
		Name string `json:"name"`
	}
}

// TestHostileServer: a server that answers what no waltz server would is
// an error of the call, never a panic or a hang.
func TestHostileServer(t *testing.T) {
	endless := func(code int, ctype string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", ctype)
			w.WriteHeader(code)
			line := []byte(strings.Repeat("x", 32<<10))
			for r.Context().Err() == nil {
				if _, err := w.Write(line); err != nil {
					return
				}
			}
		}
	}
	answer := func(code int, ctype, body string, hdr ...string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			for i := 0; i+1 < len(hdr); i += 2 {
				w.Header().Set(hdr[i], hdr[i+1])
			}
			if ctype != "" {
				w.Header().Set("Content-Type", ctype)
			}
			w.WriteHeader(code)
			w.Write([]byte(body))
		}
	}
	tests := []struct {
		name    string
		h       http.HandlerFunc
		code    int    // the HTTPError's, or 0 for another error
		message string // in the error
	}{
		{"problem that is no JSON", answer(500, "application/problem+json", "<html>oops</html>\nmore"), 500, "<html>oops</html>"},
		{"problem with a string status", answer(400, "application/problem+json", `{"status":"bad","detail":"d"}`), 400, ""},
		{"problem that is huge", answer(400, "application/problem+json", `{"detail":"`+strings.Repeat("d", 1<<20)+`"}`), 400, "ddd"},
		{"problem of another status", answer(404, "application/problem+json", `{"status":200,"detail":"fine"}`), 404, "fine"},
		{"error of binary", answer(503, "application/octet-stream", "\x00\x01\x02"), 503, ""},
		{"error text of invalid UTF-8", answer(502, "text/plain", "\xff\xfebad"), 502, "bad"},
		{"endless error", endless(500, "text/plain"), 500, "xxx"},
		{"endless problem", endless(500, "application/problem+json"), 500, ""},
		{"200 no JSON", answer(200, "application/json", "<html>"), 0, "answer 200"},
		{"200 wrong type", answer(200, "application/json", `{"n":"x"}`), 0, "body.n"},
		{"200 breaks a rule", answer(200, "application/json", `{"n":-1}`), 0, ""},
		{"200 bad header", answer(200, "application/json", `{"n":1}`, "X-Count", "many"), 0, "X-Count"},
		{"200 truncated", answer(200, "application/json", `{"n":1,"name":"`), 0, "answer 200"},
		{"200 html", answer(200, "text/html", `<p>hi</p>`), 0, "answer 200"},
		{"200 deep", answer(200, "application/json", strings.Repeat("[", 100000)), 0, "answer 200"},
		{"304", answer(304, "", ""), 0, ""},
		{"302 without Location", answer(302, "text/html", "moved"), 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(tt.h)
			defer srv.Close()
			c := &client.Client{URL: srv.URL, HTTP: srv.Client()}
			call := client.Op[struct{}, hostileOut](c, "GET /x")
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			done := make(chan error, 1)
			go func() {
				defer func() {
					if p := recover(); p != nil {
						done <- errors.New("panic")
					}
				}()
				_, err := call(ctx, struct{}{})
				done <- err
			}()
			var err error
			select {
			case err = <-done:
			case <-time.After(15 * time.Second):
				t.Fatal("no answer in 15s: a hang")
			}
			if ctx.Err() != nil {
				t.Fatalf("got %v: the call ran until its deadline", err)
			}
			var he *waltz.HTTPError
			switch {
			case err != nil && err.Error() == "panic":
				t.Fatal("the call panicked")
			case tt.code != 0 && (!errors.As(err, &he) || he.Code != tt.code):
				t.Errorf("got %v, want an HTTPError %d", err, tt.code)
			case tt.code != 0 && !strings.Contains(he.Message, tt.message):
				t.Errorf("got message %.100q, want one with %q", he.Message, tt.message)
			case tt.code != 0 && len(he.Message) > 2<<20:
				t.Errorf("got message of %d bytes", len(he.Message))
			case tt.code == 0 && tt.message != "" && (err == nil || !strings.Contains(err.Error(), tt.message)):
				t.Errorf("got %v, want an error with %q", err, tt.message)
			}
		})
	}
}

// TestHostileRedirect: a redirect is followed as the http.Client follows
// it, to the same operation elsewhere.
func TestHostileRedirect(t *testing.T) {
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"n":3,"name":"` + r.Method + " " + r.URL.Path + `"}`))
	}))
	defer target.Close()
	loop := httptest.NewServer(nil)
	loop.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/loop" {
			http.Redirect(w, r, loop.URL+"/loop", http.StatusFound)
			return
		}
		http.Redirect(w, r, target.URL+"/y", http.StatusPermanentRedirect)
	})
	defer loop.Close()
	c := &client.Client{URL: loop.URL, HTTP: loop.Client()}
	out, err := client.Op[struct{}, hostileOut](c, "GET /x")(context.Background(), struct{}{})
	if err != nil || out.Body.Name != "GET /y" {
		t.Errorf("got %+v, %v; want the body of the target", out, err)
	}
	_, err = client.Op[struct{}, hostileOut](c, "GET /loop")(context.Background(), struct{}{})
	if err == nil || !strings.Contains(err.Error(), "redirects") {
		t.Errorf("got %v, want the http.Client's error for too many redirects", err)
	}
}
