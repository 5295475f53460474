package typed

import (
	"bytes"
	"encoding/json"
	"reflect"
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
