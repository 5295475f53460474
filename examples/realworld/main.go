// Command realworld serves the RealWorld "Conduit" API
// (github.com/gothinkster/realworld) on waltz, with its data in SQLite or
// PostgreSQL:
//
//	go run ./examples/realworld                            # SQLite in memory, on :3000
//	go run ./examples/realworld -sqlite conduit.db         # SQLite in a file
//	DATABASE_URL=postgres://… go run ./examples/realworld  # PostgreSQL
//
// The API is under /api (POST /api/users registers, POST /api/users/login
// logs in and answers a token, sent back as "Authorization: Token <jwt>"),
// its OpenAPI document at /openapi.json and as a page at /docs. Tokens are
// signed with the key in JWT_KEY (or -jwt-key); without one a development
// key is used, which the log says, and which must never serve real users.
package main

import (
	"context"
	"flag"
	"log"
	"net"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/examples/realworld/conduit"
)

// devKey signs tokens when no key is configured: it is in the source, so
// anyone can sign a token with it.
const devKey = "development key: public, never use it to serve real users"

func main() {
	addr := flag.String("addr", ":3000", "address to listen on, host:port")
	file := flag.String("sqlite", "", "SQLite database file, when DATABASE_URL is not set; none: a database in memory")
	key := flag.String("jwt-key", os.Getenv("JWT_KEY"), "key that signs the tokens, 32 bytes or more (default $JWT_KEY)")
	ttl := flag.Duration("token-ttl", 24*time.Hour, "how long a token is valid")
	origins := flag.String("cors", "*", "origins whose pages may call the API, comma-separated; * for any, empty for none")
	flag.Parse()
	switch {
	case *key == "":
		*key = devKey
		log.Printf("realworld: no JWT_KEY or -jwt-key: signing tokens with the public development key")
	case len(*key) < 32:
		log.Fatalf("realworld: the JWT key has %d bytes: give it 32 or more", len(*key))
	}
	if *ttl <= 0 {
		log.Fatalf("realworld: -token-ttl %v: a token must be valid for some time", *ttl)
	}
	// Ctrl-C or SIGTERM lets requests in flight finish, then exits 0.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	context.AfterFunc(ctx, stop) // a second signal (Ctrl-C, SIGTERM) ends the process at once
	dsn, engine := os.Getenv("DATABASE_URL"), "PostgreSQL"
	if dsn == "" {
		dsn, engine = *file, "SQLite"
	}
	db, err := conduit.Open(ctx, dsn)
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	log.Printf("realworld: listening on %s, data in %s", ln.Addr(), engine)
	srv := &waltz.Server{ShutdownTimeout: 5 * time.Second}
	var allowed []string
	if *origins != "" {
		allowed = strings.Split(*origins, ",")
	}
	srv.Handler = conduit.New(db, conduit.Options{Key: []byte(*key), TokenTTL: *ttl, AllowedOrigins: allowed})
	if err := srv.Run(ctx, ln); err != nil {
		log.Fatal(err)
	}
}
