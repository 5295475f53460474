package typed

import (
	"errors"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestScanGrammar: the scanner reads what RFC 8259 calls JSON, escapes
// and UTF-8 included, and says where and why a body is not JSON.
func TestScanGrammar(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		want       any    // the value decoded into an any
		bad        string // or the 400's message
	}{
		{"escapes", `"\"\\\/\b\f\n\r\t\u0041\u00e9"`, "\"\\/\b\f\n\r\tAé", ""},
		{"surrogate pair", `"\ud83d\ude00"`, "😀", ""},
		{"UTF-8 after an escape", `"\n` + "é😀" + `"`, "\né😀", ""},
		{"upper-case hex", `"\u00E9"`, "é", ""},
		{"numbers", `[0,-1,1.5,2e3,-4E-2,5e+1]`, []any{0.0, -1.0, 1.5, 2000.0, -0.04, 50.0}, ""},
		{"literals", ` [ true , false , null ] `, []any{true, false, nil}, ""},
		{"nested", `{"a":[{"b":{}}],"c":[]}`, map[string]any{"a": []any{map[string]any{"b": map[string]any{}}}, "c": []any{}}, ""},
		{"no comma in an array", `[1 2]`, nil, "malformed JSON at byte offset 3: want , or ] after an array item"},
		{"no comma in an object", `{"a":1 "b":2}`, nil, "malformed JSON at byte offset 7: want , or } after an object member"},
		{"no colon", `{"a" 1}`, nil, "malformed JSON at byte offset 5: want : after an object member's key"},
		{"a key that is no string", `{a:1}`, nil, "malformed JSON at byte offset 1: want a string, an object member's key"},
		{"cut in an array", `[1,`, nil, "malformed JSON at byte offset 3: the body ends inside a value"},
		{"cut after a key", `{"a":`, nil, "malformed JSON at byte offset 5: the body ends inside a value"},
		{"cut after a comma", `{"a":1,`, nil, "malformed JSON at byte offset 7: the body ends inside a value"},
		{"cut in a string", `"abc`, nil, "malformed JSON at byte offset 4: the body ends inside a value"},
		{"cut in an escaped string", `"a\nb`, nil, "malformed JSON at byte offset 5: the body ends inside a value"},
		{"cut in an escape", `"a\`, nil, "malformed JSON at byte offset 2: the body ends inside a value"},
		{"cut in a \\u escape", `"\u00`, nil, "malformed JSON at byte offset 1: want four hex digits after \\u"},
		{"bad hex", `"\u00g0"`, nil, "malformed JSON at byte offset 1: want four hex digits after \\u"},
		{"bad escape", `"\x"`, nil, "malformed JSON at byte offset 1: an invalid escape inside a string"},
		{"control character", "\"a\tb\"", nil, "malformed JSON at byte offset 2: a control character inside a string"},
		{"control character after an escape", "\"\\n\tb\"", nil, "malformed JSON at byte offset 3: a control character inside a string"},
		{"invalid UTF-8 after an escape", "\"\\n\xffb\"", nil, "malformed JSON at byte offset 3: invalid UTF-8 inside a string (RFC 8259 section 8.1)"},
		{"no digit", `-`, nil, "malformed JSON at byte offset 1: want a digit in a number"},
		{"no digit after the point", `1.`, nil, "malformed JSON at byte offset 2: want a digit after a number's point"},
		{"no digit in the exponent", `1e+`, nil, "malformed JSON at byte offset 3: want a digit in a number's exponent"},
		{"a leading zero", `01`, nil, "data after the JSON value, which ends at byte offset 1"},
		{"a bad literal", `nul`, nil, "malformed JSON at byte offset 0: want null"},
		{"a bad literal in an array", `[tru]`, nil, "malformed JSON at byte offset 1: want true"},
		{"no value", `}`, nil, "malformed JSON at byte offset 0: want a JSON value, got '}'"},
		{"too deep", strings.Repeat("[", maxDepth+1), nil, "objects and arrays nest deeper than 10000 levels"},
		{"too deep in objects", strings.Repeat(`{"a":`, maxDepth+1), nil, "objects and arrays nest deeper than 10000 levels"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var v any
			var fs failed
			err := DecodeJSON(httptest.NewRecorder(), post(js, tc.body), Body{}, &v, &fs)
			if tc.bad == "" {
				if err != nil || !equalJSON(v, tc.want) {
					t.Errorf("got %#v %v, want %#v", v, err, tc.want)
				}
				return
			}
			var be *BodyError
			if !errors.As(err, &be) || be.Status != 400 || !strings.Contains(be.Message, tc.bad) {
				t.Errorf("got %v, want a 400 with %q", err, tc.bad)
			}
		})
	}
}

// TestScanSkipped: a value nothing reads (an unknown key's, an array's
// items past its length) is still checked to be JSON.
func TestScanSkipped(t *testing.T) {
	type short struct {
		A [1]int `json:"a"`
	}
	for _, tc := range []struct{ body, bad string }{
		{`{"x":{"y":[1,"\u0041",true,false,null,{}]},"a":[1,2,[3]]}`, ""},
		{`{"x":[1 2]}`, "want , or ] after an array item"},
		{`{"x":{"y" 1}}`, "want : after an object member's key"},
		{`{"a":[1,{"b":}]}`, "want a JSON value, got '}'"},
		{`{"x":` + strings.Repeat("[", maxDepth+1), "nest deeper"},
		{`{"x":` + strings.Repeat(`{"a":`, maxDepth+1), "nest deeper"},
		{`{"x":"\q"}`, "an invalid escape"},
	} {
		var v short
		err := DecodeJSON(httptest.NewRecorder(), post(js, tc.body), Body{}, &v, &failed{})
		switch {
		case tc.bad == "" && (err != nil || v.A[0] != 1):
			t.Errorf("%s: got %v %v", tc.body, v, err)
		case tc.bad != "" && (err == nil || !strings.Contains(err.Error(), tc.bad)):
			t.Errorf("%s: got %v, want %q", tc.body, err, tc.bad)
		}
	}
}

// equalJSON reports whether a and b, values decoded into an any, are
// equal.
func equalJSON(a, b any) bool {
	switch a := a.(type) {
	case []any:
		b, ok := b.([]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for i := range a {
			if !equalJSON(a[i], b[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		b, ok := b.(map[string]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for k, v := range a {
			if !equalJSON(v, b[k]) {
				return false
			}
		}
		return true
	}
	return a == b
}
