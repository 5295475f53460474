// Command resource serves a small notes JSON API built from waltz resources,
// one type per resource and one method per HTTP verb:
//
//	GET    /api/notes       list the notes
//	POST   /api/notes       create one from {"title": "...", "body": "..."}
//	GET    /api/notes/:id   read one
//	PUT    /api/notes/:id   replace its title and body
//	DELETE /api/notes/:id   delete it
//
// Writes (POST, PUT, DELETE) need the header "Authorization: Bearer
// <token>", where the token is the -token flag. Errors are JSON too:
// {"error": "..."}, with "errors" listing each value of a body that does
// not fit (its location, keyword and message). GET /readyz and GET /livez are the probes a platform
// asks (Kubernetes' readinessProbe and livenessProbe): on SIGTERM /readyz
// answers 503 at once while the server keeps serving for the -drain delay,
// then requests in flight get 5 s to finish. Run it with
//
//	go run ./examples/resource -addr :3000 -token s3cret
//	curl -H 'Authorization: Bearer s3cret' -H 'Content-Type: application/json' \
//		-d '{"title":"hello","body":"first note"}' localhost:3000/api/notes
package main

import (
	"context"
	"crypto/subtle"
	"flag"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/waltz-go/waltz"
)

func main() {
	addr := flag.String("addr", ":3000", "address to listen on, host:port")
	token := flag.String("token", "dev-token", "bearer token that writes must present")
	drain := flag.Duration("drain", waltz.DrainDelay, "how long to keep serving, /readyz failing, after SIGTERM; 0 for none")
	flag.Parse()
	// Ctrl-C or SIGTERM drains, lets requests in flight finish, then exits
	// 0; a second signal (Ctrl-C or SIGTERM), once the first has stopped the notification,
	// ends the process at once.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	context.AfterFunc(ctx, stop)
	srv := &waltz.Server{ShutdownTimeout: 5 * time.Second, DrainDelay: *drain}
	if *drain == 0 {
		srv.DrainDelay = -1 // zero in the Server would mean the default
	}
	srv.Handler = newApp(NewStore(), *token, srv)
	if err := run(ctx, *addr, srv); err != nil {
		log.Fatal(err)
	}
}

// run listens on addr, says so once the address is bound, and serves with
// srv until ctx is done.
func run(ctx context.Context, addr string, srv *waltz.Server) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	log.Printf("resource: listening on %s", ln.Addr())
	return srv.Run(ctx, ln)
}

// newApp returns the app's router, with srv's probes, apart from main so
// tests can serve it.
func newApp(store *Store, token string, srv *waltz.Server) *waltz.Router {
	r := waltz.New()
	r.Get("/readyz", srv.Ready)
	r.Get("/livez", srv.Live)
	r.MaxBodyBytes = 16 << 10 // notes are small: 16 KiB
	r.DisallowUnknownFields = true
	r.RenderError = renderJSON
	g := r.Group("/api", requireToken(token))
	g.Resource(&notesResource{store})
	g.Resource(&noteResource{store})
	return r
}

// notesResource is the collection of notes.
type notesResource struct{ store *Store }

func (*notesResource) Paths() []string { return []string{"/notes"} }

func (n *notesResource) Get(c *waltz.Context) error {
	return c.JSON(http.StatusOK, n.store.List())
}

func (n *notesResource) Post(c *waltz.Context) error {
	in, err := bindNote(c)
	if err != nil {
		return err
	}
	note := n.store.Create(in.Title, in.Body)
	c.Writer.Header().Set("Location", "/api/notes/"+note.ID)
	return c.JSON(http.StatusCreated, note)
}

// noteResource is one note. It has no Post or Patch: those get 405.
type noteResource struct{ store *Store }

func (*noteResource) Paths() []string { return []string{"/notes/:id"} }

func (n *noteResource) Get(c *waltz.Context) error {
	note, ok := n.store.Get(c.Param("id"))
	if !ok {
		return noSuchNote(c)
	}
	return c.JSON(http.StatusOK, note)
}

func (n *noteResource) Put(c *waltz.Context) error {
	in, err := bindNote(c)
	if err != nil {
		return err
	}
	note, ok := n.store.Update(c.Param("id"), in.Title, in.Body)
	if !ok {
		return noSuchNote(c)
	}
	return c.JSON(http.StatusOK, note)
}

func (n *noteResource) Delete(c *waltz.Context) error {
	if !n.store.Delete(c.Param("id")) {
		return noSuchNote(c)
	}
	return c.NoContent(http.StatusNoContent)
}

// noteInput is the body of a POST or PUT.
type noteInput struct {
	Title string `json:"title"`
	Body  string `json:"body"`
}

// bindNote reads a noteInput from the request body and checks it.
func bindNote(c *waltz.Context) (noteInput, error) {
	var in noteInput
	if err := c.Bind(&in); err != nil {
		return in, err
	}
	if in.Title == "" {
		return in, &waltz.HTTPError{Code: http.StatusUnprocessableEntity, Message: "a note needs a title"}
	}
	return in, nil
}

func noSuchNote(c *waltz.Context) error {
	id := c.Param("id")
	if len(id) > 32 {
		// Never echo more of the client's input than a line's worth.
		id = strings.ToValidUTF8(id[:32], "") + "…"
	}
	return &waltz.HTTPError{Code: http.StatusNotFound, Message: "no note with id " + id}
}

// requireToken returns middleware that lets reads through and answers
// writes without "Authorization: Bearer <token>" with 401 (RFC 9110
// section 15.5.2), which must say how to authenticate.
func requireToken(token string) waltz.Middleware {
	want := []byte("Bearer " + token)
	return func(next waltz.HandlerFunc) waltz.HandlerFunc {
		return func(c *waltz.Context) error {
			switch c.Request.Method {
			case http.MethodGet, http.MethodHead, http.MethodOptions:
				return next(c)
			}
			got := []byte(c.Request.Header.Get("Authorization"))
			if subtle.ConstantTimeCompare(got, want) != 1 {
				c.Writer.Header().Set("WWW-Authenticate", `Bearer realm="notes"`)
				return &waltz.HTTPError{Code: http.StatusUnauthorized, Message: "writes need a bearer token"}
			}
			return next(c)
		}
	}
}

// renderJSON is the router's RenderError: it answers {"error": message},
// and "errors": the failures of a body Bind could not take, each located.
// It only renders: DefaultErrorHandler has already decided what to answer
// (an HTTPError's message reaches the client, anything else a bare 500),
// logged what needs logging (once, even under a logging middleware), and
// left alone a response that had started.
func renderJSON(c *waltz.Context, e *waltz.HTTPError) {
	msg := e.Message
	if msg == "" {
		msg = http.StatusText(e.Code)
	}
	_ = c.JSON(e.Code, struct {
		Error  string             `json:"error"`
		Errors []waltz.FieldError `json:"errors,omitempty"`
	}{msg, e.Errors})
}
