package reliability

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"fmt"
	"io"
	"log"
	"math/rand/v2"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// composeSample is how many (handler, request) pairs of the 180 each stack
// and protocol gets at CI size: with 133 stacks, about 6,600 combinations,
// some 15 s under -race on a shared 2-core machine.
const composeSample = 25

// TestReliabilityComposition runs the composition matrix (stacks_test.go):
// at CI size, a sample with a fixed seed of composeSample (handler,
// request) pairs for each stack and protocol; with -long, the whole
// product.
func TestReliabilityComposition(t *testing.T) {
	sts, hks, rks := stacks(), handlerKinds(), requestKinds()
	rnd := rand.New(rand.NewPCG(2026, 12))
	var groups []composeGroup
	for _, st := range sts {
		for _, proto := range []string{"HTTP/1.1", "h2c"} {
			g := composeGroup{st: st, proto: proto}
			for hi := range hks {
				for ri := range rks {
					g.pairs = append(g.pairs, [2]int{hi, ri})
				}
			}
			if !*long {
				rnd.Shuffle(len(g.pairs), func(i, j int) { g.pairs[i], g.pairs[j] = g.pairs[j], g.pairs[i] })
				g.pairs = g.pairs[:composeSample]
			}
			groups = append(groups, g)
		}
	}
	start := time.Now()
	var requests atomic.Int64
	work := make(chan composeGroup)
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for g := range work {
				requests.Add(g.run(t, hks, rks))
			}
		}()
	}
	for _, g := range groups {
		work <- g
	}
	close(work)
	wg.Wait()
	t.Logf("%d stacks × 2 protocols, %d combinations, %d requests in %v",
		len(sts), len(groups)*len(groups[0].pairs), requests.Load(), time.Since(start).Round(time.Millisecond))
}

// composeGroup is the combinations run against one stack on one protocol,
// one after the other, on one server and one client.
type composeGroup struct {
	st    stack
	proto string
	pairs [][2]int // indexes into handlerKinds and requestKinds
}

// run serves the group's stack and sends its combinations; it returns the
// number of requests sent.
func (g composeGroup) run(t *testing.T, hks []handlerKind, rks []requestKind) int64 {
	var running, open atomic.Int64
	router := composeRouter(g.st.mws())
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		running.Add(1)
		defer running.Add(-1)
		router.ServeHTTP(w, r)
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	var sp, cp http.Protocols
	sp.SetHTTP1(true)
	if g.proto == "h2c" {
		sp.SetUnencryptedHTTP2(true)
		cp.SetUnencryptedHTTP2(true)
	} else {
		cp.SetHTTP1(true)
	}
	srv := &http.Server{Handler: handler, Protocols: &sp, ErrorLog: log.New(io.Discard, "", 0),
		ConnState: func(_ net.Conn, st http.ConnState) {
			switch st {
			case http.StateNew:
				open.Add(1)
			case http.StateClosed, http.StateHijacked:
				open.Add(-1)
			}
		}}
	go srv.Serve(ln)
	defer srv.Close()
	tr := &http.Transport{Protocols: &cp, DisableCompression: true}
	cl := &http.Client{Transport: tr, Timeout: 5 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	url := "http://" + ln.Addr().String()
	var n int64
	for _, pr := range g.pairs {
		hk, rk := hks[pr[0]], rks[pr[1]]
		name := fmt.Sprintf("%s %s %s, %s", g.st.name, g.proto, hk.name, rk.name)
		path := hk.path
		if path == "" {
			path = "/k/" + hk.name
		}
		var base answer
		if rk.base {
			base = send(cl, http.MethodGet, url+path, rk.ae, nil, hk.prefix)
			n++
		}
		x := send(cl, rk.method, url+path, rk.ae, rk.fields(base.res), hk.prefix)
		n++
		for _, p := range check(hk, rk, g.st.recovers, base, x) {
			t.Errorf("%s: %s", name, p)
		}
		// Every handler has returned once its client is done with it.
		if !eventually(func() bool { return running.Load() == 0 }) {
			t.Errorf("%s: %d handlers still running after the client left", name, running.Load())
		}
		// The connection goes on to the next request: none hangs. (A
		// loaded machine may keep even /ping past a Timeout's deadline.)
		if p := send(cl, http.MethodGet, url+"/ping", "", nil, false); p.err != nil ||
			string(p.raw) != "pong" && !(g.st.timeout && p.res.StatusCode == http.StatusServiceUnavailable) {
			t.Errorf("%s: the next request: got %v %q, want pong", name, p.err, p.raw)
		}
		n++
	}
	tr.CloseIdleConnections()
	if !eventually(func() bool { return open.Load() == 0 }) {
		t.Errorf("%s %s: %d connections still open after the client closed its own", g.st.name, g.proto, open.Load())
	}
	return n
}

// eventually reports whether cond became true within 5 s (a loaded
// machine under -race can be slow to run a goroutine that has been let go).
func eventually(cond func() bool) bool {
	for deadline := time.Now().Add(5 * time.Second); !cond(); time.Sleep(2 * time.Millisecond) {
		if time.Now().After(deadline) {
			return false
		}
	}
	return true
}

// answer is one request's outcome, as the client saw it.
type answer struct {
	res *http.Response
	raw []byte // the body as sent, or the decoded prefix of a stream
	err error  // the request's or the read's: the response did not arrive whole
}

// send sends one request with the given "Key: value" fields (one with no
// value is left out) and reads the whole body, or, for a stream (prefix)
// answered 200 to a GET, the decoded length of its known prefix.
func send(cl *http.Client, method, url, ae string, fields []string, prefix bool) answer {
	req, _ := http.NewRequest(method, url, nil)
	if ae != "" {
		req.Header.Set("Accept-Encoding", ae)
	}
	if !slices.Contains(fields, noCredentials) {
		req.SetBasicAuth(composeUser, composePassword)
		req.Header.Set("X-Api-Key", composeToken)
	}
	for _, kv := range fields {
		if k, v, _ := strings.Cut(kv, ": "); v != "" && kv != noCredentials {
			req.Header.Add(k, v)
		}
	}
	res, err := cl.Do(req)
	if err != nil {
		return answer{err: err}
	}
	defer res.Body.Close()
	if prefix && method != http.MethodHead && res.StatusCode == http.StatusOK {
		dec, err := decoder(res.Header.Get("Content-Encoding"), res.Body)
		if err != nil {
			return answer{res: res, err: err}
		}
		buf := make([]byte, len(composeEvents))
		_, err = io.ReadFull(dec, buf)
		return answer{res: res, raw: buf, err: err}
	}
	raw, err := io.ReadAll(io.LimitReader(res.Body, 8<<20))
	return answer{res: res, raw: raw, err: err}
}

// decoder reads r decoded by the content coding ce.
func decoder(ce string, r io.Reader) (io.Reader, error) {
	switch ce {
	case "":
		return r, nil
	case "gzip":
		return gzip.NewReader(r)
	case "deflate":
		return zlib.NewReader(r)
	}
	return nil, fmt.Errorf("unknown Content-Encoding %q", ce)
}

// headFieldsSkipped are fields a HEAD may have otherwise than its GET:
// those made per request, and the framing.
var headFieldsSkipped = []string{"Date", "Content-Length", "Transfer-Encoding", "Ratelimit", "Ratelimit-Policy", "X-Request-Id"}

// check returns what x, the answer to rk for hk (after base, the answer to
// its GET when rk has one) under a stack that recovers panics or not,
// breaks of the invariants.
func check(hk handlerKind, rk requestKind, recovers bool, base, x answer) []string {
	var p []string
	add := func(format string, a ...any) { p = append(p, fmt.Sprintf(format, a...)) }
	if hk.cut {
		switch {
		case x.err != nil:
			return p // cut: honest
		case x.res.StatusCode == http.StatusOK:
			add("a failure after part of the body reached the client as a complete 200 of %d bytes", len(x.raw))
			return p
		}
		// Taken back while held whole (the error's answer), or answered
		// before the handler ran: checked below.
	}
	if x.err != nil {
		if hk.panics && !recovers {
			return p // net/http cuts the connection: no answer, which is honest
		}
		add("the response did not arrive whole: %v", x.err)
		return p
	}
	res, h := x.res, x.res.Header
	body := x.raw
	if !(hk.prefix && res.StatusCode == http.StatusOK && rk.method != http.MethodHead) {
		if cl := res.ContentLength; cl >= 0 && rk.method != http.MethodHead && int64(len(x.raw)) != cl {
			add("Content-Length %d with a body of %d bytes", cl, len(x.raw))
		}
		if len(x.raw) > 0 {
			dec, err := decoder(h.Get("Content-Encoding"), bytes.NewReader(x.raw))
			if err == nil {
				body, err = io.ReadAll(dec)
			}
			if err != nil {
				add("the %q body does not decode: %v", h.Get("Content-Encoding"), err)
			}
		}
	}
	if rk.method == http.MethodHead && len(x.raw) > 0 {
		add("a HEAD answer with a body of %d bytes", len(x.raw))
	}
	if rk.method != http.MethodHead && hk.body != "" {
		switch res.StatusCode {
		case http.StatusOK:
			if string(body) != hk.body {
				add("the decoded 200 body (%d bytes) is not the identity body (%d bytes)", len(body), len(hk.body))
			}
		case http.StatusPartialContent:
			checkRange(add, h, body, hk.body)
		}
	}
	if res.StatusCode >= 400 {
		for _, k := range []string{"Etag", "Last-Modified"} {
			if v := h.Get(k); v != "" {
				add("the %d answer carries %s %q of a body it did not send", res.StatusCode, k, v)
			}
		}
		if v := h.Get("Content-Range"); v != "" && res.StatusCode != http.StatusRequestedRangeNotSatisfiable {
			add("the %d answer carries Content-Range %q", res.StatusCode, v)
		}
	}
	if base.err == nil && base.res != nil && base.res.StatusCode == http.StatusOK && !hk.racy {
		checkAgainstBase(add, rk, base.res, res)
	}
	return p
}

// checkRange checks a 206's body against the identity body whole.
func checkRange(add func(string, ...any), h http.Header, body []byte, whole string) {
	if strings.HasPrefix(h.Get("Content-Type"), "multipart/byteranges") {
		if len(body) > len(whole)+4096 {
			add("a multipart 206 of %d bytes for a body of %d", len(body), len(whole))
		}
		return
	}
	var first, last, size int
	if _, err := fmt.Sscanf(h.Get("Content-Range"), "bytes %d-%d/%d", &first, &last, &size); err != nil ||
		size != len(whole) || last >= size || string(body) != whole[first:last+1] {
		add("the 206 with Content-Range %q holds %q, not that range of the body", h.Get("Content-Range"), body)
	}
}

// checkAgainstBase checks an answer against the 200 its request's GET got:
// a HEAD has the GET's fields, a 304 its ETag and Vary, a 206 its Vary and
// a tag that matches it weakly, a 416 its Vary.
func checkAgainstBase(add func(string, ...any), rk requestKind, base, res *http.Response) {
	bh, h := base.Header, res.Header
	vary := func(h http.Header) string { return strings.Join(h.Values("Vary"), ", ") }
	switch {
	case rk.method == http.MethodHead && res.StatusCode == base.StatusCode:
		keys := map[string]bool{}
		for k := range bh {
			keys[k] = true
		}
		for k := range h {
			keys[k] = true
		}
		for k := range keys {
			if slices.Contains(headFieldsSkipped, k) {
				continue
			}
			if got, want := strings.Join(h.Values(k), ", "), strings.Join(bh.Values(k), ", "); got != want {
				add("HEAD has %s %q, its GET %q", k, got, want)
			}
		}
		if got, want := h.Get("Content-Length"), bh.Get("Content-Length"); got != "" && want != "" && got != want {
			add("HEAD has Content-Length %s, its GET %s", got, want)
		}
	case res.StatusCode == http.StatusNotModified:
		if h.Get("Etag") != bh.Get("Etag") || vary(h) != vary(bh) {
			add("the 304 has ETag %q Vary %q, its 200 %q %q", h.Get("Etag"), vary(h), bh.Get("Etag"), vary(bh))
		}
	case res.StatusCode == http.StatusPartialContent:
		weak := func(h http.Header) string { return strings.TrimPrefix(h.Get("Etag"), "W/") }
		if weak(h) != weak(bh) || vary(h) != vary(bh) {
			add("the 206 has ETag %q Vary %q, its 200 %q %q", h.Get("Etag"), vary(h), bh.Get("Etag"), vary(bh))
		}
	case res.StatusCode == http.StatusRequestedRangeNotSatisfiable:
		// No range of the body exists, but the answer varies as its 200.
		if vary(h) != vary(bh) {
			add("the 416 has Vary %q, its 200 %q", vary(h), vary(bh))
		}
	}
}
