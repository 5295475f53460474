package middleware

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/api"
	"github.com/waltz-go/waltz/internal/header"
)

// IdempotencyOptions configures [Idempotency]. The zero value reads
// Idempotency-Key on POST and PATCH, scoped by the authenticated caller,
// keeps answers 24 hours in a 64 MiB memory store, and refuses requests
// (503) when the store fails.
type IdempotencyOptions struct {
	// Store keeps the keys and answers. Nil means
	// NewMemoryIdempotencyStore(64 << 20). A store shared by every
	// instance of a service (redisstore's) is what makes a retry that
	// reaches another instance safe.
	Store IdempotencyStore

	// Header is the request field that carries the key; "" means
	// "Idempotency-Key". Not a field name, construction panics.
	Header string

	// Methods are the methods whose requests are made idempotent; nil
	// means POST and PATCH, the methods RFC 9110 section 9.2.2 does not
	// make idempotent. Requests of other methods pass untouched.
	Methods []string

	// Scope returns the namespace of a request's keys, so that one
	// caller's key never reaches another's answer. Nil means the
	// authenticated caller: the user [BasicAuth] admitted, else the
	// SHA-256 of the request's Authorization field (so a Bearer token, or
	// any other scheme's credentials, never stored as such). A request
	// that has a key and a Scope of "" is refused with a 500 whose cause
	// says why, and nothing runs: without a scope the key could only be
	// shared by every caller. Give a Scope when callers authenticate
	// another way (BearerAuthOptions.Header, a session cookie).
	Scope func(c *waltz.Context) string

	// Required refuses a request of Methods without a key (400). False
	// lets it through, unprotected.
	Required bool

	// MaxKeyLength bounds a key's length, in bytes after unquoting; 0
	// means 255. Negative panics.
	MaxKeyLength int

	// Expiry is how long an answer is kept for replay (the expiration
	// policy the draft asks a server to publish, section 2.3); 0 means
	// 24 hours. Negative panics.
	Expiry time.Duration

	// Lease is how long a claim holds a key while its request runs; 0
	// means one minute. A claim lapses after it, so that a server that
	// died mid-request does not hold a key forever; a request running
	// longer can then run again concurrently, so keep Lease above the
	// longest a handler may take (the server's WriteTimeout, say).
	// Negative panics.
	Lease time.Duration

	// ReplayHeaders are response fields replayed besides the default
	// ones: Cache-Control, Content-Disposition, Content-Encoding,
	// Content-Language, Content-Location, Content-Type, ETag,
	// Last-Modified, Link, Location. Only named fields are replayed: a
	// middleware outside Idempotency sets fields (a request ID,
	// rate-limit state, CORS, a session cookie) that belong to the first
	// request and its caller, not to the retry. Set-Cookie, Date,
	// Content-Length and the hop-by-hop fields (Connection, Keep-Alive,
	// Proxy-Connection, TE, Trailer, Transfer-Encoding, Upgrade,
	// Proxy-Authenticate; RFC 9110 section 7.6.1) panic.
	ReplayHeaders []string

	// MaxAnswerBytes bounds the body of an answer kept; 0 means 1 MiB.
	// A longer answer is sent but not kept: the key is released, and a
	// retry runs the request again. Negative panics. A shared store
	// moves the answer within its own deadline (redisstore's Timeout):
	// keep the two in proportion.
	MaxAnswerBytes int

	// FailOpen runs the request without a claim when the store fails to
	// claim its key, logging the error to [waltz.Context.Logger] at most
	// once a second: retries may then run twice. False, the default,
	// answers 503 Service Unavailable with the error as the cause, for
	// the error handler to log: a retry never runs twice, and nothing
	// runs while the store is away.
	FailOpen bool
}

// Idempotency returns middleware that makes retries of a non-idempotent
// request safe, by the IETF httpapi draft "The Idempotency-Key HTTP Header
// Field" (draft-ietf-httpapi-idempotency-key-header-07): a request with a
// key runs once, and a retry with the same key gets the first answer
// again.
//
// The key is the request's one Idempotency-Key field (section 2.1): an
// sf-string (RFC 8941 section 3.3.3), such as
//
//	Idempotency-Key: "8e03978e-40d5-43e8-bc93-6894a57f9324"
//
// or, as many clients send it, the same value bare, a token of RFC 9110
// section 5.6.2 bytes, ':' and '/'. A field of another form (parameters
// included), empty, longer than MaxKeyLength or repeated is answered 400
// Bad Request, as is a missing one when Required.
//
// The key is scoped by Scope (by default the authenticated caller; put
// Idempotency inside the authentication middleware), as the draft's
// security considerations (section 5) ask, and bound to the request's
// fingerprint: the SHA-256 of its method, route pattern, path, query
// and body (section 2.4). The path and query are in it so that a key sent
// again to another resource of the same route is not taken for a retry.
// The body is read once, within [waltz.Context.MaxBodyBytes] (413 Content
// Too Large past it; a Router with no limit has every body buffered
// whole, so keep one), and the handlers get a body identical to it.
//
// Then, by the store's record of the key (section 2.6):
//
//   - not seen: the store claims it for Lease and the request runs; its
//     answer is sent as it is written and kept for Expiry, when its
//     status is 200 to 499 but for 408 and 429 (answers that ask to be
//     retried), with the ReplayHeaders fields and a body of at most
//     MaxAnswerBytes, also when the client did not get it all (a write
//     failed: the client that lost the answer is the one that retries).
//     Any other outcome — a 5xx, the handlers' own error after the
//     response started, a panic, a hijacked connection — releases the
//     key, so that a retry runs again: the handler is expected to have
//     undone its effects, as a failed transaction does.
//   - seen with another fingerprint: 422 Unprocessable Content (RFC 9110
//     section 15.5.21), whether or not that request is done;
//   - seen, same fingerprint, still running: 409 Conflict (section
//     15.5.10), with "Retry-After: 1" (section 10.2.3): one second, not
//     what is left of the Lease, which bounds the slowest request rather
//     than the usual one, and which the store does not report; a 409
//     costs the server one claim attempt, so a client may well ask again
//     each second until it gets the answer;
//   - seen, same fingerprint, done: its answer, with the field
//     "Idempotent-Replayed: true"; the handlers do not run.
//
// Put Idempotency inside the authentication middleware, whose caller
// scopes the keys, and inside Compress and ETag, which then treat a
// replay as they treated the first answer (a Compress inside it would
// keep a compressed body, replayed whatever the retry accepts).
//
// Refusals are [*waltz.HTTPError] values returned for the router's error
// handler (so RenderProblem gives them as problem details), declared for
// the OpenAPI document with [api.Responds]: 400, 409, 413, 422, and 503
// unless FailOpen or the store is a [MemoryIdempotencyStore], which does
// not fail. The key's field is declared with [api.Reads], for the
// operations of Methods, required when Required is set, and the field
// Idempotent-Replayed with [api.Sets], as a field their success answers
// may carry (a replayed error answer carries it too, which the document
// does not list: see Sets).
//
// Cost per request, held by a test, in the memory store with a Scope that
// does not allocate: a replay costs 1 allocation (the replayed fields'
// value slices, the response's own); a request that runs costs 1 for its
// claim besides storing its answer (the answer, its fields and a copy of
// its body); a 409 costs 1 (its Retry-After slice) and a 422 none. The
// buffers (the body, the request copy that carries it, the answer's
// recorder) are pooled. The default Scope costs 1 more for a caller known
// by its Authorization field.
//
// Idempotency panics at construction, with a message starting "waltz: "
// that names the field, on a Header that is not a field name, a Method
// that is not a token, a negative MaxKeyLength, Expiry, Lease or
// MaxAnswerBytes, or a ReplayHeaders entry that may not be replayed.
func Idempotency(o IdempotencyOptions) waltz.Middleware {
	id := newIdempotency(o)
	codes := []int{http.StatusBadRequest, http.StatusConflict, http.StatusRequestEntityTooLarge, http.StatusUnprocessableEntity}
	if _, memory := id.store.(*MemoryIdempotencyStore); !id.failOpen && !memory { // the memory store does not fail
		codes = append(codes, http.StatusServiceUnavailable)
	}
	mw := api.Responds(func(next waltz.HandlerFunc) waltz.HandlerFunc {
		return func(c *waltz.Context) error { return id.serve(c, next) }
	}, codes...)
	mw = api.Sets(mw, api.HeaderParam{
		Name: "Idempotent-Replayed", Methods: id.methods, Pattern: "^true$",
		Description: "true on an answer replayed from the first request sent with the same " + id.header +
			" (the handlers did not run again); absent on an answer of this request's own.",
	})
	return api.Reads(mw, api.HeaderParam{
		Name: id.header, Required: id.required, Methods: id.methods,
		Description: "A key the client makes for this request, unique to it, as an sf-string " +
			"(draft-ietf-httpapi-idempotency-key-header): a retry with the same key and request " +
			"gets the first answer again, marked Idempotent-Replayed: true, and runs nothing; " +
			"409 while the first runs (with Retry-After: 1, in seconds), 422 for the key with another request.",
		// A key of MaxKeyLength bytes and its quotes: one with escapes
		// may be longer on the wire, which the document does not promise.
		MaxLength: id.maxKey + 2,
		Pattern:   keyPattern,
		Example:   `"8e03978e-40d5-43e8-bc93-6894a57f9324"`,
	})
}

// conflictRetryAfter is the Retry-After of a 409, in delta-seconds
// (RFC 9110 section 10.2.3): see Idempotency.
const conflictRetryAfter = "1"

// The refusals. NOTE: shared, never modified.
var (
	errIdemRepeated = &waltz.HTTPError{Code: http.StatusBadRequest,
		Message: "a request may carry one idempotency key field, not several",
		Errors:  []waltz.FieldError{{Location: "header.Idempotency-Key", Keyword: "maxItems", Message: "must appear once"}}}
	errIdemConflict = &waltz.HTTPError{Code: http.StatusConflict,
		Message: "a request with this idempotency key is still being processed; retry once it has been answered"}
	errIdemReused = &waltz.HTTPError{Code: http.StatusUnprocessableEntity,
		Message: "this idempotency key was used for another request (method, path, query or body); use a new key for a new request"}
)

type idempotency struct {
	store     IdempotencyStore
	header    string // canonical
	methods   []string
	scope     func(c *waltz.Context) string
	required  bool
	maxKey    int
	expiry    time.Duration
	lease     time.Duration
	replay    []string // canonical names of the fields kept
	maxAnswer int
	failOpen  bool
	failLog   failLog

	missing, malformed, tooLong *waltz.HTTPError // name the configured header; shared, never modified
}

func newIdempotency(o IdempotencyOptions) *idempotency {
	id := &idempotency{store: o.Store, header: "Idempotency-Key", methods: []string{http.MethodPost, http.MethodPatch},
		scope: o.Scope, required: o.Required, maxKey: o.MaxKeyLength, expiry: o.Expiry, lease: o.Lease,
		maxAnswer: o.MaxAnswerBytes, failOpen: o.FailOpen}
	if o.Header != "" {
		if !validFieldName(o.Header) {
			panic(fmt.Sprintf("waltz: IdempotencyOptions.Header %q is not a header field name", o.Header))
		}
		id.header = http.CanonicalHeaderKey(o.Header)
	}
	if o.Methods != nil {
		for _, m := range o.Methods {
			if !header.IsToken(m) {
				panic(fmt.Sprintf("waltz: IdempotencyOptions.Methods holds %q, which is not a method", m))
			}
		}
		id.methods = slices.Clone(o.Methods)
	}
	for _, f := range []struct {
		name string
		v    int64
	}{{"MaxKeyLength", int64(o.MaxKeyLength)}, {"Expiry", int64(o.Expiry)}, {"Lease", int64(o.Lease)}, {"MaxAnswerBytes", int64(o.MaxAnswerBytes)}} {
		if f.v < 0 {
			panic(fmt.Sprintf("waltz: IdempotencyOptions.%s is negative", f.name))
		}
	}
	if id.store == nil {
		id.store = NewMemoryIdempotencyStore(64 << 20)
	}
	if id.scope == nil {
		id.scope = callerScope
	}
	if id.maxKey == 0 {
		id.maxKey = 255
	}
	if id.expiry == 0 {
		id.expiry = 24 * time.Hour
	}
	if id.lease == 0 {
		id.lease = time.Minute
	}
	if id.maxAnswer == 0 {
		id.maxAnswer = 1 << 20
	}
	id.replay = replayFields(o.ReplayHeaders)
	loc := "header." + id.header
	id.missing = &waltz.HTTPError{Code: http.StatusBadRequest,
		Message: fmt.Sprintf("this operation needs an idempotency key in the %s header", id.header),
		Errors:  []waltz.FieldError{{Location: loc, Keyword: "required", Message: "is required"}}}
	id.malformed = &waltz.HTTPError{Code: http.StatusBadRequest,
		Message: fmt.Sprintf("the %s header must be one quoted string (RFC 8941 section 3.3.3) or token", id.header),
		Errors:  []waltz.FieldError{{Location: loc, Keyword: "format", Message: "must be a quoted string of printable ASCII, or a token"}}}
	id.tooLong = &waltz.HTTPError{Code: http.StatusBadRequest,
		Message: fmt.Sprintf("the %s header's key may be at most %d bytes", id.header, id.maxKey),
		Errors:  []waltz.FieldError{{Location: loc, Keyword: "maxLength", Message: fmt.Sprintf("must be at most %d bytes", id.maxKey)}}}
	return id
}

func (id *idempotency) serve(c *waltz.Context, next waltz.HandlerFunc) error {
	req := c.Request
	if !slices.Contains(id.methods, req.Method) {
		return next(c)
	}
	vs := req.Header[id.header]
	switch {
	case len(vs) == 0 && id.required:
		return id.missing
	case len(vs) == 0:
		return next(c)
	case len(vs) > 1:
		return errIdemRepeated
	}
	key, err := id.parseKey(vs[0])
	if err != nil {
		return err
	}
	scope := id.scope(c)
	if scope == "" {
		return errNoScope
	}
	st := idemStates.Get().(*idemState)
	defer st.free()
	if err := st.readBody(c); err != nil {
		return err
	}
	fp := Fingerprint(sha256.Sum256(st.buf))
	claim, err := id.store.Claim(req.Context(), scope, key, fp, id.lease)
	switch {
	case err != nil && id.failOpen:
		id.failLog.log(c, "waltz: idempotency store failed; request run without a claim", err)
		return st.run(c, next)
	case err != nil:
		return &waltz.HTTPError{Code: http.StatusServiceUnavailable, Err: fmt.Errorf("waltz: idempotency store: %w", err)}
	case !claim.Claimed && claim.Fingerprint != fp:
		return errIdemReused // before 409: a changed request is wrong whether or not the first is done
	case !claim.Claimed && claim.Answer == nil:
		c.Writer.Header()["Retry-After"] = []string{conflictRetryAfter} // the response's own, as values describes
		return errIdemConflict
	case !claim.Claimed:
		return replay(c, claim.Answer)
	}
	return id.runClaimed(c, next, st, scope, key, claim.Token)
}

// oneResponse are the fields that belong to one response, which a
// replay never sends: its cookie, date and framing, and the hop-by-hop
// fields of its connection (RFC 9110 section 7.6.1; Trailer announces
// trailers a replay does not send). NOTE: shared, never modified.
var oneResponse = []string{"Set-Cookie", "Date", "Content-Length", "Transfer-Encoding", "Connection",
	"Keep-Alive", "Proxy-Connection", "Te", "Trailer", "Upgrade", "Proxy-Authenticate"}

// replayFields returns the canonical names of the fields a replay sends:
// the default ones and extra, which panics on a name that is not a field
// name or belongs to one response.
func replayFields(extra []string) []string {
	names := []string{"Cache-Control", "Content-Disposition", "Content-Encoding", "Content-Language",
		"Content-Location", "Content-Type", "Etag", "Last-Modified", "Link", "Location"}
	for _, h := range extra {
		name := http.CanonicalHeaderKey(h)
		switch {
		case !validFieldName(h):
			panic(fmt.Sprintf("waltz: IdempotencyOptions.ReplayHeaders holds %q, which is not a header field name", h))
		case slices.Contains(oneResponse, name):
			panic(fmt.Sprintf("waltz: IdempotencyOptions.ReplayHeaders holds %q, which belongs to one response and is never replayed", h))
		}
		if !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	return names
}

// errNoScope refuses a keyed request that has no scope. NOTE: shared,
// never modified.
var errNoScope = &waltz.HTTPError{Code: http.StatusInternalServerError,
	Err: errors.New("waltz: Idempotency: the request has an idempotency key but no scope: " +
		"put Idempotency inside the authentication middleware, or set IdempotencyOptions.Scope")}

// runClaimed runs the request that holds the claim token, records its
// answer, and saves or releases the key; a panic releases it and goes on.
func (id *idempotency) runClaimed(c *waltz.Context, next waltz.HandlerFunc, st *idemState, scope, key string, token uint64) error {
	st.rec.start(c.Writer, id.maxAnswer, id.replay)
	done := false
	defer func() {
		if !done { // a panic: free the key for a retry, and let the panic go on
			c.Writer = st.rec.w
			id.release(c, st, scope, key, token)
		}
	}()
	inner := c.Writer
	c.Writer = &st.rec
	err := st.run(c, next)
	c.Writer = inner
	done = true
	if a := id.keep(c, st, err); a != nil {
		st.ctx.parent = c.Request.Context()
		if serr := id.store.Save(&st.ctx, scope, key, token, a, id.expiry); serr != nil {
			c.Logger().ErrorContext(c.Request.Context(), "waltz: idempotency store failed to save an answer; a retry after the lease runs again",
				"method", c.Request.Method, "path", c.Request.URL.Path, "err", serr)
		}
		return err
	}
	id.release(c, st, scope, key, token)
	return err
}

// keep returns the answer to save from what st recorded, or nil when the
// outcome is not one to replay (see Idempotency).
func (id *idempotency) keep(c *waltz.Context, st *idemState, err error) *IdempotencyAnswer {
	r := &st.rec
	status := r.status
	if status == 0 {
		status = http.StatusOK // nothing written: net/http sends 200
	}
	switch {
	case status < 200 || status > 499 || status == http.StatusRequestTimeout || status == http.StatusTooManyRequests,
		err != nil && status < 400 && !r.lost, r.over, c.Response().Hijacked(),
		c.Response().Aborted() && !r.lost: // cut after a part: no answer to replay, unless it is a lost one kept whole
		return nil
	}
	a := &IdempotencyAnswer{Status: status, Body: slices.Clone(r.body)}
	if a.Body == nil {
		a.Body = []byte{}
	}
	if !r.sent {
		r.snapshot() // nothing written: the fields as the handlers left them
	}
	if len(r.fields) > 0 {
		// One backing array for every value; a name's values are
		// consecutive, as snapshot records them.
		vals := make([]string, len(r.fields))
		a.Header = make(http.Header, len(r.fields))
		for i := 0; i < len(r.fields); {
			j := i
			for ; j < len(r.fields) && r.fields[j][0] == r.fields[i][0]; j++ {
				vals[j] = r.fields[j][1]
			}
			a.Header[r.fields[i][0]] = vals[i:j:j]
			i = j
		}
	}
	return a
}

// release frees the claim token holds, logging a failure: the key is then
// held until its lease lapses.
func (id *idempotency) release(c *waltz.Context, st *idemState, scope, key string, token uint64) {
	st.ctx.parent = c.Request.Context()
	if err := id.store.Release(&st.ctx, scope, key, token); err != nil {
		c.Logger().ErrorContext(c.Request.Context(), "waltz: idempotency store failed to release a key; it is held until its lease lapses",
			"method", c.Request.Method, "path", c.Request.URL.Path, "err", err)
	}
}

// replay writes a, marked as replayed, through c.Writer.
func replay(c *waltz.Context, a *IdempotencyAnswer) error {
	h := c.Writer.Header()
	n := 1
	for _, vs := range a.Header {
		n += len(vs)
	}
	vals := make([]string, 0, n) // the response's own slices, as values describes
	for name, vs := range a.Header {
		vals = append(vals, vs...)
		h[name] = vals[len(vals)-len(vs) : len(vals) : len(vals)]
	}
	vals = append(vals, "true")
	h["Idempotent-Replayed"] = vals[len(vals)-1:]
	c.Writer.WriteHeader(a.Status)
	_, err := c.Writer.Write(a.Body)
	return err
}
