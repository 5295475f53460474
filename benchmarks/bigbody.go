package benchmarks

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/adapters/humago"
	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/api"
)

// The big bodies: 1 MiB JSON bodies bound into one type, bigDoc, by
// encoding/json alone (impl=json), by a typed operation (impl=typed) and
// by huma v2 (impl=huma): one valid body and one of each hostile shape.

type bigItem struct {
	Name string `json:"name" minLength:"1" maxLength:"64"`
	N    int    `json:"n" minimum:"0"`
}

type bigOwner struct {
	Email string `json:"email" maxLength:"254"`
}

type bigDoc struct {
	Items  []bigItem         `json:"items" maxItems:"100000"`
	Tags   []string          `json:"tags,omitempty" maxItems:"8" uniqueItems:"true"`
	Meta   map[string]string `json:"meta,omitempty"`
	Counts map[string]int    `json:"counts,omitempty"`
	Owner  *bigOwner         `json:"owner,omitempty"`
	At     time.Time         `json:"at"`
	Raw    json.RawMessage   `json:"raw,omitempty"`
	Extra  any               `json:"extra,omitempty"`
	Note   string            `json:"note,omitempty" maxLength:"1000"`
}

// bigMax is the body limit of every implementation: above the bodies'
// size, so that each is read and bound whole.
const bigMax = 4 << 20

// bigHead is the members of every big body beside its big part.
const bigHead = `"at":"2026-01-02T03:04:05Z","meta":{"a":"b","c":"d"},"counts":{"x":1},"owner":{"email":"a@b.c"},` +
	`"raw":{"k":[1,2,3]},"extra":{"any":["thing",1,true,null]}`

// bigBodies are the bodies, by case name, made once.
var bigBodies = func() map[string]string {
	const size = 1 << 20
	var b strings.Builder
	m := map[string]string{}

	// valid: 55,000 small objects
	b.WriteString(`{` + bigHead + `,"items":[`)
	for i := range 55000 {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"name":"a","n":1}`)
	}
	b.WriteString(`]}`)
	m["valid"] = b.String()

	// unique: the tags body, far more items than maxItems
	b.Reset()
	b.WriteString(`{` + bigHead + `,"items":[],"tags":[`)
	for i := 0; b.Len() < size; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"` + strconv.Itoa(i) + `"`)
	}
	b.WriteString(`]}`)
	m["unique"] = b.String()

	// deep: arrays nested as deep as the body is long
	m["deep"] = `{` + bigHead[:strings.Index(bigHead, `,"extra"`)] + `,"items":[],"extra":` + strings.Repeat("[", size) + strings.Repeat("]", size) + `}`

	// keys: 100,000 keys in one map
	b.Reset()
	b.WriteString(`{` + bigHead[:strings.Index(bigHead, `"counts"`)] + `"items":[],"counts":{`)
	for i := range 100000 {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"k` + strconv.Itoa(i) + `":1`)
	}
	b.WriteString(`}}`)
	m["keys"] = b.String()

	// long: one string of 1 MiB, over its maxLength
	m["long"] = `{` + bigHead + `,"items":[],"note":"` + strings.Repeat("x", size) + `"}`

	// failures: 55,000 items that each break two rules
	b.Reset()
	b.WriteString(`{` + bigHead + `,"items":[`)
	for i := range 55000 {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"name":"","n":-1}`)
	}
	b.WriteString(`]}`)
	m["failures"] = b.String()
	return m
}()

// bigCases are the big bodies in the order benchmarked, with the status
// the typed operation and huma answer each.
var bigCases = []struct {
	name   string
	status int
}{
	{"valid", http.StatusNoContent},
	{"unique", http.StatusUnprocessableEntity},
	{"deep", http.StatusBadRequest},
	{"keys", http.StatusNoContent},
	{"long", http.StatusUnprocessableEntity},
	{"failures", http.StatusUnprocessableEntity},
}

// bigSink keeps what each implementation decoded, so no work is dropped.
var bigSink int

// bigJSON reads the body and decodes it with json.Unmarshal, and checks
// nothing: the floor every implementation is measured against.
func bigJSON() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, bigMax))
		var d bigDoc
		if err == nil {
			err = json.Unmarshal(body, &d)
		}
		if err != nil {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		bigSink += len(d.Items)
		w.WriteHeader(http.StatusNoContent)
	})
}

type bigTypedIn struct {
	Body bigDoc
}

type bigTypedOut struct {
	Status int
}

func bigTyped() http.Handler {
	r := waltz.New()
	r.MaxBodyBytes = bigMax
	api.Op(r, http.MethodPost, "/big", func(_ *waltz.Context, in *bigTypedIn) (*bigTypedOut, error) {
		bigSink += len(in.Body.Items)
		return &bigTypedOut{Status: http.StatusNoContent}, nil
	}, api.Operation{ID: "big"})
	return r
}

type bigHumaIn struct {
	Body bigDoc
}

func bigHuma() http.Handler {
	mux := http.NewServeMux()
	config := huma.DefaultConfig("bench", "1.0.0")
	config.CreateHooks = nil
	api := humago.New(mux, config)
	huma.Register(api, huma.Operation{
		OperationID:   "big",
		Method:        http.MethodPost,
		Path:          "/big",
		DefaultStatus: http.StatusNoContent,
		MaxBodyBytes:  bigMax,
	}, func(_ context.Context, in *bigHumaIn) (*struct{}, error) {
		bigSink += len(in.Body.Items)
		return nil, nil
	})
	return mux
}

var bigImpls = []opImpl{
	{"json", bigJSON},
	{"typed", bigTyped},
	{"huma", bigHuma},
}
