package apidocs

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/waltz-go/waltz/openapi"
)

// part is a piece of a type in words: text, and when anchor is set, a
// link to the schema of that name on the same page.
type part struct {
	Text   string
	Anchor string
}

// typeOf returns the type s describes, in words: "string (uri)",
// "array of Bookmark" (Bookmark a link to its schema), "integer or null".
func typeOf(s *openapi.Schema) []part {
	if s == nil {
		return []part{{Text: "any value"}}
	}
	if name := refName(s.Ref); name != "" {
		return []part{{Text: name, Anchor: schemaAnchor(name)}}
	} else if s.Ref != "" {
		return []part{{Text: s.Ref}}
	}
	switch {
	case len(s.OneOf) > 0:
		return joinTypes("one of ", s.OneOf, " or ")
	case len(s.AnyOf) > 0:
		return joinTypes("any of ", s.AnyOf, " or ")
	case len(s.AllOf) > 0:
		return joinTypes("all of ", s.AllOf, " and ")
	}
	var names []string
	for _, t := range types(s) {
		if t != "null" {
			names = append(names, t)
		}
	}
	if len(names) == 0 {
		switch {
		case slices.Contains(types(s), "null"):
			return []part{{Text: "null"}}
		case len(s.Properties) > 0:
			names = []string{"object"}
		default:
			return []part{{Text: "any value"}}
		}
	}
	var ps []part
	for i, n := range names {
		if i > 0 {
			ps = append(ps, part{Text: " or "})
		}
		ps = append(ps, typeName(s, n)...)
	}
	if slices.Contains(types(s), "null") {
		ps = append(ps, part{Text: " or null"})
	}
	return merge(ps)
}

// typeName returns the words for values of s of the JSON type name.
func typeName(s *openapi.Schema, name string) []part {
	switch name {
	case "array":
		if s.Items == nil {
			return []part{{Text: "array"}}
		}
		return append([]part{{Text: "array of "}}, typeOf(s.Items)...)
	case "object":
		if _, extra := closed(s); extra != nil && len(s.Properties) == 0 {
			return append(append([]part{{Text: "object of "}}, typeOf(extra)...), part{Text: " values"})
		}
	case "string":
		switch {
		case s.Format != "":
			return []part{{Text: "string (" + s.Format + ")"}}
		case s.ContentEncoding != "":
			return []part{{Text: "string (" + s.ContentEncoding + ")"}}
		}
	case "integer", "number":
		if s.Format != "" {
			return []part{{Text: name + " (" + s.Format + ")"}}
		}
	}
	return []part{{Text: name}}
}

func joinTypes(lead string, ss []*openapi.Schema, sep string) []part {
	ps := []part{{Text: lead}}
	for i, s := range ss {
		if i > 0 {
			ps = append(ps, part{Text: sep})
		}
		ps = append(ps, typeOf(s)...)
	}
	return merge(ps)
}

// merge joins neighbouring text parts.
func merge(ps []part) []part {
	out := ps[:0]
	for _, p := range ps {
		if n := len(out); n > 0 && p.Anchor == "" && out[n-1].Anchor == "" {
			out[n-1].Text += p.Text
			continue
		}
		out = append(out, p)
	}
	return out
}

// formatWords are the formats of JSON Schema Validation section 7.3 that
// the page puts in words; those of numbers (int32, int64, float, double)
// are in the type already.
var formatWords = map[string]string{
	"date-time":     "a date and time as RFC 3339 writes it, such as 2006-01-02T15:04:05Z",
	"date":          "a date such as 2006-01-02",
	"time":          "a time of day such as 15:04:05Z",
	"duration":      "an ISO 8601 duration such as P3DT4H",
	"email":         "an email address such as name@example.com",
	"hostname":      "a host name such as example.com",
	"ipv4":          "an IPv4 address such as 192.0.2.1",
	"ipv6":          "an IPv6 address such as 2001:db8::1",
	"uri":           "an absolute URI such as https://example.com/a",
	"uri-reference": "a URI or a relative reference such as /a?b",
	"uuid":          "a UUID such as 123e4567-e89b-12d3-a456-426614174000",
	"regex":         "a regular expression",
	"byte":          "base64-encoded bytes",
	"binary":        "any bytes",
	"password":      "a secret such as a password",
}

// rules returns the rules s sets on a value, each in words: "at least 3
// characters", "one of: new, old", "from 1 to 100". The type is not among
// them (typeOf gives it), nor the properties of an object.
func rules(s *openapi.Schema) []string {
	if s == nil {
		return nil
	}
	var rs []string
	add := func(r string) {
		if r != "" {
			rs = append(rs, r)
		}
	}
	if len(s.Enum) > 0 {
		vals := make([]string, len(s.Enum))
		for i, v := range s.Enum {
			vals[i] = literal(v)
		}
		add("one of: " + strings.Join(vals, ", "))
	}
	if s.Const != nil {
		add("exactly " + literal(s.Const))
	}
	add(span(s.MinLength, s.MaxLength, "character"))
	add(bounds(s.Minimum, s.Maximum))
	if s.ExclusiveMinimum != nil {
		add("greater than " + s.ExclusiveMinimum.String())
	}
	if s.ExclusiveMaximum != nil {
		add("less than " + s.ExclusiveMaximum.String())
	}
	if s.MultipleOf != nil {
		add("a multiple of " + s.MultipleOf.String())
	}
	if s.Pattern != "" {
		add("matches the regular expression " + s.Pattern)
	}
	if w, ok := formatWords[s.Format]; ok {
		add(w)
	}
	if s.ContentEncoding == "base64" && s.Format == "" {
		add("base64-encoded bytes")
	}
	if s.ContentMediaType != "" {
		add("holds " + s.ContentMediaType)
	}
	add(span(s.MinItems, s.MaxItems, "item"))
	if s.UniqueItems {
		add("no item repeated")
	}
	add(span(s.MinProperties, s.MaxProperties, "member"))
	if refused, _ := closed(s); refused && len(s.Properties) > 0 {
		add("no members but these")
	} else if refused {
		add("no members")
	}
	if s.ReadOnly {
		add("read-only: answers carry it, requests leave it out")
	}
	if s.WriteOnly {
		add("write-only: requests carry it, answers leave it out")
	}
	if s.Deprecated {
		add("deprecated")
	}
	if s.Default != nil {
		add("default: " + literal(s.Default))
	}
	return rs
}

// span puts a count's bounds in words: "at least 3 characters", "at most
// 1 item", "from 1 to 200 characters", "exactly 2 items".
func span(lo, hi *int, unit string) string {
	units := func(n int) string {
		if n == 1 {
			return strconv.Itoa(n) + " " + unit
		}
		return strconv.Itoa(n) + " " + unit + "s"
	}
	switch {
	case lo != nil && hi != nil && *lo == *hi:
		return "exactly " + units(*lo)
	case lo != nil && hi != nil:
		return "from " + strconv.Itoa(*lo) + " to " + units(*hi)
	case lo != nil && *lo > 0:
		return "at least " + units(*lo)
	case hi != nil:
		return "at most " + units(*hi)
	}
	return ""
}

// bounds puts a number's inclusive bounds in words.
func bounds(lo, hi *json.Number) string {
	switch {
	case lo != nil && hi != nil:
		return "from " + lo.String() + " to " + hi.String()
	case lo != nil:
		return "at least " + lo.String()
	case hi != nil:
		return "at most " + hi.String()
	}
	return ""
}

// literal writes a value as a reader would type it: a string as it is,
// unless it would read as another value or run into its neighbours in a
// list (empty, spaces, commas, quotes), then as JSON; anything else as
// JSON.
func literal(v any) string {
	if s, ok := v.(string); ok && s != "" && !strings.ContainsAny(s, " ,\"'\t\r\n") {
		return s
	}
	b, err := marshal(v, false)
	if err != nil {
		return "?"
	}
	return string(b)
}
