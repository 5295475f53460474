package waltz

import (
	"fmt"
	"net/http"
	"reflect"
	"sync"
	"unsafe"

	"github.com/waltz-go/waltz/internal/typed"
)

// Registrar is what typed operations register on: a [*Router] (its root
// group) or a [*Group]. Only those two implement it.
type Registrar interface {
	registrar() *Group
}

func (r *Router) registrar() *Group { return &r.root }
func (g *Group) registrar() *Group  { return g }

// Operation is what the OpenAPI document says of a typed operation, given
// at registration, and the status of its success answer. Every field is
// optional.
type Operation struct {
	// ID is the operationId, unique among the router's operations, such
	// as "getBookmark"; "" derives one from the method and pattern
	// ("get-bookmarks-id" for GET /bookmarks/:id).
	ID string

	Summary     string   // one line, for lists of operations
	Description string   // as long as it needs; CommonMark
	Tags        []string // groups operations in documentation tools
	Deprecated  bool

	// Status is the success answer's status when Out has no Status field
	// or leaves it 0: 0 means 200 OK, or 204 No Content when Out has no
	// Body field.
	Status int

	// Errors lists the error statuses the handler itself returns (404 for
	// an id that names nothing, 409 for a conflict), for the document:
	// each is described as a problem details answer, beside those the
	// binding gives (400, 413, 415, 422) and those the route's middleware
	// declares ([Responds]).
	Errors []int
}

// Op registers h as the handler of the typed operation method path on r,
// a Router or a Group, under the group's prefix and inside its middleware,
// as [Group.Handle] registers a HandlerFunc. In and Out are struct types
// that say where the operation's input comes from and what its success
// answer is; [Router.OpenAPI] describes the operation from them.
//
// Each field of In is bound from the request by its tag (see the package
// documentation, "Typed operations", for the tags and the types):
//
//	type GetBookmark struct {
//		ID     int64  `path:"id" minimum:"1"`
//		Fields string `query:"fields" enum:"all,short" default:"all"`
//		Trace  string `header:"X-Trace-Id" maxLength:"64"`
//		Body   Thing  // a field named Body is the request body
//	}
//
// Out's field Body is the answer's JSON body, a field named Status of type
// int its status (0 means op.Status), and fields tagged header:"Name" its
// headers. h gets a zeroed, bound and validated *In, which it must not keep
// after it returns (the router reuses it); a nil *Out with a nil error
// answers op.Status with no body. A request that cannot be bound, or whose
// values break the rules of In's tags or its Validate method, never reaches
// h: it is answered 400 (unreadable: malformed JSON, a bad escape) or 422
// (values against the schema) with every failure listed ([HTTPError]'s
// Errors). The errors of a typed route are rendered as RFC 9457 problem
// details ([RenderProblem]) unless [Router.RenderError] says otherwise.
//
// If *In has the method
//
//	Validate(c *waltz.Context) []waltz.FieldError
//
// it runs after the tags' rules pass, for rules that tags cannot say; the
// failures it returns are answered 422 as the tags' are.
//
// The [Registration] names the route, as Handle's does.
//
// Everything about In and Out is decided here, once: a request costs the
// precomputed setters and no allocation for scalar path, query, header and
// cookie values (a pointer field costs one when its value is present).
// Op panics, naming the type, the field and the registering file:line, on a
// tag it does not understand, a field type it cannot bind, a path field
// that names no param of the pattern, a rule that does not fit its field,
// a default that breaks its own rules, or a duplicate operation ID; and
// with a [*RouteError] as Handle does.
func Op[In, Out any](r Registrar, method, path string, h func(c *Context, in *In) (*Out, error), op Operation) *Registration {
	at := callerPC()
	g := r.registrar()
	if err := register(g, method, path, newTyped(h, op), nil, at); err != nil {
		panic(err)
	}
	return &Registration{r: g.r, method: method, pattern: g.prefix + path, at: at}
}

// typedOp is a typed operation before it is registered: the handler,
// generic over In and Out, closed over a binding plan made from the
// pattern it is registered at.
type typedOp struct {
	op      Operation
	in, out reflect.Type
	// handler returns the HandlerFunc of the operation bound by plan.
	handler func(in *typed.InPlan, validate bool, out *typed.OutPlan) HandlerFunc
}

// newTyped captures h for registration.
func newTyped[In, Out any](h func(*Context, *In) (*Out, error), op Operation) *typedOp {
	t := &typedOp{op: op, in: reflect.TypeFor[In](), out: reflect.TypeFor[Out]()}
	t.handler = func(ip *typed.InPlan, validate bool, op *typed.OutPlan) HandlerFunc {
		if h == nil {
			return nil
		}
		pool := sync.Pool{New: func() any { return new(In) }}
		files := ip.HasFiles()
		return func(c *Context) error {
			if files {
				// The uploads' temporary files go however the handler
				// ends, a panic included.
				defer c.temp.Remove()
			}
			in := pool.Get().(*In)
			var zero In
			*in = zero
			// NOTE: ip and op were planned from In and Out, the types of
			// in and out: the engine writes and reads their fields at the
			// offsets reflection gave for those types, and in stays
			// reachable here (and out from the handler's return) while it
			// does.
			if err := bindIn(c, ip, validate, unsafe.Pointer(in)); err != nil {
				pool.Put(in)
				return err
			}
			out, err := h(c, in)
			if err == nil {
				// An Out may point into In (Body: &in.Body): In goes back
				// to the pool only once the answer is written.
				err = writeOut(c, op, unsafe.Pointer(out))
			}
			*in = zero // drop what the request referenced
			pool.Put(in)
			return err
		}
	}
	return t
}

// register builds t's plans for g's prefix and path, and registers the
// operation's handler, inside mw and then g's middleware, with its
// description on the route.
func register(g *Group, method, path string, t *typedOp, mw []Middleware, at uintptr) error {
	if g.r == nil {
		panic("waltz: a Router must be made with waltz.New")
	}
	full := g.prefix + path
	p, err := parsePattern(full)
	if err != nil {
		return &RouteError{Method: method, Pattern: full, Where: site(at), Reason: err.Error()}
	}
	ip, validate, op, err := plan(t, p.names)
	if err == nil {
		err = g.r.checkOpID(t.op.ID)
	}
	if err != nil {
		return typeError(method, full, at, err)
	}
	desc := &operation{op: t.op, in: ip, validate: validate, out: op}
	return g.route(method, path, t.handler(ip, validate, op), mw, desc, at)
}

// checkOpID returns an error when another operation on r has the ID id.
// It walks the routes: registration's cost, never a request's.
func (r *Router) checkOpID(id string) error {
	if id == "" {
		return nil
	}
	var err error
	r.tree.each(0, func(e *endpoint) {
		if err == nil && e.info.op != nil && e.info.op.op.ID == id {
			err = fmt.Errorf("operation ID %q is taken by %s %q", id, e.method, e.pattern)
		}
	})
	return err
}

// plan makes the plans of t's In and Out types for a pattern whose params
// are names, and reports whether *In has a Validate method.
func plan(t *typedOp, names []string) (*typed.InPlan, bool, *typed.OutPlan, error) {
	validate := false
	if t.in.Kind() == reflect.Struct {
		_, validate = reflect.PointerTo(t.in).MethodByName("Validate")
		if validate && !reflect.PointerTo(t.in).Implements(validatorType) {
			return nil, false, nil, typed.PlanError(t.in, nil, "method Validate must be func(*waltz.Context) []waltz.FieldError")
		}
	}
	ip, err := typed.PlanIn(t.in, names)
	if err != nil {
		return nil, false, nil, err
	}
	op, err := typed.PlanOut(t.out, t.op.Status)
	if err != nil {
		return nil, false, nil, err
	}
	return ip, validate, op, nil
}

// validator is the method of an In type whose rules tags cannot say.
type validator interface {
	Validate(*Context) []FieldError
}

var validatorType = reflect.TypeFor[validator]()

// typeError is the panic of a typed registration whose In or Out cannot
// be planned: a RouteError whose reason names the type and field.
func typeError(method, pattern string, at uintptr, err error) error {
	return &RouteError{Method: method, Pattern: pattern, Where: site(at), Reason: err.Error()}
}

// operation is a registered typed operation, as the document shows it;
// its route's endpoint holds it.
type operation struct {
	op       Operation
	in       *typed.InPlan
	validate bool // *In has a Validate method
	out      *typed.OutPlan
}

// bindIn binds c's request into in, a zeroed value of ip's In type, and
// runs its Validate method when validate is set and the tags' rules
// passed. The error is an HTTPError listing every failure, or the body's.
func bindIn(c *Context, ip *typed.InPlan, validate bool, in unsafe.Pointer) error {
	ec := (*engineContext)(c)
	c.fails = nil
	src := typed.Input{Req: c.Request, W: c.resp.w, Path: ec, Body: c.bodyRules(), Temp: &c.temp, Fails: ec}
	if err := ip.Bind(&src, in); err != nil {
		return c.typedError(err)
	}
	if validate {
		// NOTE: in points to a value of the type ip was planned from.
		if fs := reflect.NewAt(ip.Type(), in).Interface().(validator).Validate(c); fs != nil {
			return &HTTPError{Code: http.StatusUnprocessableEntity, Message: typed.ErrInvalid.Error(), Errors: fs}
		}
	}
	return nil
}

// engineContext is a Context as the typed engine sees it: where the
// matched pattern's param values are, and where binding failures go.
type engineContext Context

// PathValue returns the value of the i-th param of the matched pattern.
func (ec *engineContext) PathValue(i int) (string, bool) {
	if i < len(ec.params) {
		return ec.params[i].Value, true
	}
	return "", false
}

// Fail keeps one binding failure, as the FieldError the answer lists.
func (ec *engineContext) Fail(location, keyword, message string) {
	if ec.fails == nil {
		ec.fails = make([]FieldError, 0, 4)
	}
	ec.fails = append(ec.fails, FieldError{Location: location, Keyword: keyword, Message: message})
}

// writeOut sends out, the handler's *Out, as the success answer.
func writeOut(c *Context, p *typed.OutPlan, out unsafe.Pointer) error {
	if out == nil {
		return c.NoContent(p.SuccessStatus())
	}
	code := p.Status(out)
	if c.started() {
		return c.errStarted("Op", code)
	}
	p.SetHeaders(out, c.Writer.Header())
	if !p.HasBody() {
		return c.NoContent(code)
	}
	b, err := p.MarshalBody(out)
	if err != nil {
		return fmt.Errorf("waltz: encoding JSON response: %w", err)
	}
	c.sentTo = c.Writer
	c.Writer.Header()["Content-Type"] = contentType(&c.ctJSON, appJSON)
	c.Writer.WriteHeader(code)
	_, err = c.Writer.Write(append(b, '\n'))
	return err
}
