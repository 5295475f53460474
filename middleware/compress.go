package middleware

import (
	"fmt"
	"net/http"
	"strings"
	"sync"

	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/internal/header"
)

// CompressOptions configures [Compress]. The zero value compresses bodies
// of 1024 bytes or more, of the default content types, at level 6.
type CompressOptions struct {
	// Level is the compression level, from 1 (fastest) to 9 (smallest);
	// 0 means 6, the default of compress/flate.
	Level int

	// MinSize is the smallest body, in bytes, worth compressing; 0 means
	// 1024. Smaller bodies go out as they are. Compress buffers up to MinSize
	// bytes of a response to learn its size.
	MinSize int

	// ContentTypes lists the media types to compress, as "type/subtype",
	// "type/*" or "type/*+suffix" (such as "application/*+json"), compared
	// without case and without parameters. Nil means the default list:
	// text/*, JSON, JavaScript, XML, SVG, WebAssembly, ndjson and
	// uncompressed fonts.
	ContentTypes []string
}

// defaultCompressTypes is the list a nil CompressOptions.ContentTypes means.
var defaultCompressTypes = []string{
	"text/*",
	"application/json", "application/*+json", "application/x-ndjson",
	"application/javascript", "application/x-javascript", "application/ecmascript",
	"application/xml", "application/*+xml", "image/svg+xml",
	"application/wasm",
	"font/ttf", "font/otf", "application/vnd.ms-fontobject", "image/x-icon",
}

// Compress returns middleware that compresses response bodies with gzip or
// deflate (the zlib format, RFC 9110 section 8.4.1.2), whichever the
// request's Accept-Encoding prefers (RFC 9110 section 12.5.3: q-values,
// "*", "identity;q=0"; q=0 means not acceptable; gzip wins a tie, and an
// explicit "identity" with a higher q than both wins over them). With no
// Accept-Encoding, or none acceptable, the body goes out unencoded: RFC
// 9110 section 12.1 lets a server disregard the field rather than answer
// 406, and an error page nobody can read helps no one.
//
// A response is compressed when all of these hold: the status is not 1xx,
// 204, 206 or 304; it has no Content-Range and no Content-Encoding; its
// Cache-Control has no "no-transform"; its Content-Type (sniffed as
// net/http would when unset) is in [CompressOptions].ContentTypes; and its
// body reaches MinSize bytes, or the handler flushes before that (so
// server-sent events stream compressed, event by event: each Flush flushes
// the compressor, then the connection). A HEAD is decided as its GET
// would be, so it carries the GET's Content-Encoding, ETag and Vary (RFC
// 9110 section 9.3.2); when its handler writes no body (http.ServeContent)
// the declared Content-Length stands for the body's size.
// Compressing drops Content-Length and Accept-Ranges and makes a strong
// ETag weak, W/"x" for "x": the encoded bytes differ, so the strong tag
// must not be shared (RFC 9110 section 8.8.3.3), while a weak tag may be
// shared by semantically equal representations (section 8.8.1), and
// If-None-Match, which compares weakly (section 13.1.2), still matches the
// identity tag, so revalidation keeps working without rewriting requests.
// Every response whose type is compressible gets "Vary: Accept-Encoding"
// (RFC 9110 section 12.5.5), compressed or not, a 206 and a 416 included
// (never compressed: a range of the identity body, with a strong tag that
// matches the 200's weakly, or the answer that no range asked for exists).
// A 304 gets the Vary and ETag of the 200 it stands for (RFC 9110 section
// 15.4.5), told by the Content-Type and Content-Length left on it, as
// middleware.ETag and waltz.FileServer leave them: Vary for a
// compressible type, and the tag made weak when that 200 was compressed;
// a 304 with no Content-Type is left as it is. An answer whose own type
// is not the representation's (http.ServeContent's multipart/byteranges
// 206, its text/plain 416) is judged by the type a handler tells the
// writer's method RepresentationType(string), as waltz.FileServer does.
// Its method Encodes(size int64) bool says whether the 200 of that type
// and size would be compressed for the request: waltz.FileServer then
// takes an If-Range date as false, as a range of the identity bytes does
// not continue the compressed 200 whose date the client holds.
//
// The writer it installs keeps Flush, Hijack, Unwrap (for
// [http.ResponseController]), WriteString, and ReadFrom, which hands an
// uncompressed body (an image, say) to the inner writer's ReadFrom
// (sendfile). Error pages the router renders through it are compressed
// like any response. Writer, buffer and compressor are pooled: a request
// costs one allocation, compressed or not (the Vary and Content-Encoding
// values, which each response owns so that an edit in place of one never
// shows in another), plus two when a strong ETag is made weak and one
// when the Content-Type is sniffed (held by testing.AllocsPerRun).
//
// Compress panics, with a message naming the field, if Level is outside 0
// to 9, MinSize is negative, or a ContentTypes entry is malformed.
func Compress(o CompressOptions) waltz.Middleware {
	m := newCompressor(o)
	return func(next waltz.HandlerFunc) waltz.HandlerFunc {
		return func(c *waltz.Context) error { return m.serve(next, c) }
	}
}

// compressor is one Compress middleware's configuration and pool.
type compressor struct {
	level   int
	minSize int
	types   []mediaRange
	pool    sync.Pool // of *compressWriter, whose compressors use level
}

// mediaRange is a parsed ContentTypes entry: typ/sub, typ/* (sub ""), or
// typ/*+suffix (suffix "+json").
type mediaRange struct{ typ, sub, suffix string }

func newCompressor(o CompressOptions) *compressor {
	if o.Level < 0 || o.Level > 9 {
		panic(fmt.Sprintf("waltz: CompressOptions.Level %d is outside 0 to 9", o.Level))
	}
	if o.MinSize < 0 {
		panic(fmt.Sprintf("waltz: CompressOptions.MinSize %d is negative", o.MinSize))
	}
	m := &compressor{level: o.Level, minSize: o.MinSize}
	if m.level == 0 {
		m.level = 6
	}
	if m.minSize == 0 {
		m.minSize = 1024
	}
	types := o.ContentTypes
	if types == nil {
		types = defaultCompressTypes
	}
	for _, t := range types {
		m.types = append(m.types, parseMediaRange(t))
	}
	m.pool.New = func() any {
		cw := &compressWriter{m: m}
		// Room for MinSize bytes and the one past it that ends the holding.
		cw.self, cw.limit, cw.buf = cw, m.minSize, make([]byte, 0, m.minSize+1)
		return cw
	}
	return m
}

func parseMediaRange(s string) mediaRange {
	t := strings.ToLower(strings.TrimSpace(s))
	typ, sub, ok := strings.Cut(t, "/")
	if !ok || typ == "" || sub == "" || typ == "*" || strings.ContainsAny(t, " ;,") {
		panic(fmt.Sprintf("waltz: CompressOptions.ContentTypes entry %q is not type/subtype, type/* or type/*+suffix", s))
	}
	switch {
	case sub == "*":
		return mediaRange{typ: typ}
	case strings.HasPrefix(sub, "*+") && len(sub) > 2:
		return mediaRange{typ: typ, suffix: sub[1:]}
	case strings.Contains(sub, "*"):
		panic(fmt.Sprintf("waltz: CompressOptions.ContentTypes entry %q is not type/subtype, type/* or type/*+suffix", s))
	}
	return mediaRange{typ: typ, sub: sub}
}

// compressible reports whether the Content-Type value ct is in m's list.
func (m *compressor) compressible(ct string) bool {
	if i := strings.IndexByte(ct, ';'); i >= 0 {
		ct = ct[:i]
	}
	typ, sub, ok := strings.Cut(strings.TrimSpace(ct), "/")
	if !ok {
		return false
	}
	for _, r := range m.types {
		if !header.EqualFold(typ, r.typ) {
			continue
		}
		switch {
		case r.suffix != "":
			if len(sub) > len(r.suffix) && header.EqualFold(sub[len(sub)-len(r.suffix):], r.suffix) {
				return true
			}
		case r.sub == "" || header.EqualFold(sub, r.sub):
			return true
		}
	}
	return false
}

func (m *compressor) serve(next waltz.HandlerFunc, c *waltz.Context) error {
	cw := m.pool.Get().(*compressWriter)
	cw.w = c.Writer
	cw.enc = negotiateEncoding(c.Request.Header["Accept-Encoding"])
	cw.head = c.Request.Method == http.MethodHead
	orig := c.Writer
	c.Writer = cw
	defer func() {
		// Also on a panic: the Recoverer outside must write to the
		// real writer, and the pooled wrapper must forget this request.
		c.Writer = orig
		cw.reset()
		cw.head, cw.rtype = false, ""
		m.pool.Put(cw)
	}()
	err := next(c)
	cw.finish(c.Response().Aborted())
	return err
}

// RepresentationType tells the writer Compress installs the Content-Type
// of the representation the response stands for, for a handler whose
// answer may not carry it: http.ServeContent's multipart/byteranges 206,
// its 416 and its 304. Whether Compress compresses, and whether it adds
// "Vary: Accept-Encoding", is then decided by that type rather than by
// the answer's own, so those answers vary as the 200 does (RFC 9110
// sections 12.5.5 and 15.4.5). waltz.FileServer calls it, through the
// writers' Unwrap chain, before http.ServeContent answers; ct is a
// Content-Type field value ("" tells nothing).
func (cw *compressWriter) RepresentationType(ct string) { cw.rtype = ct }

// encoding is a content coding Compress can produce.
type encoding uint8

const (
	encIdentity encoding = iota
	encGzip
	encDeflate
)

// aeCodings are the codings negotiateEncoding weighs, in the order of its
// weights.
var aeCodings = []string{"gzip", "deflate", "identity"}

// negotiateEncoding picks the coding for the Accept-Encoding field lines
// h, as [Compress] documents (RFC 9110 section 12.5.3), from the weights
// the shared parser reads ([header.Codings]: a coding listed twice, or as
// both gzip and x-gzip, takes its lowest weight; an element with a
// malformed weight is skipped).
func negotiateEncoding(h []string) encoding {
	if len(h) == 0 {
		return encIdentity
	}
	var q [3]int
	header.Codings(h, aeCodings, q[:])
	qGzip, qDeflate, qIdentity := q[0], q[1], q[2]
	// An unlisted identity is acceptable but preferred least (section
	// 12.5.3): it only wins when nothing else is acceptable.
	switch {
	case qGzip > 0 && qGzip >= qDeflate && qGzip >= qIdentity:
		return encGzip
	case qDeflate > 0 && qDeflate >= qIdentity:
		return encDeflate
	}
	return encIdentity
}
