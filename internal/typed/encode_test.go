package typed

import (
	"bytes"
	"errors"
	"io"

	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
	"unsafe"
)

// encodeBind encodes v, of type T planned for a pattern with the params
// names, then binds the request it makes into a new T, as a server
// would. It returns the failures each found and the value bound.
func encodeBind[T any](t *testing.T, names []string, v *T, media Media) (enc, bound []fail1, got *T, e *Encoded) {
	t.Helper()
	p, err := PlanIn(reflect.TypeFor[T](), names)
	if err != nil {
		t.Fatalf("PlanIn: %v", err)
	}
	e = &Encoded{Path: make([]string, len(names)), Header: http.Header{}}
	fs := &failed{}
	err = p.Encode(unsafe.Pointer(v), e, media, fs)
	if (err != nil) != (len(fs.list) > 0) || err != nil && err != ErrInvalid {
		t.Fatalf("Encode returned %v with %d failures", err, len(fs.list))
	}
	target := "/"
	if len(e.Query) > 0 {
		target += "?" + string(e.Query)
	}
	var body *bytes.Reader
	method := http.MethodGet
	if e.Body != nil {
		body, method = bytes.NewReader(e.Body), http.MethodPost
	}
	var req *http.Request
	if body != nil {
		req = httptest.NewRequest(method, target, body)
		req.Header.Set("Content-Type", e.ContentType)
	} else {
		req = httptest.NewRequest(method, target, nil)
	}
	for k, vs := range e.Header {
		req.Header[k] = vs
	}
	got = new(T)
	bfs := &failed{}
	in := &Input{Req: req, W: httptest.NewRecorder(), Path: pathVals(e.Path), Body: Body{MaxBytes: 1 << 20, Memory: 1 << 20},
		Fails: bfs, Temp: &Temp{}}
	defer in.Temp.Remove()
	if err := p.Bind(in, unsafe.Pointer(got)); err != nil && err != ErrInvalid && err != ErrUnreadable {
		t.Fatalf("Bind: %v", err)
	}
	return fs.list, bfs.list, got, e
}

func intp(n int) *int { return &n }

func strp(s string) *string { return &s }

// TestEncodeBindsBack: what Encode writes binds back to the value it was
// given (with the defaults of the fields it left out), and every failure
// Encode finds is the failure binding finds, in the same order, with the
// same message.
func TestEncodeBindsBack(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 600, time.UTC)
	good := allIn{ID: 5, Name: "j o/é", S: "ab", B: true, I8: -3, U16: 10, F32: 0.5, T: at, D: 1500 * time.Millisecond,
		X: textID{"k&=+"}, P: intp(0), Tags: []string{"a", "c"}, IDs: []int{1, 22}, Def: 8, DefP: strp(""),
		H: "h v", HN: 3, C: uuid, inner: inner{Q: "w x;y"}}
	for _, tc := range []struct {
		name string
		in   allIn
		want []string // the failures, "location keyword"
	}{
		{"all good", good, nil},
		{"zero values", allIn{ID: 1, Name: "jo", H: "h"}, nil},
		{"a required zero value is sent", allIn{ID: 1, Name: "jo"}, nil},
		{"rules", func() allIn {
			v := good
			v.ID, v.Name, v.S, v.U16, v.F32 = 0, "j", "ABCD", 11, -1
			return v
		}(), []string{"path.id minimum", "path.name minLength", "query.s maxLength", "query.s pattern",
			"query.u16 maximum", "query.f32 exclusiveMinimum"}},
		{"items", func() allIn {
			v := good
			v.Tags, v.IDs = []string{"a", "a", "d"}, []int{0, 2}
			return v
		}(), []string{"query.tag[2] enum", "query.tag uniqueItems", "query.n[0] minimum"}},
		{"too many items", func() allIn {
			v := good
			v.Tags = []string{"a", "b", "c", "a"}
			return v
		}(), []string{"query.tag maxItems"}},
		{"not a number", func() allIn {
			v := good
			v.F32 = float32(nan())
			return v
		}(), []string{"query.f32 type"}},
		{"text refused", func() allIn {
			v := good
			v.X = textID{"!x"}
			return v
		}(), []string{"query.x format"}},
		{"cookie format", func() allIn {
			v := good
			v.C = "not-a-uuid"
			return v
		}(), []string{"cookie.c format"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			enc, bound, got, _ := encodeBind(t, []string{"id", "name"}, &tc.in, MediaJSON)
			if !slices.Equal(enc, bound) {
				t.Errorf("Encode found\n\t%v\nbinding found\n\t%v", enc, bound)
			}
			var locs []string
			for _, f := range enc {
				locs = append(locs, f.loc+" "+f.keyword)
			}
			if !slices.Equal(locs, tc.want) {
				t.Errorf("got failures %q, want %q", locs, tc.want)
			}
			if len(tc.want) > 0 {
				return
			}
			want := tc.in
			if want.Def == 0 {
				want.Def = 7
			}
			if want.DefP == nil {
				want.DefP = strp("z")
			}
			if !reflect.DeepEqual(*got, want) {
				t.Errorf("bound back\n\t%+v\nwant\n\t%+v", *got, want)
			}
		})
	}
}

func nan() float64 {
	var zero float64
	return zero / zero
}

// TestEncodeRefusesWhatCannotBeSent: values a request cannot carry as
// they are fail at their location, and are not sent.
func TestEncodeRefusesWhatCannotBeSent(t *testing.T) {
	type in struct {
		H string `header:"X-H"`
		C string `cookie:"c"`
		D string `cookie:"d"`
	}
	for _, tc := range []struct {
		name   string
		in     in
		want   []string
		header http.Header
	}{
		{"good", in{H: "a\tb", C: "x,y z", D: "plain"}, nil,
			http.Header{"X-H": {"a\tb"}, "Cookie": {`c="x,y z"; d=plain`}}},
		{"newline", in{H: "a\r\nX-Evil: 1"}, []string{"header.X-H format"}, http.Header{}},
		{"white space around", in{H: " a"}, []string{"header.X-H format"}, http.Header{}},
		{"cookie separator", in{C: "a;b=c", D: "ok"}, []string{"cookie.c format"}, http.Header{"Cookie": {"d=ok"}}},
		{"cookie quote", in{C: `"a"`}, []string{"cookie.c format"}, http.Header{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			enc, _, got, e := encodeBind(t, nil, &tc.in, MediaJSON)
			var locs []string
			for _, f := range enc {
				locs = append(locs, f.loc+" "+f.keyword)
			}
			if !slices.Equal(locs, tc.want) {
				t.Errorf("got failures %q, want %q", locs, tc.want)
			}
			if !reflect.DeepEqual(e.Header, tc.header) {
				t.Errorf("got header %v, want %v", e.Header, tc.header)
			}
			if tc.want == nil && *got != tc.in {
				t.Errorf("bound back %+v, want %+v", *got, tc.in)
			}
		})
	}
}

// TestEncodeCookieLine: the In's cookies follow those already set, in
// one Cookie line.
func TestEncodeCookieLine(t *testing.T) {
	type in struct {
		C string `cookie:"c"`
	}
	p, err := PlanIn(reflect.TypeFor[in](), nil)
	if err != nil {
		t.Fatal(err)
	}
	e := &Encoded{Header: http.Header{"Cookie": {"session=s1"}}}
	v := in{C: "v"}
	if err := p.Encode(unsafe.Pointer(&v), e, MediaJSON, &failed{}); err != nil {
		t.Fatal(err)
	}
	if got, want := e.Header["Cookie"], []string{"session=s1; c=v"}; !slices.Equal(got, want) {
		t.Errorf("got Cookie %q, want %q", got, want)
	}
}

// TestEncodeBody: a JSON body, and a form, bind back; the failures in a
// body are binding's.
func TestEncodeBody(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	goodDoc := doc{Name: "a", Must: "m", Tags: []string{"x", "y"}, Pair: [2]int{1, 2},
		Kids: []doc{{Name: "k", Must: "m", At: at}}, ByKey: map[string]kv{"b": {"k1"}}, Ptr: &kv{"k"}, N: 1, U: 1, F: 1,
		B: true, At: at, ID: textID{"ab"}}
	for _, tc := range []struct {
		name string
		in   docIn
		want []string
	}{
		{"good", docIn{goodDoc}, nil},
		{"required members", docIn{}, []string{"body.name minLength", "body.at enum", "body.must required"}},
		{"rules inside", docIn{doc{Name: "", Must: "m", Tags: []string{"toolong", "a", "a"}, Pair: [2]int{-1, 0},
			Kids: []doc{{Name: "", Must: "m"}}, ByKey: map[string]kv{"z": {"no"}}, Ptr: &kv{"no"}, N: 10, U: 10,
			F: 9.5, B: false, At: at.Add(time.Second), ID: textID{"abc"}}}, []string{
			"body.name minLength", "body.tags[0] maxLength", "body.tags maxItems", "body.pair[0] minimum",
			"body.kids[0].name minLength", "body.kids[0].at enum", "body.byKey.z.k pattern", "body.ptr.k pattern", "body.n maximum",
			"body.u maximum", "body.f maximum", "body.at enum", "body.id maxLength"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			enc, bound, got, e := encodeBind(t, nil, &tc.in, MediaJSON)
			if e.ContentType != "application/json" {
				t.Errorf("got Content-Type %q, want application/json", e.ContentType)
			}
			if !slices.Equal(enc, bound) {
				t.Errorf("Encode found\n\t%v\nbinding found\n\t%v", enc, bound)
			}
			var locs []string
			for _, f := range enc {
				locs = append(locs, f.loc+" "+f.keyword)
			}
			if !slices.Equal(locs, tc.want) {
				t.Errorf("got failures %q, want %q", locs, tc.want)
			}
			if tc.want == nil && !reflect.DeepEqual(*got, tc.in) {
				t.Errorf("bound back\n\t%+v\nwant\n\t%+v", *got, tc.in)
			}
		})
	}

	t.Run("optional body left out", func(t *testing.T) {
		enc, bound, got, e := encodeBind(t, nil, &optIn{}, MediaJSON)
		if e.Body != nil || len(enc)+len(bound) > 0 || got.Body != nil {
			t.Errorf("got body %q, failures %v and %v, bound %v; want none", e.Body, enc, bound, got.Body)
		}
	})

	for _, tc := range []struct {
		name string
		a    int
		b    string
		c    []string
		body string
		want []string
	}{
		{"form", 2, "x y&", []string{"1", "2"}, "a=2&b=x+y%26&c=1&c=2", nil},
		{"form zero values", 1, "", nil, "a=1", nil},
		{"form rules", -1, "", nil, "a=-1", []string{"body.a minimum"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var v formIn
			v.Body.A, v.Body.B, v.Body.C = tc.a, tc.b, tc.c
			enc, bound, got, e := encodeBind(t, nil, &v, MediaForm)
			if e.ContentType != "application/x-www-form-urlencoded" || string(e.Body) != tc.body {
				t.Errorf("got %s %q, want a form %q", e.ContentType, e.Body, tc.body)
			}
			if !slices.Equal(enc, bound) {
				t.Errorf("Encode found %v, binding found %v", enc, bound)
			}
			if len(enc) != len(tc.want) || len(enc) > 0 && enc[0].loc+" "+enc[0].keyword != tc.want[0] {
				t.Errorf("got failures %v, want %q", enc, tc.want)
			}
			if tc.want == nil && !reflect.DeepEqual(*got, v) {
				t.Errorf("bound back %+v, want %+v", *got, v)
			}
		})
	}
}

// TestEncodeFormRequired: a form leaves out a zero member, so a
// required one fails, as binding fails it.
func TestEncodeFormRequired(t *testing.T) {
	var v struct {
		Body struct {
			A *string `json:"a"`
			B int     `json:"b,omitempty"`
		} `consumes:"form"`
	}
	enc, bound, _, _ := encodeBind(t, nil, &v, MediaForm)
	if !slices.Equal(enc, bound) || len(enc) != 1 || enc[0].loc != "body.a" || enc[0].keyword != "required" {
		t.Errorf("Encode found %v, binding found %v; want body.a required from both", enc, bound)
	}
}

func TestEncodable(t *testing.T) {
	type onlyUnmarshal struct {
		V onlyText `query:"v"`
	}
	p, err := PlanIn(reflect.TypeFor[onlyUnmarshal](), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Encodable(); err == nil || !strings.Contains(err.Error(), "field V") {
		t.Errorf("got %v, want an error naming field V", err)
	}
	p, _ = PlanIn(reflect.TypeFor[allIn](), []string{"id", "name"})
	if err := p.Encodable(); err != nil {
		t.Errorf("got %v for allIn, want nil", err)
	}
}

// onlyText is a text type with no MarshalText.
type onlyText struct{ s string }

func (o *onlyText) UnmarshalText(b []byte) error { o.s = string(b); return nil }

type answerOut struct {
	Status  int
	Loc     string        `header:"Location"`
	N       int           `header:"X-N"`
	P       *int          `header:"X-P"`
	When    time.Time     `header:"Last-Modified"`
	Retry   time.Duration `header:"Retry-After"`
	ID      textID        `header:"X-ID"`
	Ignored *bool         `header:"X-Absent"`
	Body    struct {
		Items []struct {
			At time.Time `json:"at"`
			N  int       `json:"n"`
		} `json:"items"`
	}
}

// TestDecode: an answer written by the Out plan reads back into the value
// it was written from.
func TestDecode(t *testing.T) {
	p, err := PlanOut(reflect.TypeFor[answerOut](), 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Decodable(); err != nil {
		t.Fatal(err)
	}
	want := answerOut{Status: 201, Loc: "/x/1", N: -4, P: intp(0), When: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
		Retry: 90 * time.Second, ID: textID{"abc"}}
	want.Body.Items = append(want.Body.Items, struct {
		At time.Time `json:"at"`
		N  int       `json:"n"`
	}{At: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), N: 3})
	h := http.Header{}
	p.SetHeaders(unsafe.Pointer(&want), h)
	body, err := p.MarshalBody(unsafe.Pointer(&want))
	if err != nil {
		t.Fatal(err)
	}
	var got answerOut
	status, _ := p.Status(unsafe.Pointer(&want))
	if err := p.Decode(unsafe.Pointer(&got), status, h, "application/json", body); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got\n\t%+v\nwant\n\t%+v", got, want)
	}
}

// TestDecodeErrors: a member that cannot be read is named.
func TestDecodeErrors(t *testing.T) {
	p, err := PlanOut(reflect.TypeFor[answerOut](), 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		header http.Header
		ctype  string
		body   string
		want   string
	}{
		{"int header", http.Header{"X-N": {"four"}}, "application/json", "", `header X-N: must be an integer`},
		{"date header", http.Header{"Last-Modified": {"yesterday"}}, "", "", `header Last-Modified: must be an HTTP-date, got "yesterday"`},
		{"seconds header", http.Header{"Retry-After": {"-1"}}, "", "", `header Retry-After: must be a number of seconds`},
		{"text header", http.Header{"X-Id": {"!x"}}, "", "", `header X-Id: is not valid: bad id`},
		{"member type", nil, "application/json", `{"items":[{"n":"5"}]}`, `body.items.n: must be an integer, got a JSON string`},
		{"syntax", nil, "application/json", `{"items":`, `body: malformed JSON`},
		{"media type", nil, "text/html", `<p>`, `body: the media type is "text/html", want application/json`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got answerOut
			err := p.Decode(unsafe.Pointer(&got), 200, tc.header, tc.ctype, []byte(tc.body))
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("got %v, want an error starting %q", err, tc.want)
			}
		})
	}
	type noUnmarshal struct {
		V onlyMarshal `header:"X-V"`
	}
	q, err := PlanOut(reflect.TypeFor[noUnmarshal](), 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := q.Decodable(); err == nil || !strings.Contains(err.Error(), "field V") {
		t.Errorf("got %v, want an error naming field V", err)
	}
}

type onlyMarshal struct{}

func (onlyMarshal) MarshalText() ([]byte, error) { return []byte("x"), nil }

// TestEncodeAgreesWithBind: over random In values, odd characters and
// values against the rules included, Encode finds exactly the failures
// binding finds in the request it makes, in the same order and words.
func TestEncodeAgreesWithBind(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	words := []string{"", "a", "ab", "abc", "ABCD", "a b", "x&y=z", "50%", "+", "é", "a/b", ".", "..", "\x00", "\xff",
		"a;b", `"q"`, "1", "-1", "0", "10", "11", "300", uuid, "!x", "c", "k"}
	safe := []string{"", "h", "a b", "x,y", uuid, "é", "not-a-uuid", "%41"}
	pick := func(ws []string) string { return ws[rng.IntN(len(ws))] }
	for i := range 2000 {
		v := allIn{ID: int64(rng.IntN(4)) - 1, Name: pick(words), S: pick(words), B: rng.IntN(2) == 0,
			I8: int8(rng.IntN(256) - 128), U16: uint16(rng.IntN(14)), F32: float32(rng.NormFloat64()),
			T: time.Unix(rng.Int64N(1<<34)-1<<33, rng.Int64N(1e9)).In(time.FixedZone("", 60*(rng.IntN(1440)-720))),
			D: time.Duration(rng.Int64N(1 << 40)), X: textID{pick(words)}, H: pick(safe), HN: rng.IntN(3) - 1,
			C: pick(safe), inner: inner{Q: pick(words)}}
		if rng.IntN(2) == 0 {
			v.P = intp(rng.IntN(3) - 1)
		}
		if rng.IntN(2) == 0 {
			v.DefP = strp(pick(words))
		}
		for range rng.IntN(5) {
			v.Tags = append(v.Tags, pick([]string{"a", "b", "c", "d"}))
		}
		for range rng.IntN(3) {
			v.IDs = append(v.IDs, rng.IntN(3)-1)
		}
		enc, bound, _, _ := encodeBind(t, []string{"id", "name"}, &v, MediaJSON)
		if !slices.Equal(enc, bound) {
			t.Fatalf("value %d, %+v:\nEncode found\n\t%v\nbinding found\n\t%v", i, v, enc, bound)
		}
	}
}

// upFile is a file type, as the root's File is: a struct of one *Part.
type upFile struct{ p *Part }

type upIn struct {
	ID   int `path:"id"`
	Body struct {
		Doc  upFile   `json:"doc" accept:"text/plain" maxBytes:"64"`
		Pics []upFile `json:"pics,omitempty" accept:"image/*" maxItems:"2"`
		Meta *kv      `json:"meta,omitempty"`
		Note string   `json:"note,omitempty" maxLength:"3"`
		N    int      `json:"n" minimum:"1"`
	}
}

// TestEncodeMultipart: a body with files is written as multipart that
// binds back to it, and every failure Encode finds is binding's; a file
// binding refuses whole is its *BodyError.
func TestEncodeMultipart(t *testing.T) {
	gif := []byte("GIF89a\x01\x00\x01\x00\x00\x00\x00;")
	for _, tc := range []struct {
		name string
		set  func(v *upIn)
		want []string
		code int // a *BodyError's status
	}{
		{"good", func(v *upIn) {
			v.Body.Doc = upFile{NewPart("a \"b\".txt", "text/plain", []byte("hello"))}
			v.Body.Pics = []upFile{{NewPart("p.gif", "", gif)}, {NewPart("", "image/gif", gif)}}
			v.Body.Meta, v.Body.Note, v.Body.N = &kv{"k1"}, "abc", 2
		}, nil, 0},
		{"failures", func(v *upIn) {
			v.Body.Pics = []upFile{{NewPart("p.gif", "", gif)}, {NewPart("p.gif", "", gif)}, {NewPart("p.gif", "", gif)}}
			v.Body.Meta, v.Body.Note = &kv{"no"}, "abcd"
		}, []string{"body.pics maxItems", "body.meta.k pattern", "body.note maxLength", "body.n minimum", "body.doc required"}, 0},
		{"too large", func(v *upIn) {
			v.Body.Doc, v.Body.N = upFile{NewPart("big.txt", "text/plain", bytes.Repeat([]byte("a"), 65))}, 1
		}, nil, 413},
		{"not accepted", func(v *upIn) {
			v.Body.Doc, v.Body.N = upFile{NewPart("x.gif", "", gif)}, 1
		}, nil, 415},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var v upIn
			v.ID = 1
			tc.set(&v)
			if tc.code != 0 {
				p, _ := PlanIn(reflect.TypeFor[upIn](), []string{"id"})
				e := &Encoded{Path: make([]string, 1), Header: http.Header{}}
				var be *BodyError
				if err := p.Encode(unsafe.Pointer(&v), e, MediaJSON, &failed{}); !errors.As(err, &be) || be.Status != tc.code {
					t.Errorf("got %v, want a %d *BodyError", err, tc.code)
				}
				return
			}
			enc, bound, got, e := encodeBind(t, []string{"id"}, &v, MediaJSON)
			if !strings.HasPrefix(e.ContentType, "multipart/form-data; boundary=") {
				t.Errorf("got Content-Type %q, want multipart/form-data", e.ContentType)
			}
			if !slices.Equal(enc, bound) {
				t.Errorf("Encode found\n\t%v\nbinding found\n\t%v", enc, bound)
			}
			var locs []string
			for _, f := range enc {
				locs = append(locs, f.loc+" "+f.keyword)
			}
			if !slices.Equal(locs, tc.want) {
				t.Errorf("got failures %q, want %q", locs, tc.want)
			}
			if tc.want != nil {
				return
			}
			if got.Body.Meta == nil || *got.Body.Meta != *v.Body.Meta || got.Body.Note != v.Body.Note || got.Body.N != v.Body.N ||
				len(got.Body.Pics) != 2 || got.Body.Doc.p == nil {
				t.Fatalf("bound back %+v, want %+v", got.Body, v.Body)
			}
			for i, pair := range [][2]*Part{{got.Body.Doc.p, v.Body.Doc.p}, {got.Body.Pics[0].p, v.Body.Pics[0].p}, {got.Body.Pics[1].p, v.Body.Pics[1].p}} {
				g, w := pair[0], pair[1]
				r, _ := g.Open()
				content, _ := io.ReadAll(r)
				if g.Filename != w.Filename || g.Type != w.Type || g.Size != w.Size || !bytes.Equal(content, w.mem) {
					t.Errorf("file %d: got %q %q %d %q, want %q %q %d %q", i, g.Filename, g.Type, g.Size, content,
						w.Filename, w.Type, w.Size, w.mem)
				}
			}
		})
	}
}

// TestEncodeMergePatch: a body whose kind is a merge patch goes as one.
func TestEncodeMergePatch(t *testing.T) {
	var v struct {
		Body struct {
			A string `json:"a,omitempty"`
		} `consumes:"merge-patch"`
	}
	v.Body.A = "x"
	enc, bound, got, e := encodeBind(t, nil, &v, MediaJSON)
	if e.ContentType != "application/merge-patch+json" || len(enc)+len(bound) > 0 || got.Body.A != "x" {
		t.Errorf("got %s, failures %v and %v, bound %+v; want a merge patch that binds back", e.ContentType, enc, bound, got.Body)
	}
}
