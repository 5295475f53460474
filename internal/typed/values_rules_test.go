package typed

import (
	"encoding/json"
	"math"
	"math/bits"
	"reflect"
	"testing"
	"time"
)

// TestDistinctCost holds uniqueItems to O(n log n): the comparisons made
// for n items, over n log2 n, stay under a constant as n grows 64-fold,
// for items all different, all equal but the last, and in both orders.
func TestDistinctCost(t *testing.T) {
	shapes := map[string]func(i, n int) int{
		"ascending":  func(i, n int) int { return i },
		"descending": func(i, n int) int { return n - i },
		"organ pipe": func(i, n int) int { return min(i, n-i) * 2 },
		"equal last": func(i, n int) int {
			if i == n-1 {
				return 0
			}
			return i + 1
		},
	}
	for name, shape := range shapes {
		var first float64
		for n := 1 << 10; n <= 1<<16; n <<= 2 {
			vals := make([]int, n)
			for i := range vals {
				vals[i] = shape(i, n)
			}
			calls := 0
			distinct(n, func(i, j int) int { calls++; return vals[i] - vals[j] })
			per := float64(calls) / (float64(n) * float64(bits.Len(uint(n))))
			if per > 4 {
				t.Errorf("%s, %d items: %d comparisons, %.2f n log n", name, n, calls, per)
			}
			if first == 0 {
				first = per
			} else if per > first*1.5 {
				t.Errorf("%s, %d items: %.2f n log n comparisons, %.2f at 1024 items: it grows faster", name, n, per, first)
			}
		}
	}
}

// TestUniqueItemsKinds: items of every kind are compared as JSON values,
// an object's members in any order, numbers by value.
func TestUniqueItemsKinds(t *testing.T) {
	type point struct {
		X int `json:"x"`
		Y int `json:"y"`
	}
	cases := []struct {
		typ  reflect.Type
		data string
		want string
	}{
		{reflect.TypeFor[[]point](), `[{"x":1,"y":2},{"y":2,"x":1}]`, "uniqueItems"},
		{reflect.TypeFor[[]point](), `[{"x":1,"y":2},{"y":1,"x":2}]`, ""},
		{reflect.TypeFor[[]map[string]int](), `[{"x":1,"y":2},{"y":2,"x":1}]`, "uniqueItems"},
		{reflect.TypeFor[[]map[string]int](), `[{"x":1},{"x":1,"y":2}]`, ""},
		{reflect.TypeFor[[]any](), `[{"a":[1,{"b":2}]},{"a":[1.0,{"b":2e0}]}]`, "uniqueItems"},
		{reflect.TypeFor[[]any](), `[1,true,"1",[1],{"1":1},null]`, ""},
		{reflect.TypeFor[[][]string](), `[["a","b"],["b","a"]]`, ""},
		{reflect.TypeFor[[][]string](), `[["a","b"],["a","b"]]`, "uniqueItems"},
		{reflect.TypeFor[[]*point](), `[{"x":1,"y":0},{"y":0,"x":1}]`, "uniqueItems"},
		{reflect.TypeFor[[]float64](), `[1,1.0]`, "uniqueItems"},
		{reflect.TypeFor[[]time.Time](), `["2026-01-01T00:00:00Z","2026-01-01T01:00:00+01:00"]`, "uniqueItems"},
	}
	for _, c := range cases {
		if got := bindBody(t, c.typ, `uniqueItems:"true"`, json.RawMessage(c.data)); got != c.want {
			t.Errorf("%s %s: got %q, want %q", c.typ, c.data, got, c.want)
		}
	}
	// Past maxItems, uniqueness is not looked at: maxItems alone fails.
	if got := bindBody(t, reflect.TypeFor[[]string](), `maxItems:"1" uniqueItems:"true"`, json.RawMessage(`["a","a"]`)); got != "maxItems" {
		t.Errorf("past maxItems: got %q", got)
	}
	if got := bindQuery(t, reflect.TypeFor[[]string](), `maxItems:"1" uniqueItems:"true"`, "a"); got != "" {
		t.Errorf("one query item: got %q", got)
	}
}

// TestNumbersExact: integers keep every digit through bounds and
// multipleOf, and a whole number written 1.0 or 1e2 is an integer.
func TestNumbersExact(t *testing.T) {
	i64 := reflect.TypeFor[int64]()
	u64 := reflect.TypeFor[uint64]()
	cases := []struct {
		typ  reflect.Type
		tag  string
		text string
		want string
	}{
		{i64, `multipleOf:"3"`, "9007199254740993", ""}, // 3 × 3002399751580331; float64 reads 9007199254740992
		{i64, `multipleOf:"3"`, "9007199254740994", "multipleOf"},
		{i64, `multipleOf:"3"`, "-9007199254740993", ""},
		{i64, `multipleOf:"9007199254740993"`, "18014398509481986", ""},
		{i64, `multipleOf:"9007199254740993"`, "18014398509481984", "multipleOf"},
		{u64, `multipleOf:"2"`, "18446744073709551615", "multipleOf"},
		{u64, `multipleOf:"5"`, "18446744073709551615", ""},
		{i64, `multipleOf:"0.5"`, "9007199254740993", ""},
		{i64, `maximum:"9007199254740993"`, "9007199254740993", ""},
		{i64, `maximum:"9007199254740993"`, "9007199254740994", "maximum"},
		{i64, `exclusiveMinimum:"9007199254740993"`, "9007199254740993", "exclusiveMinimum"},
		{i64, `minimum:"1"`, "1.0", ""},
		{i64, `minimum:"1"`, "1e2", ""},
		{i64, `minimum:"1"`, "0.0", "minimum"},
		{i64, ``, "1.5", "type"},
		{i64, ``, "1e400", "type"},
		{i64, ``, "9223372036854775808", "type"},
		{i64, ``, "9223372036854775807.0", ""},
		{reflect.TypeFor[float64](), `multipleOf:"0.01"`, "0.07", ""},
		{reflect.TypeFor[float64](), `multipleOf:"0.01"`, "0.075", "multipleOf"},
		{reflect.TypeFor[float64](), `multipleOf:"0.1"`, "1e308", ""},
	}
	for _, c := range cases {
		if got := bindQuery(t, c.typ, c.tag, c.text); got != c.want {
			t.Errorf("query %s `%s` %s: got %q, want %q", c.typ, c.tag, c.text, got, c.want)
		}
		if c.want == "type" || c.typ != i64 && c.typ != u64 || wholeNumber(c.text) != c.text {
			continue // encoding/json reads a body's integers: digits only
		}
		if got := bindBody(t, c.typ, c.tag, json.RawMessage(c.text)); got != c.want {
			t.Errorf("body %s `%s` %s: got %q, want %q", c.typ, c.tag, c.text, got, c.want)
		}
	}
	if wholeNumber("1e99999999") != "1e99999999" || wholeNumber(string(make([]byte, 50))) == "" {
		t.Error("wholeNumber reads a long text")
	}
	_ = math.MaxInt64
}

// TestBoolWords: a query or header boolean takes strconv.ParseBool's words.
func TestBoolWords(t *testing.T) {
	b := reflect.TypeFor[bool]()
	for _, s := range []string{"1", "0", "t", "f", "T", "F", "true", "false", "TRUE", "FALSE", "True", "False"} {
		if got := bindQuery(t, b, "", s); got != "" {
			t.Errorf("?v=%s: got %q", s, got)
		}
	}
	for _, s := range []string{"yes", "no", "on", "2", "tRUE", " true", "true "} {
		if got := bindQuery(t, b, "", s); got != "type" {
			t.Errorf("?v=%s: got %q, want type", s, got)
		}
	}
}

// TestDateTime: RFC 3339 section 5.6, into a string and a time.Time.
func TestDateTime(t *testing.T) {
	cases := []struct {
		text string
		ok   bool
		at   time.Time
	}{
		{"2026-12-01T10:00:00Z", true, time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)},
		{"2026-12-01t10:00:00z", true, time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)},
		{"2016-12-31T23:59:60Z", true, time.Date(2017, 1, 1, 0, 0, 0, 0, time.UTC)},
		{"2016-12-31T18:59:60.5-05:00", true, time.Date(2017, 1, 1, 0, 0, 0, 500_000_000, time.UTC)},
		{"2016-12-31T23:58:60Z", false, time.Time{}},
		{"2026-12-01T2:02:02Z", false, time.Time{}},
		{"2026-12-01T10:00:00,000Z", false, time.Time{}},
		{"2026-12-01T24:00:00Z", false, time.Time{}},
		{"2026-12-01T10:00:00+24:00", false, time.Time{}},
		{"2026-12-01 10:00:00Z", false, time.Time{}},
		{"2026-02-29T10:00:00Z", false, time.Time{}},
		{"2024-02-29T10:00:00.123456789123Z", true, time.Date(2024, 2, 29, 10, 0, 0, 123456789, time.UTC)},
	}
	for _, c := range cases {
		want := ""
		if !c.ok {
			want = "format"
		}
		if got := bindQuery(t, reflect.TypeFor[string](), `format:"date-time"`, c.text); got != want {
			t.Errorf("string %q: got %q, want %q", c.text, got, want)
		}
		tm, ok := readDateTime(c.text)
		if ok != c.ok || ok && !tm.Equal(c.at) {
			t.Errorf("time.Time %q: got %v %v, want %v %v", c.text, tm, ok, c.at, c.ok)
		}
	}
}

// TestEnumTag: a JSON array tag holds values with commas; the comma list
// still works; both say the same in the schema.
func TestEnumTag(t *testing.T) {
	s := reflect.TypeFor[string]()
	for _, c := range []struct{ tag, text, want string }{
		{`enum:"[\"a,b\",\"c\"]"`, "a,b", ""},
		{`enum:"[\"a,b\",\"c\"]"`, "c", ""},
		{`enum:"[\"a,b\",\"c\"]"`, "a", "enum"},
		{`enum:"a,b"`, "a", ""},
		{`enum:"a,b"`, "a,b", "enum"},
	} {
		if got := bindQuery(t, s, c.tag, c.text); got != c.want {
			t.Errorf("%s %q: got %q, want %q", c.tag, c.text, got, c.want)
		}
	}
	if got := bindQuery(t, reflect.TypeFor[int](), `enum:"[1, 2]"`, "2"); got != "" {
		t.Errorf("numbers in a JSON array enum: got %q", got)
	}
	for _, bad := range []string{`[`, `[]`, `[{"a":1}]`, `[null]`} {
		if _, err := EnumValues(bad); err == nil {
			t.Errorf("EnumValues(%s): no error", bad)
		}
	}
}
