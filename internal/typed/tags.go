package typed

import (
	"fmt"
	"iter"
	"reflect"
	"strings"
)

// The tags of a field that waltz refuses at registration, rather than
// leave a limit its author wrote silently unchecked.
//
// A struct's fields carry other libraries' tags too (json, xml, yaml,
// db, validate, gorm, bson, mapstructure, form, ...), which waltz must
// leave alone, so it does not refuse every tag it does not read. It
// refuses two kinds:
//
//   - a tag that is one of its own spelt in another letter case
//     (maxlength for maxLength, Doc for doc, JSON for json): no library
//     would name a tag of its own so, and the spelling is a slip whose
//     rule would otherwise be lost;
//   - a JSON Schema keyword about values that waltz does not check
//     (maxProperties, const, dependentRequired, ...), which its author
//     meant as a rule: the tag would show nowhere and check nothing.
//
// Any other tag is another library's, and left alone.

// knownTags are the tags waltz reads on a field: where its value comes
// from, its rules, its documentation, an upload's limits, an event's
// name, and json, whose names it follows.
var knownTags = append([]string{"path", "query", "header", "cookie", "strict", "explode", "consumes",
	"required", "default", "doc", "example", "accept", "maxBytes", "event", "json"}, ruleTags...)

// uncheckedKeywords are JSON Schema's keywords about values (its
// validation vocabulary, and the applicators of objects and arrays) that
// waltz does not check, each with what to use instead.
var uncheckedKeywords = map[string]string{
	"const":                 "use enum with the one value",
	"minProperties":         "check the count of a map's members in a Validate method",
	"maxProperties":         "check the count of a map's members in a Validate method",
	"dependentRequired":     "check which members come together in a Validate method",
	"dependentSchemas":      "check it in a Validate method",
	"contains":              "check it in a Validate method",
	"minContains":           "check it in a Validate method",
	"maxContains":           "check it in a Validate method",
	"prefixItems":           "use a struct, or check it in a Validate method",
	"additionalProperties":  "Router.DisallowUnknownFields refuses the members a struct does not have",
	"unevaluatedProperties": "Router.DisallowUnknownFields refuses the members a struct does not have",
	"patternProperties":     "give a map's values their rules as tags of the map",
	"propertyNames":         "a map's key type says what its keys are (an integer type, a TextUnmarshaler)",
}

// checkTags returns an error that names the first tag of tag that waltz
// refuses, and what to write instead; nil when it refuses none.
func checkTags(tag reflect.StructTag) error {
	for name, value := range tagPairs(string(tag)) {
		if err := checkTag(name, value); err != nil {
			return err
		}
	}
	return nil
}

// checkTag returns the error of the tag name:"value", or nil.
func checkTag(name, value string) error {
	for _, k := range knownTags {
		if k == name {
			return nil
		}
	}
	for _, k := range knownTags {
		if strings.EqualFold(k, name) {
			return fmt.Errorf("tag %s:%q is no tag waltz knows: did you mean %s?", name, value, k)
		}
	}
	for k, instead := range uncheckedKeywords {
		if strings.EqualFold(k, name) {
			return fmt.Errorf("tag %s:%q: waltz does not check JSON Schema's %s: %s", name, value, k, instead)
		}
	}
	return nil
}

// tagPairs yields the name and value of each pair of a struct tag, by the
// grammar reflect.StructTag.Lookup reads (name:"value", separated by
// spaces), stopping where it would stop: at the first pair it cannot read.
func tagPairs(tag string) iter.Seq2[string, string] {
	return func(yield func(name, value string) bool) {
		for tag != "" {
			tag = strings.TrimLeft(tag, " ")
			i := 0
			for i < len(tag) && tag[i] > ' ' && tag[i] != ':' && tag[i] != '"' && tag[i] != 0x7f {
				i++
			}
			if i == 0 || i+1 >= len(tag) || tag[i] != ':' || tag[i+1] != '"' {
				return
			}
			name := tag[:i]
			tag = tag[i+1:]
			i = 1
			for i < len(tag) && tag[i] != '"' {
				if tag[i] == '\\' {
					i++
				}
				i++
			}
			if i >= len(tag) {
				return
			}
			value, rest := reflect.StructTag(name+":"+tag[:i+1]).Get(name), tag[i+1:]
			if !yield(name, value) {
				return
			}
			tag = rest
		}
	}
}

// quotedRules are the keywords of numbers (JSON Schema 2020-12
// validation section 6.2) and of strings (6.3, and format, section 7),
// which a ,string member's schema cannot say: see checkQuoted.
var quotedRules = [...]string{"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
	"minLength", "maxLength", "pattern", "format"}

// checkQuoted refuses a rule on a ,string member of type t that its
// schema cannot say, so that the document shows every rule the server
// checks. The member's JSON value is a string holding its value's JSON
// text (quotedSchema): a bound on a number applies to no string, and a
// string's length, pattern or format would be judged on its JSON text,
// quotes and escapes included. An enum is written as the texts of its
// values: an integer or a boolean has one (0 two, "-0" too), a float or a
// string many ("1.5" and "15e-1"; "\"a\"" and "\"\\u0061\""), which no
// enum of strings can list.
func checkQuoted(tag reflect.StructTag, t reflect.Type) error {
	str := t.Kind() == reflect.String
	for _, k := range quotedRules {
		v, ok := tag.Lookup(k)
		switch {
		case !ok:
		case str:
			return fmt.Errorf("tag %s:%q on a ,string member: its JSON value is the string's JSON text, "+
				"quotes and escapes included, which JSON Schema's %s would judge rather than the string; "+
				"drop ,string, or check the value in a Validate method", k, v, k)
		default:
			return fmt.Errorf("tag %s:%q on a ,string member: JSON Schema cannot bound a number written as a string, "+
				"so the document could not show it; drop ,string, or check the value in a Validate method", k, v)
		}
	}
	if v, ok := tag.Lookup("enum"); ok && (str || t.Kind() == reflect.Float32 || t.Kind() == reflect.Float64) {
		return fmt.Errorf("tag enum:%q on a ,string member: a value of %s is sent as one of many texts, "+
			"which an enum of strings cannot list; drop ,string, or check the value in a Validate method", v, t)
	}
	return nil
}
