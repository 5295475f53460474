package waltz

// Param is one path parameter: the name from the route's pattern (without
// the leading ':' or '*') and the value taken from the request path,
// percent-decoded.
type Param struct {
	Key   string
	Value string
}

// Params holds a request's path parameters in the order they appear in the
// matched pattern. The slice belongs to the Context that produced it and is
// reused after the handler returns: copy it (or use [Context.Copy]) to keep it.
type Params []Param

// Get returns the value of the first parameter named name, or "" when the
// matched pattern has no such parameter. A catch-all's value may also be ""
// (GET /files/ on /files/*path); use [Params.Lookup] to tell the two apart.
func (ps Params) Get(name string) string {
	v, _ := ps.Lookup(name)
	return v
}

// Lookup returns the value of the parameter named name and reports whether
// the matched pattern has it.
func (ps Params) Lookup(name string) (string, bool) {
	for i := range ps {
		if ps[i].Key == name {
			return ps[i].Value, true
		}
	}
	return "", false
}
