package api_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/api"
)

// Profile is a stored resource; its tags' rules hold for every version.
type Profile struct {
	Name  string   `json:"name" minLength:"1"`
	Bio   string   `json:"bio,omitempty" maxLength:"20"`
	Links []string `json:"links,omitempty" maxItems:"2"`
}

// ProfilePatch is a JSON Merge Patch of a Profile: the name can be set,
// the bio and links set or removed (null).
type ProfilePatch struct {
	Name  string                 `json:"name,omitempty"`
	Bio   api.Optional[string]   `json:"bio,omitzero"`
	Links api.Optional[[]string] `json:"links,omitzero"`
}

// Example_mergePatch edits a profile with JSON Merge Patches (RFC 7396):
// a member set, one removed with null, one left out; a patch whose result
// breaks Profile's rules (422); and the wrong media type (415).
func Example_mergePatch() {
	stored := Profile{Name: "Ada", Bio: "mathematician", Links: []string{"https://a.example/"}}
	r := waltz.New()
	type in struct{ Body ProfilePatch }
	api.Op(r, http.MethodPatch, "/profile", func(c *waltz.Context, in *in) (*struct{ Body Profile }, error) {
		p := stored
		if err := api.Merge(&p, &in.Body); err != nil {
			return nil, err
		}
		stored = p
		return &struct{ Body Profile }{p}, nil
	}, api.Operation{})

	send := func(ctype, body string) {
		req := httptest.NewRequest(http.MethodPatch, "/profile", strings.NewReader(body))
		req.Header.Set("Content-Type", ctype)
		w := httptest.NewRecorder()
		r.ServeHTTP(w, req)
		if ap := w.Header().Get("Accept-Patch"); ap != "" {
			fmt.Println("Accept-Patch:", ap)
		}
		fmt.Println(w.Code, strings.TrimSpace(w.Body.String()))
	}
	send("application/merge-patch+json", `{"name":"Ada Lovelace","bio":null}`)
	send("application/merge-patch+json", `{"links":["https://b.example/","https://c.example/","https://d.example/"]}`)
	send("application/json", `{"bio":"poet"}`)
	// Output:
	// 200 {"name":"Ada Lovelace","links":["https://a.example/"]}
	// 422 {"type":"about:blank","title":"Unprocessable Content","status":422,"detail":"the patch leaves the resource breaking its rules","instance":"/profile","errors":[{"location":"body.links","keyword":"maxItems","message":"must have at most 2 items"}]}
	// Accept-Patch: application/merge-patch+json
	// 415 {"type":"about:blank","title":"Unsupported Media Type","status":415,"detail":"Content-Type must be application/merge-patch+json, got \"application/json\"","instance":"/profile"}
}
