package client

import (
	"fmt"
	"net/http"
	"reflect"
	"unsafe"

	"github.com/waltz-go/waltz/api"
)

// A download's answer is handed to the caller as it arrives: its body is
// the Download's Content, read and closed by the caller, never held here.

// stream reads the success answer resp to a call whose Out has a
// Download Body into the Out value at out: the header fields and Status
// as for any answer, and Body, a Download whose Content is resp.Body,
// which the caller then owns, or a zero Download for an answer with no
// content (see noContent). resp.Body is closed here unless it is handed
// over: when there is no content, when the call fails, and when reading
// the header fields panics (an UnmarshalText of Out's).
func (o *op) stream(resp *http.Response, out unsafe.Pointer) error {
	handed := false
	defer func() {
		if !handed {
			resp.Body.Close()
		}
	}()
	ct := resp.Header.Get("Content-Type")
	var d api.Download
	if !noContent(o.rt.method, resp.StatusCode) {
		d = api.Download{Content: resp.Body, Type: ct}
		if t, err := http.ParseTime(resp.Header.Get("Last-Modified")); err == nil {
			d.ModTime = t
		}
	}
	if err := o.out.Decode(out, resp.StatusCode, resp.Header, ct, nil); err != nil {
		return fmt.Errorf("waltz: %s %s: answer %d: %w", o.rt.method, o.rt.pattern, resp.StatusCode, err)
	}
	// NOTE: out points to a value of o.outType, whose Body field is an
	// api.Download.
	reflect.NewAt(o.outType, out).Elem().FieldByIndex(o.download.Index).Set(reflect.ValueOf(d))
	handed = d.Content != nil
	return nil
}

// noContent reports whether the answer of status to a request of method
// has no content (RFC 9110 section 6.4.1): the answer to a HEAD, a 204
// No Content, a 205 Reset Content, a 304 Not Modified. Its Body is left
// zero, whatever Body is.
func noContent(method string, status int) bool {
	switch status {
	case http.StatusNoContent, http.StatusResetContent, http.StatusNotModified:
		return true
	}
	return method == http.MethodHead
}
