package header

// QValue parses a weight (RFC 9110 section 12.4.2) into thousandths:
// "0" to "1" with at most three decimals ("0.5" gives 500, "1" and "1.000"
// give 1000). ok is false when v is no weight ("1.5", "0.0001", ".5", "",
// "-1").
func QValue(v string) (q int, ok bool) {
	if v == "" || v[0] != '0' && v[0] != '1' {
		return 0, false
	}
	q = int(v[0]-'0') * 1000
	if len(v) == 1 {
		return q, true
	}
	if v[1] != '.' || len(v) > 5 {
		return 0, false
	}
	for i, unit := 2, 100; i < len(v); i, unit = i+1, unit/10 {
		d := v[i]
		if d < '0' || d > '9' || q == 1000 && d != '0' {
			return 0, false
		}
		q += int(d-'0') * unit
	}
	return q, true
}

// Weight returns the weight among the parameters of a list element, the
// part after its value: ";q=0.5" gives 500, and so does " ; Q=0.5 ;x=y"
// (the name "q" is case-insensitive and white space may stand around
// ';'). With no weight parameter it is 1000; ok is false when the weight
// is malformed (see [QValue]). Section 12.4.2 has the weight come before
// any other parameter of Accept-Encoding; one after others is read too.
func Weight(params string) (q int, ok bool) {
	for params != "" {
		var p string
		p, params, _ = Cut(params, ';')
		p = TrimOWS(p)
		if len(p) < 2 || p[0] != 'q' && p[0] != 'Q' {
			continue
		}
		if name := TrimOWS(p[1:]); name != "" && name[0] == '=' {
			return QValue(TrimOWS(name[1:]))
		}
	}
	return 1000, true
}
