package jwtauth

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// JWKS is where [New] fetches public keys: a JWK Set (RFC 7517 section 5)
// served over HTTPS, such as an OpenID provider's jwks_uri. The zero
// value, an empty URL, fetches nothing.
//
// The keys are kept by kid and used until the answer's Cache-Control
// max-age (less its Age) runs out, within MinInterval and MaxInterval
// (MaxInterval when it gives none; no-store or no-cache count as 0); the
// first token checked after that starts a fetch in the background and is
// checked with the keys held. A token whose kid (or, without one, whose
// alg) no key fits starts a fetch and waits for it, so that a key the
// provider has just added is found. Fetches never begin less than
// MinInterval apart, whatever starts them, so tokens with made-up kids
// cannot flood the provider; one that cannot begin yet leaves such a
// token refused. Each fetch has 10 seconds.
//
// While fetches fail (the provider down, an answer that is not a JWK
// Set), the keys held are still used for MaxStale after they ran out;
// after that, no key is held, and tokens that would need one are
// answered 503 until a fetch succeeds. A failed fetch, and each member of
// the set that cannot verify, is logged to slog.Default.
//
// Only public keys are taken: RSA (2048 to 8192 bits), EC on P-256,
// P-384 and P-521, and Ed25519; a member with "use" other than "sig",
// key_ops without "verify", an "alg" of another type of key than its own,
// or a secret ("oct") is left out. A member's "alg", when it has one, is
// the only algorithm it verifies; without one it verifies each of
// Options.Algorithms of its type.
//
// Middleware made by New with equal JWKS values shares their keys and
// their fetches.
type JWKS struct {
	// URL is the JWK Set's address: https, or http to a loopback address
	// (for tests and a provider on the same host).
	URL string

	// Client fetches the set; nil means a client that follows redirects
	// only to addresses URL could have (https, or http on loopback).
	Client *http.Client

	// MinInterval is the shortest time between two fetches; 0 means 30
	// seconds.
	MinInterval time.Duration

	// MaxInterval is the longest time keys are used before a fetch; 0
	// means an hour.
	MaxInterval time.Duration

	// MaxStale is how long keys are still used, while fetches fail, after
	// they ran out; 0 means an hour.
	MaxStale time.Duration
}

const (
	fetchTimeout = 10 * time.Second
	maxJWKSBytes = 1 << 20 // an answer longer than this is no JWK Set anyone publishes
)

// jwks is the keys of one JWK Set and their fetches.
type jwks struct {
	cfg    JWKS
	client *http.Client
	set    atomic.Pointer[keySet] // nil until a fetch succeeds
	next   atomic.Int64           // Unix ns before which no fetch begins: MinInterval after the last began

	mu      sync.Mutex
	running chan struct{} // closed when the fetch under way ends; nil when none is
}

// shared holds the JWKS of every middleware, by its configuration, so
// that middleware with equal JWKS values share one.
var shared struct {
	sync.Mutex
	m map[JWKS]*jwks
}

// newJWKS returns the jwks of cfg, whose defaults are set, made on the
// first call with cfg.
func newJWKS(cfg JWKS) *jwks {
	shared.Lock()
	defer shared.Unlock()
	if j := shared.m[cfg]; j != nil {
		return j
	}
	j := &jwks{cfg: cfg, client: cfg.Client}
	if j.client == nil {
		j.client = &http.Client{CheckRedirect: func(r *http.Request, via []*http.Request) error {
			if !secureURL(r.URL) {
				return fmt.Errorf("a redirect to %s, which is neither https nor loopback", r.URL.Redacted())
			}
			if len(via) >= 10 {
				return errors.New("10 redirects")
			}
			return nil
		}}
	}
	if shared.m == nil {
		shared.m = map[JWKS]*jwks{}
	}
	shared.m[cfg] = j
	return j
}

// checkJWKS returns cfg with its defaults, or panics naming the field that
// is wrong.
func checkJWKS(cfg JWKS) JWKS {
	u, err := url.Parse(cfg.URL)
	if err != nil || !secureURL(u) || u.Fragment != "" {
		panic(fmt.Sprintf("waltz: jwtauth.Options.JWKS.URL %q is not an https URL (or http to a loopback address): keys fetched in the clear could be anyone's", cfg.URL))
	}
	for _, d := range []struct {
		name string
		v    *time.Duration
		def  time.Duration
	}{{"MinInterval", &cfg.MinInterval, 30 * time.Second}, {"MaxInterval", &cfg.MaxInterval, time.Hour}, {"MaxStale", &cfg.MaxStale, time.Hour}} {
		if *d.v < 0 {
			panic(fmt.Sprintf("waltz: jwtauth.Options.JWKS.%s is negative (%v)", d.name, *d.v))
		}
		if *d.v == 0 {
			*d.v = d.def
		}
	}
	if cfg.MinInterval > cfg.MaxInterval {
		panic(fmt.Sprintf("waltz: jwtauth.Options.JWKS.MinInterval (%v) is longer than MaxInterval (%v)", cfg.MinInterval, cfg.MaxInterval))
	}
	return cfg
}

// secureURL reports whether keys fetched from u are the server's: https,
// or http to a loopback address.
func secureURL(u *url.URL) bool {
	if u.Host == "" {
		return false
	}
	switch u.Scheme {
	case "https":
		return true
	case "http":
		host := u.Hostname()
		ip, err := netip.ParseAddr(host)
		return host == "localhost" || err == nil && ip.IsLoopback()
	}
	return false
}

// keys returns the keys to verify with at now, or nil when none are
// usable: before the first fetch succeeds, or MaxStale after the keys ran
// out while fetches failed. Keys that ran out are returned while a fetch
// runs in the background; without keys, it waits for a fetch, unless
// none may begin yet.
func (j *jwks) keys(now time.Time) *keySet {
	s := j.set.Load()
	if s != nil && now.Before(s.usable) {
		if !now.Before(s.fresh) && now.UnixNano() >= j.next.Load() {
			j.begin()
		}
		return s
	}
	if done := j.begin(); done != nil {
		<-done
	}
	if s = j.set.Load(); s != nil && time.Now().Before(s.usable) {
		return s
	}
	return nil
}

// again returns the keys after a fetch, for a token no key held fits, or
// nil when no fetch may begin yet.
func (j *jwks) again() *keySet {
	done := j.begin()
	if done == nil {
		return nil
	}
	<-done
	if s := j.set.Load(); s != nil && time.Now().Before(s.usable) {
		return s
	}
	return nil
}

// begin starts a fetch and returns the channel closed when it ends, or
// the channel of the fetch under way, or nil when the last one began less
// than MinInterval ago.
func (j *jwks) begin() chan struct{} {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.running != nil {
		return j.running
	}
	now := time.Now()
	if now.UnixNano() < j.next.Load() {
		return nil
	}
	j.next.Store(now.Add(j.cfg.MinInterval).UnixNano())
	done := make(chan struct{})
	j.running = done
	go func() {
		s, err := j.fetch()
		if err != nil {
			held := "none"
			if old := j.set.Load(); old != nil {
				held = "until " + old.usable.Format(time.RFC3339)
			}
			slog.Default().Warn("jwtauth: fetching the JWK Set failed; the keys held are used", "url", j.cfg.URL, "held", held, "err", err)
		} else {
			j.set.Store(s)
		}
		j.mu.Lock()
		j.running = nil
		j.mu.Unlock()
		close(done)
	}()
	return done
}

// fetch gets the JWK Set and returns its keys, fresh for the answer's
// lifetime.
func (j *jwks) fetch() (*keySet, error) {
	ctx, cancel := context.WithTimeout(context.Background(), fetchTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, j.cfg.URL, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/jwk-set+json, application/json")
	resp, err := j.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("the answer is %s", resp.Status)
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxJWKSBytes+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxJWKSBytes {
		return nil, fmt.Errorf("the answer is over %d bytes", maxJWKSBytes)
	}
	keys, skipped, err := parseJWKS(b)
	if err != nil {
		return nil, err
	}
	for _, why := range skipped {
		slog.Default().Warn("jwtauth: a key of the JWK Set is left out", "url", j.cfg.URL, "why", why)
	}
	now := time.Now()
	life := lifetime(resp.Header, j.cfg.MinInterval, j.cfg.MaxInterval)
	return &keySet{keys: keys, fresh: now.Add(life), usable: now.Add(life + j.cfg.MaxStale)}, nil
}

// lifetime returns how long an answer with the header h stays fresh: its
// Cache-Control max-age less its Age (RFC 9111 sections 4.2.1 and 5.1),
// the first max-age when there are more (section 4.2.1), lo for no-store
// or no-cache, hi without a max-age, and always within lo and hi.
func lifetime(h http.Header, lo, hi time.Duration) time.Duration {
	life, found := time.Duration(0), false
	for _, v := range h.Values("Cache-Control") {
		for d := range strings.SplitSeq(v, ",") {
			name, arg, _ := strings.Cut(strings.TrimSpace(d), "=")
			switch strings.ToLower(name) {
			case "no-store", "no-cache":
				return lo
			case "max-age":
				if found {
					continue // the first of two is used (section 4.2.1)
				}
				secs, err := strconv.ParseUint(strings.Trim(arg, `"`), 10, 31)
				switch {
				case errors.Is(err, strconv.ErrRange):
					secs = 1 << 31 // the greatest RFC 9111 section 1.2.2 asks for
				case err != nil:
					return lo // a max-age that cannot be read: stale (section 4.2.1)
				}
				life, found = time.Duration(secs)*time.Second, true
			}
		}
	}
	if !found {
		return hi
	}
	if age, err := strconv.ParseUint(h.Get("Age"), 10, 31); err == nil {
		life -= time.Duration(age) * time.Second
	}
	return max(lo, min(life, hi))
}
