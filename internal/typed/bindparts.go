package typed

import (
	"bytes"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"unsafe"

	"github.com/waltz-go/waltz/internal/header"
)

// Binding a multipart/form-data body part by part, by its plan (multipart.go).

// maxParts is the most parts a multipart body may hold: past it, 413.
const maxParts = 1000

// maxText is the most bytes the text and JSON parts of one body may hold
// together, read into memory: past it, 413.
const maxText = 1 << 20

// partsRead is what binding a multipart body keeps while it reads.
type partsRead struct {
	files  [][]*Part
	counts []int
	jsons  []int           // the parts given for each JSON member
	text   strings.Builder // the text parts, written as a form body
	left   int64           // the bytes the text parts may still hold
	budget int64           // the bytes the files may still hold in memory
}

// bind reads the multipart body of b's request into the body value at p,
// part by part: a file to memory or a temporary file (listed in b.in.Temp),
// a text part into the form body that the scalar members bind from, a
// JSON part decoded into its member.
func (mp *multipartPlan) bind(b *binder, p unsafe.Pointer) error {
	in := &b.in
	ct := in.Req.Header.Get("Content-Type")
	mt, params, err := mime.ParseMediaType(ct)
	if _, ok := header.MediaType(ct); err != nil || !ok || mt != "multipart/form-data" {
		got := "none"
		if ct != "" {
			got = Quote(ct)
		}
		return &BodyError{Status: http.StatusUnsupportedMediaType, Reason: ReasonMediaType,
			Message: "Content-Type must be multipart/form-data, got " + got}
	}
	if !header.ValidParams(ct) {
		// mime.ParseMediaType takes "boundary*=utf-8''B" over
		// "boundary=A": a proxy would split the body on A.
		return &BodyError{Status: http.StatusBadRequest, Reason: ReasonSyntax,
			Message: "the multipart/form-data Content-Type's parameters are malformed: each is name=value, and no name has RFC 2231's '*' (RFC 9110 section 5.6.6)"}
	}
	if params["boundary"] == "" {
		return &BodyError{Status: http.StatusBadRequest, Reason: ReasonSyntax,
			Message: "the multipart/form-data Content-Type has no boundary parameter"}
	}
	if in.Temp == nil {
		return fmt.Errorf("waltz: a multipart body is bound with no Input.Temp for its files")
	}
	body, err := OpenBody(in.W, in.Req, in.Body.MaxBytes)
	if err != nil {
		return err
	}
	// NextRawPart's io.EOF is then the close delimiter: see closeWatch.
	mr := multipart.NewReader(&closeWatch{r: body, close: "--" + params["boundary"] + "--"}, params["boundary"])
	st := &partsRead{files: make([][]*Part, len(mp.files)), counts: make([]int, len(mp.files)),
		jsons: make([]int, len(mp.jsons)), left: maxText, budget: in.Body.Memory}
	for n := 0; ; n++ {
		part, err := mr.NextRawPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			return partReadError(err)
		}
		if n == maxParts {
			return &BodyError{Status: http.StatusRequestEntityTooLarge, Reason: ReasonTooLarge,
				Message: fmt.Sprintf("the body may hold at most %d parts", maxParts)}
		}
		if err := mp.part(b, p, part, st); err != nil {
			return err
		}
	}
	mp.finish(b, p, st)
	return nil
}

// closeWatch reads r for a mime/multipart.Reader, and hands it the io.EOF
// at r's end only when the stream's last line is the close delimiter
// with nothing after it: "--" boundary "--" and transport padding
// (RFC 2046 section 5.1.1), the one line mime/multipart ends on with no
// line end after it (Reader.nextPart's isFinalBoundary at EOF). At any
// other end it hands io.ErrUnexpectedEOF instead.
//
// So mime/multipart alone judges where a body's close delimiter is (a
// line "--" boundary "--" after its line end: CRLF, or LF when the first
// delimiter line ended in a bare LF), and NextRawPart's io.EOF always
// means it saw one: with io.EOF at r's end it also answered io.EOF for a
// body cut in the header of a part it had begun (textproto's end of a
// header block), which closeWatch's unexpected EOF makes an error.
// Watching for the delimiter in the bytes instead cannot tell which
// "\n--B--" mime/multipart takes: in a body of CRLF line ends a bare LF
// before it is content, and it may come in any part before the cut.
//
// Only the bytes after the stream's last '\n' are matched, a few of them
// at most: the lines before are found by bytes.IndexByte.
type closeWatch struct {
	r     io.Reader
	close string // "--" boundary "--"
	// NOTE: at is how far the stream's last line matches close and then
	// padding: the bytes of close matched (len(close): all of it,
	// padding since), or -1 when it does not match.
	at int
}

func (w *closeWatch) Read(b []byte) (int, error) {
	n, err := w.r.Read(b)
	p := b[:n]
	for i := bytes.IndexByte(p, '\n'); i >= 0; i = bytes.IndexByte(p, '\n') {
		p, w.at = p[i+1:], 0
	}
	for i := 0; i < len(p) && w.at >= 0; i++ {
		switch c := p[i]; {
		case w.at < len(w.close) && c == w.close[w.at]:
			w.at++
		case w.at < len(w.close) || c != ' ' && c != '\t':
			w.at = -1
		}
	}
	if err == io.EOF && w.at != len(w.close) {
		err = io.ErrUnexpectedEOF
	}
	return n, err
}

// part reads one part into st, or into its member at p.
func (mp *multipartPlan) part(b *binder, p unsafe.Pointer, part *multipart.Part, st *partsRead) error {
	// Content-Disposition is read by mime.ParseMediaType, which would
	// take "name*=utf-8''x" over name="y" and a filename* over a
	// filename (RFC 7578 section 4.2: a sender MUST NOT use filename*),
	// and Unicode white space around form-data: a part a proxy would
	// read as another is refused instead, and so is one with either field
	// twice, of which a proxy may read the last.
	if len(part.Header["Content-Disposition"]) > 1 || len(part.Header["Content-Type"]) > 1 {
		b.broken = true
		b.fail("body", "syntax", "has a part with two Content-Disposition or two Content-Type fields: a part has one of each (RFC 7578 section 4.2, RFC 9110 section 5.3)")
		return nil
	}
	for name := range part.Header {
		// mime/multipart keeps "Content-Type : x" under "Content-Type ",
		// which is no field name, where a proxy may read Content-Type.
		if !fieldName(name) {
			b.broken = true
			b.fail("body", "syntax", "has a part with a malformed field name, such as one with white space before its colon (RFC 5322 section 2.2)")
			return nil
		}
	}
	if cd := part.Header.Get("Content-Disposition"); cd != "" {
		if typ, _, _ := strings.Cut(cd, ";"); !header.EqualFold(header.TrimOWS(typ), "form-data") || !header.ValidParams(cd) {
			b.broken = true
			b.fail("body", "syntax", "has a part whose Content-Disposition is not form-data with plain parameters: name=\"...\" and filename=\"...\", no name* or filename* (RFC 7578 section 4.2)")
			return nil
		}
	}
	name := part.FormName()
	if name == "" {
		b.broken = true
		b.fail("body", "syntax", "has a part with no name: each part needs Content-Disposition: form-data; name=\"...\"")
		return nil
	}
	if ct := part.Header.Get("Content-Type"); ct != "" {
		if mt, _, _ := mime.ParseMediaType(ct); strings.HasPrefix(mt, "multipart/") {
			return &BodyError{Status: http.StatusUnsupportedMediaType, Reason: ReasonMediaType, Part: name,
				Message: fmt.Sprintf("part %s is multipart itself: send each file as a part of its own (RFC 7578 section 4.3)", Quote(name))}
		}
	}
	for i, fm := range mp.files {
		if fm.name == name {
			return mp.file(b, i, part, st)
		}
	}
	for i, jm := range mp.jsons {
		if jm.name == name {
			if st.jsons[i]++; st.jsons[i] > 1 {
				// A second value for one member, as a second text or
				// file part is: decoded over the first, it would keep
				// the first's failures and members the second leaves out.
				// One failure however many more, as for a file.
				if st.jsons[i] == 2 {
					b.fail(jm.loc, "type", "must be given once")
				}
				return nil // mime/multipart skips what is left of it
			}
			return jm.bind(b, p, part, st)
		}
	}
	if findParam(mp.text.params, name) == nil {
		if b.in.Body.Strict {
			b.fail("body."+Clip(name), "unknown", "is no part of this operation")
		}
		return nil // mime/multipart skips what is left of it
	}
	val, err := readText(part, name, st)
	if err != nil {
		return err
	}
	if st.text.Len() > 0 {
		st.text.WriteByte('&')
	}
	st.text.WriteString(url.QueryEscape(name))
	st.text.WriteByte('=')
	st.text.WriteString(url.QueryEscape(string(val)))
	return nil
}

// file stores the part for the file member mp.files[i].
func (mp *multipartPlan) file(b *binder, i int, part *multipart.Part, st *partsRead) error {
	fm := mp.files[i]
	st.counts[i]++
	switch c := st.counts[i]; {
	case !fm.multi && c == 2:
		b.fail(fm.loc, "type", "must be given once")
	case fm.multi && c == fm.maxItems+1:
		b.fail(fm.loc, "maxItems", "must have at most "+items(fm.maxItems)+", got more")
	}
	if !fm.multi && st.counts[i] > 1 || fm.multi && st.counts[i] > fm.maxItems {
		return nil // refused: not stored
	}
	pt, err := fm.store(part, part.Header, &st.budget, b.in.Temp)
	if err != nil {
		return err
	}
	if pt == nil { // an empty file input: no file chosen
		st.counts[i]--
		return nil
	}
	st.files[i] = append(st.files[i], pt)
	return nil
}

// readText reads a text or JSON part whole, within what st.left allows.
func readText(part io.Reader, name string, st *partsRead) ([]byte, error) {
	val, err := io.ReadAll(io.LimitReader(part, st.left+1))
	if err != nil {
		return nil, partReadError(err)
	}
	if int64(len(val)) > st.left {
		return nil, &BodyError{Status: http.StatusRequestEntityTooLarge, Reason: ReasonTooLarge, Part: name,
			Message: fmt.Sprintf("part %s is past what the text parts may hold together, %d bytes", Quote(name), maxText)}
	}
	st.left -= int64(len(val))
	return val, nil
}

// read decodes the part's JSON value into jm's member of the body at p,
// and fails a part that holds no value, or data after it.
func (jm *jsonMember) read(d *decoder, p unsafe.Pointer) {
	d.push(jm.name, -1)
	if d.ws(); d.i == len(d.s) {
		d.syntax("the part holds no JSON value")
	} else {
		d.value(jm.node, fieldAt(p, jm.off))
	}
	if d.err == "" {
		if d.ws(); d.i < len(d.s) {
			d.syntax(fmt.Sprintf("data after the JSON value, which ends at byte offset %d", d.i))
		}
	}
}

// bind decodes the JSON part into jm's member of the body at p.
func (jm *jsonMember) bind(b *binder, p unsafe.Pointer, part *multipart.Part, st *partsRead) error {
	if ct := part.Header.Get("Content-Type"); ct != "" && !IsJSONType(ct) {
		return &BodyError{Status: http.StatusUnsupportedMediaType, Reason: ReasonMediaType, Part: jm.name,
			Message: fmt.Sprintf("part %s must be application/json, got %s", Quote(jm.name), Quote(ct))}
	}
	raw, err := readText(part, jm.name, st)
	if err != nil {
		return err
	}
	d := decoder{s: raw, had: b.nfails, strict: b.in.Body.Strict}
	jm.read(&d, p)
	if d.again() {
		// See decoder.again.
		reflect.NewAt(jm.typ, fieldAt(p, jm.off)).Elem().SetZero()
		d = decoder{s: raw, had: b.nfails, strict: b.in.Body.Strict, keepAll: true}
		jm.read(&d, p)
	}
	if d.err != "" {
		b.broken = true
		b.fail(jm.loc, "syntax", fmt.Sprintf("malformed JSON at byte offset %d: %s", d.errAt, d.err))
		return nil
	}
	d.fails.send(b)
	return nil
}

// finish binds the text parts and stores the files read, and fails the
// required members no part gave.
func (mp *multipartPlan) finish(b *binder, p unsafe.Pointer, st *partsRead) {
	fb := binder{in: b.in, base: p, nfails: b.nfails}
	fb.query("body", mp.text.query, st.text.String(), false)
	fb.absent(mp.text.params)
	b.nfails, b.broken = fb.nfails, b.broken || fb.broken
	for i, fm := range mp.files {
		ps := st.files[i]
		switch {
		case len(ps) == 0:
			if fm.required {
				b.fail(fm.loc, "required", "is required")
			}
		case fm.multi:
			if len(ps) < fm.minItems {
				b.fail(fm.loc, "minItems", "must have at least "+items(fm.minItems)+", got "+strconv.Itoa(len(ps)))
			}
			sv := reflect.MakeSlice(fm.typ, len(ps), len(ps))
			for j, pt := range ps {
				setPart(itemAt(sv.UnsafePointer(), j, fm.elem.Size()), pt)
			}
			reflect.NewAt(fm.typ, fieldAt(p, fm.off)).Elem().Set(sv)
		case fm.ptr:
			setPart(setNew(fieldAt(p, fm.off), fm.elem), ps[0])
		default:
			setPart(fieldAt(p, fm.off), ps[0])
		}
	}
	for i, jm := range mp.jsons {
		if st.jsons[i] == 0 && jm.required {
			b.fail(jm.loc, "required", "is required")
		}
	}
}

// fieldName reports whether name is a header field name of a part (RFC
// 5322 section 2.2, ftext): printable ASCII but the colon, no white
// space.
func fieldName(name string) bool {
	for i := 0; i < len(name); i++ {
		if c := name[i]; c < '!' || c > '~' || c == ':' {
			return false
		}
	}
	return name != ""
}
