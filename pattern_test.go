package waltz

import (
	"fmt"
	"net/http"
	"runtime"
	"slices"
	"strings"
	"testing"
)

func TestParsePattern(t *testing.T) {
	// Accepted patterns and the pieces they make: static runs span segments,
	// and ':' or '*' inside a segment is literal text.
	for _, tt := range []struct {
		pattern string
		pieces  string // kind:text, joined by spaces
		names   []string
	}{
		{"/", "s:/", nil},
		{"/a/b/", "s:/a/b/", nil},
		{"/:id", "s:/ p:id", []string{"id"}},
		{"/users/:id/posts", "s:/users/ p:id s:/posts", []string{"id"}},
		{"/files/*path", "s:/files/ c:path", []string{"path"}},
		{"/:a/", "s:/ p:a s:/", []string{"a"}},
		{"/a:b/c*d", "s:/a:b/c*d", nil},
		{"/Π/:x_1/*Y2", "s:/Π/ p:x_1 s:/ c:Y2", []string{"x_1", "Y2"}},
	} {
		t.Run(tt.pattern, func(t *testing.T) {
			p, err := parsePattern(tt.pattern)
			if err != nil {
				t.Fatalf("got error %v, want none", err)
			}
			var got []string
			for _, pc := range p.pieces {
				got = append(got, fmt.Sprintf("%c:%s", "spc"[pc.kind], pc.text))
			}
			if g := strings.Join(got, " "); g != tt.pieces {
				t.Errorf("got pieces %q, want %q", g, tt.pieces)
			}
			if !slices.Equal(p.names, tt.names) {
				t.Errorf("got names %q, want %q", p.names, tt.names)
			}
			if s := p.String(); s != tt.pattern {
				t.Errorf("got String() %q, want %q", s, tt.pattern)
			}
		})
	}
}

func TestPatternRejected(t *testing.T) {
	// Malformed patterns panic at registration with a *RouteError whose
	// message names the pattern, the method and the registering line, and
	// says what is wrong: conflicts are caught at registration.
	for _, tt := range []struct {
		method, pattern string
		reason          string
	}{
		{"GET", "/:a:b", `segment ":a:b" has more than one wildcard`},
		{"GET", "/:a*b", `segment ":a*b" has more than one wildcard`},
		{"GET", "/:/x", `wildcard ":" has no name`},
		{"GET", "/*", `wildcard "*" has no name`},
		{"GET", "/x/*", `wildcard "*" has no name`},
		{"GET", "/*a/b", `catch-all "*a" must be the last segment`},
		{"GET", "/*a/", `catch-all "*a" must be the last segment`},
		{"GET", "/:a/b/:a", `duplicate param name "a"`},
		{"GET", "/:a/*a", `duplicate param name "a"`},
		{"GET", "a/b", `pattern must start with '/'`},
		{"GET", "", `pattern must start with '/'`},
		{"GET", "/a//b", `empty segment at byte 3`},
		{"GET", "/a//", `empty segment at byte 3`},
		{"GET", "/a/../b", `dot segment ".." at byte 3`},
		{"GET", "/./a", `dot segment "." at byte 1`},
		{"GET", "/a/.", `dot segment "." at byte 3`},
		{"GET", "/a%2Fb", `pattern has '%' at byte 2: write patterns unescaped and without a query`},
		{"GET", "/a?b=1", `pattern has '?' at byte 2`},
		{"GET", "/a#b", `pattern has '#' at byte 2`},
		{"GET", "/:a-b", `wildcard name "a-b" may hold only letters, digits and '_'`},
		{"GET", "/:π", `wildcard name "π" may hold only letters, digits and '_'`},
		// ServeMux syntax would register literal braces that never match.
		{"GET", "/books/{id}", `pattern has '{' at byte 7: waltz params are written :name and a catch-all *name ("/books/:id"), not {name}`},
		{"GET", "/files/{path...}", `("/files/*path")`},
		{"GET", "/u/{id}/{$}", `("/u/:id/")`},
		{"GET", "/a}", `pattern has '}' at byte 2`},
		{"GE T", "/a", `method "GE T" is not an HTTP token`},
		{"", "/a", `method "" is not an HTTP token`},
	} {
		t.Run(tt.method+" "+tt.pattern, func(t *testing.T) {
			r := New()
			r.Get("/ok", nopHandler)
			_, file, line, _ := runtime.Caller(0)
			err := recoverHandle(func() { r.Handle(tt.method, tt.pattern, nopHandler) })
			re := asRouteError(t, err)
			where := fmt.Sprintf("%s:%d", file[strings.LastIndexByte(file, '/')+1:], line+1)
			if re.Pattern != tt.pattern || re.Method != tt.method || re.Where != where || re.Existing != "" {
				t.Errorf("got %+v, want Pattern %q, Method %q, Where %q", re, tt.pattern, tt.method, where)
			}
			msg := err.Error()
			for _, part := range []string{"waltz: ", fmt.Sprintf("%q", tt.pattern), tt.method, where, tt.reason} {
				if !strings.Contains(msg, part) {
					t.Errorf("got message %q, want it to contain %q", msg, part)
				}
			}
			// Validate, then mutate: the rejected route left nothing behind.
			if got := r.Routes(); len(got) != 1 {
				t.Errorf("got routes %v, want only GET /ok", got)
			}
		})
	}
}

func TestPatternConflict(t *testing.T) {
	// The same method and pattern twice, or patterns that differ only in
	// param names, is a conflict; the message names both patterns, the
	// method, and where each was registered, as ServeMux's does.
	for _, tt := range []struct {
		method, first, second string
	}{
		{"GET", "/a", "/a"},
		{"GET", "/users/:id", "/users/:uid"},
		{"POST", "/files/*path", "/files/*p"},
		{"PROPFIND", "/:a/:b/", "/:x/:y/"},
	} {
		t.Run(tt.method+" "+tt.second, func(t *testing.T) {
			r := New()
			_, file, line, _ := runtime.Caller(0)
			r.Handle(tt.method, tt.first, nopHandler)
			err := recoverHandle(func() { r.Handle(tt.method, tt.second, nopHandler) })
			re := asRouteError(t, err)
			base := file[strings.LastIndexByte(file, '/')+1:]
			w1, w2 := fmt.Sprintf("%s:%d", base, line+1), fmt.Sprintf("%s:%d", base, line+2)
			want := fmt.Sprintf("waltz: %s %q (at %s) conflicts with %s %q (at %s): same method and route shape",
				tt.method, tt.second, w2, tt.method, tt.first, w1)
			if err.Error() != want {
				t.Errorf("got message %q, want %q", err, want)
			}
			if re.Existing != tt.first || re.ExistingWhere != w1 || re.Where != w2 {
				t.Errorf("got %+v, want Existing %q at %s, Where %s", re, tt.first, w1, w2)
			}
			// Another method on the same pattern is no conflict.
			if err := recoverHandle(func() { r.Handle(http.MethodDelete, tt.second, nopHandler) }); err != nil {
				t.Errorf("DELETE %s: got %v, want no conflict", tt.second, err)
			}
		})
	}
}

func TestManyParams(t *testing.T) {
	// 20 and 40 params in one route: waltz sets no
	// limit, and the Context's params grow to the largest route.
	for _, n := range []int{1, 20, 40} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			var pat, path strings.Builder
			var want Params
			for i := range n {
				fmt.Fprintf(&pat, "/:p%d", i)
				fmt.Fprintf(&path, "/v%d", i)
				want = append(want, Param{fmt.Sprintf("p%d", i), fmt.Sprintf("v%d", i)})
			}
			r := New()
			r.Get("/", nopHandler)
			var got Params
			r.Get(pat.String(), func(c *Context) error {
				got = append(Params(nil), c.Params()...)
				return nil
			})
			r.Get(pat.String()+"/*rest", func(c *Context) error {
				got = append(Params(nil), c.Params()...)
				return nil
			})
			if w := serveTarget(t, r, "GET", path.String()); w.Code != http.StatusOK || !slices.Equal(got, want) {
				t.Errorf("got %d %v, want 200 %v", w.Code, got, want)
			}
			want = append(want, Param{"rest", "x/y"})
			if w := serveTarget(t, r, "GET", path.String()+"/x/y"); w.Code != http.StatusOK || !slices.Equal(got, want) {
				t.Errorf("got %d %v, want 200 %v", w.Code, got, want)
			}
		})
	}
}
