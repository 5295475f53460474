package client_test

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/api"
	"github.com/waltz-go/waltz/client"
)

// findIn is the input of QUERY /find: a JSON query.
type findIn struct {
	Body struct {
		Prefix string `json:"prefix" maxLength:"10"`
	}
}

// findOut is its answer; Status tells a 304 from a 200.
type findOut struct {
	Status int
	ETag   string `header:"ETag"`
	Body   []string
}

// findRouter serves QUERY /find over a few names, tagged "v1", and POST
// /find the same, for the contrast.
func findRouter() *waltz.Router {
	r := waltz.New()
	find := func(c *waltz.Context, in *findIn) (*findOut, error) {
		var found []string
		for _, n := range []string{"ada", "alan", "grace"} {
			if strings.HasPrefix(n, in.Body.Prefix) {
				found = append(found, n)
			}
		}
		return &findOut{ETag: `"v1"`, Body: found}, nil
	}
	api.Op(r, waltz.MethodQuery, "/find", find, api.Operation{ID: "find"})
	api.Op(r, http.MethodPost, "/find", find, api.Operation{ID: "findByPost"})
	return r
}

// TestQueryCall calls a QUERY operation through the typed client: its
// answer, then a conditional QUERY with the tag it gave, revalidated
// with 304 (RFC 10008 section 2.6).
func TestQueryCall(t *testing.T) {
	srv := httptest.NewServer(findRouter())
	defer srv.Close()
	c := &client.Client{URL: srv.URL}
	find := client.Op[findIn, findOut](c, "QUERY /find")
	var in findIn
	in.Body.Prefix = "a"
	out, err := find(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != 200 || strings.Join(out.Body, ",") != "ada,alan" || !strings.HasPrefix(out.ETag, `"v1.`) {
		t.Fatalf("got %+v", out)
	}
	ctx := client.WithHeader(context.Background(), http.Header{"If-None-Match": {out.ETag}})
	again, err := find(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	if again.Status != http.StatusNotModified || again.Body != nil || again.ETag != out.ETag {
		t.Errorf("the conditional QUERY: got %+v, want a 304 with ETag %s", again, out.ETag)
	}
	in.Body.Prefix = "g"
	other, err := find(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	if other.Status != 200 || strings.Join(other.Body, ",") != "grace" {
		t.Errorf("another query with that tag: got %+v, want a 200", other)
	}
	in.Body.Prefix = "aaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	var he *waltz.HTTPError
	if _, err := find(context.Background(), in); !errors.As(err, &he) || he.Code != 422 || !errors.Is(err, client.ErrNotSent) {
		t.Errorf("a query against the rules: got %v, want a 422 not sent", err)
	}
}

// TestQueryRetried checks that the typed client's QUERY is sent again
// when the kept-alive connection it went on turns out closed, as a GET
// is (RFC 10008 section 2: QUERY "can be retried or repeated when
// needed, for instance after a connection failure"), and that a POST of
// the same shape is not.
func TestQueryRetried(t *testing.T) {
	for _, tc := range []struct {
		route   string
		retried bool
	}{
		{"QUERY /find", true},
		{"POST /find", false},
	} {
		t.Run(tc.route, func(t *testing.T) {
			addr, requests := droppingServer(t)
			c := &client.Client{URL: "http://" + addr, HTTP: &http.Client{Transport: &http.Transport{}, Timeout: 10 * time.Second}}
			find := client.Op[findIn, findOut](c, tc.route)
			var in findIn
			in.Body.Prefix = "a"
			if _, err := find(context.Background(), in); err != nil {
				t.Fatalf("the first call: %v", err)
			}
			// The second goes on the same connection, which the server
			// reads whole and closes without answering.
			out, err := find(context.Background(), in)
			switch {
			case tc.retried && err != nil:
				t.Errorf("got %v, want the call sent again on a new connection", err)
			case tc.retried && strings.Join(out.Body, ",") != "ada,alan":
				t.Errorf("got %+v", out)
			case !tc.retried && err == nil:
				t.Errorf("a POST was sent again: got %+v, want the connection's error", out)
			}
			want := []string{tc.route[:strings.IndexByte(tc.route, ' ')] + " a", "dropped"}
			if tc.retried {
				want = append(want, want[0])
			}
			if got := requests(); strings.Join(got, "|") != strings.Join(want, "|") {
				t.Errorf("the server saw %q, want %q", got, want)
			}
		})
	}
}

// droppingServer serves HTTP/1.1 on a loopback port: on its first
// connection it answers one request and then reads the next whole and
// closes without an answer; every later connection is answered. It
// returns its address and a func that lists what it saw: each request's
// method and its body's prefix, or "dropped".
func droppingServer(t *testing.T) (string, func() []string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	seen := make(chan string, 16)
	go func() {
		for n := 0; ; n++ {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go func(first bool) {
				defer conn.Close()
				br := bufio.NewReader(conn)
				for i := 0; ; i++ {
					req, err := http.ReadRequest(br)
					if err != nil {
						return
					}
					body, _ := io.ReadAll(req.Body)
					if first && i == 1 {
						seen <- "dropped"
						return
					}
					prefix := "?"
					if strings.Contains(string(body), `"a"`) {
						prefix = "a"
					}
					seen <- req.Method + " " + prefix
					answer := `["ada","alan"]`
					io.WriteString(conn, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 14\r\n\r\n"+answer)
				}
			}(n == 0)
		}
	}()
	return ln.Addr().String(), func() []string {
		var got []string
		for {
			select {
			case s := <-seen:
				got = append(got, s)
			case <-time.After(100 * time.Millisecond):
				return got
			}
		}
	}
}

// TestQueryRedirects checks that the typed client follows a redirect of
// a QUERY as RFC 10008 section 2.5 says: 301, 302, 307 and 308 with the
// same QUERY and content; 303 with a GET; and that a 307 or 308 after
// them keeps the method and content of the request it answers (RFC 9110
// sections 15.4.8 and 15.4.9): a QUERY's, or a GET's after a 303.
func TestQueryRedirects(t *testing.T) {
	r := findRouter()
	for _, code := range []int{301, 302, 307, 308} {
		r.Query("/moved"+strconv.Itoa(code), func(c *waltz.Context) error {
			return c.Redirect(code, "/find")
		})
	}
	r.Query("/seeOther", func(c *waltz.Context) error { return c.Redirect(http.StatusSeeOther, "/found") })
	r.Query("/seeOther307", func(c *waltz.Context) error { return c.Redirect(http.StatusSeeOther, "/then307") })
	r.Get("/then307", func(c *waltz.Context) error { return c.Redirect(http.StatusTemporaryRedirect, "/found") })
	r.Query("/moved301then308", func(c *waltz.Context) error { return c.Redirect(http.StatusMovedPermanently, "/moved308") })
	api.Op(r, http.MethodGet, "/found", func(c *waltz.Context, in *struct{}) (*findOut, error) {
		return &findOut{Body: []string{"by GET"}}, nil
	}, api.Operation{ID: "found"})
	srv := httptest.NewServer(r)
	defer srv.Close()
	c := &client.Client{URL: srv.URL}
	var in findIn
	in.Body.Prefix = "g"
	for _, tc := range []struct{ route, want string }{
		{"QUERY /moved301", "grace"},
		{"QUERY /moved302", "grace"},
		{"QUERY /moved307", "grace"},
		{"QUERY /moved308", "grace"},
		{"QUERY /seeOther", "by GET"},
		{"QUERY /seeOther307", "by GET"},
		{"QUERY /moved301then308", "grace"},
	} {
		t.Run(tc.route, func(t *testing.T) {
			out, err := client.Op[findIn, findOut](c, tc.route)(context.Background(), in)
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(out.Body, ","); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// TestLinesRefused checks that a JSON Lines answer is no call, as an
// event stream is not: its Body is a function encoding/json cannot
// decode.
func TestLinesRefused(t *testing.T) {
	type exportOut struct{ Body api.Lines[string] }
	defer func() {
		if msg, _ := recover().(string); !strings.HasPrefix(msg, "waltz: client: ") {
			t.Errorf("got the panic %q, want the client's", msg)
		}
	}()
	client.Op[struct{}, exportOut](&client.Client{URL: "http://127.0.0.1"}, "GET /export")
}
