// Command roundrobin is the reverse proxy ci.sh puts in front of two
// realworld servers on one PostgreSQL database: each request goes to the
// next backend in turn, whatever connection it came on, so a client's
// consecutive requests alternate between the processes. It logs each
// request's backend, for ci.sh to count.
//
//	roundrobin -addr 127.0.0.1:0 http://127.0.0.1:3001 http://127.0.0.1:3002
package main

import (
	"flag"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"sync/atomic"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "address to listen on, host:port")
	flag.Parse()
	var backends []*url.URL
	for _, arg := range flag.Args() {
		u, err := url.Parse(arg)
		if err != nil {
			log.Fatal(err)
		}
		backends = append(backends, u)
	}
	if len(backends) == 0 {
		log.Fatal("roundrobin: name the backends' URLs")
	}
	var next atomic.Uint64
	proxy := &httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) {
		i := (next.Add(1) - 1) % uint64(len(backends))
		r.SetURL(backends[i])
		log.Printf("roundrobin: %s %s -> backend %d", r.In.Method, r.In.URL.Path, i)
	}}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	log.Printf("roundrobin: listening on %s", ln.Addr())
	log.Fatal(http.Serve(ln, proxy))
}
