package waltz

// Content negotiation for FileServerOptions.Precompressed: choosing a
// precompressed sibling by Accept-Encoding (RFC 9110 section 12.5.3).

import (
	"io/fs"
	"net/http"
	"strings"
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
// field values give each of encodingSuffixes; 0 means do not send it.
// RFC 9110 section 12.5.3: an absent field gets identity here; a coding
// not listed takes the weight of "*" if present, else 0; weight 0 means
// "not acceptable"; "x-gzip" is gzip (section 8.4.1.3); a coding that
// identity outweighs is not sent.
func codings(values []string) (q [len(encodingSuffixes)]int) {
	identity, star := -1, -1
	var seen [len(encodingSuffixes)]bool
	for _, v := range values {
		for elem := range strings.SplitSeq(v, ",") {
			coding, weight := codingWeight(elem)
			switch {
			case coding == "":
			case coding == "*":
				star = weight
			case strings.EqualFold(coding, "identity"):
				identity = weight
			default:
				for i, e := range encodingSuffixes {
					if strings.EqualFold(coding, e.coding) || (e.coding == "gzip" && strings.EqualFold(coding, "x-gzip")) {
						q[i], seen[i] = max(q[i], weight), true
					}
				}
			}
		}
	}
	for i := range q {
		if !seen[i] && star > 0 {
			q[i] = star
		}
		if q[i] < identity {
			q[i] = 0
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

// codingWeight splits one Accept-Encoding element, "gzip;q=0.5", into the
// coding and its weight in thousandths (1000 when absent, 0 when the
// weight is malformed).
func codingWeight(elem string) (string, int) {
	coding, params, _ := strings.Cut(elem, ";")
	coding = strings.TrimSpace(coding)
	weight := 1000
	for p := range strings.SplitSeq(params, ";") {
		k, v, _ := strings.Cut(strings.TrimSpace(p), "=")
		if strings.EqualFold(strings.TrimSpace(k), "q") {
			weight = qvalue(strings.TrimSpace(v))
		}
	}
	return coding, weight
}

// qvalue parses a weight (RFC 9110 section 12.4.2: "0" to "1", at most
// three decimals) into thousandths; anything else is 0.
func qvalue(v string) int {
	if v == "" || len(v) > 5 || (v[0] != '0' && v[0] != '1') || (len(v) > 1 && v[1] != '.') {
		return 0
	}
	n, unit := int(v[0]-'0')*1000, 100
	for i := 2; i < len(v); i++ {
		if v[i] < '0' || v[i] > '9' {
			return 0
		}
		n += int(v[i]-'0') * unit
		unit /= 10
	}
	if n > 1000 {
		return 0
	}
	return n
}

// encodingWriter sets Content-Encoding when ServeContent sends the
// precompressed body (200 or 206), and not on its other answers (304, 412,
// 416), so that ServeContent still sets Content-Length.
type encodingWriter struct {
	http.ResponseWriter
	coding string
}

func (w *encodingWriter) WriteHeader(code int) {
	if code == http.StatusOK || code == http.StatusPartialContent {
		w.Header().Set("Content-Encoding", w.coding)
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *encodingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
