package waltz

import (
	"bytes"
	"context"
	"crypto/rand"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"
	"time"
)

// pacedServer serves the file big (n random bytes) through FileServer on
// a real server whose WriteTimeout is timeout.
func pacedServer(t *testing.T, n int, timeout time.Duration) (*httptest.Server, []byte) {
	t.Helper()
	big := make([]byte, n)
	rand.Read(big)
	r := New()
	r.Get("/files/*path", FileServer(fstest.MapFS{"big.bin": {Data: big}}, FileServerOptions{}))
	srv := httptest.NewUnstartedServer(r)
	srv.Config.WriteTimeout = timeout
	srv.Start()
	t.Cleanup(srv.Close)
	return srv, big
}

// slowRead reads body chunk bytes at a time, pausing pause after each.
func slowRead(body io.Reader, chunk int, pause time.Duration) ([]byte, error) {
	var got bytes.Buffer
	buf := make([]byte, chunk)
	for {
		n, err := body.Read(buf)
		got.Write(buf[:n])
		if err == io.EOF {
			return got.Bytes(), nil
		}
		if err != nil {
			return got.Bytes(), err
		}
		time.Sleep(pause)
	}
}

// TestPacedDownload: a file that takes the client longer than the
// server's WriteTimeout to read, though it reads steadily, arrives whole.
// net/http's WriteTimeout runs from the request's headers to the end of
// the response, and cut it partway.
func TestPacedDownload(t *testing.T) {
	const size = 40 << 20
	timeout := time.Second
	srv, big := pacedServer(t, size, timeout)
	resp, err := http.Get(srv.URL + "/files/big.bin")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	began := time.Now()
	// 256 KiB every 10 ms: about 25 MB/s at best, a span (1 MiB) in
	// about 40 ms, well inside the timeout; the whole beyond it.
	got, err := slowRead(resp.Body, 256<<10, 10*time.Millisecond)
	took := time.Since(began)
	if err != nil {
		t.Fatalf("after %v, %d of %d bytes: %v", took, len(got), size, err)
	}
	if !bytes.Equal(got, big) {
		t.Fatalf("got %d bytes, not the file's %d", len(got), size)
	}
	if took < timeout {
		t.Skipf("the client read the file in %v, inside the WriteTimeout: nothing was shown", took)
	}
}

// TestPacedDownloadStalled: a client that stops reading is still cut,
// once a span has waited for it a whole WriteTimeout.
func TestPacedDownloadStalled(t *testing.T) {
	const size = 48 << 20 // far more than the sockets' buffers hold
	srv, _ := pacedServer(t, size, 300*time.Millisecond)
	resp, err := http.Get(srv.URL + "/files/big.bin")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	time.Sleep(1500 * time.Millisecond) // a stalled reader
	n, err := io.Copy(io.Discard, resp.Body)
	if err == nil || n >= size {
		t.Fatalf("read %d of %d bytes, err %v: the stalled client was not cut", n, size, err)
	}
}

// TestPacedWriter holds the writer's spans: every byte goes through, in
// order, through Write and through ReadFrom, a limited source's limit is
// kept and taken from, and a writer with no deadline is written to as it
// is.
func TestPacedWriter(t *testing.T) {
	data := make([]byte, 3*pacedSpan+123)
	rand.Read(data)
	for _, via := range []string{"Write", "ReadFrom", "ReadFrom limited"} {
		w := httptest.NewRecorder()
		p := &pacedWriter{ResponseWriter: w, rc: *http.NewResponseController(w), timeout: time.Second}
		want := data
		var err error
		switch via {
		case "Write":
			_, err = p.Write(data)
		case "ReadFrom":
			_, err = p.ReadFrom(bytes.NewReader(data))
		default:
			lr := &io.LimitedReader{R: bytes.NewReader(data), N: 2*pacedSpan + 7}
			_, err = p.ReadFrom(lr)
			want = data[:2*pacedSpan+7]
			if lr.N != 0 {
				t.Errorf("%s: the source's limit left at %d, want 0", via, lr.N)
			}
		}
		if err != nil {
			t.Fatalf("%s: %v", via, err)
		}
		if !bytes.Equal(w.Body.Bytes(), want) {
			t.Errorf("%s: wrote %d bytes, not the %d given", via, w.Body.Len(), len(want))
		}
		if !p.off {
			t.Errorf("%s: a recorder has no deadline, and the writer still tries to set one", via)
		}
	}
}

// TestPacedAllocs: a paced writer costs one allocation, and a body of a
// span or less, or a server with no WriteTimeout, none.
func TestPacedAllocs(t *testing.T) {
	w := httptest.NewRecorder()
	for _, tc := range []struct {
		name    string
		timeout time.Duration
		size    int64
		want    float64
	}{
		{"long, under a WriteTimeout", time.Minute, -1, 1},
		{"a span, under a WriteTimeout", time.Minute, pacedSpan, 0},
		{"long, no WriteTimeout", 0, 1 << 30, 0},
		{"long, a HEAD", time.Minute, 1 << 30, 0},
	} {
		srv := &http.Server{WriteTimeout: tc.timeout}
		method := http.MethodGet
		if strings.HasSuffix(tc.name, "HEAD") {
			method = http.MethodHead
		}
		req := httptest.NewRequest(method, "/", nil)
		req = req.WithContext(context.WithValue(req.Context(), http.ServerContextKey, srv))
		run := func() {
			if _, ok := paced(w, req, tc.size).(*pacedWriter); ok != (tc.want > 0) {
				t.Fatalf("%s: paced %v, want %v", tc.name, ok, tc.want > 0)
			}
		}
		if got := testing.AllocsPerRun(100, run); got != tc.want {
			t.Errorf("%s: %v allocations, want %v", tc.name, got, tc.want)
		}
	}
}
