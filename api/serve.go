package api

import (
	"fmt"
	"net/http"
	"reflect"
	"sync"
	"unsafe"

	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/internal/cond"
	"github.com/waltz-go/waltz/internal/seam"
	"github.com/waltz-go/waltz/internal/typed"
)

// A typed operation's request, from the handler the route runs to the
// answer: negotiation, binding, the precondition of a write, the user's
// handler, and the answer written by the Out plan.

// newTyped captures h for registration.
func newTyped[In, Out any](h func(*waltz.Context, *In) (*Out, error), op Operation) *typedOp {
	t := &typedOp{op: op, in: reflect.TypeFor[In](), out: reflect.TypeFor[Out]()}
	current, _ := op.Current.(func(*waltz.Context, *In) (Validators, error))
	if op.Current != nil && current == nil {
		t.err = fmt.Errorf("Operation.Current is a %T, want a func(*waltz.Context, *%s) (api.Validators, error)", op.Current, t.in)
	}
	t.handler = func(o *operation) waltz.HandlerFunc {
		if h == nil {
			return nil
		}
		ip, validate, op, uploads, rt := o.in, o.validate, o.out, o.uploads, o.router
		st := stateOf(rt) // its tagSuffixes, read as requests come, once every operation is registered
		pool := sync.Pool{New: func() any { return new(In) }}
		files := ip.HasFiles()
		run := func(c *waltz.Context) error {
			call := seam.Router.Enter(c)
			rep := 0 // the representation, by op.neg
			if op.neg != nil {
				var err error
				if rep, err = op.neg.pick(c, call); err != nil {
					return err
				}
			}
			in := take[In](call, &pool)
			// NOTE: ip and op were planned from In and Out, the types of
			// in and out: the engine writes and reads their fields at the
			// offsets reflection gave for those types, and in stays
			// reachable here (and out from the handler's return) while it
			// does.
			// Set field by field: a composite literal is built in a
			// temporary and then copied. The body's limits are the
			// router's fields, read as each request is bound.
			var src typed.Input
			src.Req, src.W, src.Path, src.Temp, src.Fails = c.Request, c.Response().Unwrap(), call.Path, &call.Temp, call
			src.Body.MaxBytes, src.Body.Strict, src.Body.Memory = rt.MaxBodyBytes, rt.DisallowUnknownFields, uploads
			var err error
			if current == nil {
				err = bindIn(c, call, &src, ip, validate, unsafe.Pointer(in))
			} else {
				err = bindCurrent(c, call, &src, ip, validate, unsafe.Pointer(in), func() error {
					v, cerr := current(c, in)
					return checkCurrent(c, v, cerr, st.tagSuffixes)
				})
			}
			if err != nil {
				give(call, &pool, in)
				return err
			}
			out, err := h(c, in)
			if err == nil {
				if op.content {
					// A QUERY whose answer has validators: they cover
					// its content (query.go).
					call.Content = o.contentDigest(unsafe.Pointer(in))
				}
				// An Out may point into In (Body: &in.Body): In goes back
				// to the pool only once the answer is written.
				err = writeOut(c, call, op, unsafe.Pointer(out), rep)
				if err == nil && out != nil && !op.download && !op.stream {
					seam.Router.Whole(c)
				}
			}
			give(call, &pool, in)
			return err
		}
		if files {
			// The uploads' temporary files go however the handler ends,
			// a panic included. A handler of its own, so that an
			// operation without files pays nothing for the defer.
			return func(c *waltz.Context) error {
				call, _ := seam.Router.Call(c)
				defer call.Temp.Remove()
				return run(c)
			}
		}
		return run
	}
	return t
}

// take returns a zeroed *In for a request: the Context's spare (Call's
// Spare) when it holds one of this type, else one from the operation's
// pool. A pool's Get and Put cost a few hundred instructions; the spare,
// which the next request on the same Context finds, a type check.
func take[In any](call *seam.Call, pool *sync.Pool) *In {
	if in, ok := call.Spare.(*In); ok {
		call.Spare = nil
		return in
	}
	return pool.Get().(*In)
}

// give zeroes in, dropping what the request referenced, and keeps it as
// the Context's spare, or puts it back in the pool when the Context keeps
// one already (of another operation's type, as a rule).
func give[In any](call *seam.Call, pool *sync.Pool, in *In) {
	var zero In
	*in = zero
	if call.Spare == nil {
		call.Spare = in
		return
	}
	pool.Put(in)
}

// bindIn binds c's request into in, a zeroed value of ip's In type, and
// runs its Validate method when validate is set and the tags' rules
// passed. The error is an HTTPError listing every failure, or the body's.
func bindIn(c *waltz.Context, call *seam.Call, src *typed.Input, ip *typed.InPlan, validate bool, in unsafe.Pointer) error {
	call.Fails = call.Fails[:0]
	if err := ip.Bind(src, in); err != nil {
		return typedError(c, call, err)
	}
	return validateIn(c, ip, validate, in)
}

// bindCurrent is bindIn for a write with Operation.Current: the params
// are bound first, then check judges the preconditions (Current and
// checkCurrent), and only then is the body read, bound and the whole
// validated. RFC 9110 section 13.2.1 evaluates preconditions before the
// request's content is processed: a stale If-Match is a 412 whatever the
// body holds, and a large body is not read for a write refused anyway.
// A failure of the params is answered first, before both.
func bindCurrent(c *waltz.Context, call *seam.Call, src *typed.Input, ip *typed.InPlan, validate bool, in unsafe.Pointer, check func() error) error {
	call.Fails = call.Fails[:0]
	if err := ip.BindParams(src, in); err != nil {
		return typedError(c, call, err)
	}
	if err := check(); err != nil {
		return err
	}
	if err := ip.BindBody(src, in); err != nil {
		return typedError(c, call, err)
	}
	return validateIn(c, ip, validate, in)
}

// validateIn runs In's own Validate method, when it has one (validate).
func validateIn(c *waltz.Context, ip *typed.InPlan, validate bool, in unsafe.Pointer) error {
	if validate {
		// NOTE: in points to a value of the type ip was planned from.
		if fs := reflect.NewAt(ip.Type(), in).Interface().(validator).Validate(c); fs != nil {
			return &waltz.HTTPError{Code: http.StatusUnprocessableEntity, Message: typed.ErrInvalid.Error(), Errors: fs}
		}
	}
	return nil
}

// typedError returns the HTTPError of what the typed engine's binding
// returned: every failure it sent to the call, 400 when some part of the
// request could not be read and 422 otherwise; or the body's error.
func typedError(c *waltz.Context, call *seam.Call, err error) error {
	code := http.StatusUnprocessableEntity
	switch err {
	case typed.ErrUnreadable:
		code = http.StatusBadRequest
	case typed.ErrInvalid:
	default:
		call.Clear()
		return seam.Router.BodyError(c, err)
	}
	// The answer gets a copy of its own, exactly its size; the Context
	// keeps its array for its next request (see seam.Call.Clear).
	fs := make([]waltz.FieldError, len(call.Fails))
	for i, f := range call.Fails {
		fs[i] = waltz.FieldError(f)
	}
	call.Clear()
	return &waltz.HTTPError{Code: code, Message: err.Error(), Errors: fs}
}

// writeOut sends out, the handler's *Out, as the success answer, in the
// representation rep of p's negotiation.
func writeOut(c *waltz.Context, call *seam.Call, p *outPlan, out unsafe.Pointer, rep int) error {
	h := c.Writer.Header() // the map to send, whatever wraps Writer: one call
	if out == nil {
		return c.NoContent(p.SuccessStatus())
	}
	code, listed := p.Status(out)
	if !listed {
		// The document lists the enum's statuses alone: another is the
		// handler's bug, answered 500 and logged, never sent.
		return p.StatusError(c.Request.Method, c.Pattern(), code)
	}
	if p.HasValidators() && code == http.StatusOK && !p.download && safeMethod(c.Request.Method) {
		// RFC 9110 section 13.2.2, on the validators the answer carries
		// (a Download's are judged as FileServer judges a file's, in
		// sendDownload).
		tag, modified := p.Validators(out)
		tag = repTag(tag, p.neg.suffix(rep)) // the representation's own
		if p.content {
			tag = contentTag(tag, call.Content)
		}
		switch cond.Evaluate(c.Request.Header, c.Request.Method, cond.Validators{ETag: tag, LastModified: modified}) {
		case cond.Failed:
			return errPreconditionFailed
		case cond.NotModified:
			if err := start(c, call, http.StatusNotModified); err != nil {
				return err
			}
			// Section 15.4.5: the fields the 200 would have carried,
			// and no content.
			p.setHeaders(out, h, rep)
			if p.content {
				p.setContentTag(h, call.Content)
			}
			c.Writer.WriteHeader(http.StatusNotModified)
			return nil
		}
	}
	switch {
	case !p.HasBody() || typed.NoContent(code):
		// A 204 or 205 has no content (RFC 9110 sections 15.3.5,
		// 15.3.6): Body, if Out has one, is not sent.
		if err := start(c, call, code); err != nil {
			return err
		}
		p.setHeaders(out, h, rep)
		if p.content {
			p.setContentTag(h, call.Content)
		}
		c.Writer.WriteHeader(code)
		return nil
	case p.download, p.stream:
		// Each says it started when it does, after the checks that may
		// still answer an error.
		if err := seam.Router.Start(c, "Op", code, false); err != nil {
			return err
		}
		// Either may still answer an error (a Download's 406, 412, 416
		// or 500; an event stream's 500), which is no answer of Out's:
		// Out's fields are then taken back, each as it was before.
		kept := keepFields(h, p.HeaderNames())
		p.SetHeaders(out, h)
		if p.content {
			p.setContentTag(h, call.Content)
		}
		var err error
		switch {
		case p.download:
			// Its representation is known once its Type is: the tag
			// Out gives goes to sendDownload, which makes it that
			// representation's.
			var tag string
			if p.neg.suffix(1) != "" && p.HasValidators() {
				tag, _ = p.Validators(out)
				if p.content {
					tag = contentTag(tag, call.Content)
				}
			}
			err = sendDownload(c, p, p.Body(out).(*Download), code, rep, tag)
		case p.lines != nil:
			err = p.Body(out).(linesBody).run(c)
		default:
			err = p.Body(out).(eventsBody).run(c, p.events)
		}
		if err != nil && seam.Router.Start(c, "Op", code, false) == nil {
			restoreFields(h, p.HeaderNames(), kept)
		}
		return err
	}
	if n := p.neg; n != nil && n.enc[rep] != nil {
		b, err := n.enc[rep](p.Body(out))
		if err != nil {
			return fmt.Errorf("waltz: encoding the %s answer: %w", n.types[rep], err)
		}
		if err := start(c, call, code); err != nil {
			return err
		}
		p.setHeaders(out, h, rep)
		if p.content {
			p.setContentTag(h, call.Content)
		}
		// A value slice of the response's own: the Context's slots hold
		// one value each, which another response must not overwrite
		// while a recorder still reads this one.
		if n.ctype[rep] == seam.TextPlain {
			h["Content-Type"] = seam.ContentType(&call.Text, seam.TextPlain)
		} else {
			h["Content-Type"] = []string{n.ctype[rep]}
		}
		c.Writer.WriteHeader(code)
		_, err = c.Writer.Write(b)
		return err
	}
	// Encoded before anything is sent, so that an error leaves the
	// response to the error handler.
	bp := typed.AnswerBuf()
	b, err := p.AppendBody((*bp)[:0], out)
	if err == nil {
		err = start(c, call, code)
	} else {
		err = fmt.Errorf("waltz: encoding JSON response: %w", err)
	}
	if err != nil {
		typed.PutAnswerBuf(bp, b)
		return err
	}
	p.setHeaders(out, h, rep)
	if p.content {
		p.setContentTag(h, call.Content)
	}
	h["Content-Type"] = seam.ContentType(&call.JSON, seam.JSON)
	c.Writer.WriteHeader(code)
	_, err = c.Writer.Write(append(b, '\n'))
	typed.PutAnswerBuf(bp, b)
	return err
}

// setHeaders sets in h each header field of out, a non-nil *Out of p's
// type, that has a value, as SetHeaders does, its ETag as the
// representation rep of p's negotiation sends it (repTag).
func (p *outPlan) setHeaders(out unsafe.Pointer, h http.Header, rep int) {
	p.SetHeaders(out, h)
	if s := p.neg.suffix(rep); s != "" && p.HasValidators() {
		if tag, _ := p.Validators(out); tag != "" {
			h["Etag"] = []string{repTag(tag, s)}
		}
	}
}

// keptField is a header field's values, as they were before an answer's
// Out set a field of that name.
type keptField struct {
	name string
	vals []string
}

// keepFields returns the fields of h named in names (Out's header
// fields) that h has already, set by a middleware or the handler before
// Out's are: none, and no allocation, as a rule.
func keepFields(h http.Header, names []string) []keptField {
	var kept []keptField
	for _, n := range names {
		if vs, ok := h[n]; ok {
			kept = append(kept, keptField{n, vs})
		}
	}
	return kept
}

// restoreFields takes back from h the fields named in names that Out set,
// putting back those kept (keepFields): an error answer that replaces
// Out's carries none of its fields. They describe the success answer: a
// Cache-Control or Expires would make the error cacheable in its place
// (RFC 9111 section 3: a response with explicit freshness may be stored
// whatever its status), a validator, Location or Link would describe a
// resource the error is not.
func restoreFields(h http.Header, names []string, kept []keptField) {
	for _, n := range names {
		delete(h, n)
	}
	for _, k := range kept {
		h[k.name] = k.vals
	}
}

// MediaType returns the media type of the typed answer c is serving, as
// the operation's negotiation picked it from [Operation.Produces] and the
// request's Accept field, before the handler runs: a handler that builds
// its answer differently per representation reads it. It is "" on a
// route that is not a typed operation, and on one that declares no
// Produces (whose answer is JSON whatever the client asks).
func MediaType(c *waltz.Context) string {
	if call, ok := seam.Router.Call(c); ok {
		return call.MediaType
	}
	return ""
}

// start returns the error of an answer whose response has started
// (waltz.ErrResponseStarted), or records that the answer's status is
// about to go to c's Writer. The common case, no middleware writer and
// nothing sent, is decided here; the rest by the router (Context.started).
func start(c *waltz.Context, call *seam.Call, code int) error {
	if r := c.Response(); c.Writer == http.ResponseWriter(r) && call.SentTo == nil && !r.Started() {
		call.SentTo = c.Writer
		return nil
	}
	return seam.Router.Start(c, "Op", code, true)
}
