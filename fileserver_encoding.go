package waltz

// Content negotiation for FileServerOptions.Precompressed: choosing a
// precompressed sibling by Accept-Encoding (RFC 9110 section 12.5.3).

import (
	"io/fs"
	"net/http"
	"strconv"

	"github.com/waltz-go/waltz/internal/header"
)

// sibling opens the precompressed sibling of name that the Accept-Encoding
// values prefer, trying the next acceptable coding when one is missing. It
// returns a nil file when there is none to send.
func (s *fileServer) sibling(name string, accept []string) (string, fs.File, fs.FileInfo, string) {
	if len(accept) == 0 {
		return "", nil, nil, ""
	}
	q := codings(accept)
	for i := bestCoding(q); i >= 0; i = bestCoding(q) {
		q[i] = 0
		sib := name + encodingSuffixes[i].ext
		f, fi, err := s.open(sib)
		if err != nil {
			continue
		}
		if fi.Mode().IsRegular() {
			return sib, f, fi, encodingSuffixes[i].coding
		}
		f.Close()
	}
	return "", nil, nil, ""
}

// codings returns the weight, in thousandths, that the Accept-Encoding
// field values give each of encodingSuffixes; 0 means do not send it. The
// field is read by the shared parser ([header.Codings], RFC 9110 section
// 12.5.3); a coding not listed, and not covered by "*", is not sent, nor
// one that identity outweighs.
func codings(values []string) (q [len(encodingSuffixes)]int) {
	var names [len(encodingSuffixes) + 1]string
	for i, e := range encodingSuffixes {
		names[i] = e.coding
	}
	names[len(encodingSuffixes)] = "identity"
	var w [len(names)]int
	header.Codings(values, names[:], w[:])
	identity := w[len(encodingSuffixes)]
	for i := range q {
		if w[i] > 0 && w[i] >= identity {
			q[i] = w[i]
		}
	}
	return q
}

// bestCoding returns the index of the highest weight in q, the first on a
// tie (br before gzip), or -1 when every weight is 0.
func bestCoding(q [len(encodingSuffixes)]int) int {
	best := -1
	for i := range q {
		if q[i] > 0 && (best < 0 || q[i] > q[best]) {
			best = i
		}
	}
	return best
}

// fileWriter is the writer http.ServeContent gets when the answer needs
// more than ServeContent does. It sets Content-Encoding when ServeContent
// sends a precompressed body (200 or 206), and not on its other answers,
// so that ServeContent still sets Content-Length. It holds back
// ServeContent's 416 (a text/plain page of http.Error's), for sendContent
// to return as an error that the router's error handler renders as every
// other error answer, with "Content-Range: bytes */size". On a 304,
// whose Content-Type and Content-Length ServeContent has removed, it puts
// back those of the 200 the 304 stands for, with its coding, so that the
// writers beneath (middleware.Compress) can tell which ETag and Vary that
// 200 carried; the request's Response drops them when it sends the 304.
type fileWriter struct {
	http.ResponseWriter
	coding string // the precompressed sibling's coding, or ""
	ctype  string // the Content-Type of the 200, or "" when ServeContent sniffs it
	size   int64  // the 200's Content-Length

	// unsat is set when ServeContent answered 416, which went no
	// further (its body is dropped); malformed when it did so for a
	// Range it could not read, rather than for ranges past the end.
	unsat, malformed bool
}

func (w *fileWriter) WriteHeader(code int) {
	h := w.Header()
	switch code {
	case http.StatusOK, http.StatusPartialContent:
		if w.coding != "" {
			h.Set("Content-Encoding", w.coding)
		}
	case http.StatusRequestedRangeNotSatisfiable:
		// Held back for the error handler (sendContent). Every 416 to a
		// byte-range request carries "Content-Range: bytes */size" (RFC
		// 9110 section 15.5.17), which ServeContent sets for a range
		// past the end but not for a malformed or invalid one
		// ("bytes=5-1").
		w.unsat, w.malformed = true, len(h["Content-Range"]) == 0
		h["Content-Range"] = []string{"bytes */" + strconv.FormatInt(w.size, 10)}
		return
	case http.StatusNotModified:
		if w.ctype != "" {
			h.Set("Content-Type", w.ctype)
		}
		h.Set("Content-Length", strconv.FormatInt(w.size, 10))
		if w.coding != "" {
			h.Set("Content-Encoding", w.coding)
		}
	}
	w.ResponseWriter.WriteHeader(code)
}

// Write writes p, or drops it after a 416 held back.
func (w *fileWriter) Write(p []byte) (int, error) {
	if w.unsat {
		return len(p), nil
	}
	return w.ResponseWriter.Write(p)
}

func (w *fileWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
