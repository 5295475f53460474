package typed

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestNextPair holds the scanner to net/url's reading of a query, written
// with strings.Cut: pairs split at '&', empty pairs and pairs with a ';'
// skipped, each pair cut at its first '='.
func TestNextPair(t *testing.T) {
	long := strings.Repeat("x", 32)
	for _, q := range []string{
		"", "&", "&&", "a", "a=", "=b", "=", "a=b", "a=b&c=d", "a=b=c", "a&b", "&a=1&",
		"a;b=1&c=2", "a=1;&b=2", ";", "a=1&;&b", "limit=20&archived=true&sort=name",
		long, long + "=1", long[:32-1] + "=1", long[:32-2] + "=" + "&b=2",
		long + "&b=2", long[:32-1] + "&" + long, long + long + "=v&k=" + long,
		long + ";=1&b=2", long + "x=1;2&b", "k=" + long + long + "&k2=v2", long + "=" + long + "=x",
		"a=" + long[:32-2], "a=" + long[:32-3] + "&", "a=" + long[:32-2] + "&b",
	} {
		var got, want []string
		for k, v, rest, more := nextPair(q); more; k, v, rest, more = nextPair(rest) {
			got = append(got, k+"|"+v)
		}
		for rest := q; rest != ""; {
			var pair string
			pair, rest, _ = strings.Cut(rest, "&")
			if pair == "" || strings.Contains(pair, ";") {
				continue
			}
			k, v, _ := strings.Cut(pair, "=")
			want = append(want, k+"|"+v)
		}
		if strings.Join(got, "&") != strings.Join(want, "&") || len(got) != len(want) {
			t.Errorf("nextPair over %q: got %q, want %q", q, got, want)
		}
	}
}

// TestUnescapePlain checks the decoding of keys and values on both sides
// of 32: plain text is returned as it is, '+' and escapes decoded.
func TestUnescapePlain(t *testing.T) {
	long := strings.Repeat("y", 32)
	for _, tc := range []struct{ in, want string }{
		{"", ""}, {"abc", "abc"}, {"a+b", "a b"}, {"a%20b", "a b"}, {"%", ""},
		{long, long}, {long + "+", long + " "}, {long[:32-1] + "%41", long[:32-1] + "A"},
		{long + long + "%41", long + long + "A"}, {"+" + long, " " + long},
	} {
		var b binder
		b.in = Input{Fails: discard{}}
		got, ok := b.unescape("query.q", tc.in, tc.in)
		if tc.in == "%" {
			if ok || !b.broken {
				t.Errorf("unescape(%q): got ok %v, broken %v; want a failure", tc.in, ok, b.broken)
			}
			continue
		}
		if !ok || got != tc.want {
			t.Errorf("unescape(%q): got %q, %v; want %q", tc.in, got, ok, tc.want)
		}
	}
}

type discard struct{}

func (discard) Fail(location, keyword, message string) {}

// TestEscapes checks unescape's look for '%' and '+' against
// strings.ContainsAny at every length up to past its word-at-a-time
// cases, with each byte near '%' and '+' in value (and with the high bit
// set) at every place: a text without either comes back as it is, one
// with either is decoded (or, for a malformed escape, refused).
func TestEscapes(t *testing.T) {
	escapes := func(s string) bool {
		var b binder
		b.in = Input{Fails: discard{}}
		got, ok := b.unescape("query.q", s, s)
		return !ok || got != s
	}
	for n := 0; n <= 40; n++ {
		base := []byte(strings.Repeat("a", n))
		for i := 0; i < n; i++ {
			for _, c := range []byte{'%', '+', '$', '&', '*', ',', '%' | 0x80, '+' | 0x80, 0, 0xff, '=', '5', 'K'} {
				s := append([]byte(nil), base...)
				s[i] = c
				if got, want := escapes(string(s)), strings.ContainsAny(string(s), "%+"); got != want {
					t.Errorf("escapes(%q): got %v, want %v", s, got, want)
				}
			}
		}
		if escapes(string(base)) {
			t.Errorf("escapes(%q): got true, want false", base)
		}
	}
}

type queryIn struct {
	N     int       `query:"n"`
	P     *int      `query:"p"`
	S     string    `query:"s"`
	B     bool      `query:"b"`
	IDs   []int     `query:"ids" explode:"false" maxItems:"3" minimum:"1"`
	Words []string  `query:"w" explode:"false"`
	PInts []*int    `query:"pi" maximum:"9"`
	PText []*textID `query:"pt"`
	_     struct{}  `strict:"query"`
}

// TestQueryValues checks the query's syntax and values: a ';' makes it
// unreadable (as url.ParseQuery says), an empty value is a value (which
// fails a type other than string), explode:"false" takes one value of
// comma-separated items, and items may be pointers.
func TestQueryValues(t *testing.T) {
	for _, tc := range []struct {
		name, target string
		want         []string // failures, "location keyword", sorted
		broken       bool
		check        func(v *queryIn) bool
	}{
		{"a ';' between pairs", "/?n=1;s=2", []string{"query syntax"}, true, nil},
		{"a ';' in a value", "/?s=a;b", []string{"query syntax"}, true, nil},
		{"an escaped ';'", "/?s=a%3Bb", nil, false, func(v *queryIn) bool { return v.S == "a;b" }},
		{"an empty number", "/?n=", []string{"query.n type"}, false, nil},
		{"an empty pointer to a number", "/?p=", []string{"query.p type"}, false, nil},
		{"an empty bool", "/?b=", []string{"query.b type"}, false, nil},
		{"an empty string", "/?s=", nil, false, func(v *queryIn) bool { return v.S == "" }},
		{"a string of no UTF-8", "/?s=%FF%FE", []string{"query.s type"}, false, nil},
		{"a string of UTF-8", "/?s=%C3%A9%F0%9F%8E%89", nil, false, func(v *queryIn) bool { return v.S == "é🎉" }},
		{"an item of no UTF-8", "/?w=a,%C3", []string{"query.w[1] type"}, false, nil},
		{"a TextUnmarshaler's text of no UTF-8", "/?pt=%FF", []string{"query.pt[0] type"}, false, nil},
		{"comma form", "/?ids=1,2,3", nil, false, func(v *queryIn) bool { return slices.Equal(v.IDs, []int{1, 2, 3}) }},
		{"comma form, one item", "/?ids=7", nil, false, func(v *queryIn) bool { return slices.Equal(v.IDs, []int{7}) }},
		{"comma form, empty: no items", "/?ids=", nil, false, func(v *queryIn) bool { return v.IDs != nil && len(v.IDs) == 0 }},
		{"comma form, an escaped comma in an item", "/?w=a%2Cb,c", nil, false,
			func(v *queryIn) bool { return slices.Equal(v.Words, []string{"a,b", "c"}) }},
		{"comma form, items located", "/?ids=1,x,0", []string{"query.ids[1] type", "query.ids[2] minimum"}, false, nil},
		{"comma form, an empty item", "/?ids=1,,2", []string{"query.ids[1] type"}, false, nil},
		{"comma form, too many items", "/?ids=1,2,3,4", []string{"query.ids maxItems"}, false, nil},
		{"comma form, repeated", "/?ids=1&ids=2", []string{"query.ids type"}, false, nil},
		{"comma form, repeated often: told once", "/?ids=1&ids=2&ids=3&n=1&ids=4", []string{"query.ids type"}, false, nil},
		{"repeated often: told once each", "/?n=1&n=2&s=a&n=3&s=b&n=4&s=c", []string{"query.n type", "query.s type"}, false, nil},
		{"comma form, a bad escape", "/?ids=1,%zz", []string{"query.ids[1] escape"}, true, nil},
		{"pointer items", "/?pi=1&pi=2", nil, false, func(v *queryIn) bool {
			return len(v.PInts) == 2 && *v.PInts[0] == 1 && *v.PInts[1] == 2
		}},
		{"pointer items, rules", "/?pi=1&pi=10", []string{"query.pi[1] maximum"}, false, nil},
		{"pointer items of text", "/?pt=a&pt=b", nil, false, func(v *queryIn) bool {
			return len(v.PText) == 2 && v.PText[0].s == "a" && v.PText[1].s == "b"
		}},
		{"CR LF in an unknown key", "/?a%0D%0Ab=1", []string{"query.a%0D%0Ab unknown"}, false, nil},
		{"control bytes and bad UTF-8 in an unknown key", "/?%1B%5B2J%FF%C2%85=1", []string{"query.%1B[2J%FF%C2%85 unknown"}, false, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, err := bindInto[queryIn](t, nil, nil, get(tc.target), Body{})
			got, _ := failures(err)
			if !slices.Equal(got, tc.want) {
				t.Fatalf("got %q (%v), want %q", got, err, tc.want)
			}
			if fs, ok := err.(*failed); ok {
				if fs.broken != tc.broken {
					t.Errorf("unreadable: got %v, want %v", fs.broken, tc.broken)
				}
				for _, f := range fs.list {
					if strings.ContainsAny(f.loc+f.msg, "\r\n\x1b\x85") {
						t.Errorf("a control character reached %q: %q", f.loc, f.msg)
					}
				}
			}
			if tc.check != nil && !tc.check(v) {
				t.Errorf("bound %+v", v)
			}
		})
	}
}

// TestQueryPlanErrors checks the explode tag's misuses, refused at
// registration.
func TestQueryPlanErrors(t *testing.T) {
	type notSlice struct {
		N int `query:"n" explode:"false"`
	}
	type header struct {
		H []string `header:"X-H" explode:"false"`
	}
	type word struct {
		N []int `query:"n" explode:"no"`
	}
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"not a slice", planErr[notSlice](), `tag explode:"false": only a query param's slice`},
		{"a header", planErr[header](), "a slice binds only repeated query params"},
		{"a word", planErr[word](), `tag explode:"no" wants true or false`},
	} {
		if tc.err == nil || !strings.Contains(tc.err.Error(), tc.want) {
			t.Errorf("%s: got %v, want %q", tc.name, tc.err, tc.want)
		}
	}
}

func planErr[T any]() error {
	_, err := PlanIn(reflectType[T](), nil)
	return err
}

// TestPrintable checks what a location keeps of a client's key.
func TestPrintable(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain", "plain"},
		{"é ü 世界", "é ü 世界"},
		{"a\r\nb", "a%0D%0Ab"},
		{"\x00\x7f", "%00%7F"},
		{"\xc2\x9b", "%C2%9B"},
		{"a\xffb", "a%FFb"},
	} {
		if got := printable(tc.in); got != tc.want {
			t.Errorf("printable(%q): got %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestQueryDocument checks that the document says what the binder takes:
// the comma form as style form, explode false; pointer items as the
// scalar; no allowEmptyValue, since an empty value is bound as a value.
func TestQueryDocument(t *testing.T) {
	p, err := PlanIn(reflectType[queryIn](), nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, pr := range p.Parameters() {
		b, err := json.Marshal(pr)
		if err != nil {
			t.Fatal(err)
		}
		got[pr.Name] = string(b)
	}
	for name, want := range map[string]string{
		"ids": `{"name":"ids","in":"query","style":"form","explode":false,"schema":{"type":"array","items":{"type":"integer","format":"int64","minimum":1},"maxItems":3}}`,
		"w":   `{"name":"w","in":"query","style":"form","explode":false,"schema":{"type":"array","items":{"type":"string"},"maxItems":100}}`,
		"pi":  `{"name":"pi","in":"query","schema":{"type":"array","items":{"type":"integer","format":"int64","maximum":9},"maxItems":100}}`,
		"n":   `{"name":"n","in":"query","schema":{"type":"integer","format":"int64"}}`,
	} {
		if got[name] != want {
			t.Errorf("%s:\n got %s\nwant %s", name, got[name], want)
		}
	}
}

// TestEncodeQueryForms checks that the client's encoder writes the comma
// form and pointer items as the binder reads them: a value written is
// bound back the same.
func TestEncodeQueryForms(t *testing.T) {
	one, two := 1, 2
	v := queryIn{N: 3, S: "a;b", IDs: []int{1, 2, 3}, Words: []string{"a,b", "c d"}, PInts: []*int{&one, &two},
		PText: []*textID{{"x"}}}
	enc, bound, got, e := encodeBind(t, nil, &v, MediaJSON)
	if len(enc) > 0 || len(bound) > 0 {
		t.Fatalf("failures: encode %v, bind %v (query %s)", enc, bound, e.Query)
	}
	if !strings.Contains(string(e.Query), "ids=1,2,3") || !strings.Contains(string(e.Query), "w=a%2Cb,c+d") {
		t.Errorf("query %s: want ids=1,2,3 and w=a%%2Cb,c+d", e.Query)
	}
	if !slices.Equal(got.IDs, v.IDs) || !slices.Equal(got.Words, v.Words) || got.S != v.S ||
		len(got.PInts) != 2 || *got.PInts[0] != 1 || *got.PInts[1] != 2 || len(got.PText) != 1 || got.PText[0].s != "x" {
		t.Errorf("bound back %+v from %s, want %+v", got, e.Query, v)
	}
	nilItem := queryIn{PInts: []*int{&one, nil}}
	if enc, _, _, _ := encodeBind(t, nil, &nilItem, MediaJSON); len(enc) != 1 || enc[0].loc != "query.pi[1]" {
		t.Errorf("a nil item: got %v, want query.pi[1] refused", enc)
	}
}

// TestIntegerMessages: a value that is no integer is told it must be one,
// not the range of the field's Go type, which only a whole number that
// does not fit it is told (a newcomer's ?limit=ten read "must be an
// integer from -9223372036854775808 to 9223372036854775807").
func TestIntegerMessages(t *testing.T) {
	type in struct {
		Limit int    `query:"limit" maximum:"100"`
		Small int8   `query:"small"`
		Count uint16 `query:"count"`
	}
	for _, tc := range []struct{ target, want string }{
		{"/?limit=ten", `query.limit type: must be an integer, got "ten"`},
		{"/?limit=1.5", `query.limit type: must be an integer, got "1.5"`},
		{"/?limit=99999999999999999999", `query.limit type: must be an integer from -9223372036854775808 to 9223372036854775807, got "99999999999999999999"`},
		{"/?small=300", `query.small type: must be an integer from -128 to 127, got "300"`},
		{"/?small=3e2", `query.small type: must be an integer from -128 to 127, got "3e2"`},
		{"/?count=-1", `query.count type: must be a non-negative integer, got "-1"`},
		{"/?count=70000", `query.count type: must be an integer from 0 to 65535, got "70000"`},
		{"/?count=x", `query.count type: must be a non-negative integer, got "x"`},
	} {
		_, err := bindInto[in](t, nil, nil, get(tc.target), Body{})
		fs, _ := err.(*failed)
		if fs == nil || len(fs.list) != 1 {
			t.Fatalf("%s: got %v, want one failure", tc.target, err)
		}
		if f := fs.list[0]; f.loc+" "+f.keyword+": "+f.msg != tc.want {
			t.Errorf("%s: got %s %s: %s, want %s", tc.target, f.loc, f.keyword, f.msg, tc.want)
		}
	}
	type body struct {
		N int `json:"n"`
	}
	type bodyIn struct{ Body body }
	for _, tc := range []struct{ text, want string }{
		{`{"n":1.5}`, "must be an integer, got 1.5"},
		{`{"n":99999999999999999999}`, "must be an integer from -9223372036854775808 to 9223372036854775807, got 99999999999999999999"},
	} {
		_, err := bindInto[bodyIn](t, nil, nil, post(js, tc.text), Body{})
		fs, _ := err.(*failed)
		if fs == nil || len(fs.list) != 1 || fs.list[0].msg != tc.want {
			t.Errorf("%s: got %v, want %q", tc.text, fs, tc.want)
		}
	}
}

// TestValidText holds validText to utf8.ValidString on every length to
// 20 bytes, with one byte past ASCII (valid and not) at each place.
func TestValidText(t *testing.T) {
	for n := 0; n <= 20; n++ {
		base := strings.Repeat("a", n)
		if !validText(base) {
			t.Errorf("%q: got invalid", base)
		}
		for i := 0; i < n; i++ {
			for _, b := range []string{"\xff", "\xc3", "é"} {
				s := base[:i] + b + base[i+1:]
				if validText(s) != utf8.ValidString(s) {
					t.Errorf("%q: got %v, want %v", s, validText(s), utf8.ValidString(s))
				}
			}
		}
	}
}
