package api

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"mime/multipart"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"testing/iotest"
	"time"

	"github.com/waltz-go/waltz"
)

// Requests made to break an upload: each is answered with the right 4xx,
// holds bounded memory, and leaves no temporary file.

// rawMultipart returns a body of the parts written as they are, each a
// header block and content, between boundaries "b"; closed adds the
// closing boundary.
func rawMultipart(closed bool, parts ...string) string {
	var sb strings.Builder
	for _, p := range parts {
		sb.WriteString("--b\r\n" + p + "\r\n")
	}
	if closed {
		sb.WriteString("--b--\r\n")
	}
	return sb.String()
}

func TestUploadHostile(t *testing.T) {
	img := string(pngBytes(t, 8, 8))
	title := "Content-Disposition: form-data; name=\"title\"\r\n\r\nCat"
	image := "Content-Disposition: form-data; name=\"image\"; filename=\"c.png\"\r\nContent-Type: image/png\r\n\r\n" + img
	var tiny strings.Builder
	for range 10000 {
		tiny.WriteString("--b\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\nx\r\n")
	}
	tiny.WriteString("--b--\r\n")
	for _, tc := range []struct {
		name string
		body string
		code int
		want string
	}{
		{"part with no name", rawMultipart(true, title, image, "Content-Disposition: form-data\r\n\r\nwho"),
			400, "has a part with no name"},
		{"part that is no form-data", rawMultipart(true, title, image, "Content-Type: text/plain\r\n\r\nwho"),
			400, "has a part with no name"},
		{"nested multipart", rawMultipart(true, title,
			"Content-Disposition: form-data; name=\"image\"\r\nContent-Type: multipart/mixed; boundary=c\r\n\r\n"+
				"--c\r\nContent-Disposition: file; filename=\"c.png\"\r\nContent-Type: image/png\r\n\r\n"+img+"\r\n--c--"),
			415, `part \"image\" is multipart itself`},
		{"boundary never closed", rawMultipart(false, title, image), 400, "ends before its closing boundary"},
		{"filename with NUL", rawMultipart(true, title,
			"Content-Disposition: form-data; name=\"image\"; filename=\"../../a\x00.png\"\r\nContent-Type: image/png\r\n\r\n"+img),
			400, "malformed"},
		{"no boundary at all", "just bytes", 400, "malformed"},
		{"10,000 tiny parts", tiny.String(), 413, "at most 1000 parts"},
		{"declared type lies", rawMultipart(true, title,
			"Content-Disposition: form-data; name=\"image\"; filename=\"c.png\"\r\nContent-Type: image/png\r\n\r\n<html><script>alert(1)</script></html>"),
			415, "its bytes are text/html"},
		{"declared type lies, image as GIF", rawMultipart(true, title,
			"Content-Disposition: form-data; name=\"image\"; filename=\"c.gif\"\r\nContent-Type: image/gif\r\n\r\n"+img),
			415, "its bytes are image/png"},
		{"malformed part type", rawMultipart(true, title,
			"Content-Disposition: form-data; name=\"image\"; filename=\"c.png\"\r\nContent-Type: image/\r\n\r\n"+img),
			415, "malformed media type"},
		// A File without accept takes any type, but a type: a malformed
		// one was an index out of range, a panic.
		{"malformed type of a part without accept", rawMultipart(true, title, image,
			"Content-Disposition: form-data; name=\"extra\"; filename=\"x\"\r\nContent-Type: image/png;;\r\n\r\nx"),
			415, `part \"extra\" declares the malformed media type`},
		// A range names no type, and passed accept:"image/*" (or a list
		// with it) whatever the bytes.
		{"a media range declared", rawMultipart(true, title,
			"Content-Disposition: form-data; name=\"image\"; filename=\"c.png\"\r\nContent-Type: image/*\r\n\r\n"+img),
			415, `declares the media range \"image/*\", which is no media type`},
		{"a media range declared, without accept", rawMultipart(true, title, image,
			"Content-Disposition: form-data; name=\"extra\"; filename=\"x\"\r\nContent-Type: */*\r\n\r\nx"),
			415, "which is no media type: it must be a media type such as image/png"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := postMultipart(t, uploadRouter(t, nil), strings.NewReader(tc.body), "multipart/form-data; boundary=b")
			if rec.Code != tc.code || !strings.Contains(rec.Body.String(), tc.want) {
				t.Errorf("got %d %s, want %d with %s", rec.Code, rec.Body, tc.code, tc.want)
			}
		})
	}
}

func TestUploadFilenameCleaned(t *testing.T) {
	img := string(pngBytes(t, 8, 8))
	for _, tc := range []struct{ sent, want string }{
		{`filename="../../etc/passwd.png"`, "passwd.png"},
		{`filename="..\\..\\win.ini.png"`, "win.ini.png"},
		{"filename=\"..\\\\x\u0085y.png\"", "xy.png"}, // a C1 control, as UTF-8
		{`filename="../.."`, ""},
		{`filename=".."`, ""},
		// Bidi controls reorder what a person reads: "cat\u202Egnp.exe"
		// shows as "catexe.png".
		{"filename=\"cat\u202egnp.exe\"", "catgnp.exe"},
		{"filename=\"\u2066a\u2069\u200f.png\"", "a.png"},
		{`filename=" c.png  "`, "c.png"},
	} {
		t.Run(tc.sent, func(t *testing.T) {
			body := rawMultipart(true, "Content-Disposition: form-data; name=\"title\"\r\n\r\nCat",
				"Content-Disposition: form-data; name=\"image\"; "+tc.sent+"\r\nContent-Type: image/png\r\n\r\n"+img)
			rec := postMultipart(t, uploadRouter(t, nil), strings.NewReader(body), "multipart/form-data; boundary=b")
			if want := fmt.Sprintf(`"Filename":%q`, tc.want); rec.Code != 200 || !strings.Contains(rec.Body.String(), want) {
				t.Errorf("got %d %s, want 200 with %s", rec.Code, rec.Body, want)
			}
		})
	}
}

// TestUploadClientStops: a client that stops sending in the middle of a
// file, with the connection left open past the server's read deadline
// (408, the connection closed) or closed (the handler never runs), leaves
// no temporary file.
func TestUploadClientStops(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("TMPDIR", dir)
	var ran atomic.Int32
	r := waltz.New()
	SetUploadMemory(r, 0) // every file to disk, so that a stop leaves one behind if anything does
	r.RenderError = waltz.RenderProblem
	Op(r, http.MethodPost, "/up", func(c *waltz.Context, in *struct {
		Body struct {
			Data File `json:"data"`
		}
	}) (*struct{}, error) {
		ran.Add(1)
		return nil, nil
	}, Operation{})
	srv := httptest.NewUnstartedServer(r)
	srv.Config.ReadTimeout = 300 * time.Millisecond
	srv.Start()
	defer srv.Close()
	head := "--b\r\nContent-Disposition: form-data; name=\"data\"; filename=\"d.bin\"\r\n\r\n" + strings.Repeat("x", 8<<10)
	for _, closeIt := range []bool{false, true} {
		conn, err := net.Dial("tcp", srv.Listener.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(conn, "POST /up HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=b\r\nContent-Length: %d\r\n\r\n%s",
			len(head)+100<<10, head)
		if closeIt {
			conn.Close()
			time.Sleep(100 * time.Millisecond)
			continue
		}
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusRequestTimeout || !resp.Close {
			t.Errorf("stopped mid-part: got %d (close %v) %s, want 408 and the connection closed", resp.StatusCode, resp.Close, body)
		}
		conn.Close()
	}
	deadline := time.Now().Add(2 * time.Second)
	for countFiles(t, dir) != 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond) // the closed connection's handler may still be returning
	}
	if n := countFiles(t, dir); n != 0 {
		t.Errorf("got %d temporary files after the clients stopped, want 0", n)
	}
	if n := ran.Load(); n != 0 {
		t.Errorf("the handler ran %d times for bodies that never ended, want 0", n)
	}
}

// streamedUpload returns a reader of a multipart body whose one part,
// "data", holds size bytes of a repeated pattern, written as it is read.
func streamedUpload(size int64, ctype string) (io.Reader, string) {
	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	go func() {
		h := make(map[string][]string)
		h["Content-Disposition"] = []string{`form-data; name="data"; filename="big.bin"`}
		if ctype != "" {
			h["Content-Type"] = []string{ctype}
		}
		w, err := mw.CreatePart(h)
		if err != nil {
			pw.CloseWithError(err)
			return
		}
		chunk := bytes.Repeat([]byte("0123456789abcdef"), 4<<10) // 64 KiB
		for left := size; left > 0; {
			n := min(left, int64(len(chunk)))
			if _, err := w.Write(chunk[:n]); err != nil {
				return
			}
			left -= n
		}
		pw.CloseWithError(mw.Close())
	}()
	return pr, mw.FormDataContentType()
}

// TestUploadMemory uploads 100 MiB and samples the heap while it streams:
// it may grow by no more than twice the upload memory (its default,
// 1 MiB), the rest of the file going to a temporary file.
func TestUploadMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("uploads 100 MiB")
	}
	dir := t.TempDir()
	t.Setenv("TMPDIR", dir)
	const size = 100 << 20
	r := waltz.New()
	r.MaxBodyBytes = size + 1<<20
	var got int64
	Op(r, http.MethodPost, "/up", func(c *waltz.Context, in *struct {
		Body struct {
			Data File `json:"data" accept:"text/plain"`
		}
	}) (*struct{}, error) {
		got = in.Body.Data.Size()
		return nil, nil
	}, Operation{})
	body, ct := streamedUpload(size, "text/plain")
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base, peak, total := ms.HeapAlloc, ms.HeapAlloc, ms.TotalAlloc
	done := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		var ms runtime.MemStats
		for {
			select {
			case <-done:
				return
			case <-time.After(2 * time.Millisecond):
			}
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapAlloc)
		}
	}()
	rec := postMultipart(t, r, body, ct)
	close(done)
	<-sampled
	if rec.Code != http.StatusNoContent || got != size {
		t.Fatalf("got %d %s, a file of %d bytes, want 204 and %d", rec.Code, rec.Body, got, size)
	}
	// The samples may miss a short peak; the bytes allocated while the
	// upload ran, the collected ones included, bound every peak.
	runtime.ReadMemStats(&ms)
	growth, allocated := int64(peak)-int64(base), int64(ms.TotalAlloc-total)
	t.Logf("100 MiB upload: heap grew by %d KiB at most in the samples, %d KiB allocated in all (UploadMemory %d KiB)",
		growth>>10, allocated>>10, int64(defaultUploadMemory)>>10)
	if growth > 2*defaultUploadMemory || allocated > 2*defaultUploadMemory {
		t.Errorf("heap grew by %d bytes, %d allocated, want at most %d (2 × UploadMemory)", growth, allocated, 2*defaultUploadMemory)
	}
	if n := countFiles(t, dir); n != 0 {
		t.Errorf("got %d temporary files after the upload, want 0", n)
	}
}

// cutReader reads r until n bytes, then fails as a connection that broke.
type cutReader struct {
	r io.Reader
	n int64
}

var errCut = errors.New("the client went away")

func (c *cutReader) Read(p []byte) (int, error) {
	if c.n <= 0 {
		return 0, errCut
	}
	if int64(len(p)) > c.n {
		p = p[:c.n]
	}
	n, err := c.r.Read(p)
	c.n -= int64(n)
	return n, err
}

// TestUploadNoTempLeft: 1,000 uploads that fail at random points (the body
// cut anywhere, a file too large, a second file refused for its bytes, the
// handler's error, the handler's panic) leave no temporary file.
func TestUploadNoTempLeft(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("TMPDIR", dir)
	silenceLogs(t)
	img := pngBytes(t, 8, 8)
	r := waltz.New()
	SetUploadMemory(r, 2<<10) // most files go to disk
	r.RenderError = waltz.RenderProblem
	Op(r, http.MethodPost, "/up", func(c *waltz.Context, in *struct {
		Body struct {
			A    File   `json:"a" maxBytes:"48KiB"`
			B    *File  `json:"b" accept:"image/png"`
			More []File `json:"more,omitempty" maxItems:"3"`
			Mode string `json:"mode"`
		}
	}) (*struct{}, error) {
		switch in.Body.Mode {
		case "panic":
			panic("the handler fails")
		case "error":
			return nil, errors.New("the handler fails")
		}
		return nil, nil
	}, Operation{})
	rng := rand.New(rand.NewPCG(24, 1))
	modes := []string{"ok", "panic", "error"}
	codes := map[int]int{}
	for i := range 1000 {
		bType := "image/png"
		bBytes := img
		if rng.IntN(4) == 0 {
			bBytes = []byte("plain text, not a PNG")
		}
		aSize := rng.IntN(56 << 10) // sometimes past 48 KiB
		body, ct := multipartBody(t,
			part{"a", "a.bin", "", bytes.Repeat([]byte{byte(i)}, aSize)},
			part{"more", "m1.bin", "", bytes.Repeat([]byte("m"), rng.IntN(8<<10))},
			part{"b", "b.png", bType, bBytes},
			part{"mode", "", "", []byte(modes[rng.IntN(3)])})
		var src io.Reader = body
		if rng.IntN(2) == 0 {
			src = &cutReader{r: body, n: rng.Int64N(int64(body.Len()))}
		}
		func() {
			defer func() { recover() }()
			rec := postMultipart(t, r, src, ct)
			codes[rec.Code]++
		}()
	}
	t.Logf("answers: %v", codes)
	if len(codes) < 4 {
		t.Errorf("got answers %v, want failures of several kinds", codes)
	}
	if n := countFiles(t, dir); n != 0 {
		t.Errorf("got %d temporary files after 1,000 failed uploads, want 0", n)
	}
}

// TestUploadCutShort: a body that ends before its close delimiter is a
// 400, never taken as whole with its last parts dropped, whatever bytes
// that look like a close delimiter come before (RFC 2046 section 5.1.1:
// the body ends with "--" boundary "--" on a line of its own). A body
// whose lines end in CRLF takes a delimiter only after a CRLF, so a bare
// LF before "--b--" in its parts' content is content; one whose first
// delimiter line ends in a bare LF is read with LF line ends throughout,
// as mime/multipart reads it.
func TestUploadCutShort(t *testing.T) {
	img := string(pngBytes(t, 8, 8))
	title := "--b\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\n"
	image := "--b\r\nContent-Disposition: form-data; name=\"image\"; filename=\"c.png\"\r\nContent-Type: image/png\r\n\r\n" + img + "\r\n"
	extra := "--b\r\nContent-Disposition: form-data; name=\"extra\"; filename=\"x.bin\"\r\n"
	// The same in LF line ends; the image's own bytes (a PNG holds a
	// CRLF) as they are.
	lf := func(s string) string { return strings.ReplaceAll(s, "\r\n", "\n") }
	imageLF := lf(image[:len(image)-len(img)-2]) + img + "\n"
	for _, tc := range []struct {
		name string
		body string
		code int
		want string
	}{
		// Cut short, each after something mime/multipart does not take
		// as the close delimiter.
		{"bare LF close in a text part, then a part cut in its header",
			title + "Cat\n--b--\r\n" + image + extra, 400, "ends before its closing boundary"},
		{"bare LF close in a text part, then a part cut after its header",
			title + "Cat\n--b--\r\n" + image + extra + "\r\n", 400, "ends before its closing boundary"},
		{"bare LF close in a text part, then a part cut in its content",
			title + "Cat\n--b--\r\n" + image + extra + "\r\nab", 400, "ends before its closing boundary"},
		{"bare LF close in the last part's header, then cut",
			title + "Cat\r\n" + image + extra + "--b--: x\r\n", 400, "ends before its closing boundary"},
		{"bare LF close in the last part's content, then cut",
			title + "Cat\r\n" + image + extra + "\r\nab\n--b--", 400, "ends before its closing boundary"},
		{"bare LF close in an unknown part's content, then cut",
			title + "Cat\r\n" + image + "--b\r\nContent-Disposition: form-data; name=\"other\"\r\n\r\nab\n--b--\r\n", 400, "ends before its closing boundary"},
		{"close in a quoted header parameter after a bare LF, then cut",
			title + "Cat\r\n" + image + "--b\r\nContent-Disposition: form-data; name=\"extra\"; filename=\"x\n--b--", 400, "malformed"},
		{"close with more after it on its line in the preamble, then cut",
			"preamble\r\n--b--x\r\n" + title + "Cat\r\n" + image + extra, 400, "ends before its closing boundary"},
		{"close line in LF ends in a CRLF body's preamble, then cut",
			"preamble\n--b--\n" + title + "Cat\r\n" + image + extra, 400, "ends before its closing boundary"},
		{"CRLF close in an LF body, then cut",
			lf(title+"Cat\r\n") + "--b--\r\n" + imageLF + lf(extra), 400, "ends before its closing boundary"},
		// A file shorter than the bytes its type is sniffed from, cut:
		// its bytes are not judged, for they were never all sent.
		{"cut in an image's first bytes", title + "Cat\r\n" + image[:len(image)-len(img)-2] + img[:6], 400, "ends before its closing boundary"},
		{"close split by a CR", title + "Cat\r\n" + image + "--b--\r", 400, "ends before its closing boundary"},
		{"close cut in its dashes", title + "Cat\r\n" + image + "--b-", 400, "ends before its closing boundary"},
		// Whole: the close delimiter as RFC 2046 section 5.1.1 writes it,
		// with or without the CRLF and epilogue after it, with transport
		// padding, or in an LF body.
		{"whole", title + "Cat\r\n" + image + "--b--\r\n", 200, `"Title":"Cat"`},
		{"whole with no CRLF after the close", title + "Cat\r\n" + image + "--b--", 200, `"Title":"Cat"`},
		{"whole with padding after the close", title + "Cat\r\n" + image + "--b-- \t", 200, `"Title":"Cat"`},
		{"whole with padding and CRLF after the close", title + "Cat\r\n" + image + "--b--\t \r\n", 200, `"Title":"Cat"`},
		{"whole with an epilogue", title + "Cat\r\n" + image + "--b--\r\n" + extra, 200, `"Extra":0`},
		{"whole with a bare LF close in a text part", title + "Cat\n--b--\r\n" + image + "--b--\r\n", 200, `"Title":"Cat\n--b--"`},
		{"whole in LF", lf(title+"Cat\r\n") + imageLF + "--b--\n", 200, `"Title":"Cat"`},
		{"whole in LF with no LF after the close", lf(title+"Cat\r\n") + imageLF + "--b--", 200, `"Title":"Cat"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, split := range []bool{false, true} {
				var body io.Reader = strings.NewReader(tc.body)
				if split {
					body = iotest.OneByteReader(body)
				}
				rec := postMultipart(t, uploadRouter(t, nil), body, "multipart/form-data; boundary=b")
				if rec.Code != tc.code || !strings.Contains(rec.Body.String(), tc.want) {
					t.Errorf("one byte a read %v: got %d %s, want %d with %s", split, rec.Code, rec.Body, tc.code, tc.want)
				}
			}
		})
	}
}

// FuzzUploadCutShort sends a body of a text part, an image and two
// files of fuzzed content, with CRLF or LF line ends, whole and cut at a
// fuzzed byte. No content holds a line end followed by "--b" nor starts
// with "--b", so the body's one close delimiter is its last line: the
// whole body, and the body without the line end after its close
// delimiter, bind every part; a body cut anywhere else is a 400, never
// a success with fewer parts than were sent.
func FuzzUploadCutShort(f *testing.F) {
	// Cut in the last part's header, after a bare LF "--b--" in the
	// text part's content of a CRLF body: this was taken as whole.
	f.Add(false, "Cat\n--b--", []byte("a"), []byte("b"), uint16(30))
	f.Add(false, "Cat", []byte("a\n--b--"), []byte("b"), uint16(30))
	f.Add(false, "Cat", []byte("a"), []byte("b\n--b--"), uint16(3))
	f.Add(true, "Cat", []byte("a"), []byte("b"), uint16(25))
	f.Add(false, "Cat", []byte("a"), []byte("b"), uint16(0))
	// Cut in the image's first bytes: its bytes were judged (415).
	f.Add(false, "0", []byte("0"), []byte("0"), uint16(226))
	img := string(pngBytes(f, 8, 8))
	r := uploadRouter(f, nil)
	f.Fuzz(func(t *testing.T, lf bool, title string, a, b []byte, back uint16) {
		nl := "\r\n"
		if lf {
			nl = "\n"
		}
		for _, c := range []string{title, string(a), string(b), img} {
			if strings.Contains(c, nl+"--b") || strings.HasPrefix(c, "--b") {
				return
			}
		}
		part := func(head, content string) string {
			return "--b" + nl + strings.ReplaceAll(head, "\n", nl) + nl + nl + content + nl
		}
		body := part(`Content-Disposition: form-data; name="title"`, title) +
			part("Content-Disposition: form-data; name=\"image\"; filename=\"c.png\"\nContent-Type: image/png", img) +
			part(`Content-Disposition: form-data; name="extra"; filename="a.bin"`, string(a)) +
			part(`Content-Disposition: form-data; name="extra"; filename="b.bin"`, string(b)) +
			"--b--" + nl
		whole := postMultipart(t, r, strings.NewReader(body), "multipart/form-data; boundary=b")
		want := `"Extra":2`
		if whole.Code != 200 && whole.Code != 422 || whole.Code == 200 && !strings.Contains(whole.Body.String(), want) {
			t.Fatalf("whole %q: got %d %s, want 200 with %s or 422", body, whole.Code, whole.Body, want)
		}
		cut := len(body) - 1 - int(back)%len(body)
		rec := postMultipart(t, r, strings.NewReader(body[:cut]), "multipart/form-data; boundary=b")
		switch {
		case cut == len(body)-len(nl):
			if rec.Code != whole.Code || rec.Body.String() != whole.Body.String() {
				t.Errorf("%q, without the line end after its close delimiter: got %d %s, want %d %s", body[:cut], rec.Code, rec.Body, whole.Code, whole.Body)
			}
		case rec.Code != 400:
			t.Errorf("%q, cut at byte %d of %d: got %d %s, want 400", body[:cut], cut, len(body), rec.Code, rec.Body)
		}
	})
}
