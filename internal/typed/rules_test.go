package typed

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

// rulesOf parses the rule tags tag of a field of type T.
func rulesOf[T any](tag string, slice bool) (*rules, error) {
	return parseRules(reflect.StructTag(tag), codecFor(reflect.TypeFor[T]()), slice)
}

// TestRuleKeywords checks each keyword passing and failing a value.
func TestRuleKeywords(t *testing.T) {
	type check struct {
		value string
		want  string // the keywords broken, joined by ","
	}
	for _, tc := range []struct {
		name   string
		rules  func() (*rules, error)
		checks []check
	}{
		{"minimum", func() (*rules, error) { return rulesOf[int](`minimum:"2"`, false) },
			[]check{{"2", ""}, {"1", "minimum"}}},
		{"exclusiveMinimum", func() (*rules, error) { return rulesOf[float64](`exclusiveMinimum:"0"`, false) },
			[]check{{"0.1", ""}, {"0", "exclusiveMinimum"}}},
		{"maximum", func() (*rules, error) { return rulesOf[uint](`maximum:"10"`, false) },
			[]check{{"10", ""}, {"11", "maximum"}}},
		{"exclusiveMaximum", func() (*rules, error) { return rulesOf[int](`exclusiveMaximum:"10"`, false) },
			[]check{{"9", ""}, {"10", "exclusiveMaximum"}}},
		{"multipleOf int", func() (*rules, error) { return rulesOf[int](`multipleOf:"3"`, false) },
			[]check{{"9", ""}, {"10", "multipleOf"}}},
		{"multipleOf uint", func() (*rules, error) { return rulesOf[uint](`multipleOf:"4"`, false) },
			[]check{{"8", ""}, {"9", "multipleOf"}}},
		{"multipleOf float", func() (*rules, error) { return rulesOf[float64](`multipleOf:"0.5"`, false) },
			[]check{{"1.5", ""}, {"1.2", "multipleOf"}}},
		{"multipleOf fractional on an int", func() (*rules, error) { return rulesOf[int](`multipleOf:"2.5"`, false) },
			[]check{{"5", ""}, {"6", "multipleOf"}}},
		{"minLength", func() (*rules, error) { return rulesOf[string](`minLength:"2"`, false) },
			[]check{{"éé", ""}, {"é", "minLength"}}},
		{"maxLength", func() (*rules, error) { return rulesOf[string](`maxLength:"1"`, false) },
			[]check{{"é", ""}, {"ab", "maxLength"}}},
		{"pattern", func() (*rules, error) { return rulesOf[string](`pattern:"^[a-z]+$"`, false) },
			[]check{{"abc", ""}, {"ABC", "pattern"}}},
		{"format", func() (*rules, error) { return rulesOf[string](`format:"email"`, false) },
			[]check{{"a@b.example", ""}, {"nope", "format"}}},
		{"format date-time on a time", func() (*rules, error) { return rulesOf[time.Time](`format:"date-time"`, false) },
			[]check{{"2026-01-02T03:04:05Z", ""}}},
		{"enum strings", func() (*rules, error) { return rulesOf[string](`enum:"a,b"`, false) },
			[]check{{"b", ""}, {"c", "enum"}}},
		{"enum ints", func() (*rules, error) { return rulesOf[int](`enum:"1,2"`, false) },
			[]check{{"2", ""}, {"3", "enum"}}},
		{"enum uints", func() (*rules, error) { return rulesOf[uint](`enum:"1,2"`, false) },
			[]check{{"1", ""}, {"3", "enum"}}},
		{"enum floats", func() (*rules, error) { return rulesOf[float64](`enum:"0.5,1"`, false) },
			[]check{{"0.5", ""}, {"2", "enum"}}},
		{"enum times", func() (*rules, error) {
			return rulesOf[time.Time](`enum:"2026-01-02T03:04:05Z"`, false)
		}, []check{{"2026-01-02T04:04:05+01:00", ""}, {"2026-01-02T03:04:06Z", "enum"}}},
		{"several", func() (*rules, error) { return rulesOf[int](`minimum:"5" multipleOf:"2"`, false) },
			[]check{{"6", ""}, {"3", "minimum,multipleOf"}}},
	} {
		rs, err := tc.rules()
		if err != nil || rs == nil {
			t.Errorf("%s: got %v %v, want rules", tc.name, rs, err)
			continue
		}
		for _, ck := range tc.checks {
			v, kw, _ := rs.codec.parse(ck.value)
			if kw != "" {
				t.Fatalf("%s: %q does not parse", tc.name, ck.value)
			}
			var kws []string
			for _, f := range rs.check(v, nil) {
				kws = append(kws, f.keyword)
				if !strings.HasPrefix(f.message, "must ") {
					t.Errorf("%s: message %q", tc.name, f.message)
				}
			}
			if got := strings.Join(kws, ","); got != ck.want {
				t.Errorf("%s %q: got %q, want %q", tc.name, ck.value, got, ck.want)
			}
		}
	}
}

func TestRuleItems(t *testing.T) {
	rs, err := rulesOf[string](`minItems:"1" maxItems:"2" uniqueItems:"true"`, true)
	if err != nil {
		t.Fatal(err)
	}
	one := func(s string) scalar { v, _, _ := rs.codec.parse(s); return v }
	for _, tc := range []struct {
		vals []scalar
		want string
	}{
		{[]scalar{one("a")}, ""},
		{nil, "minItems"},
		{[]scalar{one("a"), one("b"), one("c")}, "maxItems"},
		{[]scalar{one("a"), one("a")}, "uniqueItems"},
	} {
		var kws []string
		distinct := func() bool {
			for i := range tc.vals {
				for j := range i {
					if rs.same(tc.vals[i], tc.vals[j]) {
						return false
					}
				}
			}
			return true
		}
		for _, f := range rs.checkItems(len(tc.vals), distinct, nil) {
			kws = append(kws, f.keyword)
		}
		if got := strings.Join(kws, ","); got != tc.want {
			t.Errorf("%d items: got %q, want %q", len(tc.vals), got, tc.want)
		}
	}
	if rs, _ := rulesOf[string](`doc:"x"`, false); rs != nil {
		t.Errorf("no keyword: got rules %+v, want none", rs)
	}
}

// TestRuleTagErrors checks that a tag a field cannot have is refused,
// with the tag in the message.
func TestRuleTagErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  func() error
		want string
	}{
		{"minimum on a string", func() error { _, err := rulesOf[string](`minimum:"1"`, false); return err }, "applies to numbers"},
		{"minimum not a number", func() error { _, err := rulesOf[int](`minimum:"x"`, false); return err }, "not a number"},
		{"minimum fractional on an int", func() error { _, err := rulesOf[int](`minimum:"1.5"`, false); return err }, "not a number"},
		{"maximum negative on a uint", func() error { _, err := rulesOf[uint](`maximum:"-1"`, false); return err }, "not a number"},
		{"max below min", func() error { _, err := rulesOf[int](`minimum:"5" maximum:"1"`, false); return err }, "below minimum"},
		{"multipleOf zero", func() error { _, err := rulesOf[int](`multipleOf:"0"`, false); return err }, "positive number"},
		{"minLength on an int", func() error { _, err := rulesOf[int](`minLength:"1"`, false); return err }, "on a string field"},
		{"maxLength negative", func() error { _, err := rulesOf[string](`maxLength:"-1"`, false); return err }, "on a string field"},
		{"pattern bad", func() error { _, err := rulesOf[string](`pattern:"("`, false); return err }, "regular expression"},
		{"format unknown", func() error { _, err := rulesOf[string](`format:"color"`, false); return err }, "no format"},
		{"format on an int", func() error { _, err := rulesOf[int](`format:"uuid"`, false); return err }, "applies to strings"},
		{"enum bad value", func() error { _, err := rulesOf[int](`enum:"1,x"`, false); return err }, `value "x"`},
		{"items on a scalar", func() error { _, err := rulesOf[string](`maxItems:"1"`, false); return err }, "applies to slices"},
		{"uniqueItems not a bool", func() error { _, err := rulesOf[string](`uniqueItems:"yes"`, true); return err }, "true or false"},
		{"minItems not a count", func() error { _, err := rulesOf[string](`minItems:"x"`, true); return err }, "non-negative"},
	} {
		err := tc.err()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want an error with %q", tc.name, err, tc.want)
		}
	}
}
