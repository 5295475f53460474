package fromchi

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strconv"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"
)

type articleKey struct{}

// ChiApp is the API as chi's users write it.
func ChiApp(store *Store) http.Handler {
	r := chi.NewRouter()
	r.Use(middleware.URLFormat)
	r.Route("/articles", func(r chi.Router) {
		r.Get("/", func(w http.ResponseWriter, r *http.Request) {
			chiRender(w, r, http.StatusOK, store.List())
		})
		r.Post("/", func(w http.ResponseWriter, r *http.Request) {
			var a Article
			if err := json.NewDecoder(io.LimitReader(r.Body, 1<<16)).Decode(&a); err != nil || !validSlug(a.Slug) {
				http.Error(w, "bad article", http.StatusBadRequest)
				return
			}
			a = store.Add(a)
			w.Header().Set("Location", "/articles/"+strconv.Itoa(a.ID))
			chiRender(w, r, http.StatusCreated, a)
		})
		r.Route("/{articleID:[0-9]+}", func(r chi.Router) {
			r.Use(chiArticleCtx(store))
			r.Get("/", func(w http.ResponseWriter, r *http.Request) {
				chiRender(w, r, http.StatusOK, r.Context().Value(articleKey{}).(Article))
			})
			r.Put("/", func(w http.ResponseWriter, r *http.Request) {
				a := r.Context().Value(articleKey{}).(Article)
				var in Article
				if err := json.NewDecoder(io.LimitReader(r.Body, 1<<16)).Decode(&in); err != nil || !validSlug(in.Slug) {
					http.Error(w, "bad article", http.StatusBadRequest)
					return
				}
				in.ID = a.ID
				store.Put(in)
				chiRender(w, r, http.StatusOK, in)
			})
			r.Delete("/", func(w http.ResponseWriter, r *http.Request) {
				store.Delete(r.Context().Value(articleKey{}).(Article).ID)
				w.WriteHeader(http.StatusNoContent)
			})
		})
		r.Get("/{articleSlug:[a-z-]+}", func(w http.ResponseWriter, r *http.Request) {
			a, ok := store.BySlug(chi.URLParam(r, "articleSlug"))
			if !ok {
				http.Error(w, "article not found", http.StatusNotFound)
				return
			}
			chiRender(w, r, http.StatusOK, a)
		})
	})
	return r
}

// chiArticleCtx loads the article the route's articleID names into the
// request's context, or answers 404.
func chiArticleCtx(store *Store) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			id, err := strconv.Atoi(chi.URLParam(r, "articleID"))
			a, ok := store.Get(id)
			if err != nil || !ok {
				http.Error(w, "article not found", http.StatusNotFound)
				return
			}
			next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), articleKey{}, a)))
		})
	}
}

// chiRender writes v as JSON, or as text for the ".txt" format.
func chiRender(w http.ResponseWriter, r *http.Request, code int, v any) {
	format, _ := r.Context().Value(middleware.URLFormatCtxKey).(string)
	writeAs(w, format, code, v)
}

// writeAs writes v in format: text for "txt", else JSON.
func writeAs(w http.ResponseWriter, format string, code int, v any) {
	if format == "txt" {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(code)
		switch v := v.(type) {
		case Article:
			io.WriteString(w, text(v))
		case []Article:
			for _, a := range v {
				io.WriteString(w, text(a))
			}
		}
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(v)
}
