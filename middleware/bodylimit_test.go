package middleware

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/waltz-go/waltz"
)

// unsized hides the length of s, so the request's ContentLength is -1, as
// for a chunked body.
func unsized(s string) io.Reader { return io.MultiReader(strings.NewReader(s)) }

func TestBodyLimit(t *testing.T) {
	const limit = 16
	readAll := func(c *waltz.Context) error {
		b, err := io.ReadAll(c.Request.Body)
		if err != nil {
			return err
		}
		return c.Text(http.StatusOK, string(b))
	}
	for _, tc := range []struct {
		name    string
		body    io.Reader // nil for none
		h       waltz.HandlerFunc
		code    int
		handled bool // the handler ran
	}{
		{"no body", nil, readAll, 200, true},
		{"declared, at the limit", strings.NewReader(strings.Repeat("a", limit)), readAll, 200, true},
		{"declared, over (RFC 9110 section 15.5.14)", strings.NewReader(strings.Repeat("a", limit+1)), readAll, 413, false},
		{"declared 10 MB (hostile)", strings.NewReader(strings.Repeat("a", 10<<20)), readAll, 413, false},
		{"unknown length, at the limit", unsized(strings.Repeat("a", limit)), readAll, 200, true},
		{"unknown length, over", unsized(strings.Repeat("a", limit+1)), readAll, 413, true},
		{"unknown length, over, not read", unsized(strings.Repeat("a", 100)), ok, 204, true},
		{"error wrapped with %w", unsized(strings.Repeat("a", 100)), func(c *waltz.Context) error {
			_, err := io.ReadAll(c.Request.Body)
			return fmt.Errorf("reading upload: %w", err)
		}, 413, true},
		{"error inside the handler's own 400: its choice", unsized(strings.Repeat("a", 100)), func(c *waltz.Context) error {
			_, err := io.ReadAll(c.Request.Body)
			return &waltz.HTTPError{Code: http.StatusBadRequest, Err: err}
		}, 400, true},
		{"Bind, over", unsized(`{"a":"` + strings.Repeat("a", 100) + `"}`), func(c *waltz.Context) error {
			var v map[string]string
			if err := c.Bind(&v); err != nil {
				return err
			}
			return c.NoContent(http.StatusNoContent)
		}, 413, true},
		{"Bind, within", unsized(`{"a":"b"}`), func(c *waltz.Context) error {
			var v map[string]string
			if err := c.Bind(&v); err != nil {
				return err
			}
			return c.NoContent(http.StatusNoContent)
		}, 204, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			method := http.MethodPost
			if tc.body == nil {
				method = http.MethodGet
			}
			req := httptest.NewRequest(method, "/", tc.body)
			req.Header.Set("Content-Type", "application/json")
			handled := false
			w := serve(t, BodyLimit(limit), func(c *waltz.Context) error {
				handled = true
				return tc.h(c)
			}, req)
			if w.Code != tc.code || handled != tc.handled {
				t.Errorf("got %d, handler ran %v; want %d, %v (body %q)", w.Code, handled, tc.code, tc.handled, w.Body.String())
			}
			if tc.code == http.StatusRequestEntityTooLarge && w.Body.String() != "the body may be at most 16 bytes" {
				t.Errorf("got body %q, want the limit in it", w.Body.String())
			}
		})
	}
}

// The read past the limit fails with an error errors.As finds as both an
// *http.MaxBytesError and a 413 *waltz.HTTPError.
func TestBodyLimitReadError(t *testing.T) {
	var err error
	serve(t, BodyLimit(4), func(c *waltz.Context) error {
		_, err = io.ReadAll(c.Request.Body)
		return nil
	}, httptest.NewRequest(http.MethodPost, "/", unsized("12345")))
	var mbe *http.MaxBytesError
	var he *waltz.HTTPError
	if !errors.As(err, &mbe) || mbe.Limit != 4 || !errors.As(err, &he) || he.Code != 413 {
		t.Errorf("got read error %v, want a 413 HTTPError wrapping an http.MaxBytesError with Limit 4", err)
	}
}

// Over a real connection: a client that sends "Expect: 100-continue" and a
// Content-Length over the limit gets 413 first, never 100 Continue (RFC 9110
// section 10.1.1), so it never sends the body; within the limit, net/http
// sends 100 Continue when the handler reads.
func TestBodyLimitExpectContinue(t *testing.T) {
	r := waltz.New()
	r.Use(BodyLimit(16))
	r.Post("/", func(c *waltz.Context) error {
		b, err := io.ReadAll(c.Request.Body)
		if err != nil {
			return err
		}
		return c.Text(http.StatusOK, string(b))
	})
	srv := httptest.NewServer(r)
	defer srv.Close()
	for _, tc := range []struct {
		name   string
		length int
		lines  []string // the status lines the client reads, in order
	}{
		{"over the limit", 17, []string{"HTTP/1.1 413 Request Entity Too Large"}},
		{"1 GB declared (hostile)", 1 << 30, []string{"HTTP/1.1 413 Request Entity Too Large"}},
		{"within the limit", 16, []string{"HTTP/1.1 100 Continue", "HTTP/1.1 200 OK"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			conn, err := net.Dial("tcp", srv.Listener.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			conn.SetDeadline(time.Now().Add(5 * time.Second))
			fmt.Fprintf(conn, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\nExpect: 100-continue\r\n\r\n", tc.length)
			br := bufio.NewReader(conn)
			for i, want := range tc.lines {
				line, err := br.ReadString('\n')
				if got := strings.TrimSpace(line); err != nil || got != want {
					t.Fatalf("status line %d: got %q (%v), want %q", i+1, got, err, want)
				}
				if strings.Contains(want, "100 Continue") {
					br.ReadString('\n') // the blank line after it
					io.WriteString(conn, strings.Repeat("a", tc.length))
				}
			}
		})
	}
}

// Over a real connection: a chunked body is cut off once past the limit.
func TestBodyLimitChunked(t *testing.T) {
	r := waltz.New()
	r.Use(BodyLimit(16))
	r.Post("/", func(c *waltz.Context) error {
		_, err := io.Copy(io.Discard, c.Request.Body)
		return err
	})
	srv := httptest.NewServer(r)
	defer srv.Close()
	for _, tc := range []struct {
		size int
		code int
	}{
		{16, http.StatusOK},
		{17, http.StatusRequestEntityTooLarge},
		{1 << 20, http.StatusRequestEntityTooLarge},
	} {
		t.Run(fmt.Sprint(tc.size), func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodPost, srv.URL, unsized(strings.Repeat("a", tc.size)))
			res, err := srv.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if res.StatusCode != tc.code {
				t.Errorf("got %d, want %d", res.StatusCode, tc.code)
			}
		})
	}
}

func TestBodyLimitAllocs(t *testing.T) {
	mw := BodyLimit(1 << 10)
	body := &reusable{s: strings.Repeat("a", 100)}
	withBody := httptest.NewRequest(http.MethodPost, "/", nil)
	withBody.Body, withBody.ContentLength = body, 100
	tooLong := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(strings.Repeat("a", 2<<10)))
	for _, tc := range []struct {
		name string
		req  *http.Request
		want float64
	}{
		{"no body", httptest.NewRequest(http.MethodGet, "/", nil), 0},
		{"body", withBody, 2},
		{"declared too long", tooLong, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := func(c *waltz.Context) error {
				for {
					if _, err := c.Request.Body.Read(scratch[:]); err != nil {
						break
					}
				}
				body.i = 0
				return nil
			}
			if got := allocs(t, mw, h, tc.req); got != tc.want {
				t.Errorf("got %v allocations per request, want %v", got, tc.want)
			}
		})
	}
}

// scratch is what TestBodyLimitAllocs reads into, so that its handler
// allocates nothing.
var scratch [128]byte

// reusable is a body that can be read again after its i is reset.
type reusable struct {
	s string
	i int
}

func (r *reusable) Read(p []byte) (int, error) {
	if r.i >= len(r.s) {
		return 0, io.EOF
	}
	n := copy(p, r.s[r.i:])
	r.i += n
	return n, nil
}

func (r *reusable) Close() error { return nil }

func TestBodyLimitBadLimit(t *testing.T) {
	for _, tc := range []struct {
		n    int64
		want string
	}{
		{0, "waltz: BodyLimit 0 is not a positive number of bytes"},
		{-1, "waltz: BodyLimit -1 is not a positive number of bytes"},
	} {
		t.Run(fmt.Sprint(tc.n), func(t *testing.T) {
			if got := panicMessage(func() { BodyLimit(tc.n) }); got != tc.want {
				t.Errorf("got panic %q, want %q", got, tc.want)
			}
		})
	}
}

func ExampleBodyLimit() {
	r := waltz.New()
	r.Use(BodyLimit(1 << 10)) // 1 KiB
	r.Post("/notes", func(c *waltz.Context) error {
		b, err := io.ReadAll(c.Request.Body)
		if err != nil {
			return err // a 413 past the limit
		}
		return c.Text(http.StatusCreated, fmt.Sprintf("%d bytes", len(b)))
	})
	for _, size := range []int{100, 2 << 10} {
		w := httptest.NewRecorder()
		r.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/notes", strings.NewReader(strings.Repeat("a", size))))
		fmt.Println(w.Code, w.Body.String())
	}
	// Output:
	// 201 100 bytes
	// 413 the body may be at most 1024 bytes
}
