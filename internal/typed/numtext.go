package typed

import (
	"math/big"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The text of a scalar, judged before it is parsed: UTF-8, and the
// numbers as JSON writes them, which strconv alone would read more
// loosely ("+1", "0x10", "1_000", "NaN").

// validText reports whether s is UTF-8. ASCII, as a param's value
// usually is, is told 8 bytes (or 4) at a time, in words that may overlap
// as unescape's are, which costs less than utf8.ValidString's call.
func validText(s string) bool {
	const hi8, hi4 = 0x8080808080808080, 0x80808080
	ascii := true
	switch n := len(s); {
	case n >= 8:
		for i := 0; i+8 < n; i += 8 {
			if word8(s[i:])&hi8 != 0 {
				return utf8.ValidString(s)
			}
		}
		ascii = word8(s[n-8:])&hi8 == 0
	case n >= 4:
		ascii = (word4(s)|word4(s[n-4:]))&hi4 == 0
	default:
		for i := 0; i < n; i++ {
			ascii = ascii && s[i] < utf8.RuneSelf
		}
	}
	return ascii || utf8.ValidString(s)
}

// wholeNumber returns s, a number as JSON writes it, in plain digits when
// its value is a whole number written with a fraction or an exponent
// (JSON Schema counts 1.0 and 1e2 as integers), and s itself otherwise.
// Only short texts are looked at: a whole number that fits 64 bits is
// never longer than 20 digits plus a short fraction or exponent.
func wholeNumber(s string) string {
	if integer(s, true) || len(s) > 40 || !strings.ContainsAny(s, ".eE") || !decimalNumber(s) {
		return s
	}
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		if e, err := strconv.Atoi(strings.TrimPrefix(s[i+1:], "+")); err != nil || e > 40 || e < -40 {
			return s
		}
	}
	var r big.Rat
	if _, ok := r.SetString(s); !ok || !r.IsInt() {
		return s
	}
	return r.Num().String()
}

// isJSONNumber reports whether s is a number as RFC 8259 section 6
// writes one, by the body scanner's own grammar.
func isJSONNumber(s string) bool {
	d := decoder{s: []byte(s)}
	d.number()
	return s != "" && d.err == "" && d.i == len(s)
}

// integer reports whether s is decimal digits, after a sign when signed
// (and '+' either way, which strconv takes), and not so long that it
// cannot fit 64 bits.
func integer(s string, signed bool) bool {
	if s != "" && (s[0] == '+' || signed && s[0] == '-') {
		s = s[1:]
	}
	if s == "" || len(s) > 20 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// decimalNumber reports whether s is a number as JSON writes one, with
// an optional leading '+'.
func decimalNumber(s string) bool {
	if s != "" && (s[0] == '-' || s[0] == '+') {
		s = s[1:]
	}
	digits, dot, exp := 0, false, false
	for i := 0; i < len(s); i++ {
		switch b := s[i]; {
		case b >= '0' && b <= '9':
			digits++
		case b == '.' && !dot && !exp:
			dot = true
		case (b == 'e' || b == 'E') && !exp && digits > 0:
			exp, digits = true, 0
			if i+1 < len(s) && (s[i+1] == '+' || s[i+1] == '-') {
				i++
			}
		default:
			return false
		}
	}
	return digits > 0
}
