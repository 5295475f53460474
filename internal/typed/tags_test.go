package typed

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// TestCheckTags: a tag that is one of waltz's spelt in another letter
// case, or a JSON Schema keyword waltz does not check, is refused, with
// the spelling meant; other libraries' tags are left alone.
func TestCheckTags(t *testing.T) {
	for _, tc := range []struct {
		tag, want string // want: a part of the error, "" for none
	}{
		{`json:"a" maxLength:"3" doc:"x"`, ""},
		{`json:"a" maxlength:"3"`, `tag maxlength:"3" is no tag waltz knows: did you mean maxLength?`},
		{`MINIMUM:"1"`, "did you mean minimum?"},
		{`Doc:"a"`, "did you mean doc?"},
		{`JSON:"a"`, "did you mean json?"},
		{`Query:"q"`, "did you mean query?"},
		{`maxbytes:"1KiB"`, "did you mean maxBytes?"},
		{`maxProperties:"3"`, `tag maxProperties:"3": waltz does not check JSON Schema's maxProperties: check the count of a map's members in a Validate method`},
		{`minproperties:"1"`, "does not check JSON Schema's minProperties"},
		{`const:"a"`, "use enum with the one value"},
		{`additionalProperties:"false"`, "Router.DisallowUnknownFields"},
		// Other libraries' tags, and tags this package does not read.
		{`json:"a,omitempty" xml:"a,attr" yaml:"a" toml:"a" db:"a" validate:"required,min=1" gorm:"column:a" bson:"a" ` +
			`mapstructure:"a" form:"a" binding:"required" url:"a" env:"A" description:"x" title:"x" examples:"x" type:"x"`, ""},
		// A tag reflect cannot read past stops the reading there, as it
		// stops Lookup.
		{`json:"a" bad maxlength:"3"`, ""},
		{`json:"a\"b" maxlength:"3"`, "did you mean maxLength?"},
	} {
		err := checkTags(reflect.StructTag(tc.tag))
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: got %v, want none", tc.tag, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: got %v, want an error with %q", tc.tag, err, tc.want)
		}
	}
}

// TestPlanRefusesTags: a misspelt or unchecked rule tag is refused at
// registration wherever a field is planned: a param, a body member at any
// depth, a file, the Body field, a blank field, an Out field. It was
// ignored, and the limit its author wrote with it gone.
func TestPlanRefusesTags(t *testing.T) {
	type param struct {
		Name string `query:"name" maxlength:"3"`
	}
	type inner struct {
		Labels map[string]string `json:"labels" maxProperties:"3"`
	}
	type deep struct {
		Body struct {
			Inner []inner `json:"inner"`
		}
	}
	type file struct {
		Body struct {
			F testFile `json:"f" MaxBytes:"1KiB"`
		}
	}
	type body struct {
		Body struct{} `Consumes:"form"`
	}
	type blank struct {
		_ struct{} `Strict:"query"`
	}
	for _, tc := range []struct {
		name string
		plan func() error
		want string
	}{
		{"param", planOf[param], `type typed.param, field Name (string): tag maxlength:"3" is no tag waltz knows: did you mean maxLength?`},
		{"deep member", planOf[deep], `field Labels (map[string]string): tag maxProperties:"3": waltz does not check`},
		{"file", planOf[file], `field F (typed.testFile): tag MaxBytes:"1KiB" is no tag waltz knows: did you mean maxBytes?`},
		{"body", planOf[body], "did you mean consumes?"},
		{"blank", planOf[blank], "did you mean strict?"},
		{"out", func() error {
			_, err := PlanOut(reflect.TypeFor[struct {
				Body string `Doc:"the answer"`
			}](), 0)
			return err
		}, "did you mean doc?"},
	} {
		err := tc.plan()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want an error with %q", tc.name, err, tc.want)
		}
	}
	// Context.Bind's plan reads no tag of waltz's, and refuses none.
	var v struct {
		A string `json:"a" maxlength:"3"`
	}
	if err, _ := decodeJSON(t, &v, `{"a":"abcd"}`, Body{}); err != nil || v.A != "abcd" {
		t.Errorf("Bind: got %v %q", err, v.A)
	}
}

// TestAnnotationFormat: format:"password", an OpenAPI annotation, is
// taken, shown in the document and checks nothing; a format waltz does
// not know is still refused, naming the ones it takes.
func TestAnnotationFormat(t *testing.T) {
	type in struct {
		Body struct {
			Password string `json:"password" format:"password" minLength:"8"`
		}
	}
	if _, err := bindInto[in](t, nil, nil, post(js, `{"password":"any text at all"}`), Body{}); err != nil {
		t.Errorf("got %v, want the password taken", err)
	}
	_, err := bindInto[in](t, nil, nil, post(js, `{"password":"short"}`), Body{})
	if got, _ := failures(err); len(got) != 1 || got[0] != "body.password minLength" {
		t.Errorf("got %q, want minLength alone", got)
	}
	p, err := PlanIn(reflect.TypeFor[in](), nil)
	if err != nil {
		t.Fatal(err)
	}
	g := NewSchemas(false)
	b, _ := json.Marshal(p.RequestBody(g).Content["application/json"].Schema)
	if !strings.Contains(string(b), `"password":{"type":"string","format":"password","minLength":8}`) {
		t.Errorf("schema %s: want format password", b)
	}
	type host struct {
		H string `query:"h" format:"hostname"`
	}
	if err := planOf[host](); err == nil || !strings.Contains(err.Error(), "is no format this package checks") ||
		!strings.Contains(err.Error(), "password, which the document shows and nothing checks") {
		t.Errorf("format hostname: got %v", err)
	}
	type onInt struct {
		N int `query:"n" format:"password"`
	}
	if err := planOf[onInt](); err == nil || !strings.Contains(err.Error(), "applies to strings") {
		t.Errorf("format password on an int: got %v", err)
	}
}
