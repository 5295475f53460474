package client

import (
	"bytes"
	"encoding/json"
	"mime"
	"net/http"
	"strings"

	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/internal/typed"
)

// maxMessage is how much of a text error answer becomes the error's
// Message, in bytes.
const maxMessage = 1 << 10

// problem returns the *waltz.HTTPError of the error answer resp, whose
// body is body: from an RFC 9457 problem document (application/problem+json,
// or JSON with a status member) its detail, type and errors; from any
// other text or JSON its first line, cut at 1 KiB.
func problem(resp *http.Response, body []byte) error {
	e := &waltz.HTTPError{Code: resp.StatusCode}
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if mt == "application/problem+json" || typed.IsJSONType(mt) {
		var p waltz.Problem
		if err := json.Unmarshal(body, &p); err == nil && (mt == "application/problem+json" || p.Status != 0) {
			e.Message, e.Errors = p.Detail, p.Errors
			if p.Type != "about:blank" {
				e.Type = p.Type // "" is about:blank to an HTTPError (RFC 9457 section 4.2.1)
			}
			return e
		}
	}
	if strings.HasPrefix(mt, "text/") || mt == "" || typed.IsJSONType(mt) {
		line, _, _ := bytes.Cut(body, []byte("\n"))
		if len(line) > maxMessage {
			line = line[:maxMessage]
		}
		e.Message = string(bytes.ToValidUTF8(bytes.TrimSpace(line), []byte("\uFFFD")))
	}
	return e
}
