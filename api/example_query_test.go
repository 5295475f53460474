package api_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/api"
)

// NoteQuery is the content of QUERY /notes: the query.
type NoteQuery struct {
	Words []string `json:"words" minItems:"1" maxItems:"5"`
}

// FindNotes is the input of QUERY /notes: its Body is bound and checked
// as a POST's is.
type FindNotes struct {
	Body NoteQuery `consumes:"json,form"`
}

// FoundNotes is its answer, with the version of the notes it searched,
// which the router makes cover the query.
type FoundNotes struct {
	ETag string `header:"ETag"`
	Body []Note
}

// A typed QUERY operation (RFC 10008): its content is bound as a POST's
// body, its answer revalidated as a GET's, with an ETag that covers the
// query; what it takes is in the Accept-Query of its refusals (and of
// its OPTIONS, its 405 and a GET beside it).
func ExampleOp_query() {
	r := waltz.New()
	notes := []Note{{1, "buy milk"}, {2, "call mum"}, {3, "buy bread"}}
	api.Op(r, waltz.MethodQuery, "/notes", func(c *waltz.Context, in *FindNotes) (*FoundNotes, error) {
		out := &FoundNotes{ETag: `"v3"`, Body: []Note{}}
		for _, n := range notes {
			for _, w := range in.Body.Words {
				if strings.Contains(n.Text, w) {
					out.Body = append(out.Body, n)
					break
				}
			}
		}
		return out, nil
	}, api.Operation{ID: "findNotes"})

	first := query(r, "application/json", `{"words":["buy"]}`)
	query(r, "application/json", `{ "words": [ "buy" ] }`, "If-None-Match", first)
	query(r, "application/x-www-form-urlencoded", "words=buy", "If-None-Match", first)
	query(r, "application/json", `{"words":["call"]}`, "If-None-Match", first)
	query(r, "", `{"words":["buy"]}`)
	query(r, "text/plain", "buy")
	// Output:
	// 200 "v3.5ef7070cc0de0461" [{"id":1,"text":"buy milk"},{"id":3,"text":"buy bread"}]
	// 304 "v3.5ef7070cc0de0461"
	// 304 "v3.5ef7070cc0de0461"
	// 200 "v3.9d1bdb4ece281168" [{"id":2,"text":"call mum"}]
	// 400 {"type":"about:blank","title":"Bad Request","status":400,"detail":"a QUERY request must say what its content is in Content-Type (RFC 10008 section 2.1): application/json or application/x-www-form-urlencoded","instance":"/notes"} (Accept-Query: application/json, application/x-www-form-urlencoded)
	// 415 {"type":"about:blank","title":"Unsupported Media Type","status":415,"detail":"Content-Type must be application/json or application/x-www-form-urlencoded, got \"text/plain\"","instance":"/notes"} (Accept-Query: application/json, application/x-www-form-urlencoded)
}

// query sends QUERY /notes with the content body of the media type ctype
// ("" for none) and the header fields h (name, value pairs), prints the
// answer and returns its ETag.
func query(r http.Handler, ctype, body string, h ...string) string {
	req := httptest.NewRequest(waltz.MethodQuery, "/notes", strings.NewReader(body))
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	for i := 0; i+1 < len(h); i += 2 {
		req.Header.Set(h[i], h[i+1])
	}
	w := httptest.NewRecorder()
	r.ServeHTTP(w, req)
	tag := w.Header().Get("ETag")
	fmt.Print(w.Code)
	for _, v := range []string{tag, strings.TrimSpace(w.Body.String())} {
		if v != "" {
			fmt.Print(" ", v)
		}
	}
	if aq := w.Header().Get("Accept-Query"); aq != "" {
		fmt.Print(" (Accept-Query: ", aq, ")")
	}
	fmt.Println()
	return tag
}

// ExportOut is the answer of GET /notes/export: every note, one a line.
type ExportOut struct{ Body api.Lines[Note] }

// A JSON Lines answer: the handler returns the function that sends the
// items, each on its line as it is made; a client reads them one by one.
func ExampleLines() {
	r := waltz.New()
	notes := []Note{{1, "buy milk"}, {2, "call mum"}, {3, "buy bread"}}
	api.Op(r, http.MethodGet, "/notes/export", func(c *waltz.Context, in *struct{}) (*ExportOut, error) {
		return &ExportOut{func(s *api.LineSender[Note]) error {
			for _, n := range notes {
				if err := s.Send(n); err != nil {
					return nil // the client is gone: stop
				}
			}
			return nil
		}}, nil
	}, api.Operation{ID: "exportNotes"})

	srv := httptest.NewServer(r)
	defer srv.Close()
	res, err := http.Get(srv.URL + "/notes/export")
	if err != nil {
		panic(err)
	}
	defer res.Body.Close()
	fmt.Println(res.Header.Get("Content-Type"))
	lines := bufio.NewScanner(res.Body)
	for lines.Scan() {
		var n Note
		if err := json.Unmarshal(lines.Bytes(), &n); err != nil {
			panic(err)
		}
		fmt.Printf("note %d: %s\n", n.ID, n.Text)
	}
	// Output:
	// application/jsonl
	// note 1: buy milk
	// note 2: call mum
	// note 3: buy bread
}

// The same operations as an OpenAPI 3.1 document, the default, and a
// 3.2 one: 3.2 has a field for QUERY, 3.1 leaves it out with a note.
func ExampleInfo_openAPI() {
	r := waltz.New()
	api.Op(r, waltz.MethodQuery, "/notes", func(c *waltz.Context, in *FindNotes) (*FoundNotes, error) {
		return &FoundNotes{}, nil
	}, api.Operation{ID: "findNotes"})
	info := api.Info{Title: "Notes", Version: "1.0.0"}
	docs := r.With(api.Hide)
	docs.Get("/openapi.json", api.ServeOpenAPI(r, info))
	info.OpenAPI = "3.2"
	docs.Get("/openapi-3.2.json", api.ServeOpenAPI(r, info))

	for _, path := range []string{"/openapi.json", "/openapi-3.2.json"} {
		w := httptest.NewRecorder()
		r.ServeHTTP(w, httptest.NewRequest(http.MethodGet, path, nil))
		var doc struct {
			OpenAPI string `json:"openapi"`
			Paths   map[string]struct {
				Description string `json:"description"`
				Query       *struct {
					OperationID string `json:"operationId"`
				} `json:"query"`
			} `json:"paths"`
		}
		if err := json.Unmarshal(w.Body.Bytes(), &doc); err != nil {
			panic(err)
		}
		item := doc.Paths["/notes"]
		if item.Query != nil {
			fmt.Printf("%s: QUERY /notes is %s\n", doc.OpenAPI, item.Query.OperationID)
		} else {
			fmt.Printf("%s: %s\n", doc.OpenAPI, item.Description)
		}
	}
	// Output:
	// 3.1.1: This path also answers QUERY (RFC 10008), which OpenAPI 3.1 has no field for: the OpenAPI 3.2 document describes it.
	// 3.2.0: QUERY /notes is findNotes
}
