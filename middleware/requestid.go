package middleware

import (
	"context"
	"crypto/rand"
	"encoding/base32"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/waltz-go/waltz"
)

// RequestIDOptions configures [RequestID]. The zero value reads and writes
// X-Request-ID and accepts an incoming ID of up to 64 safe bytes.
type RequestIDOptions struct {
	// Header is the request and response header that carries the ID;
	// "" means "X-Request-ID". It must be a valid field name (RFC 9110
	// section 5.1).
	Header string

	// MaxLength is the longest incoming ID accepted, in bytes; 0 means 64.
	// A longer one is replaced by a new ID.
	MaxLength int

	// DiscardIncoming gives every request a new ID and ignores the one the
	// client sent. Set it when clients reach the server directly rather
	// than through a proxy that assigns IDs: an ID chosen by the client
	// lets it make its requests look like someone else's in the logs.
	DiscardIncoming bool
}

// RequestID returns middleware that gives each request an ID, for tying
// log lines to a request and a request to what the client saw.
//
// The ID is the request's Header (X-Request-ID unless configured) when that
// holds exactly one value of 1 to MaxLength bytes (64 unless configured),
// each one of A-Z a-z 0-9 and . _ ~ : + / = - (the characters of a URL-safe
// or standard base64 token, RFC 4648, and of a UUID); anything else — a
// second value, an empty or overlong one, white space, control bytes, CR or
// LF, quotes, non-ASCII — is dropped unread, so the client's bytes never
// reach a log or the response. Otherwise, or with DiscardIncoming, a new ID
// is made: a 16-character base32 prefix of 80 bits from crypto/rand, made
// once per process, then "-" and a decimal counter that counts from 1, such
// as "Q2ZJ7K4XWMNB3T5A-42". IDs are unique, not secret: make no security
// decision on one.
//
// The ID is set on the response's Header and put in the request's
// context.Context, where [RequestIDFrom] finds it: handlers, middleware
// after this one, a context-aware slog.Handler, and [Logger] placed before
// this one (it reads the request after the handlers return).
//
// Cost per request, held by a test: 2 allocations (the request's copy with
// its new context, and the context, which also holds the header value)
// when the incoming ID is kept, 3 when one is made (the ID string too).
//
// RequestID panics with a message naming the field if Header is not a
// valid field name or MaxLength is negative.
func RequestID(o RequestIDOptions) waltz.Middleware {
	name := o.Header
	if name == "" {
		name = "X-Request-ID"
	}
	if !validFieldName(name) {
		panic(fmt.Sprintf("waltz: RequestIDOptions.Header %q is not a valid header field name", name))
	}
	if o.MaxLength < 0 {
		panic(fmt.Sprintf("waltz: RequestIDOptions.MaxLength %d is negative", o.MaxLength))
	}
	key, limit := http.CanonicalHeaderKey(name), o.MaxLength
	if limit == 0 {
		limit = 64
	}
	prefix := idPrefix()
	return func(next waltz.HandlerFunc) waltz.HandlerFunc {
		return func(c *waltz.Context) error {
			id := ""
			if !o.DiscardIncoming {
				if v := c.Request.Header[key]; len(v) == 1 && safeID(v[0], limit) {
					id = v[0]
				}
			}
			if id == "" {
				id = newID(prefix)
			}
			ctx := &idContext{Context: c.Request.Context(), id: id}
			ctx.hdr[0] = id
			c.Writer.Header()[key] = ctx.hdr[:1:1]
			c.Request = c.Request.WithContext(ctx)
			return next(c)
		}
	}
}

// RequestIDFrom returns the request ID that [RequestID] put in ctx, or ""
// if there is none.
func RequestIDFrom(ctx context.Context) string {
	if ctx == nil {
		return ""
	}
	if id, ok := ctx.Value(requestIDKey{}).(*string); ok {
		return *id
	}
	return ""
}

type requestIDKey struct{}

// idContext is a context.Context with the request ID: one allocation for
// what context.WithValue and the response header's []string would take
// two. The header's value slice points into it; cap 1 keeps a
// Header().Add from writing past it.
type idContext struct {
	context.Context
	id  string
	hdr [1]string
}

func (c *idContext) Value(key any) any {
	if key == (requestIDKey{}) {
		return &c.id // a pointer: a string would be copied to the heap
	}
	return c.Context.Value(key)
}

func (c *idContext) String() string { return fmt.Sprintf("%v.WithRequestID(%q)", c.Context, c.id) }

// idCounter numbers the IDs made by this process.
var idCounter atomic.Uint64

// idPrefix returns the process's random ID prefix: 10 bytes from
// crypto/rand, 16 characters of base32.
var idPrefix = sync.OnceValue(func() string {
	var b [10]byte
	rand.Read(b[:]) // never fails (crypto/rand, Go 1.24)
	return base32.StdEncoding.EncodeToString(b[:]) + "-"
})

// newID returns prefix followed by the next counter value, in one
// allocation.
func newID(prefix string) string {
	var buf [64]byte
	b := append(buf[:0], prefix...)
	return string(strconv.AppendUint(b, idCounter.Add(1), 10))
}

// safeID reports whether s is 1 to limit bytes of A-Z a-z 0-9 . _ ~ : + / = -.
func safeID(s string, limit int) bool {
	if len(s) == 0 || len(s) > limit {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !idByte[s[i]] {
			return false
		}
	}
	return true
}

var idByte = func() (t [256]bool) {
	for _, b := range []byte("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._~:+/=-") {
		t[b] = true
	}
	return t
}()

// validFieldName reports whether s is a token (RFC 9110 section 5.6.2), the
// syntax of a header field name.
func validFieldName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		b := s[i]
		if b >= 0x80 || !tokenByte[b] {
			return false
		}
	}
	return true
}

var tokenByte = func() (t [128]bool) {
	for _, b := range []byte("!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz") {
		t[b] = true
	}
	return t
}()
