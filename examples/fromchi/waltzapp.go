package fromchi

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/waltz-go/waltz"
)

type formatKey struct{}

// WaltzApp is ChiApp ported to waltz: the sub-routers are groups, chi's
// {articleID:[0-9]+} and {articleSlug:[a-z-]+} are constrained params,
// URLFormat is a Pre middleware (it must run before routing), and the
// article loader is the same standard middleware, reading r.PathValue
// where it read chi.URLParam.
func WaltzApp(store *Store) http.Handler {
	r := waltz.New()
	r.Pre(urlFormat)
	// chi's own bodies for 404 and 405 (net/http's NotFound, an empty
	// 405), kept for clients that read them; the router's own 404 has no
	// message, a handler's has its own.
	r.RenderError = func(c *waltz.Context, e *waltz.HTTPError) {
		switch {
		case e.Code == http.StatusNotFound && e.Message == "":
			http.Error(c.Writer, "404 page not found", http.StatusNotFound)
		case e.Code == http.StatusMethodNotAllowed:
			c.Writer.WriteHeader(http.StatusMethodNotAllowed)
		default:
			http.Error(c.Writer, e.Message, e.Code)
		}
	}
	articles := r.Group("/articles")
	articles.Get("", func(c *waltz.Context) error {
		return render(c, http.StatusOK, store.List())
	})
	articles.Post("", func(c *waltz.Context) error {
		var a Article
		if err := json.NewDecoder(io.LimitReader(c.Request.Body, 1<<16)).Decode(&a); err != nil || !validSlug(a.Slug) {
			return &waltz.HTTPError{Code: http.StatusBadRequest, Message: "bad article"}
		}
		a = store.Add(a)
		c.Writer.Header().Set("Location", "/articles/"+strconv.Itoa(a.ID))
		return render(c, http.StatusCreated, a)
	})
	one := articles.Group("/:articleID<[0-9]+>", waltz.WrapMiddleware(articleCtx(store)))
	one.Get("", func(c *waltz.Context) error {
		return render(c, http.StatusOK, c.Request.Context().Value(articleKey{}).(Article))
	})
	one.Put("", func(c *waltz.Context) error {
		a := c.Request.Context().Value(articleKey{}).(Article)
		var in Article
		if err := json.NewDecoder(io.LimitReader(c.Request.Body, 1<<16)).Decode(&in); err != nil || !validSlug(in.Slug) {
			return &waltz.HTTPError{Code: http.StatusBadRequest, Message: "bad article"}
		}
		in.ID = a.ID
		store.Put(in)
		return render(c, http.StatusOK, in)
	})
	one.Delete("", func(c *waltz.Context) error {
		store.Delete(c.Request.Context().Value(articleKey{}).(Article).ID)
		return c.NoContent(http.StatusNoContent)
	})
	articles.Get("/:articleSlug<[a-z-]+>", func(c *waltz.Context) error {
		a, ok := store.BySlug(c.Param("articleSlug"))
		if !ok {
			return &waltz.HTTPError{Code: http.StatusNotFound, Message: "article not found"}
		}
		return render(c, http.StatusOK, a)
	})
	return r
}

// articleCtx is chiArticleCtx with r.PathValue for chi.URLParam: standard
// middleware under WrapMiddleware reads the route's params so.
func articleCtx(store *Store) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			id, err := strconv.Atoi(r.PathValue("articleID"))
			a, ok := store.Get(id)
			if err != nil || !ok {
				http.Error(w, "article not found", http.StatusNotFound)
				return
			}
			next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), articleKey{}, a)))
		})
	}
}

// urlFormat takes a format suffix (".json", ".txt") off the last segment
// of the path, as chi's URLFormat does, before routing, so the path
// without it is what is routed.
func urlFormat(next waltz.HandlerFunc) waltz.HandlerFunc {
	return func(c *waltz.Context) error {
		p := c.Request.URL.Path
		base := strings.LastIndexByte(p, '/')
		dot := strings.LastIndexByte(p[base+1:], '.')
		if dot <= 0 {
			return next(c)
		}
		dot += base + 1
		req := c.Request.WithContext(context.WithValue(c.Request.Context(), formatKey{}, p[dot+1:]))
		u := *req.URL
		u.Path, u.RawPath = p[:dot], ""
		req.URL = &u
		c.Request = req
		return next(c)
	}
}

// render writes v in the request's format.
func render(c *waltz.Context, code int, v any) error {
	format, _ := c.Request.Context().Value(formatKey{}).(string)
	writeAs(c.Writer, format, code, v)
	return nil
}
