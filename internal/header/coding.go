package header

// Unlisted is the weight [Codings] gives a coding that Accept-Encoding
// neither lists nor covers with "*".
const Unlisted = -1

// Codings reads the Accept-Encoding field lines of a request (RFC 9110
// section 12.5.3) and sets q[i] to the weight, in thousandths (0 to 1000),
// that they give the content coding names[i], or to [Unlisted]. names are
// lower-case codings such as "gzip", "br" or "identity"; q is at least as
// long as names.
//
// The rules, from sections 12.5.3, 12.4.2 and 8.4.1:
//   - codings compare case-insensitively, and "x-gzip" and "x-compress"
//     are "gzip" and "compress" (section 8.4.1);
//   - a coding the field does not list takes the weight of "*" when "*"
//     is listed, and is Unlisted otherwise; for "identity" the caller then
//     reads Unlisted as acceptable but least preferred, for the others as
//     not acceptable;
//   - a coding listed more than once takes the lowest of its weights: a
//     listed coding is acceptable "unless it is accompanied by a qvalue of
//     0", and every listing accompanies it, so one refusal refuses it, and
//     for weights above 0 the same reading keeps the most cautious;
//   - an element whose weight is malformed ("gzip;q=2") says nothing and
//     is skipped, as are empty elements (section 5.6.1): it is no
//     element of the grammar, and reading it as 0 would turn a typo into a
//     refusal that the client never wrote.
//
// With no field lines every entry is Unlisted: the field's absence means
// any coding is acceptable, which the caller decides how to serve.
func Codings(lines []string, names []string, q []int) {
	q = q[:len(names)]
	for i := range q {
		q[i] = Unlisted
	}
	star := Unlisted
	for _, line := range lines {
		for rest := line; rest != ""; {
			var elem string
			elem, rest = Next(rest)
			coding, params, _ := Cut(elem, ';')
			coding = TrimOWS(coding)
			w, ok := Weight(params)
			if coding == "" || !ok {
				continue
			}
			if coding == "*" {
				star = lowest(star, w)
				continue
			}
			for i, name := range names {
				if sameCoding(coding, name) {
					q[i] = lowest(q[i], w)
				}
			}
		}
	}
	if star == Unlisted {
		return
	}
	for i := range q {
		if q[i] == Unlisted {
			q[i] = star
		}
	}
}

// lowest returns the lower of the weights old and w, or w when old is
// Unlisted.
func lowest(old, w int) int {
	if old == Unlisted || w < old {
		return w
	}
	return old
}

// sameCoding reports whether the coding a client sent names the coding
// name: case-insensitively, with the "x-" aliases of section 8.4.1.
func sameCoding(sent, name string) bool {
	if EqualFold(sent, name) {
		return true
	}
	if len(sent) > 2 && (sent[0] == 'x' || sent[0] == 'X') && sent[1] == '-' {
		alias := sent[2:]
		return (name == "gzip" || name == "compress") && EqualFold(alias, name)
	}
	return false
}

// Coded returns the first content coding other than "identity" that the
// Content-Encoding field lines name (RFC 9110 section 8.4), "" when they
// name none: a body with such a coding is not the bytes of its media
// type. Every line counts, and every element of each, as a recipient
// joins the lines into one list (section 5.3); empty elements are
// skipped (section 5.6.1). It does not allocate.
func Coded(lines []string) string {
	for _, line := range lines {
		for rest := line; rest != ""; {
			var elem string
			elem, rest = Next(rest)
			if elem != "" && !EqualFold(elem, "identity") {
				return elem
			}
		}
	}
	return ""
}
