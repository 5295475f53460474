package contracttest

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"unicode/utf8"
)

// values are the inputs of one request: a value for each of the
// operation's params (nil: left out), a body (nil media: none), and
// what else the case changes.
type values struct {
	params []any
	media  *media
	body   any
	ctype  string // the Content-Type to send instead of the media's
	noAuth bool   // leave the credentials out
}

// base returns the operation's valid values: every param, the first
// media type's body.
func (o *operation) base() values {
	v := values{params: make([]any, len(o.params))}
	for i, p := range o.params {
		v.params[i] = p.value
	}
	if len(o.media) > 0 {
		v.media, v.body = o.media[0], o.media[0].value
	}
	return v
}

// wire is a request as it goes out: method, target (escaped path and
// query), header lines, body.
type wire struct {
	method, target string
	header         [][2]string
	body           []byte
	hasBody        bool
	stream         bool // the operation may answer an event stream
}

// wire returns the request of o with v.
func (o *operation) wire(v values) *wire {
	w := &wire{method: o.method, stream: strings.Contains(o.accept, "text/event-stream")}
	path := o.path
	var query, cookies []string
	for i, p := range o.params {
		if v.params[i] == nil {
			continue
		}
		ts := texts(v.params[i], p.sep)
		switch {
		case p.in == "path":
			path = strings.ReplaceAll(path, "{"+p.name+"}", url.PathEscape(strings.Join(ts, "")))
		case p.in == "query" && p.sep != "":
			// The items escaped, the separator not (a comma) or escaped
			// as itself (%20, %7C): RFC 6570 section 3.2.8, so that a
			// comma inside an item stays inside it.
			items := texts(v.params[i], "")
			for j, t := range items {
				items[j] = url.QueryEscape(t)
			}
			sep := p.sep
			if sep != "," {
				sep = url.PathEscape(sep)
			}
			query = append(query, url.QueryEscape(p.name)+"="+strings.Join(items, sep))
		case p.in == "query":
			for _, t := range ts {
				query = append(query, url.QueryEscape(p.name)+"="+url.QueryEscape(t))
			}
		case p.in == "header":
			w.header = append(w.header, [2]string{p.name, strings.Join(ts, ",")})
		case p.in == "cookie":
			cookies = append(cookies, p.name+"="+strings.Join(ts, ","))
		}
	}
	if !v.noAuth {
		for _, c := range o.creds {
			switch c.in {
			case "header":
				w.header = append(w.header, [2]string{c.name, c.value})
			case "query":
				query = append(query, url.QueryEscape(c.name)+"="+url.QueryEscape(c.value))
			case "cookie":
				cookies = append(cookies, c.name+"="+c.value)
			}
		}
	}
	if len(cookies) > 0 {
		w.header = append(w.header, [2]string{"Cookie", strings.Join(cookies, "; ")})
	}
	if o.accept != "" {
		w.header = append(w.header, [2]string{"Accept", o.accept})
	}
	if v.media != nil {
		ct, body := v.media.encode(v.body)
		if v.ctype != "" {
			ct = v.ctype
		}
		w.header = append(w.header, [2]string{"Content-Type", ct})
		w.body, w.hasBody = body, true
	}
	w.target = path
	if len(query) > 0 {
		w.target += "?" + strings.Join(query, "&")
	}
	return w
}

// texts returns the texts of a param's value: one per item of an array
// (joined with sep unless sep is ""), or the one of a scalar.
func texts(v any, sep string) []string {
	a, ok := v.([]any)
	if !ok {
		t, _ := text(v)
		return []string{t}
	}
	ts := make([]string, 0, len(a))
	for _, e := range a {
		t, _ := text(e)
		ts = append(ts, t)
	}
	if sep != "" {
		return []string{strings.Join(ts, sep)}
	}
	return ts
}

// encode returns v, a value of the body md, as it is sent, and its
// Content-Type: JSON, multipart/form-data, or a form.
func (md *media) encode(v any) (string, []byte) {
	switch md.m {
	case asJSON:
		return md.name, appendJSON(nil, v)
	case asParts:
		return "multipart/form-data; boundary=" + boundary, md.multipart(v)
	}
	return md.name, form(v)
}

// form returns v as a form (application/x-www-form-urlencoded) whose
// arrays repeat their field.
func form(v any) []byte {
	var pairs []string
	o, _ := v.(object)
	for _, mb := range o {
		for _, t := range texts(mb.v, "") {
			pairs = append(pairs, url.QueryEscape(mb.name)+"="+url.QueryEscape(t))
		}
	}
	return []byte(strings.Join(pairs, "&"))
}

// request returns w as an in-process request.
func (w *wire) request() *http.Request {
	var body *bytes.Reader
	if w.hasBody {
		body = bytes.NewReader(w.body)
	}
	var r *http.Request
	if body != nil {
		r = httptest.NewRequest(w.method, w.target, body)
	} else {
		r = httptest.NewRequest(w.method, w.target, nil)
	}
	for _, h := range w.header {
		r.Header.Add(h[0], h[1])
	}
	return r
}

// curl returns a curl command that sends w to base. A body that a shell
// word cannot carry as it is (a multipart body's CR LF, a file's bytes)
// is written by printf '%b' and piped to curl, byte for byte.
func (w *wire) curl(base string) string {
	var b strings.Builder
	plain := !w.hasBody || shellSafe(w.body)
	if !plain {
		b.WriteString("printf '%b' " + quote(escapeBytes(w.body)) + " | ")
	}
	b.WriteString("curl -i")
	if w.method != http.MethodGet || w.hasBody {
		b.WriteString(" -X " + w.method)
	}
	for _, h := range w.header {
		b.WriteString(" -H " + quote(h[0]+": "+h[1]))
	}
	switch {
	case !w.hasBody:
	case plain:
		b.WriteString(" --data-binary " + quote(string(w.body)))
	default:
		b.WriteString(" --data-binary @-")
	}
	b.WriteString(" " + quote(strings.TrimSuffix(base, "/")+w.target))
	return b.String()
}

// shellSafe reports whether b is text a quoted shell word carries as it
// is, and a reader reads: UTF-8 with no control character.
func shellSafe(b []byte) bool {
	if !utf8.Valid(b) {
		return false
	}
	for _, c := range b {
		if c < ' ' || c == 0x7f {
			return false
		}
	}
	return true
}

// escapeBytes returns b as printf's %b writes it back: printable ASCII
// as it is, a backslash doubled, CR and LF as \r and \n, any other byte
// as \0 and three octal digits.
func escapeBytes(b []byte) string {
	var s strings.Builder
	for _, c := range b {
		switch {
		case c == '\\':
			s.WriteString(`\\`)
		case c == '\r':
			s.WriteString(`\r`)
		case c == '\n':
			s.WriteString(`\n`)
		case c >= ' ' && c < 0x7f:
			s.WriteByte(c)
		default:
			fmt.Fprintf(&s, `\0%03o`, c)
		}
	}
	return s.String()
}

// quote returns s quoted for a POSIX shell.
func quote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
