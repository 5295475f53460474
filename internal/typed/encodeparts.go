package typed

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"net/url"
	"reflect"
	"strings"
	"unsafe"
)

// The client's side of a multipart body (multipart.go): a body value
// with file members written as multipart/form-data (RFC 7578), each
// member a part of its JSON name, checked as binding checks the parts.

// NewPart returns a Part held in memory, holding content, of the media
// type mediaType ("" for the one http.DetectContentType finds in its
// first bytes) and the file name filename: a file for a client to send,
// or for a test to hand a handler.
func NewPart(filename, mediaType string, content []byte) *Part {
	if mediaType == "" {
		mediaType, _, _ = mime.ParseMediaType(http.DetectContentType(content[:min(len(content), sniffLen)]))
	}
	return &Part{Filename: filename, Type: mediaType, Size: int64(len(content)), mem: content}
}

// encode writes the multipart body at p, a value of mp's body type, into
// e: its file parts, then its JSON parts, then its text parts, failing to
// b what binding such a body would fail, in the order binding finds it.
// A file that binding refuses as a whole, too large or of a media type
// its member does not accept, is the *BodyError binding returns (413,
// 415).
func (mp *multipartPlan) encode(b *binder, p unsafe.Pointer, e *Encoded) error {
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	var late []func() // the failures binding finds once the body is read
	for _, fm := range mp.files {
		parts := fm.parts(p)
		switch n := len(parts); {
		case n == 0:
			if fm.required {
				late = append(late, func() { b.fail(fm.loc, "required", "is required") })
			}
		case !fm.multi:
		case n > fm.maxItems:
			b.fail(fm.loc, "maxItems", "must have at most "+items(fm.maxItems)+", got more")
		case n < fm.minItems:
			late = append(late, func() {
				b.fail(fm.loc, "minItems", fmt.Sprintf("must have at least %s, got %d", items(fm.minItems), n))
			})
		}
		for _, pt := range parts {
			if err := fm.write(w, pt); err != nil {
				return err
			}
		}
	}
	for _, jm := range mp.jsons {
		if err := jm.write(b, w, mp.text.typ, p, &late); err != nil {
			return err
		}
	}
	fb := binder{in: b.in, base: p, nfails: b.nfails}
	form := string(fb.appendPairs(nil, mp.text.params, p))
	for k, v, rest, more := nextPair(form); more; k, v, rest, more = nextPair(rest) {
		name, _ := url.QueryUnescape(k) // appendPairs escaped them
		val, _ := url.QueryUnescape(v)
		if err := w.WriteField(name, val); err != nil {
			return err
		}
	}
	fb.required(mp.text.params, p)
	b.nfails = fb.nfails
	for _, f := range late {
		f()
	}
	if err := w.Close(); err != nil {
		return err
	}
	e.Body, e.ContentType = buf.Bytes(), w.FormDataContentType()
	return nil
}

// parts returns the parts fm's member holds in the body at p: none, one,
// or a slice's.
func (fm *fileMember) parts(p unsafe.Pointer) []*Part {
	fp := fieldAt(p, fm.off)
	// A file type's one field is its *Part, at the file's own address.
	part := func(at unsafe.Pointer) *Part {
		return reflect.NewAt(partPtrType, at).Elem().Interface().(*Part)
	}
	switch {
	case fm.multi:
		data, n := sliceAt(fp)
		var ps []*Part
		for i := range n {
			if pt := part(itemAt(data, i, fm.elem.Size())); pt != nil {
				ps = append(ps, pt)
			}
		}
		return ps
	case fm.ptr:
		if fp = deref(fp); fp == nil {
			return nil
		}
	}
	if pt := part(fp); pt != nil {
		return []*Part{pt}
	}
	return nil
}

// write writes pt as a part of fm, checked as store checks it.
func (fm *fileMember) write(w *multipart.Writer, pt *Part) error {
	if pt.Size > fm.max {
		return fm.tooLarge()
	}
	r, err := pt.Open()
	if err != nil {
		return err
	}
	defer r.Close()
	head := make([]byte, sniffLen)
	n, _ := io.ReadFull(r, head)
	sniffed, _, _ := mime.ParseMediaType(http.DetectContentType(head[:n]))
	// A part with no type is given the sniffed one, as a browser names
	// the type of the files it sends.
	ctype, declared := pt.Type, sniffed
	if ctype == "" {
		ctype = sniffed
	} else if declared, _, err = mime.ParseMediaType(ctype); err != nil {
		return fm.unsupported("declares the malformed media type " + Quote(ctype))
	}
	if err := fm.check(declared, sniffed); err != nil {
		return err
	}
	h := textproto.MIMEHeader{}
	disp := `form-data; name="` + quoteEscaper.Replace(fm.name) + `"`
	if pt.Filename != "" {
		disp += `; filename="` + quoteEscaper.Replace(pt.Filename) + `"`
	}
	h.Set("Content-Disposition", disp)
	h.Set("Content-Type", ctype)
	pw, err := w.CreatePart(h)
	if err != nil {
		return err
	}
	if _, err = pw.Write(head[:n]); err == nil {
		_, err = io.Copy(pw, r)
	}
	return err
}

var quoteEscaper = strings.NewReplacer(`\`, `\\`, `"`, `\"`)

// write writes jm's member of the body at p, of type body, as a JSON
// part, checked as bind checks it (by the decoder, into a body of its
// own); a required member left out fails among late.
func (jm *jsonMember) write(b *binder, w *multipart.Writer, body reflect.Type, p unsafe.Pointer, late *[]func()) error {
	v := reflect.NewAt(jm.typ, fieldAt(p, jm.off))
	if jm.typ.Kind() == reflect.Pointer && v.Elem().IsNil() {
		if jm.required {
			*late = append(*late, func() { b.fail(jm.loc, "required", "is required") })
		}
		return nil
	}
	raw, err := json.Marshal(v.Interface())
	if err != nil {
		b.fail(jm.loc, "type", "cannot be written as JSON: "+Clip(err.Error()))
		return nil
	}
	d := decoder{s: raw, had: b.nfails}
	d.push(jm.name, -1)
	d.value(jm.node, fieldAt(reflect.New(body).UnsafePointer(), jm.off))
	d.fails.send(b)
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", `form-data; name="`+quoteEscaper.Replace(jm.name)+`"`)
	h.Set("Content-Type", "application/json")
	pw, err := w.CreatePart(h)
	if err == nil {
		_, err = pw.Write(raw)
	}
	return err
}
