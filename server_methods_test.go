package waltz

import (
	"bufio"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"io"
	"log/slog"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestServerServeDefaults serves with the methods an http.Server user
// calls, Serve and ListenAndServe, and checks that they apply Run's
// defaults (a zero ReadHeaderTimeout would let a client that sends its
// headers slowly hold a connection forever), and that a Shutdown called
// directly closes ShutdownStarted for a stream that waits on it.
func TestServerServeDefaults(t *testing.T) {
	open := make(chan struct{})
	r := New()
	r.Get("/wait", func(c *Context) error {
		close(open)
		select {
		case <-ShutdownStarted(c.Request.Context()):
			return c.Text(http.StatusOK, "ended")
		case <-time.After(5 * time.Second):
			return c.Text(http.StatusOK, "ShutdownStarted did not close")
		}
	})
	srv := &Server{Server: http.Server{Handler: r}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	body := make(chan string, 1)
	go func() { body <- get(t, "http://"+ln.Addr().String()+"/wait") }()
	wait(t, open, 5*time.Second, "handler start")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil {
		t.Fatalf("Shutdown: %v, want the stream ended by ShutdownStarted", err)
	}
	if got := wait(t, body, 5*time.Second, "response"); got != "ended" {
		t.Errorf("got %q, want ended", got)
	}
	if err := wait(t, served, 5*time.Second, "Serve"); !errors.Is(err, http.ErrServerClosed) {
		t.Errorf("Serve returned %v, want http.ErrServerClosed", err)
	}
	if srv.ReadHeaderTimeout != ReadHeaderTimeout || srv.IdleTimeout != IdleTimeout {
		t.Errorf("Serve left ReadHeaderTimeout %v, IdleTimeout %v: want the defaults", srv.ReadHeaderTimeout, srv.IdleTimeout)
	}

	srv = &Server{Server: http.Server{Addr: "127.0.0.1:0", Handler: r}}
	go func() { served <- srv.ListenAndServe() }()
	time.Sleep(50 * time.Millisecond)
	if err := srv.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if err := wait(t, served, 5*time.Second, "ListenAndServe"); !errors.Is(err, http.ErrServerClosed) {
		t.Errorf("ListenAndServe returned %v, want http.ErrServerClosed", err)
	}
	if srv.WriteTimeout != WriteTimeout {
		t.Errorf("ListenAndServe left WriteTimeout %v: want the default", srv.WriteTimeout)
	}
	srv = &Server{Server: http.Server{Addr: "127.0.0.1:-1"}}
	if err := srv.ListenAndServe(); err == nil {
		t.Error("ListenAndServe on a bad address: nil error")
	}
}

// TestServerServeTLSFiles serves TLS with ServeTLS and a certificate in PEM
// files, and checks the defaults and a request over it; missing files are
// an error, with the listener closed.
func TestServerServeTLSFiles(t *testing.T) {
	certFile, keyFile, pool := selfSigned(t)
	r := New()
	r.Get("/proto", func(c *Context) error { return c.Text(http.StatusOK, c.Request.Proto) })
	srv := &Server{Server: http.Server{Handler: r}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- srv.ServeTLS(ln, certFile, keyFile) }()
	tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}, ForceAttemptHTTP2: true}
	defer tr.CloseIdleConnections()
	res, err := (&http.Client{Transport: tr, Timeout: 5 * time.Second}).Get("https://" + ln.Addr().String() + "/proto")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if string(b) != "HTTP/2.0" {
		t.Errorf("the handler saw %q, want HTTP/2.0", b)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	srv.Shutdown(ctx)
	if err := wait(t, served, 5*time.Second, "ServeTLS"); !errors.Is(err, http.ErrServerClosed) {
		t.Errorf("ServeTLS returned %v, want http.ErrServerClosed", err)
	}
	if srv.ReadTimeout != ReadTimeout {
		t.Errorf("ServeTLS left ReadTimeout %v: want the default", srv.ReadTimeout)
	}

	ln, err = net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	srv = &Server{Server: http.Server{Handler: r}}
	if err := srv.ServeTLS(ln, filepath.Join(t.TempDir(), "none.pem"), keyFile); err == nil {
		t.Error("ServeTLS with a missing certificate file: nil error")
	}
}

// TestServerServeTwo serves one Server on two listeners at once, as an
// http.Server may be: both answer plain HTTP, with the defaults set once
// (under -race, with no race between the two calls).
func TestServerServeTwo(t *testing.T) {
	r := New()
	r.Get("/", func(c *Context) error { return c.Text(http.StatusOK, "hi") })
	srv := &Server{Server: http.Server{Handler: r}}
	served := make(chan error, 2)
	var addrs []string
	for range 2 {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addrs = append(addrs, ln.Addr().String())
		go func() { served <- srv.Serve(ln) }()
	}
	for _, a := range addrs {
		if got := get(t, "http://"+a+"/"); got != "hi" {
			t.Errorf("%s: got %q, want hi", a, got)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	srv.Shutdown(ctx)
	for range 2 {
		if err := wait(t, served, 5*time.Second, "Serve"); !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("Serve returned %v, want http.ErrServerClosed", err)
		}
	}
}

// selfSigned writes a certificate for 127.0.0.1 and its key as PEM files
// and returns their paths and a pool that trusts the certificate.
func selfSigned(t *testing.T) (certFile, keyFile string, pool *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool = x509.NewCertPool()
	pool.AddCert(cert)
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), 0o600); err != nil {
		t.Fatal(err)
	}
	return certFile, keyFile, pool
}

// TestServerRunAfterServe: Run on a second listener of a Server that
// already serves one with Serve serves plain HTTP too: the TLSConfig that
// net/http's HTTP/2 setup filled in is not the user's.
func TestServerRunAfterServe(t *testing.T) {
	r := New()
	r.Get("/", func(c *Context) error { return c.Text(http.StatusOK, "hi") })
	srv := &Server{Server: http.Server{Handler: r}, DrainDelay: -1}
	ln1, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 2)
	go func() { served <- srv.Serve(ln1) }()
	if got := get(t, "http://"+ln1.Addr().String()+"/"); got != "hi" {
		t.Fatalf("Serve: got %q", got)
	}
	ln2, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() { served <- srv.Run(ctx, ln2) }()
	client := &http.Client{Timeout: 5 * time.Second}
	res, err := client.Get("http://" + ln2.Addr().String() + "/")
	if err != nil {
		t.Fatalf("Run after Serve: %v", err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if string(b) != "hi" {
		t.Errorf("Run after Serve: got %q", b)
	}
	cancel()
	for range 2 {
		wait(t, served, 10*time.Second, "Serve and Run")
	}
}

// TestServerDefaultsFromReadTimeout: a zero ReadHeaderTimeout or
// IdleTimeout beside a ReadTimeout set shorter than its constant gets that
// ReadTimeout, as net/http reads it, not a looser constant; the zero
// Server gets every constant.
func TestServerDefaultsFromReadTimeout(t *testing.T) {
	for _, tc := range []struct {
		name                   string
		read                   time.Duration
		wantHeader, wantIdle   time.Duration
		wantRead, wantWriteSet time.Duration
	}{
		{"zero", 0, ReadHeaderTimeout, IdleTimeout, ReadTimeout, WriteTimeout},
		{"a short ReadTimeout", 3 * time.Second, 3 * time.Second, 3 * time.Second, 3 * time.Second, WriteTimeout},
		{"a long ReadTimeout", 5 * time.Minute, ReadHeaderTimeout, IdleTimeout, 5 * time.Minute, WriteTimeout},
		{"no ReadTimeout", -1, ReadHeaderTimeout, IdleTimeout, -1, WriteTimeout},
	} {
		srv := &Server{}
		srv.ReadTimeout = tc.read
		srv.prepare()
		if srv.ReadHeaderTimeout != tc.wantHeader || srv.IdleTimeout != tc.wantIdle || srv.ReadTimeout != tc.wantRead || srv.WriteTimeout != tc.wantWriteSet {
			t.Errorf("%s: got header %v, idle %v, read %v, write %v; want %v, %v, %v, %v", tc.name,
				srv.ReadHeaderTimeout, srv.IdleTimeout, srv.ReadTimeout, srv.WriteTimeout, tc.wantHeader, tc.wantIdle, tc.wantRead, tc.wantWriteSet)
		}
	}
}

// TestServerGeneralOptions: "OPTIONS *" (RFC 9110 section 9.3.7) reaches
// a Router, which answers it with its methods, behind a wrapper too.
func TestServerGeneralOptions(t *testing.T) {
	for _, tc := range []struct {
		name    string
		handler http.Handler
		allow   bool // the answer lists methods
	}{
		{"a Router", func() http.Handler { r := New(); r.Get("/x", func(c *Context) error { return nil }); return r }(), true},
		{"a Router wrapped", func() http.Handler {
			r := New()
			r.Get("/x", func(c *Context) error { return nil })
			return http.HandlerFunc(func(w http.ResponseWriter, q *http.Request) { r.ServeHTTP(w, q) })
		}(), true},
	} {
		srv := &Server{Server: http.Server{Handler: tc.handler}}
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		go func() { _ = srv.Serve(ln) }()
		conn, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		_, _ = conn.Write([]byte("OPTIONS * HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"))
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		conn.Close()
		if resp.StatusCode >= 300 || (resp.Header.Get("Allow") != "") != tc.allow {
			t.Errorf("%s: got %d, Allow %q; want a 2xx, with Allow %v", tc.name, resp.StatusCode, resp.Header.Get("Allow"), tc.allow)
		}
		_ = srv.Close()
	}
}

// TestServerRunTLSWithoutCertificate: Run with a TLSConfig that has no
// certificate says so, serving nothing, where net/http's error named an
// empty file name.
func TestServerRunTLSWithoutCertificate(t *testing.T) {
	srv := &Server{Server: http.Server{Handler: New(), TLSConfig: &tls.Config{}}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	err = srv.Run(context.Background(), ln)
	if err == nil || !strings.Contains(err.Error(), "TLSConfig has no certificate") {
		t.Errorf("got %v, want the missing certificate named", err)
	}
	if _, err := net.Dial("tcp", ln.Addr().String()); err == nil {
		t.Errorf("the listener is still open")
	}
}

// TestServerLoggerAfterServe: once the Server has wrapped its Handler for
// the drain, Run still logs to the Router's Logger beneath.
func TestServerLoggerAfterServe(t *testing.T) {
	r := New()
	r.Logger = slog.New(slog.DiscardHandler)
	srv := &Server{Server: http.Server{Handler: r}}
	srv.prepare()
	if srv.logger() != r.Logger {
		t.Errorf("got another logger than the Router's")
	}
}
