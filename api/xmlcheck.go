package api

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
)

// What encoding/xml cannot write, found in a Body type at registration
// (an operation whose Produces lists XML), rather than as a 500 at the
// request that holds such a value. encoding/xml fails at run time on a
// map, a channel, a function, a complex number or an unsafe.Pointer
// wherever it meets one, on a struct member's bad xml tag, and on a
// comment member that is no string; it writes an interface member as
// whatever the interface holds, which no registration can see. So the
// walk below, over the types a Body's value may hold, as encoding/xml
// walks a value, refuses each of those; an interface member included,
// unless its interface type is itself an xml.Marshaler or an
// encoding.TextMarshaler, or it is left out of XML (xml:"-"). A type
// that writes itself (xml.Marshaler, encoding.TextMarshaler, and for an
// attribute xml.MarshalerAttr) is taken as it is: its error at run time
// is a 500, logged.

var (
	xmlAttrT      = reflect.TypeFor[xml.MarshalerAttr]()
	xmlNameT      = reflect.TypeFor[xml.Name]()
	xmlAttrValueT = reflect.TypeFor[xml.Attr]()
)

// xmlMode is how encoding/xml writes a value: as an element, an
// attribute, or a comment's text.
type xmlMode int

const (
	xmlElement xmlMode = iota
	xmlAttribute
	xmlComment
)

// xmlWalk is one walk over a Body type: the types seen in each mode, so
// that a recursive type ends it.
type xmlWalk struct {
	seen map[xmlKey]bool
}

type xmlKey struct {
	t    reflect.Type
	mode xmlMode
}

// checkXML returns why encoding/xml cannot write every value of the Body
// type body, or nil; see above.
func checkXML(body reflect.Type) error {
	w := &xmlWalk{seen: map[xmlKey]bool{}}
	if err := w.walk(body, xmlElement, ""); err != nil {
		return err
	}
	// The root element's name is the type's, or its XMLName member's.
	root := body
	for root.Kind() == reflect.Pointer {
		root = root.Elem()
	}
	if root.Kind() == reflect.Struct && root.Name() == "" {
		if _, named := root.FieldByName("XMLName"); !named {
			return errors.New("an unnamed struct type gives XML's root element no name: name the type, or give it a member XMLName xml.Name `xml:\"element\"`")
		}
	}
	// What the walk does not repeat of encoding/xml: the root element's
	// name, a struct member's tag (a bad flag, a namespace without a
	// name, two members of one name), found by writing a zero value of
	// the Body, and of each struct type met (behind a nil pointer, a
	// zero value writes nothing of it).
	if _, err := xml.Marshal(reflect.New(body).Interface()); err != nil {
		return err
	}
	for k := range w.seen {
		if k.t.Kind() == reflect.Struct && k.mode == xmlElement && !writesItself(k.t, xmlElement) {
			if err := tagError(k.t); err != nil {
				return err
			}
		}
	}
	return nil
}

// tagError returns the error encoding/xml gives the members' tags of the
// struct type t, found by writing a zero value of it; nil for any other
// outcome, which is no tag's (a Marshaler's own error or panic on a zero
// value is for the request that sends one).
func tagError(t reflect.Type) (err error) {
	defer func() {
		if recover() != nil {
			err = nil
		}
	}()
	start := xml.StartElement{Name: xml.Name{Local: "x"}}
	err = xml.NewEncoder(io.Discard).EncodeElement(reflect.New(t).Interface(), start)
	var unsupported *xml.UnsupportedTypeError
	if err == nil || errors.As(err, &unsupported) || !strings.HasPrefix(err.Error(), "xml: ") {
		return nil
	}
	return err
}

// writesItself reports whether a value of type t (or its address)
// writes itself in mode m: a method of its own that encoding/xml calls.
func writesItself(t reflect.Type, m xmlMode) bool {
	is := func(i reflect.Type) bool {
		return t.Implements(i) || t.Kind() != reflect.Interface && reflect.PointerTo(t).Implements(i)
	}
	switch m {
	case xmlAttribute:
		return is(xmlAttrT) || is(textMarshalerType)
	case xmlComment:
		return false
	}
	return is(xmlMarshalerType) || is(textMarshalerType)
}

// walk returns why encoding/xml cannot write a value of type t in mode
// m, found at path in the Body ("" for the Body itself, "Items[].Meta"
// for a member), or nil.
func (w *xmlWalk) walk(t reflect.Type, m xmlMode, path string) error {
	where := "the Body"
	if path != "" {
		where = "the member " + path
	}
	k := xmlKey{t, m}
	if w.seen[k] {
		return nil
	}
	w.seen[k] = true
	if writesItself(t, m) {
		return nil
	}
	switch t.Kind() {
	case reflect.Pointer:
		return w.walk(t.Elem(), m, path)
	case reflect.Interface:
		return fmt.Errorf("%s is an interface (%s): encoding/xml writes whatever it holds at run time, which registration cannot check; "+
			"give it a concrete type, one that implements xml.Marshaler, or leave it out of XML with the tag xml:\"-\"", where, t)
	case reflect.Map, reflect.Chan, reflect.Func, reflect.Complex64, reflect.Complex128, reflect.UnsafePointer:
		hint := ""
		if t.Kind() == reflect.Map {
			hint = "make it a slice of key and value structs, "
		}
		return fmt.Errorf("%s is a %s, which encoding/xml cannot write: %simplement xml.Marshaler, or leave it out of XML with the tag xml:\"-\"",
			where, t, hint)
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return nil // bytes, as text
		}
		if m == xmlComment {
			return fmt.Errorf("%s is a %s: a comment member must be a string or a []byte", where, t)
		}
		return w.walk(t.Elem(), m, path+"[]")
	case reflect.Struct:
		switch {
		case m == xmlComment:
			return fmt.Errorf("%s is a %s: a comment member must be a string or a []byte", where, t)
		case m == xmlAttribute && t != xmlAttrValueT:
			return fmt.Errorf("%s is a %s: encoding/xml writes an attribute of a simple value, or of a type that implements xml.MarshalerAttr or encoding.TextMarshaler", where, t)
		case m == xmlAttribute:
			return nil
		}
		return w.fields(t, path)
	}
	if m == xmlComment && t.Kind() != reflect.String {
		return fmt.Errorf("%s is a %s: a comment member must be a string or a []byte", where, t)
	}
	return nil // a bool, a number, a string
}

// fields walks the members of the struct type t, at path in the Body,
// as encoding/xml writes them: exported or embedded, not tagged xml:"-",
// an embedded struct's members as its own; XMLName names the element and
// holds no value.
func (w *xmlWalk) fields(t reflect.Type, path string) error {
	if t == xmlNameT {
		return nil
	}
	prefix := path
	if prefix != "" {
		prefix += "."
	}
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("xml")
		if !f.IsExported() && !f.Anonymous || tag == "-" || f.Name == "XMLName" {
			continue
		}
		if f.Anonymous {
			if et := derefType(f.Type); et.Kind() == reflect.Struct {
				if err := w.fields(et, path); err != nil {
					return err
				}
				continue
			}
			if !f.IsExported() {
				continue
			}
		}
		m := xmlElement
		_, flags, _ := strings.Cut(tag, ",")
		for fl := range strings.SplitSeq(flags, ",") {
			switch fl {
			case "attr":
				m = xmlAttribute
			case "comment":
				m = xmlComment
			case "chardata", "cdata":
				// encoding/xml writes text of a simple value and
				// leaves any other out, never failing.
				m = -1
			}
		}
		if m < 0 {
			continue
		}
		if err := w.walk(f.Type, m, prefix+f.Name); err != nil {
			return err
		}
	}
	return nil
}
