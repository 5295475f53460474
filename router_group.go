package waltz

import "net/http"

// The Router's registering methods: each is the [Group] method of the same
// name on the router's root group, documented there.

// Use appends router middleware: it runs around every route registered after
// it, and around the router's own answers (404, 405, automatic OPTIONS,
// redirects). It panics once routes or groups exist; see [Group.Use].
func (r *Router) Use(mw ...Middleware) { r.root.Use(mw...) }

// Group returns a group of routes under prefix with extra middleware; see
// [Group.Group].
func (r *Router) Group(prefix string, mw ...Middleware) *Group { return r.root.Group(prefix, mw...) }

// With returns a group with no prefix and extra middleware, for routes that
// need it; see [Group.With].
func (r *Router) With(mw ...Middleware) *Group { return r.root.With(mw...) }

// Handle registers h for method and path; see [Group.Handle]. It panics with
// a [*RouteError] on a malformed or conflicting pattern.
func (r *Router) Handle(method, path string, h HandlerFunc) *Registration {
	return r.root.Handle(method, path, h)
}

// Get registers h for GET (and so HEAD) requests to path; see [Group.Handle].
func (r *Router) Get(path string, h HandlerFunc) *Registration {
	return r.root.Get(path, h)
}

// Head registers h for HEAD requests to path; see [Group.Handle].
func (r *Router) Head(path string, h HandlerFunc) *Registration {
	return r.root.Head(path, h)
}

// Post registers h for POST requests to path; see [Group.Handle].
func (r *Router) Post(path string, h HandlerFunc) *Registration {
	return r.root.Post(path, h)
}

// Put registers h for PUT requests to path; see [Group.Handle].
func (r *Router) Put(path string, h HandlerFunc) *Registration {
	return r.root.Put(path, h)
}

// Patch registers h for PATCH requests to path; see [Group.Handle].
func (r *Router) Patch(path string, h HandlerFunc) *Registration {
	return r.root.Patch(path, h)
}

// Delete registers h for DELETE requests to path; see [Group.Handle].
func (r *Router) Delete(path string, h HandlerFunc) *Registration {
	return r.root.Delete(path, h)
}

// Options registers h for OPTIONS requests to path, in place of the
// automatic answer; see [Group.Handle].
func (r *Router) Options(path string, h HandlerFunc) *Registration {
	return r.root.Options(path, h)
}

// Handler registers the net/http handler h for method and path; it reads
// params with r.PathValue. See [Group.Handler].
func (r *Router) Handler(method, path string, h http.Handler) *Registration {
	return r.root.Handler(method, path, h)
}

// Mount hands every request under prefix, any method, to h with the prefix
// stripped; see [Group.Mount].
func (r *Router) Mount(prefix string, h http.Handler) { r.root.Mount(prefix, h) }

// Resource registers each verb method of res for each of its paths; see
// [Group.Resource].
func (r *Router) Resource(res Resource) { r.root.Resource(res) }
