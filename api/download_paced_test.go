package api

import (
	"bytes"
	"crypto/rand"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/waltz-go/waltz"
)

// TestDownloadPaced: a download that takes the client longer than the
// server's WriteTimeout to read, though it reads steadily, arrives whole,
// from a reader that cannot seek (copied) as from one that can (served as
// a file). net/http's WriteTimeout runs from the request's headers to
// the end of the answer, and cut both partway.
func TestDownloadPaced(t *testing.T) {
	const size = 40 << 20
	big := make([]byte, size)
	rand.Read(big)
	r := waltz.New()
	Op(r, http.MethodGet, "/seek", func(*waltz.Context, *struct{}) (*struct{ Body Download }, error) {
		return &struct{ Body Download }{Download{Content: bytes.NewReader(big)}}, nil
	}, Operation{})
	Op(r, http.MethodGet, "/copy", func(*waltz.Context, *struct{}) (*struct{ Body Download }, error) {
		return &struct{ Body Download }{Download{Content: io.MultiReader(bytes.NewReader(big))}}, nil
	}, Operation{})
	srv := httptest.NewUnstartedServer(r)
	timeout := time.Second
	srv.Config.WriteTimeout = timeout
	srv.Start()
	defer srv.Close()
	for _, path := range []string{"/seek", "/copy"} {
		t.Run(path, func(t *testing.T) {
			resp, err := http.Get(srv.URL + path)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			began := time.Now()
			var got bytes.Buffer
			buf := make([]byte, 256<<10)
			for {
				n, err := resp.Body.Read(buf)
				got.Write(buf[:n])
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatalf("after %v, %d of %d bytes: %v", time.Since(began), got.Len(), size, err)
				}
				time.Sleep(10 * time.Millisecond)
			}
			if !bytes.Equal(got.Bytes(), big) {
				t.Fatalf("got %d bytes, not the download's %d", got.Len(), size)
			}
			if took := time.Since(began); took < timeout {
				t.Skipf("the client read it in %v, inside the WriteTimeout: nothing was shown", took)
			}
		})
	}
}
