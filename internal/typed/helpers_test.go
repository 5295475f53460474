package typed

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unsafe"
)

// pathVals are a matched pattern's param values, by index.
type pathVals []string

func (p pathVals) PathValue(i int) (string, bool) {
	if i < len(p) {
		return p[i], true
	}
	return "", false
}

// textID is an encoding.TextUnmarshaler and TextMarshaler; "!" starts a
// value it refuses.
type textID struct{ s string }

func (t *textID) UnmarshalText(b []byte) error {
	if len(b) > 0 && b[0] == '!' {
		return errors.New("bad id")
	}
	t.s = string(b)
	return nil
}

func (t textID) MarshalText() ([]byte, error) { return []byte(t.s), nil }

// bindInto plans T for a pattern with the params names, and binds req,
// with the path values vals, into a new T.
func bindInto[T any](tb testing.TB, names, vals []string, req *http.Request, lim Body) (*T, error) {
	tb.Helper()
	p, err := PlanIn(reflect.TypeFor[T](), names)
	if err != nil {
		tb.Fatalf("PlanIn: %v", err)
	}
	v := new(T)
	fs := &failed{}
	in := &Input{Req: req, W: httptest.NewRecorder(), Path: pathVals(vals), Body: lim, Fails: fs}
	err = p.Bind(in, unsafe.Pointer(v))
	switch err {
	case nil:
		if len(fs.list) > 0 {
			tb.Errorf("Bind returned nil with %d failures", len(fs.list))
		}
		return v, nil
	case ErrInvalid, ErrUnreadable:
		if len(fs.list) == 0 {
			tb.Errorf("Bind returned %v with no failures", err)
		}
		fs.broken = err == ErrUnreadable
		return v, fs
	}
	return v, err
}

// failed is the failures of one binding, kept as its FailureSink.
type failed struct {
	list   []fail1
	broken bool
}

type fail1 struct{ loc, keyword, msg string }

func (f *failed) Fail(loc, keyword, msg string) { f.list = append(f.list, fail1{loc, keyword, msg}) }

func (f *failed) Error() string { return "failed" }

// failures returns err's failures as "location keyword" lines, sorted,
// and whether it was a *failed at all.
func failures(err error) ([]string, bool) {
	var fs *failed
	if !errors.As(err, &fs) {
		return nil, false
	}
	var out []string
	for _, f := range fs.list {
		out = append(out, f.loc+" "+f.keyword)
	}
	slices.Sort(out)
	return out, true
}

func get(target string) *http.Request { return httptest.NewRequest(http.MethodGet, target, nil) }

func post(ctype, body string) *http.Request {
	req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	return req
}

func reflectType[T any]() reflect.Type { return reflect.TypeFor[T]() }

func ptrOf[T any](v *T) unsafe.Pointer { return unsafe.Pointer(v) }

func reflectTypeOf(v any) reflect.Type { return reflect.TypeOf(v) }
