package contracttest

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/api"
)

// recorder is a testing.TB that keeps what a Run reports instead of
// failing the test that runs it.
type recorder struct {
	testing.TB
	errs, logs []string
}

func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

func (r *recorder) Logf(format string, args ...any) {
	r.logs = append(r.logs, fmt.Sprintf(format, args...))
}

// record runs Run on r with opts under a recorder and returns it.
func record(t *testing.T, r *waltz.Router, opts Options) *recorder {
	t.Helper()
	rec := &recorder{TB: t}
	Run(rec, r, opts)
	return rec
}

// The throwaway API: items with rules on every kind of input.

type Item struct {
	ID    int64    `json:"id" minimum:"1"`
	Name  string   `json:"name" minLength:"1" maxLength:"20" pattern:"^[a-z][a-z0-9-]*$"`
	Kind  string   `json:"kind" enum:"tool,toy,food"`
	Score float64  `json:"score" minimum:"0" maximum:"10"`
	Tags  []string `json:"tags,omitempty" maxItems:"4" uniqueItems:"true"`
	Owner string   `json:"owner,omitempty" format:"email"`
	Site  string   `json:"site,omitempty" format:"uri" maxLength:"100"`
}

type NewItem struct {
	Name  string  `json:"name" required:"true" minLength:"1" maxLength:"20" pattern:"^[a-z][a-z0-9-]*$"`
	Kind  string  `json:"kind" required:"true" enum:"tool,toy,food"`
	Score float64 `json:"score" minimum:"0" maximum:"10" multipleOf:"0.5"`
	Owner string  `json:"owner,omitempty" format:"email"`
	Site  string  `json:"site,omitempty" format:"uri" maxLength:"100"`
	Count int     `json:"count,omitempty" exclusiveMinimum:"0" exclusiveMaximum:"1000"`
}

type CreateIn struct {
	Trace string  `header:"X-Trace-Id" format:"uuid"`
	Body  NewItem `consumes:"json,form"`
}

type ItemOut struct{ Body Item }

type CreateOut struct {
	Location string `header:"Location"`
	Body     Item
}

type ListIn struct {
	Q      string   `query:"q" maxLength:"10" pattern:"^[a-z]+$"`
	Sort   string   `query:"sort" enum:"new,old" default:"new"`
	Limit  int      `query:"limit" minimum:"1" maximum:"100" default:"20"`
	Ratio  float64  `query:"ratio" exclusiveMinimum:"0" maximum:"1"`
	Kinds  []string `query:"kind" maxItems:"3" enum:"tool,toy,food"`
	Since  string   `query:"since" format:"date"`
	Fresh  bool     `query:"fresh"`
	Region string   `cookie:"region" minLength:"2" maxLength:"8"`
}

type ListOut struct {
	Total int `header:"X-Total-Count"`
	Body  []Item
}

type IDIn struct {
	ID int64 `path:"id" minimum:"1" maximum:"1000000"`
}

// ReplaceIn is the input of a planted operation whose Validate refuses
// what its document allows.
type ReplaceIn struct {
	ID   int64 `path:"id" minimum:"1"`
	Body NewItem
}

// Validate refuses a score over 9, a rule the tags do not say, so the
// document does not either: it allows up to 10.
func (in *ReplaceIn) Validate(c *waltz.Context) []waltz.FieldError {
	if in.Body.Score > 9 {
		return []waltz.FieldError{{Location: "body.score", Keyword: "maximum", Message: "must be at most 9"}}
	}
	return nil
}

// sample is the item every answer carries.
func sample(id int64) Item {
	return Item{ID: id, Name: "hammer", Kind: "tool", Score: 7.5, Tags: []string{"red"}, Owner: "a@example.com", Site: "https://example.com/h"}
}

// itemsAPI returns the throwaway API, with plant (when not nil) changing
// one thing in it: it may register on r, and returns middleware for the
// reads.
func itemsAPI(plant func(r *waltz.Router) []waltz.Middleware) *waltz.Router {
	r := waltz.New()
	r.DisallowUnknownFields = true
	r.RenderError = waltz.RenderProblem
	var mw []waltz.Middleware
	if plant != nil {
		mw = plant(r)
	}
	g := r.Group("/items")
	reads := g.With(mw...)
	api.Op(reads, http.MethodGet, "", func(c *waltz.Context, in *ListIn) (*ListOut, error) {
		return &ListOut{Total: 1, Body: []Item{sample(1)}}, nil
	}, api.Operation{ID: "listItems"})
	api.Op(reads, http.MethodGet, "/:id", func(c *waltz.Context, in *IDIn) (*ItemOut, error) {
		if in.ID > 100 {
			return nil, &waltz.HTTPError{Code: http.StatusNotFound}
		}
		return &ItemOut{sample(in.ID)}, nil
	}, api.Operation{ID: "getItem", Errors: []int{http.StatusNotFound}})
	api.Op(g, http.MethodPost, "", func(c *waltz.Context, in *CreateIn) (*CreateOut, error) {
		it := Item{ID: 7, Name: in.Body.Name, Kind: in.Body.Kind, Score: in.Body.Score, Owner: in.Body.Owner, Site: in.Body.Site}
		return &CreateOut{Location: "/items/7", Body: it}, nil
	}, api.Operation{ID: "createItem", Status: http.StatusCreated})
	return r
}

// TestClean checks that an API whose server and document agree gets no
// failure, and that the run sends what the package documentation says.
func TestClean(t *testing.T) {
	sent := map[string]bool{}
	traceCase = func(name string, valid bool, w *wire, code int) { sent[name] = true }
	defer func() { traceCase = nil }()
	rec := record(t, itemsAPI(nil), Options{})
	for _, e := range rec.errs {
		t.Errorf("a failure on the clean API: %s", e)
	}
	// One case of each kind the package documentation promises.
	for _, name := range []string{
		"listItems valid #20",
		"listItems query.limit at maximum", "listItems query.limit above maximum",
		"listItems query.limit a fraction", "listItems query.limit wrong type (a word)",
		"listItems query.ratio next to exclusiveMinimum", "listItems query.ratio at exclusiveMinimum",
		"listItems query.q at maxLength", "listItems query.q against pattern",
		"listItems query.sort not in enum", "listItems query.kind over maxItems",
		"listItems query.since not a date", "listItems cookie.region under minLength",
		"createItem header.X-Trace-Id not a uuid", "createItem header.X-Trace-Id left out",
		"createItem body.name left out", "createItem body.name null",
		"createItem body.score not a multipleOf", "createItem body.count wrong type (string)",
		"createItem body.owner not an email", "createItem body.site at maxLength",
		"createItem body unknown member", "createItem body.count wrong type (a word) (application/x-www-form-urlencoded)",
		"createItem body as text/plain", "createItem body left out",
		"getItem path.id above maximum",
	} {
		if !sent[name] {
			t.Errorf("no case %q was sent", name)
		}
	}
	if logs := strings.Join(rec.logs, "\n"); !strings.Contains(logs, "requests") {
		t.Errorf("the run logs no count of its requests:\n%s", logs)
	}
}

// TestPlanted plants one disagreement of each kind in the throwaway API
// and checks that the run reports it, on the case it is planted in.
func TestPlanted(t *testing.T) {
	for _, tc := range []struct {
		name  string
		plant func(r *waltz.Router) []waltz.Middleware
		want  []string // in one failure: the case's name first, then what it says
	}{
		{
			// A cache in front of the operation serves an answer stored
			// by an older version of the type, without "kind" and
			// "score", which Item's document requires.
			"required member missing",
			func(r *waltz.Router) []waltz.Middleware {
				return []waltz.Middleware{func(next waltz.HandlerFunc) waltz.HandlerFunc {
					return func(c *waltz.Context) error {
						if c.Pattern() != "/items/:id" {
							return next(c)
						}
						return c.JSON(http.StatusOK, map[string]any{"id": 1, "name": "hammer"})
					}
				}}
			},
			[]string{"getItem valid:", "the answer does not match the document", "kind"},
		},
		{
			// The handler answers 409 to a name it does not like, and
			// Operation.Errors does not list 409.
			"undeclared status",
			func(r *waltz.Router) []waltz.Middleware {
				api.Op(r, http.MethodPut, "/items/:id", func(c *waltz.Context, in *IDIn) (*ItemOut, error) {
					return nil, &waltz.HTTPError{Code: http.StatusConflict, Message: "taken"}
				}, api.Operation{ID: "putItem"})
				return nil
			},
			[]string{"putItem valid:", "an undeclared status: got 409"},
		},
		{
			// A middleware clamps a page size over the maximum instead of
			// refusing it, before the operation binds the query: the
			// document says maximum 100, the server answers limit=101.
			"rule not enforced",
			func(r *waltz.Router) []waltz.Middleware {
				r.Use(func(next waltz.HandlerFunc) waltz.HandlerFunc {
					return func(c *waltz.Context) error {
						q := c.Request.URL.Query()
						if n, err := strconv.Atoi(q.Get("limit")); err == nil && n > 100 {
							q.Set("limit", "100")
							c.Request.URL.RawQuery = q.Encode()
						}
						return next(c)
					}
				})
				return nil
			},
			[]string{"listItems query.limit above maximum:", "accepted a request the document forbids", "got 200, want a 4xx"},
		},
		{
			// A middleware answers a list in text for a quick look, where
			// the document says application/json.
			"media type differs",
			func(r *waltz.Router) []waltz.Middleware {
				return []waltz.Middleware{func(next waltz.HandlerFunc) waltz.HandlerFunc {
					return func(c *waltz.Context) error {
						if c.Pattern() != "/items" || c.Request.Method != http.MethodGet {
							return next(c)
						}
						return c.Text(http.StatusOK, "hammer\n")
					}
				}}
			},
			[]string{"listItems valid:", "the answer does not match the document", "text/plain"},
		},
		{
			// A middleware acknowledges a touch with a receipt in JSON,
			// where the document says the 200 has no content (an Out
			// without a Body).
			"content where none is declared",
			func(r *waltz.Router) []waltz.Middleware {
				receipt := func(next waltz.HandlerFunc) waltz.HandlerFunc {
					return func(c *waltz.Context) error { return c.JSON(http.StatusOK, map[string]bool{"touched": true}) }
				}
				api.Op(r.With(receipt), http.MethodPut, "/items/:id", func(c *waltz.Context, in *IDIn) (*struct{}, error) {
					return &struct{}{}, nil
				}, api.Operation{ID: "touchItem", Status: http.StatusOK})
				return nil
			},
			[]string{"touchItem valid:", "content the document declares none for: got 17 bytes of \"application/json\" with the 200"},
		},
		{
			// Validate enforces a rule the document does not state.
			"undocumented rule",
			func(r *waltz.Router) []waltz.Middleware {
				api.Op(r, http.MethodPut, "/items/:id", func(c *waltz.Context, in *ReplaceIn) (*ItemOut, error) {
					return &ItemOut{sample(in.ID)}, nil
				}, api.Operation{ID: "replaceItem"})
				return nil
			},
			[]string{"replaceItem body.score at maximum:", "refused a request the document admits: got 422"},
		},
		{
			// A route for a method OpenAPI has no field for: the router
			// allows it, the document cannot say so.
			"method not in the document",
			func(r *waltz.Router) []waltz.Middleware {
				r.Handle("PROPFIND", "/items", func(c *waltz.Context) error { return c.NoContent(http.StatusNoContent) })
				return nil
			},
			[]string{"PUT /items:", "names PROPFIND, which the document does not declare"},
		},
		{
			// The reads declare their key optional, and refuse a request
			// without it.
			"optional credentials required",
			func(r *waltz.Router) []waltz.Middleware {
				return []waltz.Middleware{itemKey(true, true)}
			},
			[]string{"getItem without credentials:", "makes optional ({}): got 401"},
		},
		{
			// The same, and the run has no key to send: its every request
			// goes without, and is refused.
			"optional credentials required, none known",
			func(r *waltz.Router) []waltz.Middleware {
				return []waltz.Middleware{itemKey(true, true)}
			},
			[]string{"getItem valid:", "makes optional ({}): got 401"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := Options{Credentials: map[string]string{"itemKey": "k"}}
			if strings.HasSuffix(tc.name, "none known") {
				opts.Credentials = nil
			}
			rec := record(t, itemsAPI(tc.plant), opts)
			for _, e := range rec.errs {
				if matches(e, tc.want) {
					if !strings.Contains(e, "\n\tcurl -i ") {
						t.Errorf("the failure has no curl line:\n%s", e)
					}
					return
				}
			}
			t.Errorf("no failure says %q; the run reported:\n%s", tc.want, strings.Join(rec.errs, "\n"))
		})
	}
}

// itemKey returns middleware that takes the key "k" in X-Item-Key, and
// refuses another with 401; a request without one too when required. It
// declares the scheme itemKey, optional when said.
func itemKey(optional, required bool) waltz.Middleware {
	return api.Authenticates(func(next waltz.HandlerFunc) waltz.HandlerFunc {
		return func(c *waltz.Context) error {
			switch k, sent := c.Request.Header["X-Item-Key"]; {
			case !sent && !required:
				c.Writer.Header().Set("X-Who", "nobody")
			case len(k) != 1 || k[0] != "k":
				return &waltz.HTTPError{Code: http.StatusUnauthorized}
			default:
				c.Writer.Header().Set("X-Who", "k")
			}
			return next(c)
		}
	}, api.SecurityScheme{Name: "itemKey", Type: "apiKey", In: "header", Param: "X-Item-Key", Optional: optional})
}

// TestOptionalCredentials runs operations whose credentials are optional
// ({} among the requirements): a valid request carries the key, and the
// one without it is valid too, both served.
func TestOptionalCredentials(t *testing.T) {
	codes := map[string]int{}
	traceCase = func(name string, valid bool, w *wire, code int) {
		if strings.HasPrefix(name, "getItem") && (strings.HasSuffix(name, " valid") || strings.HasSuffix(name, "without credentials")) {
			codes[name] = code
			if !valid {
				t.Errorf("%s: sent as invalid", name)
			}
		}
	}
	defer func() { traceCase = nil }()
	r := itemsAPI(func(r *waltz.Router) []waltz.Middleware { return []waltz.Middleware{itemKey(true, false)} })
	var who []string
	r.Pre(func(next waltz.HandlerFunc) waltz.HandlerFunc {
		return func(c *waltz.Context) error {
			err := next(c)
			if c.Request.Method == http.MethodGet && strings.HasPrefix(c.Request.URL.Path, "/items/") {
				who = append(who, c.Writer.Header().Get("X-Who"))
			}
			return err
		}
	})
	rec := record(t, r, Options{Credentials: map[string]string{"itemKey": "k"}})
	for _, e := range rec.errs {
		t.Errorf("a failure: %s", e)
	}
	if codes["getItem valid"] != http.StatusOK || codes["getItem without credentials"] != http.StatusOK {
		t.Errorf("got %v, want both cases sent and answered 200", codes)
	}
	if !slices.Contains(who, "k") || !slices.Contains(who, "nobody") {
		t.Errorf("the requests came as %q, want some with the key and one without", who)
	}
}

// TestUndocumentedMethods runs the API with methods the document cannot
// list beside the ones it does: a DELETE inside api.Hide, under the
// document's pattern, another param name or a catch-all, and a QUERY,
// which OpenAPI 3.1 notes in its path item's description and has no
// field for. The probes of a path's other methods send neither, and take
// an Allow that names them. A method the 3.1 document says nothing of is
// still reported (TestPlanted's PROPFIND).
func TestUndocumentedMethods(t *testing.T) {
	type search struct {
		Body struct {
			Q string `json:"q" maxLength:"10"`
		}
	}
	del := func(c *waltz.Context) error { return c.NoContent(http.StatusNoContent) }
	for _, pattern := range []string{"/items/:id", "/items/:key", "/items/:id<int>", "/items/*rest"} {
		t.Run(pattern, func(t *testing.T) {
			probed := map[string]bool{}
			traceCase = func(name string, valid bool, w *wire, code int) { probed[name] = true }
			defer func() { traceCase = nil }()
			r := itemsAPI(func(r *waltz.Router) []waltz.Middleware {
				r.With(api.Hide).Delete(pattern, del)
				api.Op(r, waltz.MethodQuery, "/items", func(c *waltz.Context, in *search) (*ListOut, error) {
					return &ListOut{Body: []Item{sample(1)}}, nil
				}, api.Operation{ID: "searchItems"})
				return nil
			})
			rec := record(t, r, Options{})
			for _, e := range rec.errs {
				t.Errorf("a failure: %s", e)
			}
			for _, name := range []string{"PUT /items/{id}", "PATCH /items/{id}"} {
				if !probed[name] {
					t.Errorf("no probe %q was sent", name)
				}
			}
			if probed["DELETE /items/{id}"] {
				t.Error("the hidden DELETE was probed")
			}
		})
	}
}

// TestNoRequirement401 runs reads that answer 401 to credentials of
// their own, as a login does to a wrong password, and declare it, under
// no security requirement: the document does not say that every
// request is served, and the run reports nothing.
func TestNoRequirement401(t *testing.T) {
	r := itemsAPI(func(r *waltz.Router) []waltz.Middleware {
		return []waltz.Middleware{api.Responds(func(next waltz.HandlerFunc) waltz.HandlerFunc {
			return func(c *waltz.Context) error { return &waltz.HTTPError{Code: http.StatusUnauthorized} }
		}, http.StatusUnauthorized)}
	})
	for _, e := range record(t, r, Options{}).errs {
		t.Errorf("a failure: %s", e)
	}
}

// matches reports whether the failure e starts with want[0] and holds
// the rest.
func matches(e string, want []string) bool {
	if !strings.HasPrefix(e, want[0]) {
		return false
	}
	for _, w := range want[1:] {
		if !strings.Contains(e, w) {
			return false
		}
	}
	return true
}
