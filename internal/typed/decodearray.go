package typed

import (
	"reflect"
	"strconv"
	"unsafe"
)

// The decoder's arrays: slices and arrays, their items kept or dropped.

// slice decodes a JSON array into the slice at p, and checks its items'
// rules.
func (d *decoder) slice(n *dnode, p unsafe.Pointer) {
	if !d.enter() {
		return
	}
	sv := reflect.NewAt(n.typ, p).Elem()
	if !sv.IsNil() {
		sv.SetZero() // a repeated key: the last one's items only
	}
	h := headerAt(p)
	count := 0
	for first := true; d.nextItem(first); first = false {
		slot := count
		if count >= h.cap { // once items are dropped, count passes cap
			switch {
			case !d.dropItems(n, count):
				sv.Grow(max(4, count)) // at least doubled: a few allocations for any count
			case count == 0:
				sv.Grow(1)
			default:
				slot = h.len - 1 // over the last item kept, which no one reads
			}
		}
		if slot == count {
			h.len = count + 1
			d.wholeItem(n, itemAt(h.data, slot, n.size), count)
		} else if n.elem.kind == dString && !n.elem.quoted && !n.itemRules && d.skipString() {
			d.cut = true // a string no rule reads, not kept: only read
		} else {
			if n.elem.kind > dNumber {
				// A struct, map or slice would be read into over what
				// it held; a scalar is stored whole or not at all, and
				// then not checked.
				reflect.NewAt(n.elem.typ, itemAt(h.data, slot, n.size)).Elem().SetZero()
			}
			unkept := d.unkept
			d.unkept, d.cut = true, true
			d.item(n, itemAt(h.data, slot, n.size), count)
			d.unkept = unkept
		}
		count++
	}
	d.depth--
	if d.err != "" {
		return
	}
	if sv.IsNil() {
		sv.Set(reflect.MakeSlice(n.typ, 0, 0))
	}
	if n.rules != nil {
		d.items(n, h.data, count, h.len)
	}
}

// dropItems reports whether the items of a slice of n past the count it
// holds need not be kept, so that each is decoded, checked and located
// but not stored: when the slice has more items than its maxItems (its
// uniqueItems, the one rule that reads them all, is then not checked),
// or when the request has already failed and no rule reads them all. No
// handler sees a failed request's values; their checks still run, so
// that every failure is told.
func (d *decoder) dropItems(n *dnode, count int) bool {
	if d.keepAll || d.whole > 0 {
		// An item of a slice or array whose uniqueItems compares its
		// items whole, nested slices and all, drops none of them.
		return false
	}
	rs := n.rules
	if rs != nil && rs.maxItems >= 0 && count > rs.maxItems {
		return true
	}
	return d.failed() && (rs == nil || !rs.uniqueItems)
}

// skipString reads an item that is a string, as a dropped item of a
// slice of strings without item rules, whose value nothing reads; false,
// having read nothing, when the item is not a string or holds a lone
// surrogate escape, for the item's full reading to fail it where it is.
func (d *decoder) skipString() bool {
	d.ws()
	if d.i >= len(d.s) || d.s[d.i] != '"' {
		return false
	}
	start := d.i
	d.str()
	if d.lone && d.err == "" {
		d.i = start
		return false
	}
	return true
}

// array decodes a JSON array into the array at p. A typed body's array
// (n.exact) takes an array of its length alone, as its schema's minItems
// and maxItems say (JSON Schema 2020-12 validation sections 6.4.1 and
// 6.4.2): another length is a failure. A bare plan's reads the items past
// its length and drops them, as encoding/json does.
func (d *decoder) array(n *dnode, p unsafe.Pointer) {
	if !d.enter() {
		return
	}
	length, count := n.typ.Len(), 0
	for first := true; d.nextItem(first); first = false {
		if count < length {
			d.wholeItem(n, itemAt(p, count, n.size), count)
		} else {
			d.skip()
		}
		count++
	}
	d.depth--
	if count < length {
		// As encoding/json does: the items the array lacked are zero,
		// not what a repeated key's earlier array left there.
		for i := count; i < length; i++ {
			reflect.NewAt(n.elem.typ, itemAt(p, i, n.size)).Elem().SetZero()
		}
	}
	if d.err != "" {
		return
	}
	if n.exact && count != length {
		// The count failed: the rules on the items as a whole are not
		// checked, as when a slice's count fails (checkItems).
		d.fail(LengthFailure(length, count))
		return
	}
	if n.rules != nil {
		d.items(n, p, min(count, length), min(count, length))
	}
}

// LengthFailure returns the keyword and message of count items sent for
// an array of length items: minItems when too few, maxItems when too
// many, worded as a param's count failures are (package api's Merge
// words its own so).
func LengthFailure(length, count int) (string, string) {
	if count < length {
		return "minItems", "must have at least " + items(length) + ", got " + strconv.Itoa(count)
	}
	return "maxItems", "must have at most " + items(length) + ", got " + strconv.Itoa(count)
}

// wholeItem is item for an item the slice or array keeps: when its
// uniqueItems is to compare the items, the slices inside the item keep
// every item of theirs (see dropItems).
func (d *decoder) wholeItem(n *dnode, p unsafe.Pointer, i int) {
	if n.rules == nil || !n.rules.uniqueItems || n.scalarItems {
		d.item(n, p, i)
		return
	}
	d.whole++
	d.item(n, p, i)
	d.whole--
}

// item decodes item i of a slice or array of n into p, and checks the
// rules of its value when it is a scalar that was read.
func (d *decoder) item(n *dnode, p unsafe.Pointer, i int) {
	d.push("", i)
	had := d.fails.n
	d.value(n.elem, p)
	// An item that failed as a value (a number for a string, say) has
	// no value of its own to check.
	if n.itemRules && d.err == "" && d.fails.n == had {
		d.check(n.rules, n.elem.codec.load(p))
	}
	d.pop()
}

// items checks the rules on the count items of a slice or array of n as
// a whole: their count, and, unless the count failed, whether they are
// unique, at O(n log n) cost. held of them are at data: all of them, but
// for a slice whose items past some were dropped (dropItems), which is
// then not checked for uniqueness (dropItems drops none where that
// would be checked).
func (d *decoder) items(n *dnode, data unsafe.Pointer, count, held int) {
	rs := n.rules
	var distinct func() bool
	if held == count {
		distinct = func() bool {
			if n.scalarItems {
				c := n.elem.codec
				vals := make([]scalar, count)
				for i := range vals {
					vals[i] = c.load(itemAt(data, i, n.size))
				}
				return rs.distinctScalars(vals)
			}
			return distinctValues(n.typ.Elem(), data, count)
		}
	}
	var buf [3]failure
	for _, f := range rs.checkItems(count, distinct, buf[:0]) {
		d.fail(f.keyword, f.message)
	}
}
