package typed

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
)

type allIn struct {
	ID    int64         `path:"id" minimum:"1"`
	Name  string        `path:"name" minLength:"2"`
	S     string        `query:"s" maxLength:"3" pattern:"^[a-z]*$"`
	B     bool          `query:"b"`
	I8    int8          `query:"i8"`
	U16   uint16        `query:"u16" maximum:"10"`
	F32   float32       `query:"f32" exclusiveMinimum:"0"`
	T     time.Time     `query:"t"`
	D     time.Duration `query:"d"`
	X     textID        `query:"x"`
	P     *int          `query:"p"`
	Tags  []string      `query:"tag" maxItems:"3" uniqueItems:"true" enum:"a,b,c"`
	IDs   []int         `query:"n" minimum:"1"`
	Def   int           `query:"def" default:"7"`
	DefP  *string       `query:"defp" default:"z"`
	H     string        `header:"X-H" required:"true"`
	HN    int           `header:"X-N"`
	C     string        `cookie:"c" format:"uuid"`
	inner               // embedded: its fields are the In type's
	_     struct{}      `strict:"query"`
}

type inner struct {
	Q string `query:"q"`
}

const uuid = "123e4567-e89b-12d3-a456-426614174000"

func TestBindLocations(t *testing.T) {
	names := []string{"id", "name"}
	for _, tc := range []struct {
		name   string
		target string
		header map[string][]string
		path   []string
		want   []string // the failures, "location keyword", sorted
	}{
		{"all good", "/?s=ab&b=true&i8=-3&u16=10&f32=0.5&t=2026-01-02T03:04:05Z&d=2s&x=k&p=4&tag=a&tag=b&n=1&n=%32&q=w",
			nil, []string{"5", "jo"}, nil},
		{"path rules", "/", nil, []string{"0", "j"}, []string{"header.X-H required", "path.id minimum", "path.name minLength"}},
		{"path type", "/", nil, []string{"x", "jo"}, []string{"header.X-H required", "path.id type"}},
		{"query types", "/?b=yes&i8=300&u16=-1&f32=NaN&t=now&d=1y&x=!&p=q", nil, []string{"5", "jo"}, []string{
			"header.X-H required", "query.b type", "query.d type", "query.f32 type", "query.i8 type",
			"query.p type", "query.t format", "query.u16 type", "query.x format"}},
		{"query rules", "/?s=ABCD&u16=11&f32=0", nil, []string{"5", "jo"}, []string{
			"header.X-H required", "query.f32 exclusiveMinimum", "query.s maxLength", "query.s pattern", "query.u16 maximum"}},
		{"repeated single", "/?s=a&s=b", nil, []string{"5", "jo"}, []string{"header.X-H required", "query.s type"}},
		{"unknown param", "/?zz=1", nil, []string{"5", "jo"}, []string{"header.X-H required", "query.zz unknown"}},
		{"bad escapes", "/?s=%zz&%zz=1", nil, []string{"5", "jo"}, []string{"header.X-H required", "query escape", "query.s escape"}},
		{"items", "/?tag=a&tag=a&tag=d&n=0&n=x", nil, []string{"5", "jo"}, []string{"header.X-H required",
			"query.n[0] minimum", "query.n[1] type", "query.tag uniqueItems", "query.tag[2] enum"}},
		{"too many items", "/?tag=a&tag=b&tag=c&tag=a", nil, []string{"5", "jo"}, []string{"header.X-H required", "query.tag maxItems"}},
		{"escaped repeated key", "/?n=1&%6E=2&n=%zz", nil, []string{"5", "jo"}, []string{"header.X-H required", "query.n[2] escape"}},
		{"header twice", "/", map[string][]string{"X-H": {"a", "b"}, "X-N": {"x"}}, []string{"5", "jo"},
			[]string{"header.X-H type", "header.X-N type"}},
		{"empty header is a value", "/", map[string][]string{"X-H": {"a"}, "X-N": {""}}, []string{"5", "jo"}, []string{"header.X-N type"}},
		{"cookie", "/", map[string][]string{"X-H": {"a"}, "Cookie": {"a=1; c=\"nope\""}}, []string{"5", "jo"},
			[]string{"cookie.c format"}},
		{"cookie good", "/", map[string][]string{"X-H": {"a"}, "Cookie": {"x=1", "c=" + uuid}}, []string{"5", "jo"}, nil},
		{"path value missing", "/", map[string][]string{"X-H": {"a"}}, []string{"5"}, []string{"path.name required"}},
	} {
		req := get(tc.target)
		for k, vs := range tc.header {
			req.Header[k] = vs
		}
		if tc.header == nil || tc.name == "all good" {
			req.Header.Set("X-H", "h")
		}
		if tc.want != nil && tc.header == nil {
			req.Header.Del("X-H")
		}
		v, err := bindInto[allIn](t, names, tc.path, req, Body{})
		got, _ := failures(err)
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: got %q (%v), want %q", tc.name, got, err, tc.want)
		}
		if tc.name == "all good" {
			if v.ID != 5 || v.Name != "jo" || v.S != "ab" || !v.B || v.I8 != -3 || v.U16 != 10 || v.F32 != 0.5 ||
				v.D != 2*time.Second || v.X.s != "k" || v.P == nil || *v.P != 4 || !slices.Equal(v.Tags, []string{"a", "b"}) ||
				!slices.Equal(v.IDs, []int{1, 2}) || v.Def != 7 || v.DefP == nil || *v.DefP != "z" || v.H != "h" || v.Q != "w" ||
				!v.T.Equal(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)) {
				t.Errorf("all good: bound %+v", v)
			}
		}
	}
}

func TestFailuresKinds(t *testing.T) {
	_, err := bindInto[allIn](t, []string{"id", "name"}, []string{"5", "jo"}, get("/?s=%zz"), Body{})
	if fs := err.(*failed); !fs.broken || ErrUnreadable.Error() != "the request could not be read" {
		t.Errorf("a bad escape: got broken %v, want ErrUnreadable", fs.broken)
	}
	_, err = bindInto[allIn](t, []string{"id", "name"}, []string{"0", "jo"}, get("/"), Body{})
	if fs := err.(*failed); fs.broken || !strings.Contains(ErrInvalid.Error(), "rules") {
		t.Errorf("a rule: got broken %v, want ErrInvalid", fs.broken)
	}
	// The failures a request is told of are bounded.
	type many struct {
		_ struct{} `strict:"query"`
	}
	_, err = bindInto[many](t, nil, nil, get("/?"+strings.Repeat("x=1&", 500)), Body{})
	if got, _ := failures(err); len(got) != MaxFailures {
		t.Errorf("500 unknown params: got %d failures, want %d", len(got), MaxFailures)
	}
}

// TestPlanErrors checks that an In type PlanIn cannot plan is refused,
// naming the field and why.
func TestPlanErrors(t *testing.T) {
	type notStruct int
	type noTag struct{ A int }
	type twoTags struct {
		A int `query:"a" header:"a"`
	}
	type badName struct {
		A int `query:"a b"`
	}
	type badHeader struct {
		A int `header:"a:b"`
	}
	type noPathParam struct {
		A int `path:"nope"`
	}
	type ptrPath struct {
		A *int `path:"id"`
	}
	type sliceHeader struct {
		A []int `header:"a"`
	}
	type badType struct {
		A map[string]int `query:"a"`
	}
	type dup struct {
		A int `query:"a"`
		B int `query:"a"`
	}
	type badStrict struct {
		_ struct{} `strict:"header"`
	}
	type badRequired struct {
		A int `query:"a" required:"maybe"`
	}
	type badDefault struct {
		A int `query:"a" default:"x"`
	}
	type defaultBreaks struct {
		A int `query:"a" minimum:"5" default:"1"`
	}
	type defaultText struct {
		A textID `query:"a" default:"!x"`
	}
	type defaultOnSlice struct {
		A []int `query:"a" default:"1"`
	}
	type badRule struct {
		A int `query:"a" maxLength:"1"`
	}
	type twoBodies struct {
		Body int
		inBody
	}
	type badBody struct {
		Body chan int
	}
	type badBodyRule struct {
		Body struct {
			A string `json:"a" minimum:"1"`
		}
	}
	type badBodyRequired struct {
		Body struct {
			A string `json:"a" required:"yes"`
		}
	}
	type scalarRuleOnStruct struct {
		Body struct {
			A struct{} `json:"a" minLength:"1"`
		}
	}
	for _, tc := range []struct {
		name string
		plan func() error
		want string
	}{
		{"not a struct", planOf[notStruct], "must be a struct"},
		{"no tag", planOf[noTag], "no path, query, header or cookie tag"},
		{"two tags", planOf[twoTags], "more than one of"},
		{"bad name", planOf[badName], "non-empty and plain"},
		{"bad header", planOf[badHeader], "no header name"},
		{"no such path param", planOf[noPathParam], "names no param of the pattern (its params: id)"},
		{"pointer path", planOf[ptrPath], "always present"},
		{"slice header", planOf[sliceHeader], "a slice binds only repeated query params"},
		{"bad type", planOf[badType], "cannot bind this type from text"},
		{"duplicate", planOf[dup], "binds it already"},
		{"bad strict", planOf[badStrict], `the one strict place is "query"`},
		{"bad required", planOf[badRequired], "wants true or false"},
		{"bad default", planOf[badDefault], `tag default:"x"`},
		{"default breaks its rule", planOf[defaultBreaks], "must be at least 5"},
		{"default text refused", planOf[defaultText], "is not valid"},
		{"default on a slice", planOf[defaultOnSlice], "single optional value"},
		{"bad rule", planOf[badRule], "on a string field"},
		{"two bodies", planOf[twoBodies], "a second Body field"},
		{"undecodable body", planOf[badBody], "cannot decode a chan int"},
		{"bad body rule", planOf[badBodyRule], "applies to numbers"},
		{"bad body required", planOf[badBodyRequired], "wants true or false"},
		{"scalar rule on a struct", planOf[scalarRuleOnStruct], "value rules apply to scalars"},
	} {
		err := tc.plan()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want an error with %q", tc.name, err, tc.want)
		}
	}
}

type inBody struct{ Body string }

func planOf[T any]() error {
	_, err := PlanIn(reflectType[T](), []string{"id"})
	return err
}

func TestPlanOut(t *testing.T) {
	type noBody struct {
		Status int
		ETag   string         `header:"ETag"`
		At     time.Time      `header:"Last-Modified"`
		Wait   *time.Duration `header:"Retry-After"`
		ID     textID         `header:"X-Id"`
		N      uint8          `header:"X-N"`
	}
	p, err := PlanOut(reflectType[noBody](), 0)
	if err != nil {
		t.Fatal(err)
	}
	if p.SuccessStatus() != http.StatusNoContent || p.HasBody() {
		t.Errorf("no body: got status %d, body %v, want 204 and none", p.SuccessStatus(), p.HasBody())
	}
	wait := 90 * time.Second
	out := &noBody{Status: 201, ETag: `"x"`, At: time.Date(2026, 1, 2, 3, 4, 5, 0, time.FixedZone("", 3600)),
		Wait: &wait, ID: textID{"k"}, N: 3}
	h := http.Header{}
	p.SetHeaders(ptrOf(out), h)
	want := http.Header{"Etag": {`"x"`}, "Last-Modified": {"Fri, 02 Jan 2026 02:04:05 GMT"}, "Retry-After": {"90"},
		"X-Id": {"k"}, "X-N": {"3"}}
	for k, v := range want {
		if !slices.Equal(h[k], v) {
			t.Errorf("header %s: got %q, want %q", k, h[k], v)
		}
	}
	if s, ok := p.Status(ptrOf(out)); s != 201 || !ok {
		t.Errorf("Status field: got %d, %v, want 201, true", s, ok)
	}
	h = http.Header{}
	p.SetHeaders(ptrOf(&noBody{}), h)
	// A zero time, an empty string or text, a nil pointer: not sent; a
	// zero number is.
	if len(h) != 1 || h.Get("X-N") != "0" {
		t.Errorf("zero values: got %v, want X-N: 0 alone", h)
	}
	type withBody struct {
		Body []int `doc:"the items"`
	}
	p, err = PlanOut(reflectType[withBody](), 0)
	if err != nil || p.SuccessStatus() != http.StatusOK || !p.HasBody() {
		t.Fatalf("body: got %v %v", p, err)
	}
	if b, err := p.MarshalBody(ptrOf(&withBody{Body: []int{1}})); err != nil || string(b) != "[1]" {
		t.Errorf("MarshalBody: got %s %v", b, err)
	}
	if r := p.Response(NewSchemas(false)); r.Description != "the items" || r.Content["application/json"] == nil {
		t.Errorf("Response: got %+v", r)
	}
	type badStatus struct{ Status string }
	type badField struct{ Other int }
	type badHeader struct {
		A int `header:"a b"`
	}
	type badHeaderType struct {
		A []int `header:"A"`
	}
	for _, tc := range []struct {
		name string
		typ  func() (*OutPlan, error)
		want string
	}{
		{"not a struct", func() (*OutPlan, error) { return PlanOut(reflectType[int](), 0) }, "must be a struct"},
		{"status type", func() (*OutPlan, error) { return PlanOut(reflectType[badStatus](), 0) }, "must be an int"},
		{"other field", func() (*OutPlan, error) { return PlanOut(reflectType[badField](), 0) }, "an output field is Body"},
		{"header name", func() (*OutPlan, error) { return PlanOut(reflectType[badHeader](), 0) }, "no header name"},
		{"header type", func() (*OutPlan, error) { return PlanOut(reflectType[badHeaderType](), 0) }, "cannot write this type"},
		{"status", func() (*OutPlan, error) { return PlanOut(reflectType[withBody](), 404) }, "no success status"},
	} {
		if _, err := tc.typ(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want %q", tc.name, err, tc.want)
		}
	}
}
