package typed

import (
	"reflect"
	"slices"
	"testing"
	"unsafe"
)

// TestStatusEnum: the enum of an Out type's Status field is the list of
// its success statuses, sorted, and a Status outside it is reported as
// not listed; a Status field without an enum takes any.
func TestStatusEnum(t *testing.T) {
	type listed struct {
		Status int `enum:"202,200,303"`
		Body   string
	}
	type open struct {
		Status int
		Body   string
	}
	p, err := PlanOut(reflect.TypeFor[listed](), 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Statuses(); !slices.Equal(got, []int{200, 202, 303}) {
		t.Errorf("Statuses: got %v, want [200 202 303]", got)
	}
	for _, tc := range []struct {
		status, want int
		ok           bool
	}{
		{0, 200, true},
		{202, 202, true},
		{303, 303, true},
		{201, 201, false},
		{500, 500, false},
	} {
		out := listed{Status: tc.status}
		if s, ok := p.Status(unsafe.Pointer(&out)); s != tc.want || ok != tc.ok {
			t.Errorf("Status %d: got %d, %v, want %d, %v", tc.status, s, ok, tc.want, tc.ok)
		}
	}
	q, err := PlanOut(reflect.TypeFor[open](), 0)
	if err != nil {
		t.Fatal(err)
	}
	out := open{Status: 299}
	if s, ok := q.Status(unsafe.Pointer(&out)); s != 299 || !ok || q.Statuses() != nil {
		t.Errorf("no enum: got %d, %v, Statuses %v, want 299, true, nil", s, ok, q.Statuses())
	}
}

// TestStatusAllowed: the statuses a typed success answer may have.
func TestStatusAllowed(t *testing.T) {
	for s, want := range map[int]bool{99: false, 100: false, 199: false, 200: true, 201: true, 202: true, 204: true,
		205: true, 206: false, 226: true, 299: true, 300: true, 301: true, 303: true, 304: false, 305: false,
		306: false, 307: true, 308: true, 400: false, 500: false, 1000: false} {
		if got := StatusAllowed(s) == ""; got != want {
			t.Errorf("%d: allowed %v, want %v (%s)", s, got, want, StatusAllowed(s))
		}
	}
}
