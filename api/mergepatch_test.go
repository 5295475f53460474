package api

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/waltz-go/waltz"
)

type notePatch struct {
	Title string             `json:"title,omitempty" maxLength:"10"`
	Note  Optional[string]   `json:"note" maxLength:"5"`
	Tags  Optional[[]string] `json:"tags" maxItems:"2" uniqueItems:"true"`
}

type editNoteIn struct {
	ID   int `path:"id"`
	Body notePatch
}

// mergePatchRouter serves PATCH /notes/:id, which answers what it bound.
func mergePatchRouter() *waltz.Router {
	r := waltz.New()
	Op(r, http.MethodPatch, "/notes/:id", func(c *waltz.Context, in *editNoteIn) (*struct{ Body map[string]any }, error) {
		got := map[string]any{"title": in.Body.Title}
		for name, st := range map[string][2]bool{
			"note": {in.Body.Note.Present(), in.Body.Note.Null()},
			"tags": {in.Body.Tags.Present(), in.Body.Tags.Null()},
		} {
			switch {
			case !st[0]:
				got[name] = "absent"
			case st[1]:
				got[name] = "null"
			case name == "note":
				got[name], _ = in.Body.Note.Value()
			default:
				got[name], _ = in.Body.Tags.Value()
			}
		}
		return &struct{ Body map[string]any }{got}, nil
	}, Operation{})
	return r
}

func TestTypedMergePatch(t *testing.T) {
	r := mergePatchRouter()
	const mp = "application/merge-patch+json"
	for _, tc := range []struct {
		name, ctype, body string
		code              int
		want              string // the bound members, for a 200; a failure, for a 422
	}{
		{"empty", mp, `{}`, 200, `{"note":"absent","tags":"absent","title":""}`},
		{"null removes", mp, `{"note":null,"tags":null}`, 200, `{"note":"null","tags":"null","title":""}`},
		{"values", mp, `{"title":"t","note":"n","tags":["a"]}`, 200, `{"note":"n","tags":["a"],"title":"t"}`},
		{"with a charset", mp + "; charset=utf-8", `{"note":""}`, 200, `{"note":"","tags":"absent","title":""}`},
		{"a wrong type", mp, `{"tags":"a"}`, 422, ""},
		{"a member's rule on its value", mp, `{"note":"too long"}`, 422, `"location":"body.note","keyword":"maxLength"`},
		{"items' rules on a value", mp, `{"tags":["a","a"]}`, 422, `"location":"body.tags","keyword":"uniqueItems"`},
		{"null is no value to check", mp, `{"note":null,"tags":null}`, 200, `{"note":"null","tags":"null","title":""}`},
		{"a plain member's rule", mp, `{"title":"a title too long"}`, 422, ""},
		{"null for the whole body", mp, `null`, 422, ""},
		{"an array for the whole body", mp, `[]`, 422, ""},
		{"application/json", "application/json", `{}`, 415, ""},
		{"no Content-Type", "", `{}`, 415, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := httptest.NewRequest(http.MethodPatch, "/notes/1", strings.NewReader(tc.body))
			if tc.ctype != "" {
				req.Header.Set("Content-Type", tc.ctype)
			}
			w := httptest.NewRecorder()
			r.ServeHTTP(w, req)
			if w.Code != tc.code {
				t.Fatalf("got %d, want %d; body %s", w.Code, tc.code, w.Body)
			}
			if tc.code == 415 {
				if got := w.Header().Get("Accept-Patch"); got != mp {
					t.Errorf("Accept-Patch: got %q, want %q", got, mp)
				}
			}
			if tc.code == 422 && !strings.Contains(w.Body.String(), tc.want) {
				t.Errorf("got %s, want it to contain %s", w.Body, tc.want)
			}
			if tc.code == 200 {
				if got := strings.TrimSpace(w.Body.String()); got != tc.want {
					t.Errorf("got %s, want %s", got, tc.want)
				}
			}
		})
	}
}

func TestTypedMergePatchDocument(t *testing.T) {
	r := mergePatchRouter()
	var doc struct {
		Paths map[string]map[string]struct {
			RequestBody struct {
				Content map[string]struct {
					Schema struct {
						Ref string `json:"$ref"`
					} `json:"schema"`
				} `json:"content"`
			} `json:"requestBody"`
		} `json:"paths"`
		Components struct {
			Schemas map[string]struct {
				Required   []string                  `json:"required"`
				Properties map[string]map[string]any `json:"properties"`
			} `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(OpenAPI(r, Info{Title: "t", Version: "1"}), &doc); err != nil {
		t.Fatal(err)
	}
	content := doc.Paths["/notes/{id}"]["patch"].RequestBody.Content
	mt, ok := content["application/merge-patch+json"]
	if !ok || len(content) != 1 {
		t.Fatalf("request body media types: got %v, want application/merge-patch+json alone", content)
	}
	name := strings.TrimPrefix(mt.Schema.Ref, "#/components/schemas/")
	s := doc.Components.Schemas[name]
	if len(s.Required) != 0 {
		t.Errorf("%s required: got %v, want none: every member of a merge patch is optional", name, s.Required)
	}
	for member, want := range map[string]string{"note": `["string","null"]`, "tags": `["array","null"]`, "title": `"string"`} {
		got, _ := json.Marshal(s.Properties[member]["type"])
		if string(got) != want {
			t.Errorf("%s.%s type: got %s, want %s", name, member, got, want)
		}
	}
	for member, kw := range map[string]string{"note": "maxLength", "tags": "maxItems"} {
		if _, ok := s.Properties[member][kw]; !ok {
			t.Errorf("%s.%s: no %s, which its tag gives", name, member, kw)
		}
	}
}
