package client_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"testing"
	"time"

	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/api"
	"github.com/waltz-go/waltz/client"
)

// TestNotModified: an answer with no content leaves Body zero, whatever
// Body is: JSON, or a Download (no Content, no Type, no ModTime); Out's
// header fields and Status are read as for any answer.
func TestNotModified(t *testing.T) {
	srv, _ := newServer(t, nil)
	c := &client.Client{URL: srv.URL + "/v2", HTTP: srv.Client()}
	ctx := client.WithHeader(context.Background(), http.Header{"If-None-Match": {`"f1"`}})
	type fileStatusOut struct {
		Status int
		ETag   string `header:"ETag"`
		Body   api.Download
	}
	file, err := client.Op[struct {
		Name string `path:"name"`
	}, fileStatusOut](c, "GET /files/:name")(ctx, struct {
		Name string `path:"name"`
	}{"x"})
	if err != nil {
		t.Fatal(err)
	}
	if file.Status != http.StatusNotModified || file.ETag != `"f1"` || file.Body != (api.Download{}) {
		t.Errorf("a download's 304: got status %d, ETag %s, Body %+v; want 304, \"f1\" and a zero Download", file.Status, file.ETag, file.Body)
	}

	type noteStatusOut struct {
		Status int
		ETag   string `header:"ETag"`
		Body   greeting
	}
	r := waltz.New()
	api.Op(r, http.MethodGet, "/note", func(c *waltz.Context, in *struct{}) (*noteStatusOut, error) {
		return &noteStatusOut{ETag: `"n1"`, Body: greeting{Text: "hello"}}, nil
	}, api.Operation{})
	jsrv := httptest.NewServer(r)
	defer jsrv.Close()
	ctx = client.WithHeader(context.Background(), http.Header{"If-None-Match": {`"n1"`}})
	note, err := client.Op[struct{}, noteStatusOut](&client.Client{URL: jsrv.URL, HTTP: jsrv.Client()}, "GET /note")(ctx, struct{}{})
	if err != nil {
		t.Fatal(err)
	}
	if note.Status != http.StatusNotModified || note.ETag != `"n1"` || note.Body != (greeting{}) {
		t.Errorf("a JSON answer's 304: got status %d, ETag %s, Body %+v; want 304, \"n1\" and a zero Body", note.Status, note.ETag, note.Body)
	}
}

// zeros is an endless reader of zero bytes that is no io.Seeker, so that
// the server copies it as it reads it.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// TestDownloadStreams: a download's Content is the answer's body as it
// arrives, which the caller reads and closes: 50 MiB read through it
// allocate a small part of that, where holding it would take 50 MiB.
func TestDownloadStreams(t *testing.T) {
	if testing.Short() {
		t.Skip("downloads 50 MiB")
	}
	const size = 50 << 20
	r := waltz.New()
	type bigOut struct{ Body api.Download }
	api.Op(r, http.MethodGet, "/big", func(c *waltz.Context, in *struct{}) (*bigOut, error) {
		return &bigOut{api.Download{Content: io.LimitReader(zeros{}, size)}}, nil
	}, api.Operation{})
	srv := httptest.NewServer(r)
	defer srv.Close()
	get := client.Op[struct{}, bigOut](&client.Client{URL: srv.URL, HTTP: srv.Client()}, "GET /big")

	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	total := ms.TotalAlloc
	out, err := get(context.Background(), struct{}{})
	if err != nil {
		t.Fatal(err)
	}
	n, err := io.Copy(io.Discard, out.Body.Content)
	if err != nil || n != size {
		t.Fatalf("read %d bytes, %v; want %d", n, err, size)
	}
	rc, ok := out.Body.Content.(io.ReadCloser)
	if !ok {
		t.Errorf("got Content of type %T, want an io.ReadCloser", out.Body.Content)
	} else if err := rc.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	runtime.ReadMemStats(&ms)
	// The bytes allocated while the download ran, the collected ones
	// included, bound every peak of the heap: the server's and the
	// client's together.
	allocated := ms.TotalAlloc - total
	t.Logf("a 50 MiB download: %d KiB allocated in all", allocated>>10)
	if allocated > size/8 {
		t.Errorf("allocated %d bytes for a download of %d, want at most %d: the download is held in memory", allocated, size, size/8)
	}
}

// panicky is a header field type whose UnmarshalText panics.
type panicky struct{}

func (panicky) MarshalText() ([]byte, error) { return nil, nil }
func (*panicky) UnmarshalText([]byte) error  { panic("UnmarshalText") }

// TestDownloadPanicCloses: a download whose Out's header field panics
// as it is read still closes the answer: the server's request ends.
func TestDownloadPanicCloses(t *testing.T) {
	ended := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-P", "1")
		io.WriteString(w, "content")
		w.(http.Flusher).Flush()
		<-r.Context().Done()
		close(ended)
	}))
	defer srv.Close()
	type out struct {
		P    panicky `header:"X-P"`
		Body api.Download
	}
	c := &client.Client{URL: srv.URL, HTTP: srv.Client()}
	func() {
		defer func() {
			if recover() == nil {
				t.Error("the call did not panic")
			}
		}()
		client.Op[struct{}, out](c, "GET /file")(context.Background(), struct{}{})
	}()
	select {
	case <-ended:
	case <-time.After(2 * time.Second):
		t.Errorf("2s after the call panicked, the server's request is still open")
		srv.CloseClientConnections()
	}
}

// TestResetContentUnread: a 205 that comes with content all the same
// (here an endless one) is answered at once, its content not read (RFC
// 9110 section 15.3.6: a 205 has none), for a JSON Body and a Download.
func TestResetContentUnread(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusResetContent)
		io.Copy(w, zeros{})
	}))
	defer srv.Close()
	c := &client.Client{URL: srv.URL, HTTP: srv.Client()}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	type jsonOut struct {
		Status int
		Body   []string
	}
	if out, err := client.Op[struct{}, jsonOut](c, "GET /form")(ctx, struct{}{}); err != nil || out.Status != 205 || out.Body != nil {
		t.Errorf("JSON: got %+v, %v; want a 205 with no Body", out, err)
	}
	if out, err := client.Op[struct{}, fileOut](c, "GET /form")(ctx, struct{}{}); err != nil || out.Body.Content != nil {
		t.Errorf("Download: got %+v, %v; want no Content", out, err)
	}
}
