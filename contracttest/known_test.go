package contracttest

import (
	"net/http"
	"strings"
	"testing"

	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/api"
)

// conflicted is the throwaway API with an operation whose handler
// answers 409, a status it does not declare, to every request it
// accepts: valid ones, random valid ones whatever the seed, boundaries.
func conflicted() *waltz.Router {
	return itemsAPI(func(r *waltz.Router) []waltz.Middleware {
		api.Op(r, http.MethodPut, "/items/:id", func(c *waltz.Context, in *IDIn) (*ItemOut, error) {
			return nil, &waltz.HTTPError{Code: http.StatusConflict, Message: "taken"}
		}, api.Operation{ID: "putItem"})
		return nil
	})
}

// TestKnownByMeaning: a known disagreement is named by its operation,
// location and keyword, so one list holds whatever the seed: the random
// valid requests (whose case names carry a number) are named by the
// operation alone. An entry that names nothing the run sends, or no
// failure, or that gives no reason, is a failure.
func TestKnownByMeaning(t *testing.T) {
	known := []Known{
		{Operation: "putItem", Reason: "409 is not declared yet"},
		{Operation: "putItem", Location: "path.id", Keyword: "minimum", Reason: "409 at the boundary too"},
		{Operation: "putItem", Location: "path.id", Keyword: "maximum", Reason: "409 at the boundary too"},
	}
	for _, seed := range []uint64{1, 2, 99} {
		rec := record(t, conflicted(), Options{Seed: seed, Known: known})
		for _, e := range rec.errs {
			t.Errorf("seed %d: a failure the list names: %s", seed, e)
		}
		logs := strings.Join(rec.logs, "\n")
		if !strings.Contains(logs, "known (409 is not declared yet): putItem valid #7:") {
			t.Errorf("seed %d: no random valid case logged as known:\n%s", seed, logs)
		}
	}

	// Without the list, each failure prints the entry that names it.
	rec := record(t, conflicted(), Options{})
	want := `Options.Known: contracttest.Known{Operation: "putItem", Location: "path.id", Keyword: "maximum", Reason: "..."}`
	if all := strings.Join(rec.errs, "\n"); !strings.Contains(all, "putItem path.id at maximum: ") || !strings.Contains(all, want) {
		t.Errorf("the failures do not print %s:\n%s", want, all)
	}

	// Entries that name nothing the run sends, no failure, or give no
	// reason.
	rec = record(t, conflicted(), Options{Known: append(known,
		Known{Operation: "putItem", Location: "body.name", Keyword: "maxLength", Reason: "no such member"},
		Known{Operation: "listItems", Location: "query.limit", Keyword: "maximum", Reason: "fixed"},
		Known{Operation: "getItem", Location: "path.id", Keyword: "maximum"},
	)})
	for _, want := range []string{
		`Options.Known: contracttest.Known{Operation: "putItem", Location: "body.name", Keyword: "maxLength"} (no such member) names no request the run makes`,
		`Options.Known: contracttest.Known{Operation: "listItems", Location: "query.limit", Keyword: "maximum"} (fixed) names no request that disagrees`,
		`Options.Known: contracttest.Known{Operation: "getItem", Location: "path.id", Keyword: "maximum"} has no Reason`,
	} {
		if !slicesContain(rec.errs, want) {
			t.Errorf("no failure says %q; got:\n%s", want, strings.Join(rec.errs, "\n"))
		}
	}
}

// EventsIn pages through events by a cursor the server issued, which
// it refuses (400) when it did not issue it: a valid string to the
// document, and no value the generator can make.
type EventsIn struct {
	Cursor string `query:"cursor" maxLength:"64" doc:"where the last page ended, as the server gave it"`
	Limit  int    `query:"limit" minimum:"1" maximum:"50" default:"10"`
}

type EventsOut struct {
	Next string `header:"X-Next-Cursor"`
	Body []Item
}

// TokenIn names a download by a token the server issued.
type TokenIn struct {
	Token string `path:"token"`
}

// paged is the throwaway API with an operation that takes a cursor and
// one that takes a token, both the server's own.
func paged() *waltz.Router {
	return itemsAPI(func(r *waltz.Router) []waltz.Middleware {
		api.Op(r, http.MethodGet, "/events", func(c *waltz.Context, in *EventsIn) (*EventsOut, error) {
			if in.Cursor != "" && in.Cursor != "c2" {
				return nil, &waltz.HTTPError{Code: http.StatusBadRequest, Message: "this cursor was not issued here"}
			}
			return &EventsOut{Next: "c2", Body: []Item{sample(1)}}, nil
		}, api.Operation{ID: "listEvents", Errors: []int{http.StatusBadRequest}})
		api.Op(r, http.MethodGet, "/links/:token", func(c *waltz.Context, in *TokenIn) (*ItemOut, error) {
			return nil, &waltz.HTTPError{Code: http.StatusNotFound}
		}, api.Operation{ID: "getShared"})
		return nil
	})
}

// TestOpaque: a param marked opaque is never made nor varied, so a
// server that refuses cursors it did not issue is no disagreement; an
// opaque required param leaves its operation untested, and says so; an
// entry that names no param is a failure.
func TestOpaque(t *testing.T) {
	rec := record(t, paged(), Options{})
	if all := strings.Join(rec.errs, "\n"); !strings.Contains(all, "listEvents valid: refused a request the document admits: got 400") {
		t.Fatalf("without Opaque, no failure for the cursor; got:\n%s", all)
	}

	sent := map[string]bool{}
	traceCase = func(name string, valid bool, w *wire, code int) {
		sent[name] = true
		if strings.Contains(w.target, "cursor=") {
			t.Errorf("%s: sent %s, a cursor the server did not issue", name, w.target)
		}
	}
	defer func() { traceCase = nil }()
	rec = record(t, paged(), Options{Opaque: []Param{
		{Location: "query.cursor"},
		{Operation: "getShared", Location: "path.token"},
		{Operation: "listItems", Location: "query.cursor"},
	}})
	for _, want := range []string{
		`Options.Opaque: contracttest.Param{Operation: "listItems", Location: "query.cursor"} names no param of the document`,
	} {
		if !slicesContain(rec.errs, want) {
			t.Errorf("no failure says %q", want)
		}
	}
	if len(rec.errs) != 1 {
		t.Errorf("got failures:\n%s\nwant only the entry that names no param", strings.Join(rec.errs, "\n"))
	}
	if !sent["listEvents valid"] || !sent["listEvents query.limit above maximum"] || sent["listEvents query.cursor over maxLength"] {
		t.Errorf("got cases %v, want listEvents's but none of query.cursor", sent)
	}
	if logs := strings.Join(rec.logs, "\n"); !strings.Contains(logs, "not tested: GET /links/{token} (every request): param path.token is opaque") {
		t.Errorf("the run does not say getShared is not tested:\n%s", logs)
	}
}

// slicesContain reports whether an item of list holds s.
func slicesContain(list []string, s string) bool {
	for _, e := range list {
		if strings.Contains(e, s) {
			return true
		}
	}
	return false
}
