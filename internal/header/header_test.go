package header

import (
	"fmt"
	"strings"
	"testing"
)

func TestIsToken(t *testing.T) {
	for _, tc := range []struct {
		s    string
		want bool
	}{
		{"GET", true},
		{"M-SEARCH", true},
		{"!#$%&'*+-.^_`|~09azAZ", true},
		{"", false},
		{"GE T", false},
		{"GET\t", false},
		{"a\x7f", false},
		{"caf\xc3\xa9", false},
		{"a\x00", false},
	} {
		if got := IsToken(tc.s); got != tc.want {
			t.Errorf("IsToken(%q): got %v, want %v", tc.s, got, tc.want)
		}
	}
	for _, c := range `"(),/:;<=>?@[\]{}` {
		if s := "a" + string(c); IsToken(s) {
			t.Errorf("IsToken(%q): got true, want false (a delimiter)", s)
		}
	}
}

// TestEqualFold: ASCII letters fold, nothing else does; in particular
// not the letters Unicode folds to ASCII ones (U+017F to 's', the
// Kelvin sign U+212A to 'k'), which strings.EqualFold takes.
func TestEqualFold(t *testing.T) {
	for _, tc := range []struct {
		s, t string
		want bool
	}{
		{"application/json", "application/json", true},
		{"Application/JSON", "application/json", true},
		{"GZIP", "gzip", true},
		{"", "", true},
		{"application/j\u017fon", "application/json", false},
		{"\u212aeep-alive", "keep-alive", false},
		{"application/json", "application/jsox", false},
		{"json", "jsonl", false},
		{"@", "`", false}, // one apart from 'A' and 'a', and no letters
		{"[", "{", false},
	} {
		if got := EqualFold(tc.s, tc.t); got != tc.want {
			t.Errorf("EqualFold(%q, %q) = %v, want %v", tc.s, tc.t, got, tc.want)
		}
		if got := EqualFold(tc.t, tc.s); got != tc.want {
			t.Errorf("EqualFold(%q, %q) = %v, want %v", tc.t, tc.s, got, tc.want)
		}
	}
}

// TestMediaType: a Content-Type's media type, lowered by ASCII letters,
// judged as tokens before it is lowered.
func TestMediaType(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		ok       bool
	}{
		{"application/json", "application/json", true},
		{" Application/JSON ; charset=utf-8", "application/json", true},
		{"\ttext/csv\t", "text/csv", true},
		{"image/*", "image/*", true},
		{"appl\u0130cation/json", "", false}, // U+0130 lowers to 'i' by Unicode
		{"application/json\u00a0", "", false},
		{"\u0085application/json", "", false},
		{"application/", "", false},
		{"/json", "", false},
		{"json", "", false},
		{"", "", false},
		{"a/b/c", "", false},
	} {
		if got, ok := MediaType(tc.in); got != tc.want || ok != tc.ok {
			t.Errorf("MediaType(%q) = %q %v, want %q %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

// TestValidParams: RFC 9110 section 5.6.6's parameters, and no name in
// RFC 2231's extended form.
func TestValidParams(t *testing.T) {
	for v, want := range map[string]bool{
		"multipart/form-data":                                         true,
		"multipart/form-data; boundary=abc":                           true,
		"multipart/form-data;boundary=abc":                            true,
		"multipart/form-data; boundary=\"a;b c\"\t;":                  true,
		"text/plain; charset=utf-8;; format=flowed":                   true,
		"form-data; name=\"f\"; filename=\"caf\u00e9 \\\"x\\\".png\"": true,
		"multipart/form-data; boundary=a; boundary*=utf-8''b":         false,
		"form-data; name*0=a; name*1=b":                               false,
		"form-data; filename*=UTF-8''x.php":                           false,
		"text/plain;\u00a0charset=utf-8":                              false,
		"text/plain; charset = utf-8":                                 false,
		"text/plain; charset=":                                        false,
		"text/plain; charset":                                         false,
		"text/plain; charset=\"utf-8":                                 false,
		"text/plain; charset=\"utf-8\"x":                              false,
		"text/plain; charset=\"a\x00b\"":                              false,
		"text/plain; charset=a b":                                     false,
	} {
		if got := ValidParams(v); got != want {
			t.Errorf("ValidParams(%q) = %v, want %v", v, got, want)
		}
	}
}

func TestCut(t *testing.T) {
	for _, tc := range []struct {
		s, before, after string
		found            bool
	}{
		{"a,b", "a", "b", true},
		{"a", "a", "", false},
		{`"a,b",c`, `"a,b"`, "c", true},
		{`"a\",b",c`, `"a\",b"`, "c", true},
		{`"a\\",b`, `"a\\"`, "b", true},
		{`"open,b`, `"open,b`, "", false},
		{",", "", "", true},
	} {
		before, after, found := Cut(tc.s, ',')
		if before != tc.before || after != tc.after || found != tc.found {
			t.Errorf("Cut(%q): got %q, %q, %v, want %q, %q, %v", tc.s, before, after, found, tc.before, tc.after, tc.found)
		}
	}
}

func TestNext(t *testing.T) {
	for _, tc := range []struct {
		line string
		want []string
	}{
		{"a, b ,\tc", []string{"a", "b", "c"}},
		{",,a,,", []string{"", "", "a", ""}},
		{` x="1, 2" , y`, []string{`x="1, 2"`, "y"}},
		{"", nil},
	} {
		var got []string
		for rest := tc.line; rest != ""; {
			var elem string
			elem, rest = Next(rest)
			got = append(got, elem)
		}
		if fmt.Sprint(got) != fmt.Sprint(tc.want) || len(got) != len(tc.want) {
			t.Errorf("Next over %q: got %q, want %q", tc.line, got, tc.want)
		}
	}
}

func TestQValue(t *testing.T) {
	for _, tc := range []struct {
		v  string
		q  int
		ok bool
	}{
		{"0", 0, true},
		{"1", 1000, true},
		{"1.", 1000, true},
		{"1.000", 1000, true},
		{"0.5", 500, true},
		{"0.05", 50, true},
		{"0.001", 1, true},
		{"0.999", 999, true},
		{"1.001", 0, false},
		{"1.5", 0, false},
		{"2", 0, false},
		{"0.0001", 0, false},
		{".5", 0, false},
		{"", 0, false},
		{"-1", 0, false},
		{"0x1", 0, false},
		{"0.5 ", 0, false},
	} {
		q, ok := QValue(tc.v)
		if q != tc.q || ok != tc.ok {
			t.Errorf("QValue(%q): got %d, %v, want %d, %v", tc.v, q, ok, tc.q, tc.ok)
		}
	}
}

func TestWeight(t *testing.T) {
	for _, tc := range []struct {
		params string
		q      int
		ok     bool
	}{
		{"", 1000, true},
		{";q=0.5", 500, true},
		{" ; Q = 0.5 ", 500, true},
		{";level=9;q=0", 0, true},
		{`;x="q=0";q=0.3`, 300, true},
		{";q=2", 0, false},
		{";q=", 0, false},
		{";quality=0", 1000, true},
	} {
		q, ok := Weight(tc.params)
		if q != tc.q || ok != tc.ok {
			t.Errorf("Weight(%q): got %d, %v, want %d, %v", tc.params, q, ok, tc.q, tc.ok)
		}
	}
}

func TestCodings(t *testing.T) {
	names := []string{"gzip", "br", "identity"}
	const u = Unlisted
	for _, tc := range []struct {
		lines []string
		want  [3]int
	}{
		{nil, [3]int{u, u, u}},
		{[]string{""}, [3]int{u, u, u}},
		{[]string{"gzip"}, [3]int{1000, u, u}},
		{[]string{"GZIP;q=0.5, Br"}, [3]int{500, 1000, u}},
		{[]string{"x-gzip"}, [3]int{1000, u, u}},
		{[]string{"x-br"}, [3]int{u, u, u}},
		{[]string{"*;q=0.2, br"}, [3]int{200, 1000, 200}},
		{[]string{"*;q=0"}, [3]int{0, 0, 0}},
		{[]string{"identity;q=0, *"}, [3]int{1000, 1000, 0}},
		// Listed twice, in one line or two: the lowest weight.
		{[]string{"gzip, gzip;q=0"}, [3]int{0, u, u}},
		{[]string{"gzip;q=0.3", "gzip;q=0.8"}, [3]int{300, u, u}},
		{[]string{"gzip;q=0.8, x-gzip;q=0.4"}, [3]int{400, u, u}},
		{[]string{"*;q=0.9, *;q=0.1"}, [3]int{100, 100, 100}},
		// A malformed weight: the element is skipped, not read as 0.
		{[]string{"gzip;q=2"}, [3]int{u, u, u}},
		{[]string{"gzip;q=0.5, gzip;q=abc"}, [3]int{500, u, u}},
		{[]string{"identity;q=", "br"}, [3]int{u, 1000, u}},
		{[]string{",,, ;;;, =, br"}, [3]int{u, 1000, u}},
		{[]string{`gzip;x="a, br", br;q=0.1`}, [3]int{1000, 100, u}},
		{[]string{strings.Repeat("x,", 5000) + "gzip"}, [3]int{1000, u, u}},
	} {
		var q [3]int
		Codings(tc.lines, names, q[:])
		if q != tc.want {
			t.Errorf("Codings(%q): got %v, want %v", tc.lines, q, tc.want)
		}
	}
}

func TestNoAllocs(t *testing.T) {
	lines := []string{`gzip;q=0.5, br;x="y", identity;q=0`}
	names := []string{"gzip", "br", "identity"}
	var q [3]int
	if got := testing.AllocsPerRun(100, func() { Codings(lines, names, q[:]) }); got != 0 {
		t.Errorf("Codings: got %v allocs, want 0", got)
	}
}

func FuzzCodings(f *testing.F) {
	f.Add("gzip;q=0.5, br", "identity")
	f.Add(`*;q=0, x-gzip;foo="a,\"b"`, "gzip")
	f.Fuzz(func(t *testing.T, line, name string) {
		var q [1]int
		Codings([]string{line}, []string{name}, q[:])
		if q[0] != Unlisted && (q[0] < 0 || q[0] > 1000) {
			t.Fatalf("Codings(%q, %q): weight %d outside 0..1000", line, name, q[0])
		}
		for rest := line; rest != ""; {
			before := len(rest)
			_, rest = Next(rest)
			if len(rest) >= before {
				t.Fatalf("Next(%q) made no progress", rest)
			}
		}
	})
}

// TestPhrase: RFC 9110 section 15's phrases where Go's differ, Go's
// elsewhere.
func TestPhrase(t *testing.T) {
	for code, want := range map[int]string{413: "Content Too Large", 414: "URI Too Long", 416: "Range Not Satisfiable",
		422: "Unprocessable Content", 400: "Bad Request", 404: "Not Found", 415: "Unsupported Media Type", 599: ""} {
		if got := Phrase(code); got != want {
			t.Errorf("Phrase(%d) = %q, want %q", code, got, want)
		}
	}
}

func TestMatchETag(t *testing.T) {
	for _, tc := range []struct {
		lines        []string
		tag          string
		strong, want bool
	}{
		{[]string{`"a"`}, `"a"`, true, true},         // §8.8.3.2: strong, both strong and equal
		{[]string{`"a"`}, `"a"`, false, true},        // §8.8.3.2: weak
		{[]string{`W/"a"`}, `"a"`, false, true},      // weak comparison ignores W/
		{[]string{`W/"a"`}, `"a"`, true, false},      // strong comparison: a weak tag never matches
		{[]string{`"a"`}, `W/"a"`, true, false},      // nor does a weak current tag
		{[]string{`"a"`}, `"b"`, false, false},       //
		{[]string{`"x", "a"`}, `"a"`, false, true},   // §13.1.2: a list
		{[]string{`"x"`, `"a"`}, `"a"`, false, true}, // split over two field lines
		{[]string{`*`}, `"a"`, true, true},           // §13.1.1: "*" matches any current representation
		{[]string{`"a,b"`}, `"a,b"`, false, true},    // a comma inside quotes is part of the tag
		{[]string{`"a,b"`}, `"a"`, false, false},     //
		{[]string{`a`}, `"a"`, false, false},         // unquoted: malformed, matches nothing
		{[]string{`"a`}, `"a"`, false, false},        // unterminated
		{[]string{`""`}, `""`, true, true},           // the empty opaque tag is valid
		{[]string{` , ,"a" `}, `"a"`, false, true},   // empty elements and OWS
		{[]string{strings.Repeat(`"x",`, 5000) + `"a"`}, `"a"`, false, true},
		{[]string{``}, `"a"`, false, false},
		{[]string{`"a", b`}, `"a"`, true, false},    // malformed anywhere: the whole list matches nothing
		{[]string{`"a"`, `b`}, `"a"`, false, false}, // in another field line too
		{[]string{`"a"x`}, `"a"`, true, false},      // something glued to a tag
		{[]string{`*x`}, `"a"`, true, false},        //
		{[]string{`"b", *`}, `"a"`, true, true},     //
	} {
		t.Run(fmt.Sprintf("%q %s strong=%v", tc.lines, tc.tag, tc.strong), func(t *testing.T) {
			if got := MatchETag(tc.lines, tc.tag, tc.strong); got != tc.want {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

// TestCoded holds Coded to every element of every Content-Encoding line:
// identity and empty elements say nothing, anything else is a coding.
func TestCoded(t *testing.T) {
	for _, tc := range []struct {
		lines []string
		want  string
	}{
		{nil, ""},
		{[]string{""}, ""},
		{[]string{"identity"}, ""},
		{[]string{"IDENTITY", "Identity"}, ""},
		{[]string{"identity, identity"}, ""},
		{[]string{",", " , identity ,"}, ""},
		{[]string{"gzip"}, "gzip"},
		{[]string{"identity", "gzip"}, "gzip"},
		{[]string{"identity, br"}, "br"},
		{[]string{"\u0131dentity"}, "\u0131dentity"}, // dotless i: ASCII letters alone
		{[]string{"identity\u00a0"}, "identity\u00a0"},
	} {
		if got := Coded(tc.lines); got != tc.want {
			t.Errorf("Coded(%q): got %q, want %q", tc.lines, got, tc.want)
		}
	}
	lines := []string{"identity, identity", "gzip"}
	if n := testing.AllocsPerRun(100, func() { Coded(lines) }); n != 0 {
		t.Errorf("Coded allocates %v times, want 0", n)
	}
}
