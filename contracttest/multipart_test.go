package contracttest

import (
	"net/http"
	"os/exec"
	"strings"
	"testing"

	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/api"
)

// Note is a JSON part of an upload, with rules of its own.
type Note struct {
	Text  string `json:"text" required:"true" minLength:"1" maxLength:"40"`
	Stars int    `json:"stars,omitempty" minimum:"0" maximum:"5"`
}

// UploadForm is a multipart body with a part of each kind: files of
// listed types (one of them a range), a repeated file, text parts and a
// JSON part.
type UploadForm struct {
	Photo   api.File   `json:"photo" accept:"image/png,image/jpeg,text/*"`
	Extras  []api.File `json:"extras,omitempty" accept:"application/pdf" maxItems:"2"`
	Caption string     `json:"caption,omitempty" maxLength:"20" pattern:"^[a-z ]*$"`
	Rank    int        `json:"rank,omitempty" minimum:"1" maximum:"9"`
	Note    Note       `json:"note"`
}

type UploadIn struct {
	ID   int64 `path:"id" minimum:"1" maximum:"100"`
	Body UploadForm
}

type UploadInfo struct {
	Photo  string `json:"photo"`
	Extras int    `json:"extras"`
}

type UploadOut struct{ Body UploadInfo }

// uploads is the throwaway API with an upload, and plant (when not nil)
// in front of it.
func uploads(plant waltz.Middleware) *waltz.Router {
	return itemsAPI(func(r *waltz.Router) []waltz.Middleware {
		g := r.Group("")
		if plant != nil {
			g = r.With(plant)
		}
		api.Op(g, http.MethodPut, "/items/:id/files", func(c *waltz.Context, in *UploadIn) (*UploadOut, error) {
			return &UploadOut{UploadInfo{Photo: in.Body.Photo.Type(), Extras: len(in.Body.Extras)}}, nil
		}, api.Operation{ID: "uploadFiles"})
		return nil
	})
}

// TestMultipart: an upload is tested as its document describes it, a
// file of each listed type, one of a type it does not list, the
// repeated file's counts, the text and JSON parts' rules, each part left
// out; with no failure where the server agrees.
func TestMultipart(t *testing.T) {
	sent := map[string]int{}
	traceCase = func(name string, valid bool, w *wire, code int) {
		if strings.HasPrefix(name, "uploadFiles") {
			sent[name] = code
		}
	}
	defer func() { traceCase = nil }()
	rec := record(t, uploads(nil), Options{})
	for _, e := range rec.errs {
		t.Errorf("a failure on the clean upload: %s", e)
	}
	for _, l := range rec.logs {
		if strings.Contains(l, "uploadFiles") {
			t.Errorf("got %q, want every part written", l)
		}
	}
	for name, code := range map[string]int{
		"uploadFiles valid":                                                        200,
		"uploadFiles valid #20":                                                    200,
		"uploadFiles body.photo a file of image/jpeg":                              200,
		"uploadFiles body.photo a file of text/plain":                              200, // text/*
		"uploadFiles body.photo a file of application/pdf, which it does not list": 415,
		"uploadFiles body.photo left out":                                          422,
		"uploadFiles body.extras at maxItems":                                      200,
		"uploadFiles body.extras over maxItems":                                    422,
		"uploadFiles body.extras a file of text/plain, which it does not list":     415,
		"uploadFiles body.caption over maxLength":                                  422,
		"uploadFiles body.caption against pattern":                                 422,
		"uploadFiles body.rank above maximum":                                      422,
		"uploadFiles body.rank wrong type (a word)":                                422,
		"uploadFiles body.note.text left out":                                      422,
		"uploadFiles body.note.stars above maximum":                                422,
		"uploadFiles body.note wrong type (array)":                                 422,
		"uploadFiles body as text/plain":                                           415,
	} {
		if got, ok := sent[name]; !ok || got != code {
			t.Errorf("%s: got %d (sent %v), want %d", name, got, ok, code)
		}
	}
}

// TestMultipartPlanted: a server that takes any upload, whatever its
// parts, is found on the broken ones; one that refuses valid uploads on
// the valid ones. Each failure's curl line sends the body byte for byte.
func TestMultipartPlanted(t *testing.T) {
	swallow := func(next waltz.HandlerFunc) waltz.HandlerFunc {
		return func(c *waltz.Context) error {
			return c.JSON(http.StatusOK, UploadInfo{Photo: "image/png"})
		}
	}
	refuse := func(next waltz.HandlerFunc) waltz.HandlerFunc {
		return func(c *waltz.Context) error {
			return &waltz.HTTPError{Code: http.StatusUnprocessableEntity, Message: "no uploads today"}
		}
	}
	for _, tc := range []struct {
		name  string
		plant waltz.Middleware
		want  []string
	}{
		{"takes any file", swallow, []string{"uploadFiles body.photo a file of application/pdf, which it does not list:",
			"accepted a request the document forbids", `Keyword: "contentType"`}},
		{"takes too many files", swallow, []string{"uploadFiles body.extras over maxItems:", "accepted a request the document forbids"}},
		{"takes a broken JSON part", swallow, []string{"uploadFiles body.note.text left out:", "accepted a request the document forbids"}},
		{"refuses valid uploads", refuse, []string{"uploadFiles valid:", "refused a request the document admits: got 422"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := record(t, uploads(tc.plant), Options{})
			for _, e := range rec.errs {
				if matches(e, tc.want) {
					checkCurl(t, e)
					return
				}
			}
			t.Errorf("no failure says %q; the run reported:\n%s", tc.want, strings.Join(rec.errs, "\n"))
		})
	}
}

// checkCurl checks that the failure e's curl line writes a multipart
// body with printf, which the shell turns back into the bytes sent.
func checkCurl(t *testing.T, e string) {
	t.Helper()
	_, line, _ := strings.Cut(e, "\n\t")
	line, _, _ = strings.Cut(line, "\n")
	if !strings.HasPrefix(line, "printf '%b' '--"+boundary) || !strings.Contains(line, "| curl -i -X PUT") ||
		!strings.Contains(line, "--data-binary @-") {
		t.Fatalf("the curl line does not pipe the body from printf:\n%s", line)
	}
	printf, _, _ := strings.Cut(line, " | curl")
	out, err := exec.Command("sh", "-c", printf).Output()
	if err != nil {
		t.Skipf("no sh to run printf: %v", err)
	}
	if !strings.Contains(string(out), "\r\nContent-Disposition: form-data; name=\"photo\"; filename=\"photo.") ||
		!strings.HasSuffix(string(out), "--"+boundary+"--\r\n") {
		t.Errorf("printf writes %q, want the multipart body", out)
	}
}
