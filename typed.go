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
	Deprecated  bool     // marks the operation deprecated in the document; it is still served

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

	// Produces lists the media types the success answer's body can be
	// sent in, the server's preferred first: "application/json",
	// "application/xml", "text/plain", or one with an [Encoder] of the
	// router's ([Router.Encoder]) or of Encoders. Empty means JSON
	// whatever the request's Accept field says, with no negotiation.
	// With a list, each request's Accept field (RFC 9110 section 12.5.1:
	// weights, wildcards, the most specific range first) picks the type,
	// the first of the list when the field is absent; when it accepts
	// none of them the answer is 406 Not Acceptable, whose message lists
	// them, before the handler runs. Every answer of such an operation
	// carries "Vary: Accept" (section 12.5.5): its body depends on the
	// field. The document lists exactly these types in the success
	// answer's content. Op panics on a type with no encoder, a text/plain
	// or XML that Body cannot be written as (an XML document has one
	// root element: a slice Body is refused), or a Produces on an Out
	// type with no Body field.
	Produces []string

	// Encoders are encoders of this operation's own, by media type; they
	// win over the router's ([Router.Encoder]) and the built-in ones.
	Encoders map[string]Encoder

	// Current, for a write (PUT, PATCH, DELETE, POST), makes it
	// conditional: a func(c *waltz.Context, in *In) (waltz.Validators,
	// error), In the operation's input type, that returns the current
	// validators of the resource the request changes, read after in is
	// bound and validated and before the handler runs, or the error to
	// answer (a 404 for a resource that does not exist: RFC 9110 section
	// 13.2.1 evaluates preconditions only for one that exists). Then a
	// request without If-Match (or, for a resource whose validators have
	// no ETag, without an If-Unmodified-Since date) is answered 428 (RFC
	// 6585 section 3), and one whose precondition is false 412
	// (a weak tag never satisfies If-Match, section 8.8.3.2), without
	// running the handler. Nil: the operation reads no precondition.
	Current any
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
// Out's header fields ETag (a string, the quoted entity tag) and
// Last-Modified (a time.Time) are its validators: a GET or HEAD answered
// 200 with them answers a request whose copy is current 304 with no
// content, and a false If-Match 412 (RFC 9110 section 13.2.2). A write
// with [Operation].Current must be conditional: 428 without a
// precondition, 412 with a false one, without running h. See the package
// documentation, "Conditional requests".
//
// The [Registration] names the route, as Handle's does.
//
// Everything about In and Out is decided here, once: a request costs the
// precomputed setters and no allocation for scalar path, query, header and
// cookie values (a pointer field costs one when its value is present).
// Op panics, naming the type, the field and the registering file:line, on a
// Current of another type than In's or on a GET or HEAD, a tag it does not understand, a field type it cannot bind, a path field
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
	err     error // Operation.Current of another type than In's
	// handler returns the HandlerFunc of the operation o describes.
	handler func(o *operation) HandlerFunc
}

// newTyped captures h for registration.
func newTyped[In, Out any](h func(*Context, *In) (*Out, error), op Operation) *typedOp {
	t := &typedOp{op: op, in: reflect.TypeFor[In](), out: reflect.TypeFor[Out]()}
	current, _ := op.Current.(func(*Context, *In) (Validators, error))
	if op.Current != nil && current == nil {
		t.err = fmt.Errorf("Operation.Current is a %T, want a func(*waltz.Context, *%s) (waltz.Validators, error)", op.Current, t.in)
	}
	t.handler = func(o *operation) HandlerFunc {
		if h == nil {
			return nil
		}
		ip, validate, op := o.in, o.validate, o.out
		pool := sync.Pool{New: func() any { return new(In) }}
		files := ip.HasFiles()
		run := func(c *Context) error {
			rep := 0 // the representation, by op.neg
			if op.neg != nil {
				var err error
				if rep, err = op.neg.pick(c); err != nil {
					return err
				}
			}
			// Zero, as every In goes back to the pool zeroed.
			in := pool.Get().(*In)
			var zero In
			// NOTE: ip and op were planned from In and Out, the types of
			// in and out: the engine writes and reads their fields at the
			// offsets reflection gave for those types, and in stays
			// reachable here (and out from the handler's return) while it
			// does.
			err := bindIn(c, ip, validate, unsafe.Pointer(in))
			if err == nil && current != nil {
				v, cerr := current(c, in)
				err = checkCurrent(c, v, cerr)
			}
			if err != nil {
				*in = zero
				pool.Put(in)
				return err
			}
			out, err := h(c, in)
			if err == nil {
				// An Out may point into In (Body: &in.Body): In goes back
				// to the pool only once the answer is written.
				err = writeOut(c, op, unsafe.Pointer(out), rep)
			}
			*in = zero // drop what the request referenced
			pool.Put(in)
			return err
		}
		if files {
			// The uploads' temporary files go however the handler ends,
			// a panic included. A handler of its own, so that an
			// operation without files pays nothing for the defer.
			return func(c *Context) error {
				defer c.temp.Remove()
				return run(c)
			}
		}
		return run
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
	desc, err := plan(t, method, p.names, g.r.encoders)
	if err == nil {
		err = g.r.checkOpID(t.op.ID)
	}
	if err != nil {
		return typeError(method, full, at, err)
	}
	return g.route(method, path, t.handler(desc), mw, desc, at)
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

// plan makes the operation of t registered for method at a pattern whose
// params are names, with the router's encoders enc: the plans of its In
// and Out types, whether *In has a Validate method or op a Current, and how
// its answer's media type is chosen.
func plan(t *typedOp, method string, names []string, enc map[string]Encoder) (*operation, error) {
	o := &operation{op: t.op, method: method}
	if t.in.Kind() == reflect.Struct {
		pt := reflect.PointerTo(t.in)
		_, o.validate = pt.MethodByName("Validate")
		if o.validate && !pt.Implements(validatorType) {
			return nil, typed.PlanError(t.in, nil, "method Validate must be func(*waltz.Context) []waltz.FieldError")
		}
	}
	o.current = t.op.Current != nil
	switch {
	case t.err != nil:
		return nil, t.err
	case o.current && safeMethod(method):
		return nil, fmt.Errorf("Operation.Current is for writes: a %s answers 304 by the ETag and Last-Modified header fields of its output", method)
	}
	var err error
	if o.in, err = typed.PlanIn(t.in, names); err != nil {
		return nil, err
	}
	if o.out, err = planOut(t, enc); err != nil {
		return nil, err
	}
	return o, nil
}

// planOut makes the plan of t's Out type, with the negotiation of its
// body's media type by the router's encoders enc.
func planOut(t *typedOp, enc map[string]Encoder) (*outPlan, error) {
	op, err := typed.PlanOut(t.out, t.op.Status)
	if err != nil {
		return nil, err
	}
	out := &outPlan{OutPlan: op}
	body := op.BodyType()
	switch {
	case body == downloadType:
		op.Opaque()
		out.download = true
		out.neg, err = planNegotiation(&t.op, body, enc, true)
	case body != nil && body.Implements(eventsBodyType):
		op.Opaque()
		out.events, err = planEvents(body, t.op.Produces)
	default:
		if err = op.CheckBody(); err != nil {
			return nil, err
		}
		out.neg, err = planNegotiation(&t.op, body, enc, false)
	}
	if err != nil {
		return nil, typed.PlanError(t.out, nil, "%v", err)
	}
	return out, nil
}

// outPlan is how a typed operation answers: its Out type's plan, and the
// negotiation of its body's media type (nil when it declares none).
type outPlan struct {
	*typed.OutPlan
	neg      *negotiation     // nil when the operation declares no Produces
	download bool             // the Body is a Download
	events   *typed.EventPlan // the Body is an Events[E]: E's plan
}

// validator is the method of an In type whose rules tags cannot say.
type validator interface {
	Validate(*Context) []FieldError
}

var (
	validatorType = reflect.TypeFor[validator]()
)

// typeError is the panic of a typed registration whose In or Out cannot
// be planned: a RouteError whose reason names the type and field.
func typeError(method, pattern string, at uintptr, err error) error {
	return &RouteError{Method: method, Pattern: pattern, Where: site(at), Reason: err.Error()}
}

// operation is a registered typed operation, as the document shows it;
// its route's endpoint holds it.
type operation struct {
	op       Operation
	method   string
	in       *typed.InPlan
	validate bool // *In has a Validate method
	current  bool // Operation.Current is set: the write requires a precondition
	out      *outPlan
}

// bindIn binds c's request into in, a zeroed value of ip's In type, and
// runs its Validate method when validate is set and the tags' rules
// passed. The error is an HTTPError listing every failure, or the body's.
func bindIn(c *Context, ip *typed.InPlan, validate bool, in unsafe.Pointer) error {
	ec := (*engineContext)(c)
	c.fails = c.fails[:0]
	// Set field by field: a composite literal is built in a temporary
	// and then copied.
	var src typed.Input
	src.Req, src.W, src.Path, src.Body, src.Temp, src.Fails = c.Request, c.resp.w, ec, c.bodyRules(), &c.temp, ec
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
	ec.fails = append(ec.fails, FieldError{Location: location, Keyword: keyword, Message: message})
}

// writeOut sends out, the handler's *Out, as the success answer, in the
// representation rep of p's negotiation.
func writeOut(c *Context, p *outPlan, out unsafe.Pointer, rep int) error {
	if out == nil {
		return c.NoContent(p.SuccessStatus())
	}
	code := p.Status(out)
	if c.started() {
		return c.errStarted("Op", code)
	}
	if p.HasValidators() && code == http.StatusOK && !p.download && safeMethod(c.Request.Method) {
		// RFC 9110 section 13.2.2, on the validators the answer carries
		// (a Download's are http.ServeContent's, in sendDownload).
		tag, modified := p.Validators(out)
		switch precondition(c.Request.Header, Validators{ETag: tag, LastModified: modified}, true) {
		case http.StatusPreconditionFailed:
			return errPreconditionFailed
		case http.StatusNotModified:
			// Section 15.4.5: the fields the 200 would have carried,
			// and no content.
			p.SetHeaders(out, c.Writer.Header())
			return c.NoContent(http.StatusNotModified)
		}
	}
	h := c.Writer.Header() // the map to send, whatever wraps Writer: one call
	p.SetHeaders(out, h)
	if !p.HasBody() {
		return c.NoContent(code)
	}
	switch {
	case p.download:
		return sendDownload(c, p, p.Body(out).(*Download), code, rep)
	case p.events != nil:
		return p.Body(out).(eventsBody).run(c, p.events)
	}
	if n := p.neg; n != nil && n.enc[rep] != nil {
		b, err := n.enc[rep](p.Body(out))
		if err != nil {
			return fmt.Errorf("waltz: encoding the %s answer: %w", n.types[rep], err)
		}
		c.sentTo = c.Writer
		// A value slice of the response's own: the Context's slots hold
		// one value each, which another response must not overwrite
		// while a recorder still reads this one.
		if n.ctype[rep] == textPlain {
			h["Content-Type"] = contentType(&c.ctText, textPlain)
		} else {
			h["Content-Type"] = []string{n.ctype[rep]}
		}
		c.Writer.WriteHeader(code)
		_, err = c.Writer.Write(b)
		return err
	}
	bp := bodyBufs.Get().(*[]byte)
	b, err := p.AppendBody((*bp)[:0], out)
	if err != nil {
		bodyBufs.Put(bp)
		return fmt.Errorf("waltz: encoding JSON response: %w", err)
	}
	c.sentTo = c.Writer
	h["Content-Type"] = contentType(&c.ctJSON, appJSON)
	c.Writer.WriteHeader(code)
	_, err = c.Writer.Write(append(b, '\n'))
	putBodyBuf(bp, b)
	return err
}
