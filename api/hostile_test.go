package api

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/internal/typed"
)

// TestTypedFailuresBounded sends small requests that break a rule many
// times over: the answer lists at most typed.MaxFailures of them, each location
// bounded, so it stays within a small multiple of what was sent.
func TestTypedFailuresBounded(t *testing.T) {
	r := waltz.New()
	type in struct{ Body deepNode }
	Op(r, http.MethodPost, "/tree", opFn[in, noOut], Operation{})
	type strict struct {
		_ struct{} `strict:"query"`
		Q string   `query:"q"`
	}
	Op(r, http.MethodGet, "/strict", opFn[strict, noOut], Operation{})
	type form struct {
		Body struct {
			A int `json:"a"`
		} `consumes:"form"`
	}
	r.DisallowUnknownFields = true
	Op(r, http.MethodPost, "/form", opFn[form, noOut], Operation{})
	tests := []struct {
		name, method, target, ctype, body string
	}{
		{"deep missing", http.MethodPost, "/tree", "application/json",
			`{"name":"ok","child":` + strings.Repeat(`{"child":`, 3000) + "null" + strings.Repeat("}", 3001)},
		{"deep short", http.MethodPost, "/tree", "application/json",
			`{"name":"ok","child":` + strings.Repeat(`{"name":"","child":`, 2000) + "null" + strings.Repeat("}", 2001)},
		{"wide", http.MethodPost, "/tree", "application/json",
			`{"name":"ok","kids":[` + strings.Repeat(`{"name":""},`, 5000) + `{"name":""}]}`},
		{"unknown params", http.MethodGet, "/strict?" + strings.Repeat("x=1&", 5000), "", ""},
		{"bad escapes", http.MethodGet, "/strict?" + strings.Repeat("%zz&", 5000), "", ""},
		{"form", http.MethodPost, "/form", "application/x-www-form-urlencoded", strings.Repeat("b=1&", 5000)},
	}
	for _, tt := range tests {
		w, p := serveTyped(t, r, tt.method, tt.target, tt.ctype, tt.body)
		if p == nil || w.Code/100 != 4 {
			t.Errorf("%s: got %d %.200s, want a problem", tt.name, w.Code, w.Body)
			continue
		}
		if n := len(p.Errors); n == 0 || n > typed.MaxFailures {
			t.Errorf("%s: got %d failures, want 1 to %d", tt.name, n, typed.MaxFailures)
		}
		for _, e := range p.Errors {
			if len(e.Location) > typed.MaxLocation+len("…") {
				t.Errorf("%s: got a location of %d bytes, want at most %d", tt.name, len(e.Location), typed.MaxLocation)
				break
			}
		}
		if n := w.Body.Len(); n > 64<<10 {
			t.Errorf("%s: got an answer of %d bytes to a request of %d, want at most 64 KiB", tt.name, n, len(tt.target)+len(tt.body))
		}
	}
}

// TestTypedFormLocations checks that the failures of a form body that
// belong to no field are located in the body, not the query.
func TestTypedFormLocations(t *testing.T) {
	r := waltz.New()
	r.DisallowUnknownFields = true
	type form struct {
		Body struct {
			A int `json:"a"`
		} `consumes:"form"`
	}
	Op(r, http.MethodPost, "/form", opFn[form, noOut], Operation{})
	tests := []struct{ body, want string }{
		{"a=1&b=2", "body.b unknown"},
		{"a=1&%zz=2", "body escape"},
		{"a=%zz", "body.a escape"},
	}
	for _, tt := range tests {
		w, p := serveTyped(t, r, http.MethodPost, "/form", "application/x-www-form-urlencoded", tt.body)
		if got := failures(p); len(got) != 1 || got[0] != tt.want {
			t.Errorf("%q: got %d %q, want [%q]", tt.body, w.Code, got, tt.want)
		}
	}
}

// TestTypedBodyAbsentAndNull checks members left out or sent as null as
// the schema sees them: an optional member may be absent and a pointer,
// or a slice or map without omitempty, null, with its rules unasked; null
// for a member whose schema has no null (an omitempty slice's included)
// is a wrong type.
func TestTypedBodyAbsentAndNull(t *testing.T) {
	type inner struct {
		X int `json:"x" minimum:"1"`
	}
	type in struct {
		Body struct {
			N     int      `json:"n" minimum:"1"`
			Name  string   `json:"name,omitempty" minLength:"2"`
			L     []int    `json:"l,omitempty" minItems:"1"`
			Inner inner    `json:"inner,omitzero"`
			Ptr   *inner   `json:"ptr,omitempty"`
			Opt   *string  `json:"opt,omitempty" minLength:"2"`
			S     []string `json:"s"`
		}
	}
	r := waltz.New()
	Op(r, http.MethodPost, "/b", opFn[in, noOut], Operation{})
	tests := []struct {
		body string
		want []string
	}{
		{`{"n":1,"s":[]}`, nil},
		{`{"n":1,"s":null,"ptr":null}`, nil},
		{`{"n":1,"s":[],"l":null}`, []string{"body.l type"}},
		{`{"n":1,"s":[],"l":[]}`, []string{"body.l minItems"}},
		{`{"n":1,"s":[],"name":"a"}`, []string{"body.name minLength"}},
		{`{"n":1,"s":[],"inner":{"x":0}}`, []string{"body.inner.x minimum"}},
		{`{"n":null,"s":[]}`, []string{"body.n type"}},
		{`{"n":1,"s":[],"name":null}`, []string{"body.name type"}},
		{`{"n":1,"s":[],"inner":null}`, []string{"body.inner type"}},
		{`{"s":[]}`, []string{"body.n required"}},
		{` null `, []string{"body type"}},
		// encoding/json keeps the last of repeated keys, and so does the check
		{`{"n":1,"s":[],"opt":null,"opt":"a"}`, []string{"body.opt minLength"}},
		{`{"n":1,"s":[],"ptr":null,"ptr":{"x":0}}`, []string{"body.ptr.x minimum"}},
		{`{"n":1,"s":[],"opt":"a","opt":null}`, nil},
		{`{"n":1,"s":[],"Opt":"a"}`, nil}, // keys match exactly: Opt is no member
	}
	for _, tt := range tests {
		w, p := serveTyped(t, r, http.MethodPost, "/b", "application/json", tt.body)
		if got := failures(p); !slices.Equal(got, tt.want) {
			t.Errorf("%s: got %d %q, want %q", tt.body, w.Code, got, tt.want)
		}
	}
}

// TestTypedBodyKeysHideNothing sends map keys made to look like the
// location of another value, whose member is left out: the other value's
// failure is still reported.
func TestTypedBodyKeysHideNothing(t *testing.T) {
	type inner struct {
		Opt *string `json:"opt,omitempty" minLength:"2"`
	}
	type in struct {
		Body struct {
			M map[string]inner `json:"m"`
		}
	}
	r := waltz.New()
	Op(r, http.MethodPost, "/b", opFn[in, noOut], Operation{})
	p64 := strings.Repeat("k", 64)
	tests := []struct{ name, body string }{
		{"cut key", `{"m":{"` + p64 + `…":{},"` + p64 + `zz":{"opt":"a"}}}`},
		{"dotted key", `{"m":{"a.opt":{},"a":{"opt":"a"}}}`},
		{"plain", `{"m":{"b":{},"a":{"opt":"a"}}}`},
	}
	for _, tt := range tests {
		w, p := serveTyped(t, r, http.MethodPost, "/b", "application/json", tt.body)
		if got := failures(p); len(got) != 1 || !strings.HasSuffix(got[0], ".opt minLength") {
			t.Errorf("%s: got %d %q, want one minLength failure of an opt", tt.name, w.Code, got)
		}
	}
}

// TestTypedBodyChunkedEmpty sends an optional body's operation a body of
// no bytes, chunked (no Content-Length) and with no Content-Type, over a
// real connection: it is absent, as with Content-Length: 0, not a 415
// for a media type a body of no bytes cannot have. With bytes it is a
// 415 still.
func TestTypedBodyChunkedEmpty(t *testing.T) {
	type thing struct {
		N int `json:"n"`
	}
	type in struct{ Body *thing }
	type out struct{ Body string }
	r := waltz.New()
	Op(r, http.MethodPost, "/opt", func(c *waltz.Context, in *in) (*out, error) {
		return &out{Body: strconv.FormatBool(in.Body == nil)}, nil
	}, Operation{})
	srv := httptest.NewServer(r)
	defer srv.Close()
	for _, tc := range []struct {
		chunks, want string
	}{
		{"0\r\n\r\n", "HTTP/1.1 200 OK"},
		{"7\r\n{\"n\":1}\r\n0\r\n\r\n", "HTTP/1.1 415 Unsupported Media Type"},
	} {
		conn, err := net.Dial("tcp", srv.Listener.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		_, err = io.WriteString(conn, "POST /opt HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"+tc.chunks)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(conn)
		conn.Close()
		if !strings.HasPrefix(string(got), tc.want) || tc.want == "HTTP/1.1 200 OK" && !strings.Contains(string(got), "\r\n\r\n\"true\"") {
			t.Errorf("%q: got %s, want %s", tc.chunks, got, tc.want)
		}
	}
}

// TestTypedJSONNumberEcho: an operation that answers the json.Number it
// was sent answers 200 with the number, or refuses the request 422: no
// input of a client makes its answer a 500 (it bound any string, such as
// "abc", which encoding/json then could not write).
func TestTypedJSONNumberEcho(t *testing.T) {
	type num struct {
		N json.Number `json:"n"`
	}
	type in struct {
		Q    json.Number `query:"q"`
		Body num
	}
	type out struct{ Body [2]json.Number }
	r := waltz.New()
	Op(r, http.MethodPost, "/echo", func(c *waltz.Context, in *in) (*out, error) {
		return &out{Body: [2]json.Number{in.Q, in.Body.N}}, nil
	}, Operation{})
	for _, tc := range []struct {
		target, body string
		code         int
		want         string
	}{
		{"/echo?q=2", `{"n":-0.5e10}`, 200, `[2,-0.5e10]`},
		{"/echo?q=2", `{"n":"abc"}`, 422, ""},
		{"/echo?q=2", `{"n":"1"}`, 422, ""},
		{"/echo?q=abc", `{"n":1}`, 422, ""},
		{"/echo?q=", `{"n":1}`, 422, ""},
	} {
		w, _ := serveTyped(t, r, http.MethodPost, tc.target, "application/json", tc.body)
		if w.Code != tc.code || tc.want != "" && strings.TrimSpace(w.Body.String()) != tc.want {
			t.Errorf("%s %s: got %d %s, want %d %s", tc.target, tc.body, w.Code, w.Body, tc.code, tc.want)
		}
	}
}
