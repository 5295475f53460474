package contracttest

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
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
		ct := v.media.name
		if v.ctype != "" {
			ct = v.ctype
		}
		w.header = append(w.header, [2]string{"Content-Type", ct})
		w.body, w.hasBody = encodeBody(v.media.m, v.body), true
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

// encodeBody returns the body of v: JSON, or a form
// (application/x-www-form-urlencoded) whose arrays repeat their field.
func encodeBody(m mode, v any) []byte {
	if m == asJSON {
		return appendJSON(nil, v)
	}
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

// curl returns a curl command that sends w to base.
func (w *wire) curl(base string) string {
	var b strings.Builder
	b.WriteString("curl -i")
	if w.method != http.MethodGet || w.hasBody {
		b.WriteString(" -X " + w.method)
	}
	for _, h := range w.header {
		b.WriteString(" -H " + quote(h[0]+": "+h[1]))
	}
	if w.hasBody {
		b.WriteString(" --data-binary " + quote(string(w.body)))
	}
	b.WriteString(" " + quote(strings.TrimSuffix(base, "/")+w.target))
	return b.String()
}

// quote returns s quoted for a POSIX shell.
func quote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
