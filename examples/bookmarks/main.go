// Command bookmarks serves a small bookmarks JSON API built from waltz's
// typed operations: one Go type per operation's input says where each
// value comes from and what it must be, and the same types give the
// API's OpenAPI 3.1 document, served at /openapi.json (3.2 at
// /openapi-3.2.json) and as a page at /docs:
//
//	GET    /api/bookmarks       list them: ?tag=go&tag=docs (every tag given), ?limit=1..100 (20), ?offset=0..
//	POST   /api/bookmarks       create one from {"url": "https://…", "title": "…", "tags": ["…"]} (Idempotency-Key runs a retry once)
//	GET    /api/bookmarks/:id   read one (ETag, If-None-Match)
//	PATCH  /api/bookmarks/:id   change it: a JSON Merge Patch under If-Match
//	DELETE /api/bookmarks/:id   delete it
//	PUT    /api/bookmarks/:id/image   upload its picture (multipart/form-data)
//	GET    /api/bookmarks/:id/image   its picture, a PNG (Range, If-Range, HEAD)
//	QUERY  /api/search          find them by tags, text and dates in a JSON body (RFC 10008)
//	GET    /api/export          every bookmark as JSON Lines
//	GET    /api/changes         the changes as server-sent events (Last-Event-ID resumes)
//	GET    /openapi.json        the document; /openapi-3.2.json in OpenAPI 3.2
//	GET    /docs                the document as a page to read (its stylesheet: /docs?css)
//
// Reads answer JSON, or XML for "Accept: application/xml".
// Writes (POST, PATCH, DELETE, PUT of an image) need the header
// "Authorization: Bearer <token>", where the token is the -token flag.
// Every error is an RFC 9457 problem document
// (application/problem+json); a request that breaks the rules gets every
// broken rule at once, each with its location. Run it with
//
//	go run ./examples/bookmarks -addr :3000 -token s3cret
//	curl -H 'Authorization: Bearer s3cret' -H 'Content-Type: application/json' \
//		-d '{"url":"https://go.dev/","title":"Go"}' localhost:3000/api/bookmarks
package main

import (
	"context"
	"flag"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/examples/bookmarks/bookmarks"
)

func main() {
	addr := flag.String("addr", ":3000", "address to listen on, host:port")
	token := flag.String("token", "dev-token", "bearer token that writes must present")
	flag.Parse()
	// Ctrl-C or SIGTERM lets requests in flight finish, then exits 0.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	context.AfterFunc(ctx, stop) // a second signal (Ctrl-C, SIGTERM) ends the process at once
	if err := run(ctx, *addr, bookmarks.New(bookmarks.NewStore(), *token)); err != nil {
		log.Fatal(err)
	}
}

// run listens on addr, says so once the address is bound, and serves h
// until ctx is done, giving requests in flight 5 s to finish.
func run(ctx context.Context, addr string, h http.Handler) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	log.Printf("bookmarks: listening on %s", ln.Addr())
	srv := &waltz.Server{ShutdownTimeout: 5 * time.Second}
	srv.Handler = h
	return srv.Run(ctx, ln)
}
