package typed

import (
	"bytes"
	"cmp"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"unsafe"
)

// distinctValues reports whether no two of the count items of type t at
// data are equal as JSON values (JSON Schema Core, section 4.2.2: objects
// equal when they have the same members, in any order; numbers equal by
// value). Each item is written once in a canonical form, encoding/json's,
// which writes a struct's members in one order and a map's keys sorted,
// and the forms are sorted: O(n log n) comparisons of items' forms, and
// the items' own size in writing.
func distinctValues(t reflect.Type, data unsafe.Pointer, count int) bool {
	forms := make([][]byte, count)
	for i := range count {
		v := reflect.NewAt(t, itemAt(data, i, t.Size())).Interface()
		b, err := json.Marshal(v)
		if err != nil {
			return true // no form to compare: not known to repeat
		}
		forms[i] = b
	}
	return distinct(count, func(i, j int) int { return bytes.Compare(forms[i], forms[j]) })
}

// distinctScalars reports whether no two of vals are the same value of
// the codec's kind, by sorting a copy of them: O(n log n) comparisons.
func (r *rules) distinctScalars(vals []scalar) bool {
	return distinct(len(vals), func(i, j int) int { return r.compare(vals[i], vals[j]) })
}

// distinct reports whether no two of n items are equal under cmp, a
// total order on item indexes, by sorting the indexes and comparing
// neighbours: O(n log n) calls of cmp at worst (pdqsort's bound).
func distinct(n int, cmp func(i, j int) int) bool {
	if n < 2 {
		return true
	}
	idx := make([]int32, n)
	for i := range idx {
		idx[i] = int32(i)
	}
	slices.SortFunc(idx, func(a, b int32) int { return cmp(int(a), int(b)) })
	for i := 1; i < n; i++ {
		if cmp(int(idx[i-1]), int(idx[i])) == 0 {
			return false
		}
	}
	return true
}

// compare orders a and b, values of the codec's kind.
func (r *rules) compare(a, b scalar) int {
	switch r.codec.kind {
	case kString, kText:
		return strings.Compare(a.s, b.s)
	case kTime:
		return a.t.Compare(b.t)
	case kFloat:
		return cmp.Compare(a.f, b.f)
	case kUint:
		return cmp.Compare(a.u, b.u)
	}
	return cmp.Compare(a.i, b.i)
}
