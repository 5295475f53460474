package benchmarks

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/adapters/humago"
	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/api"
)

// opPaths are 100 copies of the API's two patterns under distinct
// prefixes: 200 operations in all, as a larger API has.
var opPaths = func() (get, post []string) {
	for i := range 100 {
		get = append(get, fmt.Sprintf("/v%d/orgs/:org/items/:id", i))
		post = append(post, fmt.Sprintf("/v%d/orgs/:org/items", i))
	}
	return get, post
}

// BenchmarkRegisterOps measures building a router of 200 operations
// (the GET and the POST of BenchmarkOps, 100 times each, under distinct
// prefixes) once per op: waltz's plain routes with the hand-written
// handlers (impl=hand), its typed operations (impl=typed), and huma
// (impl=huma, which also builds its OpenAPI model as it registers, with
// the ServeMux under it).
func BenchmarkRegisterOps(b *testing.B) {
	get, post := opPaths()
	for _, impl := range []struct {
		name  string
		build func()
	}{
		{"hand", func() {
			r := waltz.New()
			for i := range get {
				r.Get(get[i], handGet)
				r.Post(post[i], handPost)
			}
		}},
		{"typed", func() { typedRouter200(get, post) }},
		{"huma", func() {
			config := huma.DefaultConfig("bench", "1.0.0")
			config.CreateHooks = nil
			api := humago.New(http.NewServeMux(), config)
			for i := range get {
				huma.Register(api, huma.Operation{OperationID: fmt.Sprint("get-", i), Method: http.MethodGet, Path: humaPath(get[i])}, humaGet)
				huma.Register(api, huma.Operation{OperationID: fmt.Sprint("create-", i), Method: http.MethodPost, Path: humaPath(post[i]), DefaultStatus: http.StatusCreated}, humaPost)
			}
		}},
	} {
		b.Run("impl="+impl.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				impl.build()
			}
		})
	}
}

// BenchmarkOpenAPIOps measures generating the OpenAPI document of the 200
// typed operations of BenchmarkRegisterOps, from a router built before
// the timer starts, once per op; bytes/doc is its size.
func BenchmarkOpenAPIOps(b *testing.B) {
	r := typedRouter200(opPaths())
	info := api.Info{Title: "bench", Version: "1.0.0"}
	var doc []byte
	b.ReportAllocs()
	for b.Loop() {
		doc = api.OpenAPI(r, info)
	}
	b.ReportMetric(float64(len(doc)), "bytes/doc")
}

func typedRouter200(get, post []string) *waltz.Router {
	r := waltz.New()
	for i := range get {
		api.Op(r, http.MethodGet, get[i], typedGet, api.Operation{ID: fmt.Sprint("get-", i)})
		api.Op(r, http.MethodPost, post[i], typedPost, api.Operation{ID: fmt.Sprint("create-", i), Status: http.StatusCreated})
	}
	return r
}

// humaPath writes a waltz pattern's :name params as huma's {name}.
func humaPath(p string) string {
	out := []byte{}
	for i := 0; i < len(p); i++ {
		if p[i] != ':' {
			out = append(out, p[i])
			continue
		}
		j := i + 1
		for j < len(p) && p[j] != '/' {
			j++
		}
		out = append(out, '{')
		out = append(out, p[i+1:j]...)
		out = append(out, '}')
		i = j - 1
	}
	return string(out)
}
