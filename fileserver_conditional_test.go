package waltz

import (
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"
	"time"
)

func TestRangeField(t *testing.T) {
	for _, tc := range []struct {
		in      string
		size    int64
		want    string
		changed bool
	}{
		{"bytes=0-9", 100, "bytes=0-9", false},
		{"bytes=0-9,20-29", 100, "bytes=0-9,20-29", false},
		{"BYTES=0-9", 100, "bytes=0-9", true}, // the unit is case-insensitive
		{"bytes=-0", 100, "bytes=100-", true}, // no byte: unsatisfiable
		{"bytes=-0,0-1", 100, "bytes=0-1", true},
		{"bytes=0-99999999999999999999", 100, "bytes=0-99", true}, // past int64: past the end
		{"bytes=-99999999999999999999", 100, "bytes=0-99", true},
		{"bytes=99999999999999999999-", 100, "bytes=100-", true},
		{"bytes=0-0x1", 100, "bytes=0-0x1", false}, // malformed
		{"bytes=- 1", 100, "bytes=- 1", false},
		{"bytes=20-29,0-9", 100, "bytes=0-9,20-29", true},
		{"bytes=0-0,0-0,0-0", 100, "bytes=0-0", true},
		{"bytes=0-9,5-19", 100, "bytes=0-19", true},
		{"bytes=0-9,10-19", 100, "bytes=0-19", true}, // adjacent
		{"bytes=-10,0-", 100, "bytes=0-99", true},
		{"bytes=0-9,500-", 100, "bytes=0-9,500-", false}, // the unsatisfiable one is ServeContent's to skip
		{"bytes=500-", 100, "bytes=100-", true},          // nothing satisfiable: ServeContent's 416
		{"bytes=9-0", 100, "bytes=9-0", false},           // malformed: ServeContent's answer
		{"items=0-9", 100, "", true},                     // another unit: ignored
		{"bytes\u00a0=0-9", 100, "", true},               // no-break space is no OWS: another unit
		{"0-9", 100, "", true},
		{"bytes =0-9", 100, "", true},              // no space before '=' (section 14.1.1): another unit
		{"bytes=", 100, "bytes=", false},           // no range-spec (1#range-spec): malformed
		{"bytes=,", 100, "bytes=,", false},         // nor here
		{"bytes=, 0-9", 100, "bytes=, 0-9", false}, // ServeContent skips the empty element too
		{"bytes=" + strings.Repeat("0-0,", 300) + "0-0", 4096, "bytes=0-0", true},
		{"bytes=" + oddBytes(17), 1000, "", true}, // more parts than the cap
		{"bytes=" + oddBytes(16), 1000, "bytes=" + oddBytes(16), false},
	} {
		name := tc.in
		if len(name) > 40 {
			name = name[:40]
		}
		t.Run(name, func(t *testing.T) {
			got, changed := rangeField(tc.in, tc.size)
			if got != tc.want || changed != tc.changed {
				t.Errorf("got %q %v, want %q %v", got, changed, tc.want, tc.changed)
			}
		})
	}
}

// oddBytes returns n one-byte ranges, "1-1,3-3,...".
func oddBytes(n int) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = fmt.Sprintf("%d-%d", 2*i+1, 2*i+1)
	}
	return strings.Join(parts, ",")
}

// TestFileServerRangeBound: whatever the Range, the answer's body is never
// larger than the file plus a bounded framing, and a unit other than bytes
// gets the whole file.
func TestFileServerRangeBound(t *testing.T) {
	const small, big = 4 << 10, 1 << 20
	fsys := fstest.MapFS{
		"small.txt": {Data: []byte(strings.Repeat("a", small)), ModTime: modTime},
		"big.bin":   {Data: make([]byte, big), ModTime: modTime},
	}
	r := fileRouter(t, fsys, FileServerOptions{})
	const framing = maxRangeParts * 200 // boundary and part headers, generously
	for _, tc := range []struct {
		name, file, rng string
		size            int
		code            int
	}{
		{"300 overlapping 0-0", "small.txt", strings.Repeat("0-0,", 299) + "0-0", small, http.StatusPartialContent},
		{"20000 one-byte ranges", "big.bin", oddBytes(20000), big, http.StatusOK},
		{"16 one-byte ranges", "big.bin", oddBytes(16), big, http.StatusPartialContent},
		{"items unit", "small.txt", "", small, http.StatusOK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			field := "Range: bytes=" + tc.rng
			if tc.name == "items unit" {
				field = "Range: items=0-9"
			}
			w := fserve(t, r, http.MethodGet, "/static/"+tc.file, field)
			if w.Code != tc.code {
				t.Errorf("got %d, want %d", w.Code, tc.code)
			}
			if n := w.Body.Len(); n > tc.size+framing {
				t.Errorf("got a %d-byte body for a %d-byte file, want at most %d", n, tc.size, tc.size+framing)
			}
			if tc.code == http.StatusOK && w.Body.Len() != tc.size {
				t.Errorf("got %d bytes, want the whole file, %d", w.Body.Len(), tc.size)
			}
		})
	}
	// Random sets, a fixed seed: the bound holds for each.
	rnd := rand.New(rand.NewPCG(17, 17))
	for i := range 200 {
		n := 1 + rnd.IntN(40)
		specs := make([]string, n)
		for j := range specs {
			a := rnd.Int64N(small + 100)
			switch rnd.IntN(3) {
			case 0:
				specs[j] = fmt.Sprintf("%d-%d", a, a+rnd.Int64N(50))
			case 1:
				specs[j] = fmt.Sprintf("%d-", a)
			default:
				specs[j] = fmt.Sprintf("-%d", 1+rnd.Int64N(100))
			}
		}
		w := fserve(t, r, http.MethodGet, "/static/small.txt", "Range: bytes="+strings.Join(specs, ","))
		if w.Body.Len() > small+framing || (w.Code != 200 && w.Code != 206 && w.Code != 416) {
			t.Fatalf("set %d %q: got %d with %d bytes", i, specs, w.Code, w.Body.Len())
		}
	}
}

// TestFileServerErrorFields: FileServer's error answers (412, 416) carry
// no ETag, Last-Modified or Cache-Control of the file they did not send;
// a 416 keeps its Content-Range.
func TestFileServerErrorFields(t *testing.T) {
	r := fileRouter(t, testFS(), FileServerOptions{ETag: true, CacheControl: "public, max-age=3600"})
	for _, tc := range []struct {
		name, field string
		code        int
		rng         string
	}{
		{"If-Match another tag", `If-Match: "other"`, http.StatusPreconditionFailed, ""},
		{"If-Unmodified-Since before", "If-Unmodified-Since: Mon, 01 Jan 2001 00:00:00 GMT", http.StatusPreconditionFailed, ""},
		{"unsatisfiable range", "Range: bytes=9999-", http.StatusRequestedRangeNotSatisfiable, "bytes */5"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := fserve(t, r, http.MethodGet, "/static/hello.txt", tc.field)
			h := w.Header()
			if w.Code != tc.code || h.Get("Etag") != "" || h.Get("Last-Modified") != "" || h.Get("Content-Range") != tc.rng ||
				h.Get("Cache-Control") != "" {
				t.Errorf("got %d ETag %q Last-Modified %q Content-Range %q Cache-Control %q, want %d with none but Content-Range %q",
					w.Code, h.Get("Etag"), h.Get("Last-Modified"), h.Get("Content-Range"), h.Get("Cache-Control"), tc.code, tc.rng)
			}
		})
	}
}

// zeroFS serves one file, "big.bin", of size zero bytes that take no
// memory.
type zeroFS struct{ size int64 }

func (z zeroFS) Open(name string) (fs.File, error) {
	if name != "big.bin" {
		return nil, fs.ErrNotExist
	}
	return &zeroFile{SectionReader: io.NewSectionReader(zeros{}, 0, z.size), size: z.size}, nil
}

type zeros struct{}

func (zeros) ReadAt(p []byte, off int64) (int, error) {
	clear(p)
	return len(p), nil
}

type zeroFile struct {
	*io.SectionReader
	size int64
}

func (f *zeroFile) Stat() (fs.FileInfo, error) { return zeroInfo{f.size}, nil }
func (f *zeroFile) Close() error               { return nil }

type zeroInfo struct{ size int64 }

func (i zeroInfo) Name() string       { return "big.bin" }
func (i zeroInfo) Size() int64        { return i.size }
func (i zeroInfo) Mode() fs.FileMode  { return 0o444 }
func (i zeroInfo) ModTime() time.Time { return modTime }
func (i zeroInfo) IsDir() bool        { return false }
func (i zeroInfo) Sys() any           { return nil }

// countingWriter counts the body bytes written and keeps none.
type countingWriter struct {
	h    http.Header
	code int
	n    int64
}

func (w *countingWriter) Header() http.Header { return w.h }
func (w *countingWriter) WriteHeader(code int) {
	if w.code == 0 {
		w.code = code
	}
}
func (w *countingWriter) Write(p []byte) (int, error) {
	if w.code == 0 {
		w.code = http.StatusOK
	}
	w.n += int64(len(p))
	return len(p), nil
}

// TestFileServerRangeBigFile: 20,000 one-byte ranges on a 50 MB file get
// the whole file (more parts than a multipart answer has), not 3 MB of
// part headers around 20,000 bytes.
func TestFileServerRangeBigFile(t *testing.T) {
	const size = 50 << 20
	r := fileRouter(t, zeroFS{size}, FileServerOptions{})
	req := httptest.NewRequest(http.MethodGet, "/static/big.bin", nil)
	req.Header.Set("Range", "bytes="+oddBytes(20000))
	w := &countingWriter{h: http.Header{}}
	r.ServeHTTP(w, req)
	// Either the parts asked for with a bounded framing, or the file.
	const asked = 20000
	if w.code == http.StatusPartialContent && w.n > asked+maxRangeParts*200 || w.code == http.StatusOK && w.n != size {
		t.Errorf("got %d with %d bytes for %d one-byte ranges of a %d-byte file, want a 206 of at most %d bytes or the whole file",
			w.code, w.n, asked, size, asked+maxRangeParts*200)
	}
}

// TestFileServerRangeSpelling: Range fields whose syntax is valid but
// which http.ServeContent alone misreads get the answer RFC 9110 section
// 14.1.2 gives them.
func TestFileServerRangeSpelling(t *testing.T) {
	const size = 100
	r := fileRouter(t, fstest.MapFS{"f.txt": {Data: []byte(strings.Repeat("z", size)), ModTime: modTime}}, FileServerOptions{})
	for _, tc := range []struct {
		field        string
		code         int
		contentRange string
	}{
		{"BYTES=0-1", http.StatusPartialContent, "bytes 0-1/100"},
		{"Bytes=-5", http.StatusPartialContent, "bytes 95-99/100"},
		{"bytes=-0", http.StatusRequestedRangeNotSatisfiable, "bytes */100"},
		{"bytes=-0,0-1", http.StatusPartialContent, "bytes 0-1/100"},
		{"bytes=0-99999999999999999999", http.StatusPartialContent, "bytes 0-99/100"},
		{"bytes=-99999999999999999999", http.StatusPartialContent, "bytes 0-99/100"},
		{"bytes=99999999999999999999-", http.StatusRequestedRangeNotSatisfiable, "bytes */100"},
		// An invalid range (last before first, section 14.1.1) is
		// ServeContent's 416; every 416 to a byte-range request carries
		// the current length (section 15.5.17).
		{"bytes=5-1", http.StatusRequestedRangeNotSatisfiable, "bytes */100"},
		{"bytes=x-", http.StatusRequestedRangeNotSatisfiable, "bytes */100"},
	} {
		t.Run(tc.field, func(t *testing.T) {
			w := fserve(t, r, http.MethodGet, "/static/f.txt", "Range: "+tc.field)
			if w.Code != tc.code || w.Header().Get("Content-Range") != tc.contentRange {
				t.Errorf("got %d Content-Range %q, want %d %q", w.Code, w.Header().Get("Content-Range"), tc.code, tc.contentRange)
			}
		})
	}
}

// TestFileServerPreconditions: FileServer judges a request's
// preconditions with internal/cond, as middleware.ETag and typed
// operations do, before http.ServeContent sends the file: the rows below
// are those where ServeContent's own judgement differed (it reads the
// first line of a field only, takes a list's elements up to a malformed
// one, and writes its 412 itself).
func TestFileServerPreconditions(t *testing.T) {
	r := fileRouter(t, testFS(), FileServerOptions{ETag: true})
	r.RenderError = RenderProblem
	tag := fserve(t, r, http.MethodGet, "/static/hello.txt").Header().Get("Etag")
	at, before := modTime.Format(http.TimeFormat), modTime.Add(-time.Hour).Format(http.TimeFormat)
	for _, tc := range []struct {
		name   string
		fields []string
		code   int
		body   string
	}{
		// A field's lines are one list (RFC 9110 section 5.3).
		{"If-None-Match on a second line", []string{`If-None-Match: "x"`, "If-None-Match: " + tag}, 304, ""},
		{"If-Match on a second line", []string{`If-Match: "x"`, "If-Match: " + tag}, 200, "hello"},
		// A date field of two lines is no HTTP-date (section 13.1.3).
		{"If-Modified-Since twice", []string{"If-Modified-Since: " + at, "If-Modified-Since: " + at}, 200, "hello"},
		{"If-Unmodified-Since twice", []string{"If-Unmodified-Since: " + before, "If-Unmodified-Since: " + before}, 200, "hello"},
		// If-Range holds one validator (section 13.1.5).
		{"If-Range on two lines", []string{"Range: bytes=0-1", "If-Range: " + tag, "If-Range: " + tag}, 200, "hello"},
		{"If-Range the tag", []string{"Range: bytes=0-1", "If-Range: " + tag}, 206, "he"},
		{"If-Range the date", []string{"Range: bytes=0-1", "If-Range: " + at}, 206, "he"},
		{"If-Range another date", []string{"Range: bytes=0-1", "If-Range: " + before}, 200, "hello"},
		// A list malformed anywhere matches nothing (header.MatchETag).
		{"If-None-Match malformed after the tag", []string{"If-None-Match: " + tag + ", x"}, 200, "hello"},
		{"If-Match malformed after the tag", []string{"If-Match: " + tag + ", x"}, 412, ""},
		{"If-Match empty", []string{"If-Match: "}, 412, ""},
		// The order of section 13.2.2.
		{"If-Match the tag, If-Unmodified-Since before", []string{"If-Match: " + tag, "If-Unmodified-Since: " + before}, 200, "hello"},
		{"If-None-Match another, If-Modified-Since the date", []string{`If-None-Match: "x"`, "If-Modified-Since: " + at}, 200, "hello"},
		{"If-Modified-Since the date", []string{"If-Modified-Since: " + at}, 304, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := fserve(t, r, http.MethodGet, "/static/hello.txt", tc.fields...)
			if w.Code != tc.code || tc.code != 412 && w.Body.String() != tc.body {
				t.Errorf("got %d %q, want %d %q", w.Code, w.Body, tc.code, tc.body)
			}
		})
	}
}

// TestFileServerPreconditionFailed: FileServer's 412 is an error answer
// like any other: the router's error handler renders it (problem details
// here), without the file's Content-Type, ETag or Last-Modified.
func TestFileServerPreconditionFailed(t *testing.T) {
	r := fileRouter(t, testFS(), FileServerOptions{ETag: true})
	r.RenderError = RenderProblem
	w := fserve(t, r, http.MethodGet, "/static/index.html", `If-Match: "x"`)
	h := w.Header()
	if w.Code != http.StatusPreconditionFailed || h.Get("Content-Type") != "application/problem+json" || !strings.Contains(w.Body.String(), `"status":412`) {
		t.Errorf("got %d %q %q, want a 412 problem", w.Code, h.Get("Content-Type"), w.Body)
	}
	if h.Get("Etag") != "" || h.Get("Last-Modified") != "" {
		t.Errorf("got ETag %q Last-Modified %q on the 412, want none", h.Get("Etag"), h.Get("Last-Modified"))
	}
}

// TestFileServerFutureModTime: a file modified in the future is taken
// as modified now (RFC 9110 section 8.8.2.1), a second that has not
// ended, so it is sent with no Last-Modified (section 8.8.2.2) and no
// client keeps a date for which a file replaced before then would get
// 304s; and it is judged by that time.
func TestFileServerFutureModTime(t *testing.T) {
	future := time.Now().Add(100 * 365 * 24 * time.Hour).UTC().Truncate(time.Second)
	fsys := fstest.MapFS{"later.txt": {Data: []byte("new"), ModTime: future}}
	r := fileRouter(t, fsys, FileServerOptions{})
	before := time.Now().Truncate(time.Second)
	w := fserve(t, r, http.MethodGet, "/static/later.txt")
	if lm := w.Header().Get("Last-Modified"); w.Code != 200 || lm != "" {
		t.Errorf("got %d with Last-Modified %q, want 200 with none", w.Code, lm)
	}
	w = fserve(t, r, http.MethodGet, "/static/later.txt", "If-Modified-Since: "+before.Add(-time.Hour).Format(http.TimeFormat))
	if w.Code != 200 || w.Body.String() != "new" {
		t.Errorf("If-Modified-Since an hour ago: got %d %q, want 200 and the file", w.Code, w.Body)
	}
	w = fserve(t, r, http.MethodGet, "/static/later.txt", "If-Unmodified-Since: "+future.Format(http.TimeFormat))
	if w.Code != 200 || w.Body.String() != "new" {
		t.Errorf("If-Unmodified-Since the future date: got %d %q, want 200 and the file", w.Code, w.Body)
	}
}
