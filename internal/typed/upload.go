package typed

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode"

	"github.com/waltz-go/waltz/internal/header"
)

// The storage of an uploaded file: its first bytes checked against the
// media types its field accepts, then the content kept in memory up to the
// request's budget and written to a temporary file beyond it; every
// temporary file is listed in the request's Temp, which its caller empties.

// Part is one uploaded file of a multipart body, as binding stored it: in
// memory, or in a temporary file that Temp.Remove removes. A Part is
// read-only once bound.
type Part struct {
	// Filename is the file name the client gave, its last path element
	// only, with control characters and bidi controls left out and no
	// white space around it (see cleanName): "" when it gave none, or
	// only a path. It never names a file on this machine.
	Filename string
	// Type is the media type of the content, lower case, without
	// parameters: the one the part declared, or the one sniffed from its
	// first bytes when it declared none.
	Type string
	// Size is the content's length in bytes.
	Size int64

	mem  []byte // the content, when held in memory
	path string // the temporary file holding the content, otherwise
}

// Open returns a reader of p's content from its start; the caller closes
// it. A nil Part reads as empty.
func (p *Part) Open() (multipart.File, error) {
	if p == nil || p.path == "" {
		var mem []byte
		if p != nil {
			mem = p.mem
		}
		return memFile{bytes.NewReader(mem)}, nil
	}
	return os.Open(p.path)
}

// memFile is content held in memory as a multipart.File.
type memFile struct{ *bytes.Reader }

func (memFile) Close() error { return nil }

// Temp lists the temporary files of one request's uploads. Its zero value
// is empty and ready; Remove removes them all.
type Temp struct{ paths []string }

// Remove removes every temporary file of t and empties it, for the next
// request. It reports nothing: a file already gone is what it wants.
func (t *Temp) Remove() {
	for i, p := range t.paths {
		_ = os.Remove(p)
		t.paths[i] = ""
	}
	t.paths = t.paths[:0]
}

// Len returns how many temporary files t holds.
func (t *Temp) Len() int { return len(t.paths) }

// create makes a temporary file in os.TempDir, listed in t before anything
// is written to it, so that a failure at any later point leaves it to
// Remove.
func (t *Temp) create() (*os.File, error) {
	f, err := os.CreateTemp("", "waltz-upload-*")
	if err != nil {
		return nil, fmt.Errorf("waltz: an upload's temporary file: %w", err)
	}
	t.paths = append(t.paths, f.Name())
	return f, nil
}

// copyBufs are the buffers a part is copied through to its file.
var copyBufs = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

// sniffLen is how many first bytes http.DetectContentType reads.
const sniffLen = 512

// filePart is what a file field takes of a part: at most max bytes
// (413 past them), of the media types accept lists (nil: any).
type filePart struct {
	name   string // the part's name, for messages
	max    int64
	accept []string
}

// store reads the part r, whose header is h, into a new Part (nil for an
// empty part with no file name, which a form sends for a file input with
// no file chosen): in memory
// while *budget, the bytes the request may still hold in memory, allows,
// and in a temporary file listed in temp beyond it. Its errors are
// *BodyError (413 past fp.max, 415 for a media type fp does not accept,
// and those of reading the body: a body cut short in the part is a 400
// before its bytes are judged) or a plain error when a temporary file
// cannot be written.
func (fp *filePart) store(r io.Reader, h map[string][]string, budget *int64, temp *Temp) (*Part, error) {
	declared := ""
	if v := first(h["Content-Type"]); v != "" {
		mt, _, err := mime.ParseMediaType(v)
		if _, ok := header.MediaType(v); err != nil || !ok || !header.ValidParams(v) {
			// ParseMediaType lowers the type by Unicode before it
			// judges it: "İmage/png" would pass as image/png.
			return nil, fp.unsupported("declares the malformed media type " + Quote(v))
		}
		if isRange(mt) {
			// image/* names no type of content (RFC 9110 section
			// 8.3.1), and would pass any range it falls in whatever the
			// bytes are.
			return nil, fp.unsupported("declares the media range " + Quote(mt) + ", which is no media type")
		}
		declared = mt
	}
	head := make([]byte, sniffLen)
	n, err := readHead(r, head)
	head = head[:n]
	if err != nil && err != io.EOF {
		return nil, partReadError(err)
	}
	done := err != nil // the content is shorter than sniffLen
	filename := cleanFilename(h)
	if n == 0 && done && filename == "" {
		return nil, nil // an empty file input: no file chosen
	}
	if int64(n) > fp.max {
		return nil, fp.tooLarge()
	}
	sniffed, _, _ := mime.ParseMediaType(http.DetectContentType(head))
	if err := fp.check(declared, sniffed); err != nil {
		return nil, err
	}
	p := &Part{Filename: filename, Type: fp.known(declared), Size: int64(n)}
	if p.Type == "" {
		p.Type = sniffed
	}
	if done {
		p.mem = head
		*budget -= int64(n)
		return p, nil
	}
	return p, fp.rest(p, r, head, budget, temp)
}

// readHead reads r until head is full or r ends, and returns the bytes
// read and r's own error: io.EOF for content shorter than head. Unlike
// io.ReadFull, which answers io.ErrUnexpectedEOF for it, it leaves that
// error to a part whose body was cut short, a 400 before the first bytes
// are judged (a 415 for bytes that were never all sent).
func readHead(r io.Reader, head []byte) (int, error) {
	n := 0
	for n < len(head) {
		m, err := r.Read(head[n:])
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// rest reads the content of p after its first bytes head from r.
func (fp *filePart) rest(p *Part, r io.Reader, head []byte, budget *int64, temp *Temp) error {
	bp := copyBufs.Get().(*[]byte)
	defer copyBufs.Put(bp)
	buf := *bp
	mem := head     // grown once, to the budget, when the content outgrows head
	keep := *budget // what may be held: past it, or past fp.max, the content spills
	if fp.max < keep {
		keep = fp.max + 1
	}
	for {
		n, err := r.Read(buf)
		if n > 0 {
			if p.Size+int64(n) > fp.max {
				return fp.tooLarge()
			}
			if p.Size+int64(n) > keep {
				return fp.spill(p, r, mem, buf[:n], buf, temp)
			}
			if len(mem)+n > cap(mem) {
				grown := make([]byte, len(mem), keep)
				copy(grown, mem)
				mem = grown
			}
			mem = append(mem, buf[:n]...)
			p.Size += int64(n)
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return partReadError(err)
		}
	}
	p.mem = mem
	*budget -= p.Size
	return nil
}

// spill writes what p holds so far (held, then next) to a temporary file
// and copies the rest of r there, buf being the copy buffer.
func (fp *filePart) spill(p *Part, r io.Reader, held, next, buf []byte, temp *Temp) error {
	f, err := temp.create()
	if err != nil {
		return err
	}
	p.path = f.Name()
	err = fp.write(p, f, r, held, next, buf)
	if cerr := f.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("waltz: an upload's temporary file: %w", cerr)
	}
	return err
}

func (fp *filePart) write(p *Part, f *os.File, r io.Reader, held, next, buf []byte) error {
	werr := func(err error) error { return fmt.Errorf("waltz: an upload's temporary file: %w", err) }
	if _, err := f.Write(held); err != nil {
		return werr(err)
	}
	if _, err := f.Write(next); err != nil {
		return werr(err)
	}
	p.Size = int64(len(held) + len(next))
	for {
		n, err := r.Read(buf)
		if n > 0 {
			if p.Size+int64(n) > fp.max {
				return fp.tooLarge()
			}
			if _, werrv := f.Write(buf[:n]); werrv != nil {
				return werr(werrv)
			}
			p.Size += int64(n)
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return partReadError(err)
		}
	}
}

// check returns a 415 *BodyError unless the part's media types fit fp's
// accept list. With a declared type, it must be listed and the bytes must
// agree with it: the sniffed type is the declared one; or, for a type
// http.DetectContentType does not recognize, the sniffer's generic answer
// for its family (text/plain for a text type, application/octet-stream
// for another), or a listed type it is built on (a .docx sniffed as
// application/zip, both listed). So a PNG declared image/gif, or text
// declared image/png, is refused. Without a declared type the sniffed
// one must be listed, as for a declared type that says it is unknown
// (known).
func (fp *filePart) check(declared, sniffed string) error {
	if fp.accept == nil {
		return nil
	}
	declared = fp.known(declared)
	switch {
	case declared == "":
		if !accepts(fp.accept, sniffed) {
			return fp.unsupported("has bytes of " + sniffed)
		}
	case !accepts(fp.accept, declared):
		return fp.unsupported("is declared " + Quote(declared))
	case !fp.agrees(declared, sniffed):
		return fp.unsupported("is declared " + Quote(declared) + " but its bytes are " + sniffed)
	}
	return nil
}

// known returns declared, or "" when it says the sender does not know the
// type and accept does not list it: application/octet-stream, RFC 7578
// section 4.4's label for a file of unknown type (and the type
// multipart.Writer.CreateFormFile gives every file), so the bytes decide,
// as for a part that declares none.
func (fp *filePart) known(declared string) string {
	if declared == "application/octet-stream" && fp.accept != nil && !accepts(fp.accept, declared) {
		return ""
	}
	return declared
}

// agrees reports whether bytes sniffed as sniffed may be of the declared
// type, as check says. A type that accept takes only by a range (image/x-foo
// by image/*) and that the sniffer does not name must have bytes the
// range takes themselves: its name alone would let any bytes through the
// range. A type the list names takes the sniffer's generic answer (an
// AVIF, which it does not know, is application/octet-stream).
func (fp *filePart) agrees(declared, sniffed string) bool {
	switch {
	case sniffed == declared, sniffAliases[declared] == sniffed:
		return true
	case sniffable[declared] || sniffAliases[declared] != "":
		return false // the sniffer would have named it
	case !slices.Contains(fp.accept, declared):
		for _, a := range fp.accept {
			if matches(a, declared) && matches(a, sniffed) {
				return true
			}
		}
		return false
	case sniffed == "text/plain":
		return isText(declared)
	case sniffed == "application/octet-stream":
		return !isText(declared)
	}
	return accepts(fp.accept, sniffed) // a format built on a listed one
}

// sniffable are the media types http.DetectContentType names from a
// signature (RFC 7578 leaves the check to the server; the sniffing
// algorithm is WHATWG's MIME Sniffing): a part declared as one of them
// must sniff as it.
var sniffable = map[string]bool{
	"application/ogg": true, "application/pdf": true, "application/postscript": true,
	"application/vnd.ms-fontobject": true, "application/wasm": true, "application/x-gzip": true,
	"application/x-rar-compressed": true, "application/zip": true,
	"audio/aiff": true, "audio/midi": true, "audio/mpeg": true, "audio/wave": true,
	"font/collection": true, "font/otf": true, "font/ttf": true, "font/woff": true, "font/woff2": true,
	"image/bmp": true, "image/gif": true, "image/jpeg": true, "image/png": true,
	"image/webp": true, "image/x-icon": true,
	"text/html": true, "text/xml": true, "video/avi": true, "video/mp4": true, "video/webm": true,
}

// sniffAliases are other names of sniffable types, each with the name
// http.DetectContentType gives.
var sniffAliases = map[string]string{
	"image/vnd.microsoft.icon": "image/x-icon", "application/gzip": "application/x-gzip",
	"audio/wav": "audio/wave", "audio/x-wav": "audio/wave", "audio/x-aiff": "audio/aiff",
	"video/x-msvideo": "video/avi", "application/vnd.rar": "application/x-rar-compressed",
}

// isText reports whether the media type mt is text: text/*, or JSON,
// XML, YAML or JavaScript by name or suffix.
func isText(mt string) bool {
	switch mt {
	case "application/json", "application/xml", "application/yaml", "application/javascript", "application/x-ndjson":
		return true
	}
	return strings.HasPrefix(mt, "text/") || strings.HasSuffix(mt, "+json") || strings.HasSuffix(mt, "+xml")
}

// accepts reports whether the media type mt (lower case, no parameters)
// matches one of the ranges list holds ("image/png", "image/*", "*/*").
func accepts(list []string, mt string) bool {
	for _, a := range list {
		if matches(a, mt) {
			return true
		}
	}
	return false
}

// matches reports whether the media type mt is a, or in the range a.
func matches(a, mt string) bool {
	if a == mt || a == "*/*" {
		return true
	}
	prefix, ok := strings.CutSuffix(a, "/*")
	return ok && strings.HasPrefix(mt, prefix+"/")
}

// isRange reports whether the media type mt, parsed, is a range: its
// type or subtype "*".
func isRange(mt string) bool {
	t, sub, _ := strings.Cut(mt, "/")
	return t == "*" || sub == "*"
}

func (fp *filePart) unsupported(what string) error {
	want := "a media type such as image/png" // no accept: any type, but a type
	switch {
	case len(fp.accept) == 1:
		want = fp.accept[0]
	case len(fp.accept) > 1:
		want = "one of " + strings.Join(fp.accept, ", ")
	}
	return &BodyError{Status: http.StatusUnsupportedMediaType, Reason: ReasonMediaType, Part: fp.name,
		Message: fmt.Sprintf("part %s %s: it must be %s", Quote(fp.name), what, want)}
}

func (fp *filePart) tooLarge() error {
	return &BodyError{Status: http.StatusRequestEntityTooLarge, Reason: ReasonTooLarge, Part: fp.name,
		Message: fmt.Sprintf("part %s may be at most %d bytes", Quote(fp.name), fp.max)}
}

// partReadError returns the *BodyError of err, from reading a multipart
// body: ReadError's for the limit and the deadline, and a 400 that says
// the body is malformed or cut short for the rest (mime/multipart wraps
// the underlying reader's errors, so errors.As finds them).
func partReadError(err error) error {
	var be *BodyError
	switch e := ReadError(err); {
	case errors.As(e, &be) && be.Reason != ReasonRead:
		return e
	}
	return &BodyError{Status: http.StatusBadRequest, Reason: ReasonSyntax, Err: err,
		Message: "the multipart body is malformed or ends before its closing boundary"}
}

// cleanFilename returns the file name of the part header h as Part's
// Filename documents it (see cleanName).
func cleanFilename(h map[string][]string) string {
	_, params, err := mime.ParseMediaType(first(h["Content-Disposition"]))
	if err != nil {
		return ""
	}
	return cleanName(params["filename"])
}

// cleanName returns the file name a client gave as Part's Filename
// documents it: the last element of its path (after a '/' or a '\'),
// without control characters (NUL included), invalid UTF-8 or the
// characters that reorder text (Unicode's Bidi_Control: U+061C, U+200E,
// U+200F, U+202A to U+202E, U+2066 to U+2069), which make
// "photo\u202Egnp.exe" read "photoexe.png"; without white space around
// it; at most 255 bytes; and "" for a name of dots only. Cleaning a
// cleaned name changes nothing.
func cleanName(name string) string {
	if i := strings.LastIndexAny(name, `/\`); i >= 0 {
		name = name[i+1:]
	}
	name = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == unicode.ReplacementChar || unicode.Is(unicode.Bidi_Control, r) {
			return -1
		}
		return r
	}, name)
	if len(name) > 255 {
		name = strings.ToValidUTF8(name[:255], "")
	}
	name = strings.TrimSpace(name)
	if strings.Trim(name, ".") == "" {
		return ""
	}
	return name
}

func first(vs []string) string {
	if len(vs) == 0 {
		return ""
	}
	return vs[0]
}

// parseSize reads a size tag's value: bytes, or a number followed by KiB,
// MiB or GiB.
func parseSize(v string) (int64, bool) {
	mult := int64(1)
	for _, u := range [...]struct {
		s string
		m int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}} {
		if s, ok := strings.CutSuffix(v, u.s); ok {
			v, mult = s, u.m
			break
		}
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n <= 0 || n > (1<<62)/mult {
		return 0, false
	}
	return n * mult, true
}
