package middleware

// values are the header values one response gets from a piece of
// middleware, in one allocation. A value slice assigned into a response's
// header map belongs to that response: a middleware or handler may edit
// it in place (h["Vary"][0] = "..."), and a slice shared by every
// response, built once at construction, would carry that edit into every
// later response of the process. Each slice handed out has cap 1, so a
// Header().Add on the key copies rather than writing into the next one.
type values []string

// newValues returns values with room for n slices, in one allocation.
func newValues(n int) values { return make(values, 0, n) }

// one returns a slice holding v, of length and capacity 1, from vs's
// backing array (a new one when that is full).
func (vs *values) one(v string) []string {
	if len(*vs) == cap(*vs) {
		*vs = make(values, 0, 2)
	}
	*vs = append(*vs, v)
	n := len(*vs)
	return (*vs)[n-1 : n : n]
}
