package middleware

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/waltz-go/waltz"
)

// overrideRouter has MethodOverride before routing, a note with GET, PUT
// and DELETE, and a form endpoint with POST only; each handler answers its
// method and the body it read. Errors are rendered as "rendered <code>".
func overrideRouter(o MethodOverrideOptions) *waltz.Router {
	r := waltz.New()
	r.RenderError = func(c *waltz.Context, e *waltz.HTTPError) {
		c.Text(e.Code, "rendered "+strconv.Itoa(e.Code))
	}
	r.Pre(MethodOverride(o))
	echo := func(c *waltz.Context) error {
		b, err := io.ReadAll(c.Request.Body)
		if err != nil {
			return err
		}
		return c.Text(http.StatusOK, c.Request.Method+" "+c.Pattern()+" "+string(b))
	}
	r.Get("/notes/:id", echo)
	r.Put("/notes/:id", echo)
	r.Delete("/notes/:id", echo)
	r.Post("/forms", echo)
	return r
}

func TestMethodOverride(t *testing.T) {
	const form = "application/x-www-form-urlencoded"
	long := "_method=DELETE&x=" + strings.Repeat("a", maxOverrideScan)
	cut := "x=" + strings.Repeat("a", maxOverrideScan-len("x=&_method=DEL")) + "&_method=DELETE"
	for _, tc := range []struct {
		name, method, path string
		header, ctype      string // X-HTTP-Method-Override and Content-Type; "" sends none
		encoding           string // Content-Encoding; "" sends none
		body               string
		site, origin       string // Sec-Fetch-Site and Origin; "" sends none
		want               string
		allow              string
	}{
		{name: "header DELETE", method: "POST", path: "/notes/1", header: "DELETE",
			want: "200 DELETE /notes/:id "},
		{name: "header lower case", method: "POST", path: "/notes/1", header: "put", body: "x",
			want: "200 PUT /notes/:id x"},
		{name: "form field, body kept", method: "POST", path: "/notes/1", ctype: form, body: "a=1&_method=PUT&b=2",
			want: "200 PUT /notes/:id a=1&_method=PUT&b=2"},
		{name: "form field escaped", method: "POST", path: "/notes/1", ctype: form + "; charset=utf-8", body: "%5Fmethod=DEL%45TE",
			want: "200 DELETE /notes/:id %5Fmethod=DEL%45TE"},
		{name: "form field twice", method: "POST", path: "/notes/1", ctype: form, body: "_method=DELETE&_method=PUT",
			want: "400 rendered 400"},
		{name: "form field twice, the same", method: "POST", path: "/notes/1", ctype: form, body: "_method=DELETE&x=1&%5Fmethod=DELETE",
			want: "400 rendered 400"},
		{name: "form without field", method: "POST", path: "/forms", ctype: form, body: "a=1",
			want: "200 POST /forms a=1"},
		{name: "long form, body kept", method: "POST", path: "/notes/1", ctype: form, body: long,
			want: "200 DELETE /notes/:id " + long},
		{name: "field cut at the scan's end", method: "POST", path: "/forms", ctype: form, body: cut,
			want: "200 POST /forms " + cut},
		{name: "JSON body is no form", method: "POST", path: "/forms", ctype: "application/json", body: `{"_method":"DELETE"}`,
			want: "200 POST /forms {\"_method\":\"DELETE\"}"},
		{name: "a no-break space before a form's parameter", method: "POST", path: "/forms", ctype: "application/x-www-form-urlencoded;\u00a0charset=utf-8", body: "_method=DELETE",
			want: "200 POST /forms _method=DELETE"},
		{name: "a type only Unicode lowers to a form's (U+0130)", method: "POST", path: "/forms", ctype: "appl\u0130cation/x-www-form-urlencoded", body: "_method=DELETE",
			want: "200 POST /forms _method=DELETE"},
		{name: "header and field disagree", method: "POST", path: "/notes/1", header: "PUT", ctype: form, body: "_method=DELETE",
			want: "400 rendered 400"},
		{name: "header and field agree", method: "POST", path: "/notes/1", header: "PUT", ctype: form, body: "_method=put",
			want: "200 PUT /notes/:id _method=put"},
		{name: "header, and a form without the field", method: "POST", path: "/notes/1", header: "PUT", ctype: form, body: "a=1",
			want: "200 PUT /notes/:id a=1"},
		{name: "field after a semicolon", method: "POST", path: "/notes/1", ctype: form, body: "x=1;_method=DELETE",
			want: "200 DELETE /notes/:id x=1;_method=DELETE"},
		{name: "field twice, a semicolon apart", method: "POST", path: "/notes/1", ctype: form, body: "_method=DELETE;_method=PUT",
			want: "400 rendered 400"},
		// A field per line ("\n" apart): a proxy may read the last of two.
		{name: "header twice", method: "POST", path: "/notes/1", header: "PUT\nDELETE",
			want: "400 rendered 400"},
		{name: "two Content-Types are no form", method: "POST", path: "/forms", ctype: form + "\n" + form, body: "_method=DELETE",
			want: "200 POST /forms _method=DELETE"},
		// A coded body is the coding's bytes, not a form's, whatever
		// they look like.
		{name: "a gzip form is no form", method: "POST", path: "/forms", ctype: form, encoding: "gzip", body: "_method=DELETE",
			want: "200 POST /forms _method=DELETE"},
		{name: "identity, then gzip", method: "POST", path: "/forms", ctype: form, encoding: "identity\n, gzip", body: "_method=DELETE",
			want: "200 POST /forms _method=DELETE"},
		{name: "identity is the form's bytes", method: "POST", path: "/notes/1", ctype: form, encoding: "identity", body: "_method=DELETE",
			want: "200 DELETE /notes/:id _method=DELETE"},
		{name: "only POST", method: "GET", path: "/notes/1", header: "DELETE",
			want: "200 GET /notes/:id "},
		{name: "PUT is not overridden", method: "PUT", path: "/notes/1", header: "DELETE",
			want: "200 PUT /notes/:id "},
		{name: "not a method it makes", method: "POST", path: "/notes/1", header: "GET",
			want: "400 rendered 400"},
		{name: "unknown method", method: "POST", path: "/notes/1", ctype: form, body: "_method=PURGE",
			want: "400 rendered 400"},
		{name: "malformed escape", method: "POST", path: "/notes/1", ctype: form, body: "_method=%zz",
			want: "400 rendered 400"},
		// Routed as the method it became: the router's own answers, through
		// its error rendering.
		{name: "override to a method the route lacks", method: "POST", path: "/notes/1", header: "PATCH",
			want: "405 rendered 405", allow: "DELETE, GET, HEAD, OPTIONS, PUT"},
		{name: "override on a path no route has", method: "POST", path: "/nope", header: "DELETE",
			want: "404 rendered 404"},
		{name: "cross-site", method: "POST", path: "/notes/1", header: "DELETE", site: "cross-site",
			want: "403 rendered 403"},
		{name: "same-site is cross-origin", method: "POST", path: "/notes/1", ctype: form, body: "_method=DELETE", site: "same-site",
			want: "403 rendered 403"},
		{name: "same-origin", method: "POST", path: "/notes/1", header: "DELETE", site: "same-origin",
			want: "200 DELETE /notes/:id "},
		{name: "Origin of another host", method: "POST", path: "/notes/1", header: "DELETE", origin: "https://evil.example",
			want: "403 rendered 403"},
		{name: "Origin of this host", method: "POST", path: "/notes/1", header: "DELETE", origin: "https://api.example",
			want: "200 DELETE /notes/:id "},
		{name: "cross-site without override passes", method: "POST", path: "/forms", site: "cross-site",
			want: "200 POST /forms "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := httptest.NewRequest(tc.method, "https://api.example"+tc.path, strings.NewReader(tc.body))
			for k, v := range map[string]string{"X-HTTP-Method-Override": tc.header, "Content-Type": tc.ctype,
				"Content-Encoding": tc.encoding, "Sec-Fetch-Site": tc.site, "Origin": tc.origin} {
				if v != "" {
					req.Header[http.CanonicalHeaderKey(k)] = strings.Split(v, "\n")
				}
			}
			w := httptest.NewRecorder()
			overrideRouter(MethodOverrideOptions{}).ServeHTTP(w, req)
			if got := strconv.Itoa(w.Code) + " " + w.Body.String(); got != tc.want {
				t.Errorf("got %.200q, want %.200q", got, tc.want)
			}
			if got := w.Header().Get("Allow"); got != tc.allow {
				t.Errorf("got Allow %q, want %q", got, tc.allow)
			}
			if req.Method != tc.method {
				t.Errorf("the server's request: got method %s, want %s unchanged", req.Method, tc.method)
			}
		})
	}
}

func TestMethodOverrideOptions(t *testing.T) {
	r := overrideRouter(MethodOverrideOptions{Header: "x-method", Field: "verb"})
	for _, tc := range []struct {
		name, header, body, want string
	}{
		{"own header", "X-Method", "", "200 DELETE"},
		{"default header ignored", "X-HTTP-Method-Override", "", "405 rendered"},
		{"own field", "", "verb=DELETE", "200 DELETE"},
		{"default field ignored", "", "_method=DELETE", "405 rendered"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := httptest.NewRequest(http.MethodPost, "/notes/1", strings.NewReader(tc.body))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			if tc.header != "" {
				req.Header.Set(tc.header, "DELETE")
			}
			w := httptest.NewRecorder()
			r.ServeHTTP(w, req)
			if got := strconv.Itoa(w.Code) + " " + strings.Fields(w.Body.String())[0]; got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
	if msg := panicMessage(func() { MethodOverride(MethodOverrideOptions{Header: "X Bad"}) }); !strings.HasPrefix(msg, "waltz: MethodOverrideOptions.Header") {
		t.Errorf("got panic %q, want one naming MethodOverrideOptions.Header", msg)
	}
}

func TestMethodOverrideAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector makes sync.Pool drop items, which allocates")
	}
	r := waltz.New()
	r.Pre(MethodOverride(MethodOverrideOptions{}))
	r.Post("/", ok)
	r.Delete("/", ok)
	plain := httptest.NewRequest(http.MethodPost, "/", nil)
	over := httptest.NewRequest(http.MethodPost, "/", nil)
	over.Header.Set("X-HTTP-Method-Override", "DELETE")
	for _, tc := range []struct {
		name string
		req  *http.Request
		want float64
	}{{"left alone", plain, 0}, {"header override", over, 1}} {
		if got := allocsOn(r, tc.req); got != tc.want {
			t.Errorf("%s: got %v allocs per request, want %v", tc.name, got, tc.want)
		}
	}
}
