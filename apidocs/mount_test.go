package apidocs_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/api"
	"github.com/waltz-go/waltz/apidocs"
)

// mountedNotes returns the notes API with its page at /docs, and a
// router that mounts it at prefix.
func mountedNotes(prefix string) (parent, sub *waltz.Router) {
	sub = notesAPI()
	sub.With(api.Hide).Handler(http.MethodGet, "/docs", apidocs.Handler(sub, notesInfo))
	parent = waltz.New()
	parent.Mount(prefix, sub)
	return parent, sub
}

// TestMounted checks the page of a router another router mounts at /v1:
// its curl lines go to the mount ($API/v1/notes), where the outer router
// serves the operations, and it says where the API is served; its ETag,
// a hash of the bytes, is not an unmounted page's, and a request with it
// gets a 304 (RFC 9110 section 13.1.2).
func TestMounted(t *testing.T) {
	parent, _ := mountedNotes("/v1")
	page := get(t, parent, "/v1/docs", http.StatusOK)
	for _, want := range []string{
		`curl -i &#34;$API/v1/notes&#34; \`,
		`curl -i -X DELETE &#34;$API/v1/notes/1&#34;`,
		`<dt>Served at</dt><dd><code>/v1</code></dd>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page does not say %s", want)
		}
	}
	if strings.Contains(page, `&#34;$API/notes`) {
		t.Error("a curl line goes to $API/notes, which the outer router does not serve")
	}

	w := httptest.NewRecorder()
	parent.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/v1/docs", nil))
	tag := w.Header().Get("ETag")
	alone := notesAPI()
	alone.With(api.Hide).Handler(http.MethodGet, "/docs", apidocs.Handler(alone, notesInfo))
	w2 := httptest.NewRecorder()
	alone.ServeHTTP(w2, httptest.NewRequest(http.MethodGet, "/docs", nil))
	if tag == "" || tag == w2.Header().Get("ETag") {
		t.Errorf("the mounted page's ETag %s is the unmounted page's %s", tag, w2.Header().Get("ETag"))
	}
	req := httptest.NewRequest(http.MethodGet, "/v1/docs", nil)
	req.Header.Set("If-None-Match", tag)
	w3 := httptest.NewRecorder()
	parent.ServeHTTP(w3, req)
	if w3.Code != http.StatusNotModified {
		t.Errorf("If-None-Match: %s: got %d, want 304", tag, w3.Code)
	}
}

// TestMountedParam checks the page of a router mounted at a prefix with
// a param: the server's template is shown as the document gives it, and
// the curl lines put the variable's default in its place, not braces,
// which curl reads as a set of URLs.
func TestMountedParam(t *testing.T) {
	parent, _ := mountedNotes("/t/:tenant")
	page := get(t, parent, "/t/acme/docs", http.StatusOK)
	for _, want := range []string{
		`<dt>Served at</dt><dd><code>/t/{tenant}</code></dd>`,
		`curl -i &#34;$API/t/tenant/notes&#34; \`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page does not say %s", want)
		}
	}
}
