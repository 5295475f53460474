package waltz

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/waltz-go/waltz/internal/seam"
	"github.com/waltz-go/waltz/internal/typed"
)

// The router's side of the seam with the API contract (package api, which
// the router does not import): the hooks internal/seam declares, set once
// as the package is initialized. See internal/seam for what each does.

func init() {
	h := &seam.Router
	h.Route = func(g any, method, path string, hf, inner, op any, at uintptr) (any, error) {
		gr := g.(*Group)
		mw, _ := inner.([]Middleware)
		if err := gr.route(method, path, hf.(HandlerFunc), mw, op, at); err != nil {
			return nil, err
		}
		return &Registration{r: gr.r, method: method, pattern: gr.prefix + path, at: at}, nil
	}
	h.Pattern = func(g any, path string) (string, []seam.Param, error) {
		gr := g.(*Group)
		if gr.r == nil {
			panic("waltz: a Router must be made with waltz.New")
		}
		full := gr.prefix + path
		p, err := parsePattern(full)
		if err != nil {
			return full, nil, err
		}
		return full, seamParams(p), nil
	}
	h.RouterOf = func(g any) any { return g.(*Group).r }
	h.Prefixes = func(g any) []string { return g.(*Group).prefixes() }
	h.MountedAt = func(r any) []string { return r.(*Router).mountedAt() }
	h.Contract = func(r any) *any { return &r.(*Router).contract }
	h.Routes = func(r any) []seam.Route {
		es := r.(*Router).endpoints()
		rs := make([]seam.Route, len(es))
		for i, e := range es {
			rt := e.route()
			rs[i] = seam.Route{Method: rt.Method, Pattern: rt.Pattern, Op: e.info.op, Middleware: e.info.mw}
			if q := r.(*Router).queries[rt.Pattern]; rt.Method == MethodQuery && q != nil && !q.typed {
				rs[i].Accepts = q.types
			}
		}
		return rs
	}
	h.Params = func(pattern string) (string, []seam.Param) {
		p, err := parsePattern(pattern)
		if err != nil {
			return pattern, nil
		}
		var b strings.Builder
		for _, pc := range p.pieces {
			if pc.kind == paramKind || pc.kind == catchAllKind {
				b.WriteString("{" + pc.text + "}")
			} else {
				b.WriteString(pc.text)
			}
		}
		return b.String(), seamParams(p)
	}
	h.Enter = func(c any) *seam.Call {
		cx := c.(*Context)
		cx.call.MediaType = ""
		return &cx.call
	}
	h.Call = func(c any) (*seam.Call, bool) {
		cx := c.(*Context)
		return &cx.call, cx.route != nil && cx.route.info.op != nil
	}
	h.Start = func(c any, helper string, code int, mark bool) error {
		cx := c.(*Context)
		if cx.started() {
			return cx.errStarted(helper, code)
		}
		if mark {
			cx.call.SentTo = cx.Writer
		}
		return nil
	}
	h.Whole = func(c any) { c.(*Context).sentWhole(true) }
	h.BodyError = func(c any, err error) error { return c.(*Context).bodyError(err) }
	h.ServeContent = func(c any, ctype string, modtime time.Time, rs io.ReadSeeker) error {
		return c.(*Context).serveContent(ctype, modtime, rs)
	}
	h.Paced = func(c any, size int64) http.ResponseWriter {
		cx := c.(*Context)
		return paced(cx.Writer, cx.Request, size)
	}
	h.SendEvent = func(es any, id, event string, data []byte) error {
		return es.(*EventStream).sendJSON(id, event, data)
	}
	h.Ended = func(es any) bool { return es.(*EventStream).ctx.Err() != nil }
	h.Lines = func(c any) (any, error) {
		return c.(*Context).stream("a JSON Lines stream", "application/jsonl", "")
	}
	h.SendLine = func(es any, data []byte) error { return es.(*EventStream).sendLine(data) }
	h.SendRetry = func(es any, d time.Duration) error { return es.(*EventStream).sendRetry(d) }
	h.SendID = func(es any, id string) error { return es.(*EventStream).sendID(id) }
	h.StreamContext = func(es any) context.Context { return es.(*EventStream).ctx }
}

// seamParams returns the params of p as the seam gives them to the document:
// names, and what each constraint says of its values.
func seamParams(p *pattern) []seam.Param {
	var ps []seam.Param
	for _, pc := range p.pieces {
		if pc.kind != paramKind && pc.kind != catchAllKind {
			continue
		}
		sp := seam.Param{Name: pc.text, CatchAll: pc.kind == catchAllKind}
		if k := pc.cons; k != nil {
			describeConstraint(&sp, k)
		}
		ps = append(ps, sp)
	}
	return ps
}

// describeConstraint sets on p what the constraint k says of its values
// in JSON Schema's words: an integer for int and uint, a uuid format, or
// an anchored pattern for a regular expression or a letters kind, written
// as the ECMA-262 that JSON Schema reads (typed.ECMAOf: '.' and \s as
// RE2 reads them). One in RE2's syntax that ECMA-262 does not share
// ((?i), \pL) is left out: the document then says the router's 404 for
// a value it refuses, and no pattern a client cannot compile.
func describeConstraint(p *seam.Param, k *constraint) {
	if k.re != nil {
		if e, ok := typed.ECMAOf(k.src); ok {
			p.Pattern = "^(?:" + e + ")$"
		}
		return
	}
	for _, ck := range constraintKinds {
		if string(ck.kind) != k.key {
			continue
		}
		switch {
		case ck.typ == "integer":
			p.Type, p.Format, p.Minimum0 = "integer", ck.format, ck.kind == consUint
		case ck.format != "":
			p.Format = ck.format
		default:
			p.Pattern = "^(?:" + ck.expr + ")$"
		}
	}
}

// serveContent answers c's request with rs, of the media type ctype,
// modified at modtime (zero: unknown), as FileServer answers: its
// preconditions judged by internal/cond, then http.ServeContent with
// FileServer's range rules.
func (c *Context) serveContent(ctype string, modtime time.Time, rs io.ReadSeeker) error {
	size, err := rs.Seek(0, io.SeekEnd)
	if err == nil {
		_, err = rs.Seek(0, io.SeekStart)
	}
	if err != nil {
		return fmt.Errorf("waltz: Download: seeking its content: %w", err)
	}
	w := c.Writer
	fw := &fileWriter{ResponseWriter: w, ctype: ctype, size: size}
	tellType(fw, ctype)
	if err := sendContent(fw, c.Request, "", modtime, size, rs); err != nil {
		return err // a 412, before anything is sent
	}
	c.call.SentTo = w
	return nil
}
