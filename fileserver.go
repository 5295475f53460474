package waltz

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/waltz-go/waltz/internal/cond"
)

// FileServerOptions configures [FileServer]. The zero value serves files
// and index.html files, lists no directories, hides dotfiles, and sets no
// Cache-Control.
type FileServerOptions struct {
	// Index is the file served for a directory, looked up inside it. Empty
	// means "index.html". It must be a single name: no '/'.
	Index string

	// Browse lists a directory that has no Index file, as an HTML page of
	// links sorted by name, leaving out the names FileServer refuses (a
	// control byte, say) and dotfiles unless Dotfiles is set. A symbolic
	// link is listed, and answers 404 if it leads out of an os.Root. Off
	// by default: such a directory answers 404.
	Browse bool

	// CacheControl, if not empty, is the Cache-Control header sent with every
	// file (RFC 9111 section 5.2), such as "public, max-age=3600", and
	// not with an error answer (a 412, a 416). The
	// Fallback file is always sent with "no-cache" instead, since it stands
	// for many URLs and changes with each deployment.
	CacheControl string

	// Fallback, if not empty, is the name of a file (such as "index.html",
	// for a single-page application) served with 200 OK for a GET or HEAD
	// whose name does not resolve to a file, when the name's last element
	// has no '.' (a page route such as "users/42", not an asset such as
	// "app.js", which still answers 404). It must satisfy fs.ValidPath.
	Fallback string

	// ETag sends a strong ETag (RFC 9110 section 8.8.3) made from a SHA-256
	// hash of each file's content, for file systems without modification
	// times such as embed.FS, so that If-None-Match gets 304 Not Modified.
	// A file is hashed once, when first served, and the tag is cached by
	// name, size and modification time; the cache holds at most 4096 tags
	// (an arbitrary one is dropped to make room), so about 4 MiB at most.
	ETag bool

	// Precompressed serves a sibling file "name.br" or "name.gz" (Brotli,
	// gzip) in place of "name", with Content-Encoding set, when the
	// request's Accept-Encoding accepts that coding (RFC 9110 section
	// 12.5.3: q-values, "*", "identity"; ties go to br). The Content-Type
	// is the original name's, so only names whose extension has a known
	// MIME type (mime.TypeByExtension) are candidates. Every file response
	// then carries "Vary: Accept-Encoding". A Range of one part is served
	// from the sibling's bytes; one of several parts gets the whole
	// sibling, as a multipart/byteranges of coded parts is no coded body.
	Precompressed bool

	// Dotfiles serves names with an element that starts with '.' (".env",
	// ".git/config"). Off by default: they answer 404, except
	// ".well-known" (RFC 8615).
	Dotfiles bool
}

// Limits on the names FileServer accepts, in bytes; a longer name
// answers 400.
const (
	maxFileName    = 1024
	maxFileElement = 255
)

// FileServer returns a handler that serves files from fsys, for a GET route
// whose last param is a catch-all:
//
//	root, err := os.OpenRoot("public")
//	...
//	r.Get("/static/*path", waltz.FileServer(root.FS(), waltz.FileServerOptions{}))
//
// The file's name is the value of the route's last param ("" for the root
// directory). Register it with Get, which also answers HEAD; the router
// answers 405 for other methods, and so does the handler if registered
// for one.
//
// To serve a directory of the operating system, pass the fs.FS of an
// [os.Root] (os.OpenRoot(dir) then root.FS()): neither ".." nor a symbolic
// link can lead out of it. [os.DirFS] follows symbolic links wherever they
// point. embed.FS, fstest.MapFS and any other fs.FS work too; use fs.Sub to
// serve a subdirectory.
//
// Names: the catch-all value is percent-decoded and may hold ".." and
// decoded slashes. FileServer answers 400 Bad Request for a name that holds
// a ".." element, a backslash, a NUL or other control byte, invalid UTF-8,
// more than 1024 bytes or an element over 255 bytes; it then cleans "." and
// empty elements away and checks the result with fs.ValidPath. A name that
// does not resolve to a regular file or a directory (missing, a symbolic
// link out of an os.Root, a file used as a directory, a device), and a
// dotfile unless Dotfiles is set, answers 404 Not Found; a permission error
// answers 403 Forbidden; no name makes it answer 500.
// These answers are [*HTTPError] values returned to the error handler.
//
// The preconditions (If-Match, If-Unmodified-Since, If-None-Match,
// If-Modified-Since, If-Range) are judged on the file's ETag and
// modification time in RFC 9110 section 13.2.2's order, by the evaluator
// middleware.ETag and typed operations judge theirs with: a 304 is
// FileServer's, a 412 an [*HTTPError] for the error handler. Files go out
// through [http.ServeContent], which handles Range and sets Last-Modified
// when the file has a modification time whose second has ended: a date
// names a second, and a file written twice within one keeps it (RFC 9110
// section 8.8.2.2), so a file modified in the current second (or in the
// future, taken as now: section 8.8.2.1) is sent with no Last-Modified,
// its ETag (if any) not cached, and a date of that second in a request is
// unsure: If-Range and If-Unmodified-Since false (the whole 200, a 412:
// no range of the new bytes is spliced onto the old, section 13.1.5),
// If-Modified-Since true (no 304). A Range is first
// put in a shape whose answer is never larger than the file plus a few
// kilobytes of framing (RFC 9110 section 14.2): overlapping and adjacent
// ranges are merged, a set of more than 16 ranges after that is ignored
// (200, the whole file), and so is a unit other than bytes (section
// 14.1). Under middleware.ETag, a FileServer without the ETag option
// sets the tag that middleware would give the file, before it judges
// the conditions, so a 304, 206 or 412 agrees with the 200. A
// 304's Content-Type and Content-Length are left for middleware.Compress
// to read (the router drops them). A Range that cannot be served
// (past the end, or malformed) is a 416 [*HTTPError] for the error
// handler too, which keeps its "Content-Range: bytes */size" (RFC 9110
// section 15.5.17); a 412 or 416 carries no ETag or Last-Modified. The Content-Type comes from the extension, else from
// sniffing (done before ServeContent for a conditional or range request);
// a writer of the chain with the method RepresentationType(string), as
// middleware.Compress's has, is told it before ServeContent answers, so
// that a multipart/byteranges 206 or a 416 gets the Vary the 200
// carries; when its method Encodes(int64) bool says the 200 would be
// encoded, a Range under an If-Range date gets the whole 200 (the date
// stands for the encoded representation, of which the file's bytes are
// no range). A file that is not an
// io.Seeker (a zip entry, say) is read into memory for each request.
//
// Directories: a directory named without a trailing slash (or with one
// escaped, "docs%2F") is redirected (301) to the same name with one,
// relative ("./docs/"), the query kept, so that relative links in its
// index page resolve inside it; a file named
// with a trailing slash answers 404. A directory with a slash serves its
// Index file, or a listing with Browse, or 404.
//
// Under a server's WriteTimeout, which net/http counts from the request's
// headers to the end of the answer, each MiB of a file gets the whole
// timeout: the connection's write deadline moves to now plus WriteTimeout
// before each ([net/http.ResponseController]), so a file that takes
// longer than WriteTimeout to send reaches a client that keeps reading,
// and one that stops reading is cut after WriteTimeout. The file still
// goes by sendfile where net/http can use it.
//
// FileServer panics, with a message naming the field, when fsys is nil or
// an option is malformed. Serving a small file from an fstest.MapFS costs
// 8 allocations, most of them http.ServeContent's; 9 with ETag (the tag
// cached), 13 for a precompressed sibling or a range, 6 for a 304, as
// TestFileServerAllocs holds.
func FileServer(fsys fs.FS, o FileServerOptions) HandlerFunc {
	if fsys == nil {
		panic("waltz: FileServer: fsys is nil")
	}
	if o.Index == "" {
		o.Index = "index.html"
	}
	if !fs.ValidPath(o.Index) || o.Index == "." || strings.Contains(o.Index, "/") {
		panic(fmt.Sprintf("waltz: FileServerOptions.Index %q is not a single file name", o.Index))
	}
	if o.Fallback != "" && (!fs.ValidPath(o.Fallback) || o.Fallback == ".") {
		panic(fmt.Sprintf("waltz: FileServerOptions.Fallback %q is not a valid fs.FS file name", o.Fallback))
	}
	if strings.ContainsFunc(o.CacheControl, isCtl) {
		panic(fmt.Sprintf("waltz: FileServerOptions.CacheControl %q holds a control character", o.CacheControl))
	}
	s := &fileServer{fsys: fsys, o: o}
	if o.ETag {
		s.etags = &etagCache{m: make(map[string]etagEntry)}
	}
	return s.serve
}

type fileServer struct {
	fsys  fs.FS
	o     FileServerOptions
	etags *etagCache // nil unless o.ETag
}

const maxCachedETags = 4096

// NOTE: shared; never modified.
var (
	errBadFileName   = &HTTPError{Code: http.StatusBadRequest, Message: "invalid file name"}
	encodingSuffixes = [...]struct{ coding, ext string }{{"br", ".br"}, {"gzip", ".gz"}}
)

func (s *fileServer) serve(c *Context) error {
	req := c.Request
	if req.Method != http.MethodGet && req.Method != http.MethodHead {
		c.Writer.Header()["Allow"] = []string{"GET, HEAD"} // its own: a middleware may edit it in place
		return errMethodNotAllowed
	}
	raw := ""
	if ps := c.Params(); len(ps) > 0 {
		raw = ps[len(ps)-1].Value
	}
	name, slash, ok := fileName(raw)
	if !ok {
		return errBadFileName
	}
	if !s.o.Dotfiles && hidden(name) {
		return errNotFound
	}
	f, fi, err := s.open(name)
	if err != nil {
		if s.o.Fallback != "" && !errors.Is(err, fs.ErrPermission) && isPage(name) {
			return s.serveFallback(c)
		}
		return openError(err)
	}
	defer f.Close()
	switch {
	case fi.IsDir():
		// A slash that came escaped ("sub%2F") is not the URL's: the
		// index's relative links would resolve in the parent.
		if slash && raw != "" && !strings.HasSuffix(req.URL.EscapedPath(), "/") {
			slash = false
		}
		return s.serveDir(c, name, f, slash)
	case slash:
		return errNotFound
	}
	return s.serveFile(c, name, f, fi, false)
}

// fileName checks and cleans a catch-all value. It reports the fs.FS name,
// whether the value ended in '/' (or was empty: the root), and whether the
// value is acceptable at all.
func fileName(raw string) (name string, slash, ok bool) {
	if len(raw) > maxFileName || !utf8.ValidString(raw) {
		return "", false, false
	}
	elem := 0 // start of the current element
	for i := 0; i <= len(raw); i++ {
		if i < len(raw) && raw[i] != '/' {
			if b := raw[i]; b == '\\' || b < 0x20 || b == 0x7f {
				return "", false, false
			}
			continue
		}
		if e := raw[elem:i]; e == ".." || len(e) > maxFileElement {
			return "", false, false
		}
		elem = i + 1
	}
	slash = raw == "" || raw[len(raw)-1] == '/'
	name = raw
	if !fs.ValidPath(name) {
		// Only "." and empty elements can remain: clean them away.
		name = path.Clean("/" + raw)[1:]
		if name == "" {
			name = "."
		}
	}
	return name, slash, fs.ValidPath(name)
}

// hidden reports whether name has an element that starts with '.', other
// than ".well-known" (RFC 8615) and the root ".".
func hidden(name string) bool {
	if name == "." {
		return false
	}
	for e := range strings.SplitSeq(name, "/") {
		if e[0] == '.' && e != ".well-known" {
			return true
		}
	}
	return false
}

// isPage reports whether name looks like a page route of a single-page
// application rather than an asset: its last element has no '.'.
func isPage(name string) bool {
	return !strings.Contains(path.Base(name), ".")
}

func isCtl(r rune) bool { return r < 0x20 || r == 0x7f }

// open opens name and stats it; the file is closed on error.
func (s *fileServer) open(name string) (fs.File, fs.FileInfo, error) {
	f, err := s.fsys.Open(name)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, fi, nil
}

// openError turns an error opening a checked name into a 403 or 404. Every
// other cause (ENOTDIR, ELOOP, ENAMETOOLONG, an os.Root "path escapes"
// error) means the name does not resolve to a file that may be served, so
// none of them is a 500.
func openError(err error) error {
	if errors.Is(err, fs.ErrPermission) {
		return &HTTPError{Code: http.StatusForbidden, Err: err}
	}
	return &HTTPError{Code: http.StatusNotFound, Err: err}
}

func (s *fileServer) serveFallback(c *Context) error {
	f, fi, err := s.open(s.o.Fallback)
	if err != nil {
		return openError(err)
	}
	defer f.Close()
	if !fi.Mode().IsRegular() {
		return errNotFound
	}
	return s.serveFile(c, s.o.Fallback, f, fi, true)
}

// serveFile sends f, named name, through http.ServeContent, or its
// precompressed sibling when the client accepts one.
func (s *fileServer) serveFile(c *Context, name string, f fs.File, fi fs.FileInfo, fallback bool) (err error) {
	if !fi.Mode().IsRegular() {
		return errNotFound
	}
	w := c.Writer
	h := w.Header()
	ctype := mime.TypeByExtension(path.Ext(name))
	if ctype != "" {
		h.Set("Content-Type", ctype)
	}
	if fallback || s.o.CacheControl != "" {
		prev, had := h["Cache-Control"]
		if fallback {
			h["Cache-Control"] = []string{"no-cache"} // its own, as Allow above
		} else {
			h.Set("Cache-Control", s.o.CacheControl)
		}
		// The file's caching is not an error answer's (a 412, 416 or
		// 500): RFC 9111 section 3 lets a cache store any answer with
		// explicit freshness, which would then stand for the file. What
		// was set before stays.
		defer func() {
			if err != nil && !c.started() {
				if had {
					h["Cache-Control"] = prev
				} else {
					delete(h, "Cache-Control")
				}
			}
		}()
	}
	coding := ""
	if s.o.Precompressed && ctype != "" {
		h.Add("Vary", "Accept-Encoding")
		if sib, sf, sfi, cd := s.sibling(name, c.Request.Header["Accept-Encoding"]); sf != nil {
			defer sf.Close()
			name, f, fi, coding = sib, sf, sfi, cd
		}
	}
	content, err := readSeeker(f)
	if err != nil {
		return err
	}
	if err := s.setTag(c, h, name, fi, content); err != nil {
		return err
	}
	req := c.Request
	if coding != "" || conditional(req.Header) {
		if ctype == "" && len(h["Content-Type"]) == 0 {
			// Sniff it as ServeContent would, before its 206, 416 or
			// 304 hides it.
			if ctype, err = sniff(name, content); err != nil {
				return err
			}
			h["Content-Type"] = []string{ctype}
		}
		w = &fileWriter{ResponseWriter: w, coding: coding, ctype: ctype, size: fi.Size()}
	}
	tellType(w, ctype)
	return sendContent(w, req, name, fi.ModTime(), fi.Size(), content)
}

// readSeeker returns f as an io.ReadSeeker, reading it into memory when it
// cannot seek.
func readSeeker(f fs.File) (io.ReadSeeker, error) {
	if rs, ok := f.(io.ReadSeeker); ok {
		return rs, nil
	}
	b, err := io.ReadAll(f)
	if err != nil {
		return nil, fmt.Errorf("waltz: FileServer: reading file: %w", err)
	}
	return bytes.NewReader(b), nil
}

// sniff returns the Content-Type http.DetectContentType gives the first
// 512 bytes of content, which it seeks back to its start.
func sniff(name string, content io.ReadSeeker) (string, error) {
	var buf [512]byte
	n, err := io.ReadFull(content, buf[:])
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		return "", fmt.Errorf("waltz: FileServer: reading %q: %w", name, err)
	}
	if _, err := content.Seek(0, io.SeekStart); err != nil {
		return "", fmt.Errorf("waltz: FileServer: reading %q: %w", name, err)
	}
	return http.DetectContentType(buf[:n]), nil
}

// etagCache holds the strong ETags of the files served, by name.
type etagCache struct {
	mu sync.Mutex
	m  map[string]etagEntry // NOTE: at most maxCachedETags entries
}

type etagEntry struct {
	size int64
	mod  time.Time
	tag  string
}

// tag returns the ETag for the file named name, hashing content (and then
// seeking it back to the start) unless a tag for the same name, size and
// modification time is cached. A tag is cached only once the second of
// the modification time has ended (cond.Settled): two versions written
// within one tick of a coarse file system clock share their size and
// time, and the second one must not get the first one's tag (RFC 9110
// section 8.8.2.2 for dates; a strong tag, section 8.8.3, names one
// version).
func (ec *etagCache) tag(name string, fi fs.FileInfo, content io.ReadSeeker) (string, error) {
	ec.mu.Lock()
	e, ok := ec.m[name]
	ec.mu.Unlock()
	if ok && e.size == fi.Size() && e.mod.Equal(fi.ModTime()) {
		return e.tag, nil
	}
	settled := cond.Settled(fi.ModTime(), time.Now()) // before the read
	hash := sha256.New()
	if _, err := io.Copy(hash, content); err != nil {
		return "", fmt.Errorf("waltz: FileServer: hashing %q: %w", name, err)
	}
	if _, err := content.Seek(0, io.SeekStart); err != nil {
		return "", fmt.Errorf("waltz: FileServer: hashing %q: %w", name, err)
	}
	tag := `"` + base64.RawURLEncoding.EncodeToString(hash.Sum(nil)[:18]) + `"`
	if !settled {
		return tag, nil
	}
	ec.mu.Lock()
	defer ec.mu.Unlock()
	if _, ok := ec.m[name]; !ok && len(ec.m) >= maxCachedETags {
		for k := range ec.m {
			delete(ec.m, k)
			break
		}
	}
	ec.m[name] = etagEntry{size: fi.Size(), mod: fi.ModTime(), tag: tag}
	return tag, nil
}
