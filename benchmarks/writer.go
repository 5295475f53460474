package benchmarks

import "net/http"

// NopWriter is the response writer of the classic suite: it discards the
// body and reuses one header map, so the benchmarks measure routing and not
// response buffering. It implements io.StringWriter because several routers
// (and io.WriteString) take that path when it exists, avoiding a []byte copy.
type NopWriter struct {
	h http.Header
}

// NewNopWriter returns a writer with its header map already made.
func NewNopWriter() *NopWriter { return &NopWriter{h: make(http.Header)} }

func (w *NopWriter) Header() http.Header               { return w.h }
func (w *NopWriter) Write(p []byte) (int, error)       { return len(p), nil }
func (w *NopWriter) WriteString(s string) (int, error) { return len(s), nil }
func (w *NopWriter) WriteHeader(int)                   {}
