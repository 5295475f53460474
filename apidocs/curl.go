package apidocs

import (
	"net/url"
	"slices"
	"strings"

	"github.com/waltz-go/waltz/openapi"
)

// A curl line is made of shell words; each word is made of pieces of
// literal text and shell variables ($API, $TOKEN) that the reader sets.
type piece struct {
	text  string
	isVar bool // text is a variable's name
}

func lit(s string) piece  { return piece{text: s} }
func vari(s string) piece { return piece{text: s, isVar: true} }

// word returns pieces as one shell word: single-quoted when it has no
// variable; else double-quoted, the literal text holding nothing the
// shell would expand there; else variables double-quoted beside literal
// text single-quoted.
func word(ps ...piece) string {
	hasVar, safe := false, true
	for _, p := range ps {
		if p.isVar {
			hasVar = true
		} else if strings.ContainsAny(p.text, "$`\\\"!") {
			safe = false
		}
	}
	var b strings.Builder
	switch {
	case !hasVar:
		for _, p := range ps {
			b.WriteString(p.text)
		}
		return singleQuote(b.String())
	case safe:
		b.WriteByte('"')
		for i, p := range ps {
			if p.isVar {
				b.WriteString(varRef(p.text, ps[i+1:]))
			} else {
				b.WriteString(p.text)
			}
		}
		b.WriteByte('"')
		return b.String()
	}
	for _, p := range ps {
		if p.isVar {
			b.WriteString(`"$` + p.text + `"`)
		} else if p.text != "" {
			b.WriteString(singleQuote(p.text))
		}
	}
	return b.String()
}

// varRef returns $name, or ${name} when the text after it would run
// into the name.
func varRef(name string, rest []piece) string {
	if len(rest) > 0 && !rest[0].isVar && rest[0].text != "" {
		c := rest[0].text[0]
		if c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' {
			return "${" + name + "}"
		}
	}
	return "$" + name
}

// singleQuote quotes s for a POSIX shell: nothing inside single quotes is
// special but the single quote itself.
func singleQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// curl is what a curl line is made from.
type curl struct {
	method string
	base   []piece // the server's URL, or $API and a relative prefix
	path   string  // the path template, {name} for each path param
	params []*openapi.Parameter
	body   *openapi.RequestBody
	creds  []credential
	ex     exampler // for requests
}

// credential is how one security scheme's credentials go on a request.
type credential struct {
	place string // "header", "query", "cookie" or "user" (curl -u)
	name  string
	value []piece
}

// line returns the curl command: the method and URL on the first line,
// each header, cookie and body option on a line of its own.
func (c curl) line() string {
	words := []string{"curl", "-i"}
	switch c.method {
	case "GET":
	case "HEAD":
		words[1] = "-I"
	default:
		words = append(words, "-X", c.method)
	}
	path, query, headers, cookies := c.place()
	target := slices.Clone(c.base)
	target = append(target, lit(path))
	for i, q := range query {
		sep := "&"
		if i == 0 {
			sep = "?"
		}
		target = append(append(target, lit(sep)), q...)
	}
	words = append(words, word(target...))
	opts := headers
	if len(cookies) > 0 {
		var all []piece
		for i, ck := range cookies {
			if i > 0 {
				all = append(all, lit("; "))
			}
			all = append(all, ck...)
		}
		opts = append(opts, "-b", word(all...))
	}
	return join(words, append(opts, c.bodyWords()...))
}

// place returns the path with its params' example values, and the
// query pairs, header options (-H, -u) and cookies of the params that
// are required or given an example, and of the credentials.
func (c curl) place() (path string, query [][]piece, headers []string, cookies [][]piece) {
	path = c.path
	for _, p := range c.params {
		v := paramExample(c.ex, p)
		shown := p.Required || p.Example != nil || len(p.Examples) > 0
		switch {
		case p.In == "path":
			path = strings.ReplaceAll(path, "{"+p.Name+"}", url.PathEscape(v))
		case p.In == "query" && shown:
			for _, q := range queryValues(c.ex, p) {
				query = append(query, []piece{lit(url.QueryEscape(p.Name) + "=" + q)})
			}
		case p.In == "header" && shown && asksETag(p):
			headers = append(headers, "-H", word(lit(p.Name+": "), vari("ETAG")))
		case p.In == "header" && shown:
			headers = append(headers, "-H", word(lit(p.Name+": "+v)))
		case p.In == "cookie" && shown:
			cookies = append(cookies, []piece{lit(p.Name + "=" + v)})
		}
	}
	for _, cr := range c.creds {
		switch cr.place {
		case "header":
			headers = append(headers, "-H", word(append([]piece{lit(cr.name + ": ")}, cr.value...)...))
		case "query":
			query = append(query, append([]piece{lit(url.QueryEscape(cr.name) + "=")}, cr.value...))
		case "cookie":
			cookies = append(cookies, append([]piece{lit(cr.name + "=")}, cr.value...))
		case "user":
			headers = append(headers, "-u", word(cr.value...))
		}
	}
	return path, query, headers, cookies
}

// asksETag reports whether the header param p is a precondition on an
// entity tag (If-Match, If-None-Match; RFC 9110 sections 13.1.1 and
// 13.1.2) with no example of its own: a value made from its schema
// ("string") matches no tag, and the server answers 412, so the curl
// line sends $ETAG, which the reader sets to the tag a GET answered.
func asksETag(p *openapi.Parameter) bool {
	return p.In == "header" && p.Example == nil && len(p.Examples) == 0 &&
		(strings.EqualFold(p.Name, "If-Match") || strings.EqualFold(p.Name, "If-None-Match"))
}

// bodyWords returns curl's words for an example body of c, in the media
// type the page prefers: JSON, then a form, then multipart, then any.
func (c curl) bodyWords() []string {
	if c.body == nil || len(c.body.Content) == 0 {
		return nil
	}
	mt, m := preferred(c.body.Content)
	v := c.ex.value(m.Schema)
	if m.Example != nil {
		v = m.Example
	}
	switch {
	case isJSON(mt):
		return []string{"-H", word(lit("Content-Type: " + mt)), "-d", word(lit(jsonText(v, false)))}
	case mt == "application/x-www-form-urlencoded", mt == "multipart/form-data":
		var ws []string
		obj, _ := v.(ordered)
		for _, mb := range obj {
			flag := "--data-urlencode"
			if mt == "multipart/form-data" {
				// -F reads a value that starts with @ or < as a file, and
				// ;type= and the like in it as the part's headers;
				// --form-string sends it as it is.
				flag = "--form-string"
				if isFile(m.Schema, mb.name, c.ex.defs) {
					ws = append(ws, "-F", word(lit(mb.name+"=@"+mb.name)))
					continue
				}
			}
			// An array member is given once for each item, as a form
			// and a multipart body send one (tag=a&tag=b).
			items, ok := mb.value.([]any)
			if !ok || len(items) == 0 {
				items = []any{mb.value}
			}
			for _, it := range items {
				ws = append(ws, flag, word(lit(mb.name+"="+plainText(it))))
			}
		}
		return ws
	}
	return []string{"-H", word(lit("Content-Type: " + mt)), "--data-binary", "@body"}
}

// isFile reports whether the member name of the object s is a file: a
// string of binary bytes.
func isFile(s *openapi.Schema, name string, defs map[string]*openapi.Schema) bool {
	if n := refName(s.Ref); n != "" && defs[n] != nil {
		s = defs[n]
	}
	for _, p := range s.Properties {
		if p.Name == name {
			return p.Schema.Format == "binary" || p.Schema.ContentMediaType != "" && p.Schema.ContentMediaType != "text/plain"
		}
	}
	return false
}

// join writes a command: head on the first line, then each option and
// its value on a line of its own after a backslash-newline.
func join(head, opts []string) string {
	var b strings.Builder
	b.WriteString(strings.Join(head, " "))
	for i := 0; i+1 < len(opts); i += 2 {
		b.WriteString(" \\\n    " + opts[i] + " " + opts[i+1])
	}
	return b.String()
}

// paramExample returns the text of an example value of p.
func paramExample(ex exampler, p *openapi.Parameter) string {
	return plainText(paramValue(ex, p))
}

// paramValue returns an example value of p: its own, else its schema's.
func paramValue(ex exampler, p *openapi.Parameter) any {
	if p.Example != nil {
		return p.Example
	}
	for _, k := range sortedKeys(p.Examples) {
		if e := p.Examples[k]; e != nil && e.Value != nil {
			return e.Value
		}
	}
	return ex.value(p.Schema)
}

// queryValues returns the escaped values of the query param p's
// example, one for each time it is given: an array's items each given
// once, or with explode false (form style, OpenAPI 3.1 section
// 4.8.12.4) joined by commas that are not escaped, for they separate
// the items; an example written as the text of the query ("a,b") is
// taken as it is.
func queryValues(ex exampler, p *openapi.Parameter) []string {
	v := paramValue(ex, p)
	items, isArray := v.([]any)
	if p.Explode != nil && !*p.Explode && p.Schema != nil && slices.Contains(types(p.Schema), "array") {
		var texts []string
		if s, ok := v.(string); ok {
			texts = strings.Split(s, ",")
		}
		for _, it := range items {
			texts = append(texts, plainText(it))
		}
		for i, t := range texts {
			texts[i] = url.QueryEscape(t)
		}
		return []string{strings.Join(texts, ",")}
	}
	if !isArray || len(items) == 0 {
		return []string{url.QueryEscape(plainText(v))}
	}
	var vs []string
	for _, it := range items {
		vs = append(vs, url.QueryEscape(plainText(it)))
	}
	return vs
}

// preferred returns the media type of content a curl line sends.
func preferred(content map[string]*openapi.MediaType) (string, *openapi.MediaType) {
	keys := sortedKeys(content)
	for _, want := range []func(string) bool{
		isJSON,
		func(mt string) bool { return mt == "application/x-www-form-urlencoded" },
		func(mt string) bool { return mt == "multipart/form-data" },
	} {
		for _, k := range keys {
			if want(k) && content[k] != nil {
				return k, content[k]
			}
		}
	}
	for _, k := range keys {
		if content[k] != nil {
			return k, content[k]
		}
	}
	return keys[0], &openapi.MediaType{}
}

// isJSON reports whether the media type mt is JSON: application/json or
// a +json structured syntax suffix (RFC 6839 section 3.1).
func isJSON(mt string) bool {
	mt, _, _ = strings.Cut(mt, ";")
	mt = strings.TrimSpace(strings.ToLower(mt))
	return mt == "application/json" || strings.HasSuffix(mt, "+json")
}

// credentials returns how the schemes of one security requirement put
// their credentials on a request, and the variables they use.
func credentials(req map[string][]string, schemes map[string]*openapi.SecurityScheme) []credential {
	var cs []credential
	for _, name := range sortedKeys(req) {
		s := schemes[name]
		if s == nil {
			continue
		}
		switch {
		case s.Type == "http" && strings.EqualFold(s.Scheme, "basic"):
			cs = append(cs, credential{place: "user", value: []piece{vari("USERNAME"), lit(":"), vari("PASSWORD")}})
		case s.Type == "http" && !strings.EqualFold(s.Scheme, "bearer"):
			cs = append(cs, credential{place: "header", name: "Authorization", value: []piece{lit(s.Scheme + " "), vari("CREDENTIALS")}})
		case s.Type == "apiKey":
			cs = append(cs, credential{place: s.In, name: s.Name, value: []piece{vari("API_KEY")}})
		default: // bearer, oauth2, openIdConnect: a token
			cs = append(cs, credential{place: "header", name: "Authorization", value: []piece{lit("Bearer "), vari("TOKEN")}})
		}
	}
	return cs
}
