package header

import "strings"

// MediaWeight returns the weight, in thousandths (0 to 1000), that the
// Accept field lines give the media type typ/sub (RFC 9110 section
// 12.5.1), or [Unlisted] when no media range of the field covers it.
//
// The rules:
//   - the most specific range that matches decides: "type/sub" over
//     "type/*" over "*/*", whatever their order; among ranges of the
//     same specificity the highest weight;
//   - types and subtypes compare case-insensitively (section 8.3.1);
//   - parameters of a range other than its weight are not compared: a
//     server's type has none, and "application/json;charset=utf-8" is
//     read as "application/json";
//   - an element whose weight is malformed ("q=2", "q=-1", "q=0.0001")
//     or that is no media range ("json", "/") says nothing and is skipped,
//     as [Codings] skips one: reading it as 0 would turn a typo into a
//     refusal the client never wrote.
func MediaWeight(lines []string, typ, sub string) int {
	w, _ := mediaWeight(lines, typ, sub)
	return w
}

// mediaWeight is MediaWeight, and also reports whether the field has any
// well-formed element at all.
func mediaWeight(lines []string, typ, sub string) (w int, any bool) {
	best, spec := Unlisted, -1
	for _, line := range lines {
		for rest := line; rest != ""; {
			var elem string
			elem, rest = Next(rest)
			rng, params, _ := Cut(elem, ';')
			rt, rs, ok := strings.Cut(TrimOWS(rng), "/")
			if !ok || rt == "" || rs == "" {
				continue
			}
			q, ok := Weight(params)
			if !ok {
				continue
			}
			any = true
			s := -1
			switch {
			case rt == "*" && rs == "*":
				s = 0
			case EqualFold(rt, typ) && rs == "*":
				s = 1
			case EqualFold(rt, typ) && EqualFold(rs, sub):
				s = 2
			}
			if s >= 0 && (s > spec || s == spec && q > best) {
				best, spec = q, s
			}
		}
	}
	return best, any
}

// Accept returns the index in offers of the media type to answer with,
// given the request's Accept field lines (RFC 9110 section 12.5.1): the
// offer of the highest weight ([MediaWeight]) above 0, the first of them
// on a tie, so offers are in the server's order of preference. offers are
// media types "type/subtype" without parameters.
//
// With no field, or a field with no well-formed element (every one
// malformed or empty), the answer is 0: the client said nothing a server
// can read, and section 12.5.1 lets it answer as if it had sent no field.
// When every offer weighs 0 or is not listed, the answer is -1, for a 406
// (Not Acceptable). Accept allocates nothing; its time is the field's
// length times the number of offers.
func Accept(lines []string, offers []string) int {
	if len(lines) == 0 || len(offers) == 0 {
		return 0
	}
	best, bestW := -1, 0
	for i, o := range offers {
		typ, sub, _ := strings.Cut(o, "/")
		w, any := mediaWeight(lines, typ, sub)
		if !any {
			return 0
		}
		if w > bestW {
			best, bestW = i, w
			if w == 1000 {
				break // no later offer can weigh more
			}
		}
	}
	return best
}
