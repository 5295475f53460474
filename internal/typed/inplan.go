package typed

import (
	"fmt"
	"net/textproto"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/waltz-go/waltz/internal/header"
)

// The binding plan of a typed operation's In type, made once at
// registration: for each field, where its value comes from, its codec,
// its rules and its offset. A request only runs the plan.

type place uint8

const (
	inPath place = iota
	inQuery
	inHeader
	inCookie
	inForm // a member of a form body
)

var placeNames = [...]string{"path", "query", "header", "cookie", "body"}

// defaultMaxItems caps the values of a repeated query param whose field
// has no maxItems tag, so that a request cannot make the handler hold a
// huge slice.
const defaultMaxItems = 100

// maxFields is the most bound fields an In type may have: a request keeps
// which it has seen in a bit set of that size, on the stack.
const maxFields = 128

// param is one field bound from the path, query, headers, cookies or a
// form body.
type param struct {
	place    place
	name     string // the name on the wire; a header's in canonical form
	shown    string // the name as the tag spells it, for the document (Spellings)
	loc      string // "query.limit", for FieldError.Location
	goName   string // the Go field, for the document and messages
	off      uintptr
	index    int // the bit of the seen set; for a path param, its index in the pattern
	pathIdx  int
	codec    *codec
	rules    *rules
	ptr      bool // *T: nil when absent
	multi    bool // []T or []*T: a repeated query param
	itemPtr  bool // multi, []*T: each item a pointer
	comma    bool // multi, explode:"false": one value, its items separated by commas
	maxItems int  // multi: the cap on values
	required bool
	def      *scalar // default:"..."
	doc      string
	example  string
	field    reflect.StructField
}

// InPlan is the plan of an In type, made once at registration by PlanIn
// and read only afterwards, so requests may share it.
type InPlan struct {
	typ    reflect.Type
	params []*param
	path   []*param
	query  []*param
	header []*param
	cookie []*param
	body   *bodyPlan
	strict bool // refuse query params that name no field
}

// PlanError returns an error that names the type t, and the field f when
// it is not nil, that cannot be planned, followed by the formatted reason.
func PlanError(t reflect.Type, f *reflect.StructField, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	if f == nil {
		return fmt.Errorf("type %s: %s", t, msg)
	}
	return fmt.Errorf("type %s, field %s (%s): %s", t, f.Name, f.Type, msg)
}

// PlanIn makes the plan of the In type t, a struct, for a pattern whose
// params are names, in order. The error names the type and the field that
// cannot be planned, and why.
func PlanIn(t reflect.Type, names []string) (*InPlan, error) {
	if t.Kind() != reflect.Struct {
		return nil, PlanError(t, nil, "the input type must be a struct")
	}
	p := &InPlan{typ: t}
	if err := p.fields(t, t, 0, names); err != nil {
		return nil, err
	}
	if len(p.params) > maxFields {
		return nil, PlanError(t, nil, "%d bound fields, more than %d", len(p.params), maxFields)
	}
	return p, nil
}

// fields adds the fields of the struct st, at offset base in the In type
// t, embedded structs' fields included.
func (p *InPlan) fields(t, st reflect.Type, base uintptr, names []string) error {
	for i := range st.NumField() {
		f := st.Field(i)
		f.Offset += base
		if f.Name == "_" {
			if err := checkTags(f.Tag); err != nil {
				return PlanError(t, &f, "%v", err)
			}
			if v, ok := f.Tag.Lookup("strict"); ok {
				if v != "query" {
					return PlanError(t, &f, "tag strict:%q: the one strict place is \"query\"", v)
				}
				p.strict = true
			}
			continue
		}
		if f.Anonymous && f.Type.Kind() == reflect.Struct && !hasPlace(f.Tag) {
			if err := p.fields(t, f.Type, f.Offset, names); err != nil {
				return err
			}
			continue
		}
		if !f.IsExported() {
			continue
		}
		if f.Name == "Body" && !hasPlace(f.Tag) {
			if p.body != nil {
				return PlanError(t, &f, "a second Body field, through an embedded struct: the body can bind one")
			}
			b, err := planBody(t, f)
			if err != nil {
				return err
			}
			p.body = b
			continue
		}
		pr, err := planParam(t, f, names)
		if err != nil {
			return err
		}
		for _, q := range p.params {
			if q.place == pr.place && q.name == pr.name {
				return PlanError(t, &f, "tag %s:%q: field %s binds it already", placeNames[pr.place], pr.name, q.goName)
			}
		}
		pr.index = len(p.params)
		p.params = append(p.params, pr)
		switch pr.place {
		case inPath:
			p.path = append(p.path, pr)
		case inQuery:
			p.query = append(p.query, pr)
		case inHeader:
			p.header = append(p.header, pr)
		case inCookie:
			p.cookie = append(p.cookie, pr)
		}
	}
	return nil
}

// Type returns the In type p was planned from.
func (p *InPlan) Type() reflect.Type { return p.typ }

// hasPlace reports whether tag binds its field from a request place.
func hasPlace(tag reflect.StructTag) bool {
	for _, k := range placeNames[:inForm] {
		if _, ok := tag.Lookup(k); ok {
			return true
		}
	}
	return false
}

// planParam plans one field of t bound from a path, query, header or
// cookie param.
func planParam(t reflect.Type, f reflect.StructField, names []string) (*param, error) {
	pr := &param{goName: f.Name, off: f.Offset, field: f}
	found := 0
	for pl, k := range placeNames[:inForm] {
		if v, ok := f.Tag.Lookup(k); ok {
			pr.place, pr.name = place(pl), v
			found++
		}
	}
	switch {
	case found == 0:
		return nil, PlanError(t, &f, "no path, query, header or cookie tag, and not named Body: "+
			"say where its value comes from, or unexport it")
	case found > 1:
		return nil, PlanError(t, &f, "more than one of the path, query, header and cookie tags")
	case pr.name == "" || strings.ContainsAny(pr.name, "&=;, \t\"") && pr.place != inHeader:
		return nil, PlanError(t, &f, "tag %s:%q: the name must be non-empty and plain", placeNames[pr.place], pr.name)
	}
	if pr.place == inHeader {
		if !header.IsToken(pr.name) { // a header name is a token too
			return nil, PlanError(t, &f, "tag header:%q is no header name", pr.name)
		}
		pr.shown, pr.name = pr.name, textproto.CanonicalMIMEHeaderKey(pr.name)
	}
	pr.loc = placeNames[pr.place] + "." + pr.name
	if err := pr.setType(t, &f); err != nil {
		return nil, err
	}
	if pr.place == inPath {
		pr.pathIdx = slices.Index(names, pr.name)
		if pr.pathIdx < 0 {
			return nil, PlanError(t, &f, "tag path:%q names no param of the pattern (its params: %s)",
				pr.name, paramList(names))
		}
		pr.required = true
	}
	return pr, pr.setTags(t, &f)
}

func paramList(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// setType sets the codec of pr's field type: a scalar, a pointer to one
// (optional), or for a query param a slice of them (repeated).
func (pr *param) setType(t reflect.Type, f *reflect.StructField) error {
	ft := f.Type
	switch {
	case codecFor(ft) != nil:
	case ft.Kind() == reflect.Pointer && codecFor(ft.Elem()) != nil:
		ft, pr.ptr = ft.Elem(), true
	case ft.Kind() == reflect.Slice && codecFor(ft.Elem()) != nil && ft.Elem().Kind() != reflect.Uint8,
		ft.Kind() == reflect.Slice && ft.Elem().Kind() == reflect.Pointer && codecFor(ft.Elem().Elem()) != nil:
		if pr.place != inQuery && pr.place != inForm {
			return PlanError(t, f, "a slice binds only repeated query params (and form fields), not a %s", placeNames[pr.place])
		}
		ft, pr.multi = ft.Elem(), true
		if ft.Kind() == reflect.Pointer {
			ft, pr.itemPtr = ft.Elem(), true
		}
	default:
		return PlanError(t, f, "cannot bind this type from text: use a string, bool, int, uint or float "+
			"of any size, time.Time, time.Duration, an encoding.TextUnmarshaler, a pointer to one, or a slice of them "+
			"(or of pointers to them) for a query")
	}
	if v, ok := f.Tag.Lookup("explode"); ok {
		b, err := strconv.ParseBool(v)
		switch {
		case err != nil:
			return PlanError(t, f, "tag explode:%q wants true or false", v)
		case !pr.multi || pr.place != inQuery:
			return PlanError(t, f, "tag explode:%q: only a query param's slice has a form to choose", v)
		}
		pr.comma = !b
	}
	if pr.place == inPath && (pr.ptr || pr.multi) {
		return PlanError(t, f, "a path param is always present: use %s, not %s", ft, f.Type)
	}
	pr.codec = codecFor(ft)
	return nil
}

// setTags reads pr's rule, default, required, doc and example tags.
func (pr *param) setTags(t reflect.Type, f *reflect.StructField) error {
	rs, err := parseRules(f.Tag, pr.codec, pr.multi)
	if err != nil {
		return PlanError(t, f, "%v", err)
	}
	pr.rules = rs
	if pr.multi {
		pr.maxItems = defaultMaxItems
		if rs != nil && rs.maxItems >= 0 {
			pr.maxItems = rs.maxItems
		}
	}
	if v, ok := f.Tag.Lookup("required"); ok {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return PlanError(t, f, "tag required:%q wants true or false", v)
		}
		pr.required = pr.required || b
	}
	pr.doc, pr.example = f.Tag.Get("doc"), f.Tag.Get("example")
	if v, ok := f.Tag.Lookup("example"); ok {
		// OpenAPI 3.1 section 4.8.12.4: an example SHOULD match the
		// parameter's schema; a slice's is its items, comma-separated
		// or a JSON array, as an enum's values are.
		items := []string{v}
		if pr.multi {
			var err error
			if items, err = EnumValues(v); err != nil {
				return PlanError(t, f, "tag example:%q %v", v, err)
			}
		}
		vals := make([]scalar, len(items))
		for i, it := range items {
			var want string
			if pr.comma && strings.Contains(it, ",") {
				return PlanError(t, f, "tag example:%q: item %q holds a comma, which splits it in two: explode false sends the items comma-separated", v, it)
			}
			if vals[i], want = pr.value(it, rs); want != "" && pr.multi {
				return PlanError(t, f, "tag example:%q: item %q %s", v, it, want)
			} else if want != "" {
				return PlanError(t, f, "tag example:%q %s", v, want)
			}
		}
		// and the count and uniqueness of a slice's, as a request's.
		if pr.multi && rs != nil {
			if fs := rs.checkItems(len(vals), func() bool { return rs.distinctScalars(vals) }, nil); len(fs) > 0 {
				return PlanError(t, f, "tag example:%q breaks %s: it %s", v, fs[0].keyword, fs[0].message)
			}
		}
	}
	if v, ok := f.Tag.Lookup("default"); ok {
		if pr.multi || pr.place == inPath {
			return PlanError(t, f, "tag default:%q: a default applies to a single optional value", v)
		}
		d, want := pr.value(v, rs)
		if want != "" {
			return PlanError(t, f, "tag default:%q %s", v, want)
		}
		pr.def = &d
	}
	return nil
}

// value parses v, a tag's value of pr, and checks it against the rules
// rs; want is what it must be when it is refused, else "".
func (pr *param) value(v string, rs *rules) (scalar, string) {
	d, kw, want := pr.codec.parse(v)
	if kw == "" && rs != nil {
		if fs := rs.check(d, nil); len(fs) > 0 {
			kw, want = fs[0].keyword, fs[0].message
		}
	}
	if kw == "" && pr.codec.kind == kText {
		if err := pr.codec.store(reflect.New(pr.codec.typ).UnsafePointer(), d); err != nil {
			kw, want = "format", "is not valid: "+err.Error()
		}
	}
	if kw == "" {
		want = ""
	}
	return d, want
}
