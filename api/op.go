package api

import (
	"fmt"
	"net/http"
	"reflect"
	"slices"

	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/internal/seam"
	"github.com/waltz-go/waltz/internal/site"
	"github.com/waltz-go/waltz/internal/typed"
)

// Registrar is what typed operations register on: a [*waltz.Router] (its
// root group) or a [*waltz.Group]. An operation is registered on the group
// With returns, under its prefix and inside its middleware, as
// [waltz.Group.Handle] registers a HandlerFunc; like a route, it seals the
// group it is registered on (Use after it panics).
type Registrar interface {
	With(mw ...waltz.Middleware) *waltz.Group
}

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
	// Body field. When Out's Status field has an enum, Status must be
	// one of its values.
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
	// router's ([UseEncoder]) or of Encoders. Empty means JSON
	// whatever the request's Accept field says, with no negotiation.
	// With a list, each request's Accept field (RFC 9110 section 12.5.1:
	// weights, wildcards, the most specific range first) picks the type,
	// the first of the list when the field is absent; when it accepts
	// none of them the answer is 406 Not Acceptable, whose message lists
	// them, before the handler runs. Every answer of such an operation
	// carries "Vary: Accept" (section 12.5.5): its body depends on the
	// field. The document lists exactly these types in the success
	// answer's content. Op panics on a type with no encoder, a text/plain
	// or XML that Body cannot be written as, or a Produces on an Out
	// type with no Body field. For XML, that is as far as Body's type
	// tells: a slice Body (an XML document has one root element), and a
	// member, at any depth, that encoding/xml fails on at run time (a
	// map, a channel, a func, a complex number, an attribute or comment
	// of a type those cannot hold, a bad xml tag) or whose value only the
	// run time knows: an interface member (any, error), unless its
	// interface type implements xml.Marshaler. The panic names the
	// member; leave it out of XML with the tag xml:"-", give it a
	// concrete type, or a type that implements xml.Marshaler. A type
	// that writes itself (xml.Marshaler, encoding.TextMarshaler) is
	// taken as it is: an error it returns at run time is a 500, logged.
	Produces []string

	// Encoders are encoders of this operation's own, by media type; they
	// win over the router's ([UseEncoder]) and the built-in ones.
	Encoders map[string]Encoder

	// Current, for a write (PUT, PATCH, DELETE, POST), makes it
	// conditional: a func(c *waltz.Context, in *In) (api.Validators,
	// error), In the operation's input type, that returns the current
	// validators of the resource the request changes, or the error to
	// answer (a 404 for a resource that does not exist: RFC 9110 section
	// 13.2.1 evaluates preconditions only for one that exists). Then a
	// request without If-Match (or, for a resource whose validators have
	// no ETag, without an If-Unmodified-Since date) is answered 428 (RFC
	// 6585 section 3), and one whose precondition is false 412
	// (a weak tag never satisfies If-Match, section 8.8.3.2), without
	// running the handler. A resource that does not exist and that the
	// request may create returns Validators{Absent: true}: its
	// precondition is If-None-Match: * (see [Validators]). Nil: the
	// operation reads no precondition.
	//
	// Current runs once in's params (path, query, header, cookie) are
	// bound and pass their rules, and before the body is read: section
	// 13.2.1 evaluates preconditions before the request's content is
	// processed, so a stale write is a 412 (or a 428) whatever its body
	// holds, and a large body is not read for it. in.Body is still zero
	// then. The body is bound after, and In's Validate method runs last.
	Current any
}

// Op registers h as the handler of the typed operation method path on r,
// a Router or a Group, under the group's prefix and inside its middleware,
// as [waltz.Group.Handle] registers a HandlerFunc. In and Out are struct types
// that say where the operation's input comes from and what its success
// answer is; [OpenAPI] describes the operation from them.
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
// headers. The Status field's enum tag lists the success statuses it may
// take (`enum:"200,202"`: done, or accepted as a job), the status of a 0
// among them; the document lists each as a success answer with Out's
// header fields and content, a 204 or 205 with no content (RFC 9110
// sections 15.3.5, 15.3.6), and Body is never sent with one. A handler
// that sets a status outside the enum gets a 500, logged, in place of the
// answer. Op panics on an enum value that no success answer of Out can
// have: not a 2xx or 3xx, or 206 (a range, section 15.3.7), 304 (answered
// from Out's validators, section 15.4.5), 305 or 306; a 204 or 205 with a
// Download, Events or Lines Body; any status but 200 with an Events Body,
// Operation.Status included (an EventSource reads a stream from a 200
// alone); an enum that does not list the status of a 0; or another rule
// tag on Status. Without an enum, Status takes
// any value, which the document does not list. h gets a zeroed, bound and validated *In, which it must not keep
// after it returns (the router reuses it); a nil *Out with a nil error
// answers op.Status with no body. A request that cannot be bound, or whose
// values break the rules of In's tags or its Validate method, never reaches
// h: it is answered 400 (unreadable: malformed JSON, a bad escape) or 422
// (values against the schema) with every failure listed ([waltz.HTTPError]'s
// Errors). The errors of a typed route are rendered as RFC 9457 problem
// details ([waltz.RenderProblem]) unless [waltz.Router.RenderError] says otherwise.
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
// The [waltz.Registration] names the route, as Handle's does.
//
// Everything about In and Out is decided here, once: a request costs the
// precomputed setters and no allocation for scalar path, query, header and
// cookie values (a pointer field costs one when its value is present).
// Op panics, naming the type, the field and the registering file:line, on
// a Current of another type than In's or on a GET or HEAD, a tag of its
// own misspelt in letter case (maxlength for maxLength, with the spelling
// meant) or a JSON Schema keyword it does not check (maxProperties; other
// libraries' tags are left alone), a field type it cannot bind, a path
// field that names no param of the pattern, a rule that does not fit its
// field (or that a ,string member's schema cannot say: a number's bounds,
// a string's length, pattern or format), a default that breaks its own
// rules, or a duplicate operation ID;
// and with a [*waltz.RouteError] as Handle does.
func Op[In, Out any](r Registrar, method, path string, h func(c *waltz.Context, in *In) (*Out, error), op Operation) *waltz.Registration {
	at := site.PC()
	rg, err := register(r.With(), method, path, newTyped(h, op), nil, at)
	if err != nil {
		panic(err)
	}
	return rg
}

// typedOp is a typed operation before it is registered: the handler,
// generic over In and Out, closed over a binding plan made from the
// pattern it is registered at.
type typedOp struct {
	op       Operation
	in, out  reflect.Type
	err      error  // Operation.Current of another type than In's
	resource string // the name of the resource whose typed verb it is; "" for Op's
	// handler returns the HandlerFunc of the operation o describes.
	handler func(o *operation) waltz.HandlerFunc
}

func init() {
	// The media types an operation's Body takes, which the router lists
	// in the Accept-Query, Accept-Patch or Accept-Post of its answers
	// (the root's accept.go).
	seam.Contract.Accepts = func(op any) []string { return op.(*operation).in.MediaTypes() }
}

// register builds t's plans for g's prefix and path, and registers the
// operation's handler, inside mw and then g's middleware, with its
// description on the route.
func register(g *waltz.Group, method, path string, t *typedOp, mw []waltz.Middleware, at uintptr) (*waltz.Registration, error) {
	full, params, err := seam.Router.Pattern(g, path)
	if err != nil {
		return nil, &waltz.RouteError{Method: method, Pattern: full, Where: site.Of(at), Reason: err.Error()}
	}
	r := routerOf(g)
	desc, err := plan(t, method, names(params), r)
	if err == nil {
		err = checkOpID(r, t.op.ID)
	}
	if err != nil {
		return nil, typeError(method, full, at, err)
	}
	desc.groups, desc.resource = seam.Router.Prefixes(g), t.resource
	rg, err := seam.Router.Route(g, method, path, t.handler(desc), mw, desc, at)
	if err != nil {
		return nil, err
	}
	return rg.(*waltz.Registration), nil
}

// names returns the names of params.
func names(params []seam.Param) []string {
	ns := make([]string, len(params))
	for i, p := range params {
		ns[i] = p.Name
	}
	return ns
}

// checkOpID returns an error when another operation on r has the ID id.
// It walks the routes: registration's cost, never a request's.
func checkOpID(r *waltz.Router, id string) error {
	if id == "" {
		return nil
	}
	for _, rt := range seam.Router.Routes(r) {
		if o, ok := rt.Op.(*operation); ok && o.op.ID == id {
			return fmt.Errorf("operation ID %q is taken by %s %q", id, rt.Method, rt.Pattern)
		}
	}
	return nil
}

// plan makes the operation of t registered for method at a pattern whose
// params are names, on the router r: the plans of its In and Out types,
// whether *In has a Validate method or op a Current, and how its answer's
// media type is chosen.
func plan(t *typedOp, method string, names []string, r *waltz.Router) (*operation, error) {
	o := &operation{op: t.op, method: method, uploads: stateOf(r).uploads, router: r}
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
	if o.out, err = planOut(t, stateOf(r).encoders); err != nil {
		return nil, err
	}
	if n := o.out.neg; n != nil {
		st := stateOf(r)
		for i := range n.types {
			if s := n.suffix(i) + `"`; s != `"` && !slices.Contains(st.tagSuffixes, s) {
				st.tagSuffixes = append(st.tagSuffixes, s)
			}
		}
	}
	if method == waltz.MethodQuery {
		if err := planQuery(o, t); err != nil {
			return nil, err
		}
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
		out.stream = true
	case body != nil && body.Implements(linesBodyType):
		op.Opaque()
		out.lines, err = planLines(body, t.op.Produces)
		out.stream = true
	default:
		if err = op.CheckBody(); err != nil {
			return nil, err
		}
		out.neg, err = planNegotiation(&t.op, body, enc, false)
	}
	if err == nil && (out.download || out.stream) {
		for _, s := range op.Statuses() {
			if typed.NoContent(s) {
				err = fmt.Errorf("the Status field's enum lists %d, an answer with no content (RFC 9110 section 15.3.%d), "+
					"which a %s Body cannot be sent in", s, s-199, body)
			}
		}
	}
	if err == nil && out.events != nil {
		// An EventSource reads a stream from a 200 alone (WHATWG HTML,
		// server-sent events: another status fails the connection), and
		// so does client.Events.
		for _, s := range append([]int{op.SuccessStatus()}, op.Statuses()...) {
			if s != http.StatusOK && err == nil {
				err = fmt.Errorf("an event stream answers 200 alone, which an EventSource requires: %d (Operation.Status or the Status field's enum) "+
					"would fail its connection", s)
			}
		}
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
	lines    reflect.Type     // the Body is a Lines[T]: T
	stream   bool             // events or lines: the Body is a function that streams
	// content is set for a QUERY whose answer has validators: its ETag
	// is made to cover the request's content (query.go), whose digest
	// each request leaves in its Call before the answer is written.
	content bool
}

// validator is the method of an In type whose rules tags cannot say.
type validator interface {
	Validate(*waltz.Context) []waltz.FieldError
}

var validatorType = reflect.TypeFor[validator]()

// typeError is the panic of a typed registration whose In or Out cannot
// be planned: a RouteError whose reason names the type and field.
func typeError(method, pattern string, at uintptr, err error) error {
	return &waltz.RouteError{Method: method, Pattern: pattern, Where: site.Of(at), Reason: err.Error()}
}

// operation is a registered typed operation, as the document shows it;
// its route holds it (seam.Route's Op).
type operation struct {
	op       Operation
	method   string
	in       *typed.InPlan
	validate bool // *In has a Validate method
	current  bool // Operation.Current is set: the write requires a precondition
	out      *outPlan
	uploads  int64         // the most bytes of a request's uploaded files held in memory (SetUploadMemory)
	router   *waltz.Router // the router it is registered on, whose MaxBodyBytes and DisallowUnknownFields bind its bodies
	content  []int         // a QUERY's whose answer has validators: In's Body field, whose digest they cover (query.go); else nil
	groups   []string      // the prefixes of the groups it is registered in, outermost first (tags.go)
	resource string        // the resource whose typed verb it is, or ""
}

// routerState is what the contract keeps of a router, in the router's
// slot for it (seam.Router.Contract): what UseEncoder and SetUploadMemory
// set for the operations registered afterwards.
type routerState struct {
	encoders map[string]Encoder // by media type, lower case
	uploads  int64              // SetUploadMemory's bytes
	errBody  *errorBody         // ErrorBody's type and media type, or nil

	// tagSuffixes are what the negotiated operations of the router add
	// to an entity tag inside its quotes, each with the closing quote
	// ("-application/xml\""): see baseTags. NOTE: appended to as
	// operations register, read by requests once serving began.
	tagSuffixes []string
}

// stateOf returns r's routerState, made on first use.
func stateOf(r *waltz.Router) *routerState {
	slot := seam.Router.Contract(r)
	if s, ok := (*slot).(*routerState); ok {
		return s
	}
	s := &routerState{uploads: defaultUploadMemory}
	*slot = s
	return s
}

// routerOf returns the router of g.
func routerOf(g *waltz.Group) *waltz.Router { return seam.Router.RouterOf(g).(*waltz.Router) }
